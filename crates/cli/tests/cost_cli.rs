//! End-to-end tests of `ferrax cost`, `ferrax dot` and `ferrax grad --max-bytes`.

use ferrax_array::{Array, npy};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn ferrax(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrax"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ferrax binary starts");
    let _ = child.stdin.take().expect("stdin is piped").write_all(stdin);
    let out = child.wait_with_output().expect("ferrax finishes");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn root(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path).to_string_lossy().into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrax-cost-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn assert_fails(out: &Output, code: i32, fragment: &str) {
    assert_eq!(out.code, code, "stderr: {}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "expected one line on stderr, got: {}", out.stderr);
    assert!(out.stderr.contains(fragment), "expected '{fragment}' in: {}", out.stderr);
    assert!(!out.stderr.contains("panicked") && !out.stderr.contains("internal error"), "{}", out.stderr);
}

/// The entry's "peak live bytes" figure from `ferrax cost` of `text`.
fn peak_of(text: &str) -> u64 {
    let out = ferrax(&["cost", "-"], text.as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("peak live bytes"))
        .and_then(|v| v.trim().parse().ok())
        .expect("a peak live bytes line")
}

/// A 12-layer `tanh(h * a_i)` chain over `f32[64]` with scalar weights.
fn chain() -> String {
    let mut text = String::from("func @chain(%x: f32[64]");
    (0..12).for_each(|i| text.push_str(&format!(", %a{i}: f32[]")));
    text.push_str(") -> (f32[]) {\n");
    let mut h = "x".to_string();
    for i in 0..12 {
        text.push_str(&format!("  %b{i}: f32[64] = broadcast_in_dim[shape=[64], dims=[]](%a{i})\n"));
        text.push_str(&format!("  %m{i}: f32[64] = mul(%{h}, %b{i})\n  %h{i}: f32[64] = tanh(%m{i})\n"));
        h = format!("h{i}");
    }
    text.push_str(&format!("  %s: f32[] = reduce_sum[axes=[0]](%{h})\n  return %s\n}}\n"));
    text
}

#[test]
fn cost_of_logistic_regression() {
    let out = ferrax(&["cost", &root("examples/ir/logistic_regression.fx")], b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("cost_logistic_regression", out.stdout);
    let wrt = ferrax(&["cost", &root("examples/ir/logistic_regression.fx"), "--wrt", "1"], b"");
    assert_eq!(wrt.code, 0, "{}", wrt.stderr);
    assert!(wrt.stdout.contains("residuals of reverse mode through @loss"), "{}", wrt.stdout);
}

#[test]
fn dot_draws_the_entry_or_a_named_func() {
    let out = ferrax(&["dot", &root("examples/ir/logistic_regression.fx")], b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("digraph \"loss\" {"), "{}", out.stdout);
    assert!(out.stdout.contains("e0 [label=\"dot_general\\nf32[4]\"];"), "{}", out.stdout);
    assert_eq!(out.stdout.matches('{').count(), out.stdout.matches('}').count());
    let remat = ferrax(&["dot", &root("ir/vjp/control_remat.fx"), "--func", "@layer"], b"");
    assert!(remat.stdout.starts_with("digraph \"layer\" {"), "{}", remat.stdout);
    assert_fails(&ferrax(&["dot", &root("ir/vjp/control_remat.fx"), "--func", "nope"], b""), 1, "no Func @nope");
}

#[test]
fn grad_with_max_bytes_fits_and_keeps_the_values() {
    let text = chain();
    let plain = ferrax(&["grad", "-", "--wrt", "0,1,2,3,4,5,6,7,8,9,10,11,12"], text.as_bytes());
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let p = peak_of(&plain.stdout);
    let budget = (p / 2).to_string();
    let args = ["grad", "-", "--wrt", "0,1,2,3,4,5,6,7,8,9,10,11,12", "--max-bytes", &budget];
    let fitted = ferrax(&args, text.as_bytes());
    assert_eq!(fitted.code, 0, "{}", fitted.stderr);
    assert!(peak_of(&fitted.stdout) <= p / 2, "{}", fitted.stdout);
    let dir = scratch("grad-max-bytes");
    let mut files = Vec::new();
    let x: Vec<f32> = (0..64).map(|i| (i as f32 * 0.37).sin()).collect();
    let path = dir.join("x.npy");
    npy::write_file(&path, &Array::from_f32(&[64], x).unwrap()).unwrap();
    files.push(path.to_string_lossy().into_owned());
    for i in 0..12 {
        let path = dir.join(format!("a{i}.npy"));
        npy::write_file(&path, &Array::from_f32(&[], vec![0.9 + 0.05 * i as f32]).unwrap()).unwrap();
        files.push(path.to_string_lossy().into_owned());
    }
    // On the reference interpreter: bit-identical (the JIT may fuse the two modules
    // differently, which its exactness policy allows to differ in the last bit).
    let run = |module: &str| {
        let mut args = vec!["run", "-", "--backend", "interp"];
        args.extend(files.iter().map(String::as_str));
        let out = ferrax(&args, module.as_bytes());
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    assert_eq!(run(&plain.stdout), run(&fitted.stdout));
    let vg = ferrax(&["value-and-grad", "-", "--max-bytes", &budget], text.as_bytes());
    assert_eq!(vg.code, 0, "{}", vg.stderr);
}

#[test]
fn budget_and_usage_errors() {
    let text = chain();
    assert_fails(&ferrax(&["grad", "-", "--max-bytes", "100"], text.as_bytes()), 1, "the best peak found is");
    assert_fails(
        &ferrax(&["grad", "-", "--max-bytes", "lots"], text.as_bytes()),
        2,
        "invalid value 'lots' for '--max-bytes <N>': expects a non-negative integer",
    );
    assert_fails(&ferrax(&["jvp", "-", "--max-bytes", "100"], text.as_bytes()), 2, "unexpected argument '--max-bytes'");
    assert_fails(
        &ferrax(&["cost", "-", "--wrt", "x"], text.as_bytes()),
        2,
        "invalid value 'x' for '--wrt <INDICES>': expects parameter indices",
    );
    assert_fails(&ferrax(&["cost", "-", "--wrt", "99"], text.as_bytes()), 1, "out of range");
    assert_fails(&ferrax(&["dot"], b""), 2, "the following required arguments were not provided: <FILE>");
}
