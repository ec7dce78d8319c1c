//! End-to-end tests of the `ferrax` command: outputs, exit codes, and bad input of
//! every kind (each prints one line on stderr and exits non-zero, never panics).

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
    ferrax_with_env(args, stdin, &[])
}

fn ferrax_with_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrax"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ferrax binary starts");
    // A closed stdin (the command did not read it) is fine.
    let _ = child.stdin.take().expect("stdin is piped").write_all(stdin);
    let out = child.wait_with_output().expect("ferrax finishes");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrax-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write scratch file");
    path.to_string_lossy().into_owned()
}

fn root(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path).to_string_lossy().into_owned()
}

/// Asserts a failure: the exit code, one line on stderr containing `fragment`, no panic.
fn assert_fails(out: &Output, code: i32, fragment: &str) {
    assert_eq!(out.code, code, "stderr: {}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "expected one line on stderr, got: {}", out.stderr);
    assert!(out.stderr.contains(fragment), "expected '{fragment}' in: {}", out.stderr);
    assert!(!out.stderr.contains("panicked") && !out.stderr.contains("internal error"), "{}", out.stderr);
}

const DOUBLE: &str = "func @double(%x: f32[3]) -> (f32[3]) {\n  %y: f32[3] = add(%x, %x)\n  return %y\n}\n";

#[test]
fn runs_the_readme_example() {
    let out = ferrax(
        &["run", &root("examples/ir/logistic_regression.fx"), &root("examples/ir/x.npy"), &root("examples/ir/w.npy")],
        b"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert!(lines[0].starts_with("out0: f32[] = ["), "{}", out.stdout);
    assert!(lines[1].starts_with("out1: f32[4] = ["), "{}", out.stdout);
}

#[test]
fn the_vector_cap_changes_no_result_and_a_bad_one_is_one_line() {
    let args =
        ["run", &root("examples/ir/logistic_regression.fx"), &root("examples/ir/x.npy"), &root("examples/ir/w.npy")];
    let full = ferrax(&args, b"");
    assert_eq!(full.code, 0, "{}", full.stderr);
    for level in ["avx2", "baseline", "AVX512"] {
        let capped = ferrax_with_env(&args, b"", &[("FERRAX_MAX_ISA", level)]);
        assert_eq!(capped.code, 0, "{level}: {}", capped.stderr);
        assert_eq!(capped.stdout, full.stdout, "{level}");
    }
    let bad = ferrax_with_env(&args, b"", &[("FERRAX_MAX_ISA", "avx1024")]);
    assert_fails(&bad, 1, "FERRAX_MAX_ISA=\"avx1024\": expected one of baseline, avx2, avx512");
}

#[test]
fn print_is_canonical_and_reads_stdin() {
    let text = "func @f(%a: f32[2]) -> (f32[2]) {\n  %b: f32[2] = neg(%a) loc(\"m.rs:1:2\")\n  return %b\n}\n";
    let out = ferrax(&["print", "-"], text.as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "func @f(%0: f32[2]) -> (f32[2]) {\n  %1: f32[2] = neg(%0)\n  return %1\n}\n");
    let with_locs = ferrax(&["print", "-", "--locs"], text.as_bytes());
    assert!(with_locs.stdout.contains("neg(%0) loc(\"m.rs:1:2\")"), "{}", with_locs.stdout);
    let verify = ferrax(&["verify", "-"], text.as_bytes());
    assert_eq!((verify.code, verify.stdout.as_str()), (0, "<stdin>: ok (1 Funcs)\n"));
}

#[test]
fn run_prints_writes_and_elides() {
    let dir = scratch("run");
    let x = write(&dir, "x.npy", &npy::write(&Array::from_f32(&[3], vec![1.0, -2.5, f32::INFINITY]).unwrap()));
    let prog = write(&dir, "double.fx", DOUBLE.as_bytes());
    let out = ferrax(&["run", &prog, &x], b"");
    assert_eq!((out.code, out.stdout.as_str()), (0, "out0: f32[3] = [2.0, -5.0, inf]\n"), "{}", out.stderr);

    let out_dir = dir.join("outs");
    let out = ferrax(&["run", &prog, &x, "--out", &out_dir.to_string_lossy()], b"");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    let written = npy::read_file(&out_dir.join("out0.npy"), &Default::default()).unwrap();
    assert_eq!(written, Array::from_f32(&[3], vec![2.0, -5.0, f32::INFINITY]).unwrap());

    let big = "func @f() -> (i32[1500]) {\n  %0: i32[1500] = iota[dtype=i32, shape=[1500], dim=0]()\n  return %0\n}\n";
    let prog = write(&dir, "big.fx", big.as_bytes());
    let out = ferrax(&["run", &prog], b"");
    assert_eq!(out.stdout, "out0: i32[1500] = [0, 1, 2, ..., 1497, 1498, 1499]\n", "{}", out.stderr);
    let full = ferrax(&["run", &prog, "--full"], b"");
    assert_eq!(full.stdout.matches(", ").count(), 1499);
}

#[test]
fn run_accepts_int64_for_i32_params() {
    let dir = scratch("int64");
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let header = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }          \n";
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for v in [7i64, -3] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let x = write(&dir, "x.npy", &bytes);
    let prog = write(&dir, "f.fx", b"func @f(%x: i32[2]) -> (i32[2]) {\n  %y: i32[2] = mul(%x, %x)\n  return %y\n}\n");
    let out = ferrax(&["run", &prog, &x], b"");
    assert_eq!((out.code, out.stdout.as_str()), (0, "out0: i32[2] = [49, 9]\n"), "{}", out.stderr);
}

#[test]
fn usage_errors_exit_2() {
    for (args, fragment) in [
        (&[][..], "requires a subcommand"),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&["print"], "not provided: <FILE>"),
        (&["print", "a", "b"], "unexpected argument 'b'"),
        (&["run", "x.fx", "--fuel", "many"], "invalid value 'many' for '--fuel <N>'"),
        (&["print", "x", "--what"], "unexpected argument '--what'"),
    ] {
        let out = ferrax(args, b"");
        assert_fails(&out, 2, fragment);
        assert!(out.stderr.starts_with("ferrax: ") && !out.stderr.contains("error:"), "{args:?}: {}", out.stderr);
    }
    assert_eq!(ferrax(&["help"], b"").code, 0);
}

#[test]
fn help_goes_to_stdout_with_examples() {
    for args in [&["--help"][..], &["-h"], &["help"], &["grad", "--help"], &["help", "grad"]] {
        let out = ferrax(args, b"");
        assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{args:?}");
        assert!(out.stdout.contains("ferrax grad model.fx --wrt 0"), "{args:?}: {}", out.stdout);
    }
    let out = ferrax(&["--help"], b"");
    for sub in ["print", "verify", "run", "value-and-grad", "jvp", "vjp", "hvp", "linearize", "transpose", "vmap"] {
        assert!(out.stdout.contains(&format!("ferrax {sub} ")), "no example of {sub}: {}", out.stdout);
    }
    for sub in ["jacfwd", "jacrev", "hessian", "opt", "cost", "dot", "fuse", "completions"] {
        assert!(out.stdout.contains(&format!("ferrax {sub} ")), "no example of {sub}: {}", out.stdout);
        let help = ferrax(&[sub, "--help"], b"");
        assert_eq!(help.code, 0, "{sub}: {}", help.stderr);
        assert!(help.stdout.contains(&format!("Example: ferrax {sub} ")), "{sub}: {}", help.stdout);
    }
    let version = ferrax(&["--version"], b"");
    assert_eq!((version.code, version.stdout.trim()), (0, concat!("ferrax ", env!("CARGO_PKG_VERSION"))));
}

#[test]
fn misspellings_get_one_line_with_a_suggestion() {
    let out = ferrax(&["grad", "f.fx", "--wrtt", "0"], b"");
    assert_fails(&out, 2, "unexpected argument '--wrtt' found; tip: a similar argument exists: '--wrt'");
    let out = ferrax(&["gard", "f.fx"], b"");
    assert_fails(&out, 2, "unrecognized subcommand 'gard'; tip: a similar subcommand exists: 'grad'");
    let out = ferrax(&["run", "f.fx", "--backend", "interpreter"], b"");
    assert_fails(&out, 2, "invalid value 'interpreter' for '--backend <BACKEND>'");
    assert!(out.stderr.contains("interp"), "{}", out.stderr);
}

#[test]
fn completions_print_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = ferrax(&["completions", shell], b"");
        assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{shell}");
        assert!(out.stdout.contains("ferrax") && out.stdout.contains("value-and-grad"), "{shell}: {}", out.stdout);
        assert!(out.stdout.contains("wrt") && out.stdout.contains("in-axes"), "{shell}: {}", out.stdout);
    }
    assert_fails(&ferrax(&["completions", "tcsh"], b""), 2, "invalid value 'tcsh'");
    assert_fails(&ferrax(&["completions"], b""), 2, "<SHELL>");
}

#[test]
fn options_take_their_value_either_way() {
    let dir = scratch("opt-equals");
    let prog = write(&dir, "double.fx", DOUBLE.as_bytes());
    let x = write(&dir, "x.npy", &npy::write(&Array::from_f32(&[3], vec![1.0, 2.0, 3.0]).unwrap()));
    let spaced = ferrax(&["run", &prog, &x, "--backend", "interp", "--fuel", "10"], b"");
    let joined = ferrax(&["run", &prog, "--backend=interp", &x, "--fuel=10"], b"");
    assert_eq!((spaced.code, &spaced.stdout), (0, &joined.stdout), "{}{}", spaced.stderr, joined.stderr);
    assert_eq!(joined.stdout, "out0: f32[3] = [2.0, 4.0, 6.0]\n");
}

#[test]
fn bad_modules_name_their_place() {
    let dir = scratch("modules");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("malformed.fx", b"func @f(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = neg(%x\n  return %y\n}\n".to_vec(), "malformed.fx:3:"),
        ("unknown.fx", b"func @f(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = blorp(%x)\n  return %y\n}\n".to_vec(), "unknown primitive 'blorp'"),
        ("types.fx", b"func @f(%x: f32[2], %z: f32[3]) -> (f32[2]) {\n  %y: f32[2] = add(%x, %z)\n  return %y\n}\n".to_vec(), "types.fx:2:3: in @f, equation 0 (add): operand types differ: f32[2] vs f32[3]"),
        ("empty.fx", Vec::new(), "empty.fx:1:1"),
        ("comments.fx", b"; nothing here\n".to_vec(), "comments.fx:"),
        ("binary.fx", vec![0x7f, 0x45, 0x4c, 0x46, 0, 0, 0xff, 0xfe, 0x01], "not UTF-8"),
        ("deep.fx", format!("func @f() -> () {{\n  %0: f32[] = constant[value={}1{}]()\n  return\n}}\n", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(), "deep.fx:2:"),
        ("huge.fx", b"func @f() -> (f32[100000,100000,100000]) {\n  %0: f32[100000,100000,100000] = constant[value=0.0]()\n  return %0\n}\n".to_vec(), "over the allocation budget"),
    ];
    for (name, text, fragment) in cases {
        let path = write(&dir, name, &text);
        let command = if name == "huge.fx" { "run" } else { "print" };
        let out = ferrax(&[command, &path], b"");
        assert_fails(&out, 1, fragment);
    }
    assert_fails(&ferrax(&["print", &dir.join("missing.fx").to_string_lossy()], b""), 1, "cannot read");
}

#[test]
fn bad_inputs_to_run() {
    let dir = scratch("inputs");
    let prog = write(&dir, "double.fx", DOUBLE.as_bytes());
    let good = npy::write(&Array::from_f32(&[3], vec![1.0, 2.0, 3.0]).unwrap());
    let x = write(&dir, "x.npy", &good);
    let wrong_shape = write(&dir, "shape.npy", &npy::write(&Array::from_f32(&[4], vec![0.0; 4]).unwrap()));
    let wrong_dtype = write(&dir, "dtype.npy", &npy::write(&Array::from_f64(&[3], vec![0.0; 3]).unwrap()));
    let truncated = write(&dir, "trunc.npy", &good[..good.len() - 2]);
    let mut fortran = good.clone();
    let at = fortran.windows(5).position(|w| w == b"False").expect("fortran_order in header");
    fortran[at..at + 5].copy_from_slice(b"True ");
    let fortran = write(&dir, "fortran.npy", &fortran);
    let mut complex = good.clone();
    let at = complex.windows(3).position(|w| w == b"<f4").expect("descr in header");
    complex[at..at + 3].copy_from_slice(b"<c8");
    let complex = write(&dir, "complex.npy", &complex);
    let garbage = write(&dir, "garbage.npy", b"definitely not numpy");
    let missing = dir.join("nope.npy").to_string_lossy().into_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "takes 1 inputs but 0 .npy files were given"),
        (vec![&x, &x], "takes 1 inputs but 2 .npy files were given"),
        (vec![&wrong_shape], "argument 0 of @double must be f32[3], got f32[4]"),
        (vec![&wrong_dtype], "argument 0 of @double must be f32[3], got f64[3]"),
        (vec![&truncated], "truncated"),
        (vec![&fortran], "Fortran"),
        (vec![&complex], "unsupported dtype"),
        (vec![&garbage], "not a .npy file"),
        (vec![&missing], "nope.npy"),
    ];
    for (inputs, fragment) in cases {
        let mut args = vec!["run", prog.as_str()];
        args.extend(inputs);
        assert_fails(&ferrax(&args, b""), 1, fragment);
    }
    let jit = ferrax(&["run", &prog, &x, "--backend", "jit"], b"");
    let interp = ferrax(&["run", &prog, &x, "--backend", "interp"], b"");
    assert_eq!((jit.code, &jit.stdout), (0, &interp.stdout), "the JIT (default) and the interpreter agree");
    assert_fails(&ferrax(&["run", &prog, &x, "--max-bytes", "20", "--backend", "interp"], b""), 1, "allocation budget");
    assert_fails(&ferrax(&["run", &prog, &x, "--max-bytes", "20"], b""), 1, "allocation budget");
}

#[test]
fn fuel_bounds_unbounded_loops() {
    let dir = scratch("fuel");
    let forever = "func @f(%x: i32[]) -> (i32[]) {\n  %y: i32[] = while[cond=@c, body=@b](%x)\n  return %y\n}\n\n\
        func @c(%x: i32[]) -> (bool[]) {\n  %t: bool[] = constant[value=true]()\n  return %t\n}\n\n\
        func @b(%x: i32[]) -> (i32[]) {\n  %one: i32[] = constant[value=1]()\n  %y: i32[] = add(%x, %one)\n  return %y\n}\n";
    let prog = write(&dir, "forever.fx", forever.as_bytes());
    let x = write(&dir, "x.npy", &npy::write(&Array::scalar_i32(0)));
    assert_fails(&ferrax(&["run", &prog, &x, "--fuel", "1000"], b""), 1, "forever.fx:2:3");
}

// ---- transform subcommands ----

/// Runs `ferrax a... | ferrax b... | ...` as a real pipeline; the output of the last
/// command, and the first failure's stderr (every stage must succeed).
fn pipeline(stages: &[&[&str]]) -> Output {
    let mut children = Vec::new();
    let mut previous: Option<std::process::ChildStdout> = None;
    for args in stages {
        let stdin = previous.take().map_or_else(Stdio::null, Stdio::from);
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferrax"))
            .args(*args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the ferrax binary starts");
        previous = child.stdout.take();
        children.push(child);
    }
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut previous.expect("a last stage"), &mut stdout).expect("read the output");
    let mut failure: Option<Output> = None;
    for child in children {
        let out = child.wait_with_output().expect("ferrax finishes");
        let code = out.status.code().unwrap_or(-1);
        if code != 0 && failure.is_none() {
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            failure = Some(Output { code, stdout: String::new(), stderr });
        }
    }
    failure.unwrap_or(Output { code: 0, stdout, stderr: String::new() })
}

fn f64_npy(dir: &Path, name: &str, shape: &[usize], values: &[f64]) -> String {
    write(dir, name, &npy::write(&Array::from_f64(shape, values.to_vec()).expect("a valid array")))
}

/// f(x) = sum(x * x * rev(x)) = a^2 b + a b^2 for x = [a, b]. Its gradient is
/// [2ab + b^2, a^2 + 2ab] and its Hessian [[2b, 2a + 2b], [2a + 2b, 2a]]. At x = [1, 2]
/// with v = [1, -1]: gradient [8, 5], H v = [4 - 6, 6 - 2] = [-2, 4], exact in f64.
const CUBIC: &str = "\
func @f(%x: f64[2]) -> (f64[]) {
  %xx: f64[2] = mul(%x, %x)
  %r: f64[2] = rev[axes=[0]](%x)
  %p: f64[2] = mul(%xx, %r)
  %s: f64[] = reduce_sum[axes=[0]](%p)
  return %s
}
";

#[test]
fn grad_piped_into_jvp_runs_the_hessian_vector_product() {
    let dir = scratch("hvp-pipe");
    let f = write(&dir, "f.fx", CUBIC.as_bytes());
    let x = f64_npy(&dir, "x.npy", &[2], &[1.0, 2.0]);
    let v = f64_npy(&dir, "v.npy", &[2], &[1.0, -1.0]);
    let expected = "out0: f64[2] = [8.0, 5.0]\nout1: f64[2] = [-2.0, 4.0]\n";
    let out = pipeline(&[&["grad", &f], &["jvp", "-"], &["run", "-", &x, &v]]);
    assert_eq!((out.code, out.stdout.as_str()), (0, expected), "{}", out.stderr);
    // The hvp subcommand is the same composition.
    let out = pipeline(&[&["hvp", &f], &["run", "-", &x, &v]]);
    assert_eq!((out.code, out.stdout.as_str()), (0, expected), "{}", out.stderr);
    // And the gradient alone.
    let out = pipeline(&[&["grad", &f], &["run", "-", &x]]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "out0: f64[2] = [8.0, 5.0]\n"), "{}", out.stderr);
}

/// A module with a float parameter outside the default wrt of grad and an integer one.
const MIXED: &str = "\
func @g(%x: f64[3], %w: f64[3], %n: i32[]) -> (f64[]) {
  %nf: f64[] = convert[dtype=f64](%n)
  %nb: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%nf)
  %xw: f64[3] = mul(%x, %w)
  %y: f64[3] = add(%xw, %nb)
  %t: f64[3] = tanh(%y)
  %s: f64[] = reduce_sum[axes=[0]](%t)
  return %s
}
";

#[test]
fn every_transform_subcommand_prints_verifiable_ir() {
    let dir = scratch("transforms");
    let g = write(&dir, "g.fx", MIXED.as_bytes());
    let commands: Vec<Vec<&str>> = vec![
        vec!["grad", &g],
        vec!["grad", &g, "--wrt", "1,0"],
        vec!["value-and-grad", &g],
        vec!["jvp", &g],
        vec!["jvp", &g, "--wrt", "1"],
        vec!["vjp", &g],
        vec!["vjp", &g, "--wrt", "0"],
        vec!["hvp", &g],
        vec!["linearize", &g],
        vec!["linearize", &g, "--wrt", "1"],
    ];
    for args in &commands {
        let out = ferrax(args, b"");
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(out.stdout.starts_with("func @g_"), "{args:?}: {}", out.stdout);
        let verify = ferrax(&["verify", "-"], out.stdout.as_bytes());
        assert_eq!(verify.code, 0, "{args:?}: the output does not verify: {}\n{}", verify.stderr, out.stdout);
        // The output is canonical text: printing it again changes nothing.
        let again = ferrax(&["print", "-"], out.stdout.as_bytes());
        assert_eq!(again.stdout, out.stdout, "{args:?}");
    }
    // transpose reads linearize's output (its linear Func is the one marked [residuals=K]).
    let out = pipeline(&[&["linearize", &g], &["transpose", "-"], &["verify", "-"]]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "<stdin>: ok (1 Funcs)\n"), "{}", out.stderr);
    // With respect to %x alone, the jvp takes one tangent: none for %w (outside wrt) or
    // %n (an integer).
    let out = ferrax(&["jvp", &g, "--wrt", "0"], b"");
    assert!(out.stdout.starts_with("func @g_jvp(%0: f64[3], %1: f64[3], %2: i32[], %3: f64[3]) -> (f64[], f64[])"));
}

#[test]
fn linearize_piped_into_transpose_gives_the_gradient() {
    let dir = scratch("linearize-transpose");
    let f = write(&dir, "f.fx", CUBIC.as_bytes());
    let x = f64_npy(&dir, "x.npy", &[2], &[1.0, 2.0]);
    let linearized = ferrax(&["linearize", &f], b"");
    assert_eq!(linearized.code, 0, "{}", linearized.stderr);
    let transposed = ferrax(&["transpose", "-"], linearized.stdout.as_bytes());
    assert_eq!(transposed.code, 0, "{}", transposed.stderr);
    assert!(transposed.stdout.starts_with("func @f_linearize_linear_transpose("), "{}", transposed.stdout);
    // Run the primal part, keep its residuals, and feed them with the cotangent 1.0 to
    // the transposed linear part: the result is the gradient.
    let outs = dir.join("primal");
    let run = ferrax(&["run", "-", &x, "--out", &outs.to_string_lossy()], linearized.stdout.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let value = npy::read_file(&outs.join("out0.npy"), &Default::default()).expect("the value");
    assert_eq!(value, Array::scalar_f64(6.0));
    let count = std::fs::read_dir(&outs).expect("the outputs").count();
    let mut args: Vec<String> = vec!["run".into(), "-".into()];
    args.extend((1..count).map(|i| outs.join(format!("out{i}.npy")).to_string_lossy().into_owned()));
    args.push(write(&dir, "ct.npy", &npy::write(&Array::scalar_f64(1.0))));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ferrax(&args, transposed.stdout.as_bytes());
    assert_eq!((out.code, out.stdout.as_str()), (0, "out0: f64[2] = [8.0, 5.0]\n"), "{}", out.stderr);
}

/// loss = sum(x * x), with aux = x * x: grad returns (aux, 2x).
const WITH_AUX: &str = "\
func @f(%x: f64[2]) -> (f64[], f64[2]) {
  %sq: f64[2] = mul(%x, %x)
  %l: f64[] = reduce_sum[axes=[0]](%sq)
  return %l, %sq
}
";

#[test]
fn has_aux_for_grad_and_value_and_grad() {
    let dir = scratch("aux");
    let f = write(&dir, "f.fx", WITH_AUX.as_bytes());
    let x = f64_npy(&dir, "x.npy", &[2], &[1.0, 2.0]);
    let out = pipeline(&[&["grad", &f, "--has-aux"], &["run", "-", &x]]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "out0: f64[2] = [1.0, 4.0]\nout1: f64[2] = [2.0, 4.0]\n"),
        "{}",
        out.stderr
    );
    let out = pipeline(&[&["value-and-grad", &f, "--has-aux"], &["run", "-", &x]]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "out0: f64[] = [5.0]\nout1: f64[2] = [1.0, 4.0]\nout2: f64[2] = [2.0, 4.0]\n"),
        "{}",
        out.stderr
    );
    // Without --has-aux, a second result is an error that says what to do.
    for command in ["grad", "value-and-grad"] {
        assert_fails(&ferrax(&[command, &f], b""), 1, "returns 2 values; pass has_aux");
    }
}

#[test]
fn bad_wrt_and_bad_functions_are_one_line_errors() {
    let dir = scratch("transform-errors");
    let g = write(&dir, "g.fx", MIXED.as_bytes());
    for command in ["grad", "value-and-grad", "jvp", "vjp", "hvp", "linearize"] {
        assert_fails(&ferrax(&[command, &g, "--wrt", "3"], b""), 1, "wrt index 3 is out of range: @g has 3 parameters");
        assert_fails(&ferrax(&[command, &g, "--wrt", "0,2"], b""), 1, "wrt index 2: parameter 2 is i32[], not a float");
    }
    assert_fails(&ferrax(&["grad", &g, "--wrt", "0,0"], b""), 1, "wrt index 0 is repeated");
    // A malformed list is a usage error.
    let out = ferrax(&["grad", &g, "--wrt", "zero"], b"");
    assert_eq!((out.code, out.stderr.lines().count()), (2, 1), "{}", out.stderr);
    // grad of a function that does not return a scalar.
    let vector = write(&dir, "v.fx", b"func @v(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = sin(%x)\n  return %y\n}\n");
    for command in ["grad", "value-and-grad", "hvp"] {
        assert_fails(
            &ferrax(&[command, &vector], b""),
            1,
            "must return a float scalar first (grad of a scalar function), got f64[2]",
        );
    }
    // transpose of a Func that is not a linear one.
    assert_fails(&ferrax(&["transpose", &g], b""), 1, "not marked [residuals=K]");
}

// ---- vmap and the Jacobians ----

/// loss(W, x) = sum(tanh(W x)) for one example x: its gradient with respect to W is
/// (1 - tanh(W x)^2) x^T, of W's shape [2, 3].
const TANH_LAYER: &str = "\
func @loss(%w: f64[2,3], %x: f64[3]) -> (f64[]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[2] = tanh(%y)
  %s: f64[] = reduce_sum[axes=[0]](%t)
  return %s
}
";

/// The numbers of `out{index}: TYPE = [v, ...]` in `stdout`, and the type.
fn output_values(stdout: &str, index: usize) -> (String, Vec<f64>) {
    let prefix = format!("out{index}: ");
    let line =
        stdout.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("no out{index}: {stdout}"));
    let (ty, values) = line.split_once(" = ").expect("TYPE = [values]");
    let values = values.trim_start_matches('[').trim_end_matches(']');
    let parsed = values.split(", ").map(|v| v.parse::<f64>().expect("a number")).collect();
    (ty.to_string(), parsed)
}

/// The "done when": `ferrax grad f.fx | ferrax vmap - --in-axes none,0
/// --axis-size 8` gives per-example gradients, equal to the gradient of each example
/// computed on its own (and to the closed form).
#[test]
fn grad_piped_into_vmap_gives_per_example_gradients() {
    let dir = scratch("per-example");
    let f = write(&dir, "loss.fx", TANH_LAYER.as_bytes());
    let w_values: Vec<f64> = (0..6).map(|i| 0.3 * i as f64 - 0.7).collect();
    let xs_values: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 / 5.0 - 1.0).collect();
    let w = f64_npy(&dir, "w.npy", &[2, 3], &w_values);
    let xs = f64_npy(&dir, "xs.npy", &[8, 3], &xs_values);
    let out =
        pipeline(&[&["grad", &f], &["vmap", "-", "--in-axes", "none,0", "--axis-size", "8"], &["run", "-", &w, &xs]]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    let (ty, batched) = output_values(&out.stdout, 0);
    assert_eq!(ty, "f64[8,2,3]");
    for (b, x) in xs_values.chunks(3).enumerate() {
        // The same example through `grad` alone.
        let x_path = f64_npy(&dir, &format!("x{b}.npy"), &[3], x);
        let single = pipeline(&[&["grad", &f], &["run", "-", &w, &x_path]]);
        assert_eq!(single.code, 0, "{}", single.stderr);
        let (ty, one) = output_values(&single.stdout, 0);
        assert_eq!(ty, "f64[2,3]");
        // Equal up to the JIT's exactness policy (the batched and single programs fuse
        // differently, and fma contraction may round once where the other rounds twice).
        for (got, want) in batched[6 * b..6 * b + 6].iter().zip(&one) {
            assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "example {b}: {got} vs {want}");
        }
        // And the closed form.
        for (r, row) in w_values.chunks(3).enumerate() {
            let y: f64 = row.iter().zip(x).map(|(a, b)| a * b).sum();
            let d = 1.0 - y.tanh().powi(2);
            for c in 0..3 {
                let expected = d * x[c];
                let actual = batched[6 * b + 3 * r + c];
                assert!((actual - expected).abs() < 1e-12, "example {b} [{r},{c}]: {actual} vs {expected}");
            }
        }
    }
    // --out-axes moves the batch axis: [2, 3, 8] with out-axes -1, the same numbers.
    let out = pipeline(&[
        &["grad", &f],
        &["vmap", "-", "--in-axes", "none,0", "--axis-size", "8", "--out-axes", "-1"],
        &["run", "-", &w, &xs],
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (ty, last) = output_values(&out.stdout, 0);
    assert_eq!(ty, "f64[2,3,8]");
    for b in 0..8 {
        for k in 0..6 {
            assert_eq!(last[8 * k + b], batched[6 * b + k], "example {b}, element {k}");
        }
    }
}

/// vmap prints canonical, verifiable text whose entry takes the batched parameters.
#[test]
fn vmap_prints_the_batched_signature() {
    let dir = scratch("vmap-signature");
    let f = write(&dir, "loss.fx", TANH_LAYER.as_bytes());
    let out = ferrax(&["vmap", &f, "--in-axes", "none,-1", "--axis-size", "5"], b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("func @loss_vmap(%0: f64[2,3], %1: f64[3,5]) -> (f64[5])"), "{}", out.stdout);
    assert!(!out.stdout.contains("while") && !out.stdout.contains("scan"), "a loop in vmap: {}", out.stdout);
    let again = ferrax(&["print", "-"], out.stdout.as_bytes());
    assert_eq!((again.code, again.stdout.as_str()), (0, out.stdout.as_str()), "{}", again.stderr);
}

/// g(x) = x * x * rev(x) = [a^2 b, a b^2] for x = [a, b]: J = [[2ab, a^2], [b^2, 2ab]],
/// at [1, 2]: [[4, 1], [4, 4]], exact in f64.
const CUBIC_VECTOR: &str = "\
func @g(%x: f64[2]) -> (f64[2]) {
  %xx: f64[2] = mul(%x, %x)
  %r: f64[2] = rev[axes=[0]](%x)
  %p: f64[2] = mul(%xx, %r)
  return %p
}
";

#[test]
fn jacfwd_jacrev_and_hessian_have_jax_layout() {
    let dir = scratch("jacobians");
    let g = write(&dir, "g.fx", CUBIC_VECTOR.as_bytes());
    let f = write(&dir, "f.fx", CUBIC.as_bytes());
    let x = f64_npy(&dir, "x.npy", &[2], &[1.0, 2.0]);
    for command in ["jacfwd", "jacrev"] {
        // out.shape + param.shape.
        let out = pipeline(&[&[command, &g], &["run", "-", &x]]);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (0, "out0: f64[2,2] = [4.0, 1.0, 4.0, 4.0]\n"),
            "{command}: {}",
            out.stderr
        );
        // The Jacobian of a scalar function is its gradient.
        let out = pipeline(&[&[command, &f], &["run", "-", &x]]);
        assert_eq!((out.code, out.stdout.as_str()), (0, "out0: f64[2] = [8.0, 5.0]\n"), "{command}: {}", out.stderr);
    }
    // The Hessian of the CUBIC: [[2b, 2a + 2b], [2a + 2b, 2a]] at [1, 2].
    let out = pipeline(&[&["hessian", &f], &["run", "-", &x]]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "out0: f64[2,2] = [4.0, 6.0, 6.0, 2.0]\n"), "{}", out.stderr);
    // The Hessian of a vector function: out.shape + param.shape + param.shape. g's
    // second derivatives: d2(a^2 b) = [[2b, 2a], [2a, 0]], d2(a b^2) = [[0, 2b], [2b, 2a]].
    let out = pipeline(&[&["hessian", &g], &["run", "-", &x]]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "out0: f64[2,2,2] = [4.0, 2.0, 2.0, 0.0, 0.0, 4.0, 4.0, 2.0]\n"),
        "{}",
        out.stderr
    );
    // Several parameters: one Jacobian per (output, wrt) pair, outputs outer.
    let dir2 = scratch("jacobians-two");
    let two = write(
        &dir2,
        "two.fx",
        b"func @h(%x: f64[2], %y: f64[]) -> (f64[2], f64[]) {\n  %b: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%y)\n  %p: f64[2] = mul(%x, %b)\n  %s: f64[] = reduce_sum[axes=[0]](%x)\n  return %p, %s\n}\n",
    );
    let y = write(&dir2, "y.npy", &npy::write(&Array::scalar_f64(3.0)));
    let x2 = f64_npy(&dir2, "x.npy", &[2], &[1.0, 2.0]);
    for command in ["jacfwd", "jacrev"] {
        let out = pipeline(&[&[command, &two, "--wrt", "0,1"], &["run", "-", &x2, &y]]);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (
                0,
                "out0: f64[2,2] = [3.0, 0.0, 0.0, 3.0]\nout1: f64[2] = [1.0, 2.0]\nout2: f64[2] = [1.0, 1.0]\nout3: f64[] = [0.0]\n"
            ),
            "{command}: {}",
            out.stderr
        );
    }
}

#[test]
fn vmap_usage_errors_exit_2_with_one_line() {
    let dir = scratch("vmap-usage");
    let f = write(&dir, "loss.fx", TANH_LAYER.as_bytes());
    for (args, fragment) in [
        (
            vec!["vmap", &f, "--in-axes", "none,0"],
            "the following required arguments were not provided: --axis-size <N>",
        ),
        (vec!["vmap", &f, "--axis-size", "3"], "the following required arguments were not provided: --in-axes <AXES>"),
        (
            vec!["vmap", &f, "--in-axes", "zero,0", "--axis-size", "3"],
            "invalid value 'zero' for '--in-axes <AXES>': expects integers or none",
        ),
        (vec!["vmap", &f, "--in-axes", "0,1.5", "--axis-size", "3"], "invalid value '1.5'"),
        (
            vec!["vmap", &f, "--in-axes", "0,0", "--axis-size", "three"],
            "invalid value 'three' for '--axis-size <N>': expects a non-negative integer",
        ),
        (
            vec!["vmap", &f, "--in-axes", "0,0", "--axis-size", "3", "--out-axes", "x"],
            "invalid value 'x' for '--out-axes <AXES>': expects integers",
        ),
        (
            vec!["vmap", "--in-axes", "0,0", "--axis-size", "3"],
            "the following required arguments were not provided: <FILE>",
        ),
        (vec!["vmap", &f, "--in-axes", "0,0", "--axis-size", "3", "--wrt", "0"], "unexpected argument '--wrt'"),
    ] {
        assert_fails(&ferrax(&args, b""), 2, fragment);
    }
    // Well-formed flags that do not fit the module are errors of the transform (exit 1).
    for (args, fragment) in [
        (vec!["vmap", &f, "--in-axes", "0", "--axis-size", "3"], "in_axes has 1 entries but @loss has 2 parameters"),
        (vec!["vmap", &f, "--in-axes", "none,2", "--axis-size", "3"], "in_axes[1]: axis 2 is out of range"),
        (vec!["vmap", &f, "--in-axes", "0,0", "--axis-size", "3", "--out-axes", "0,0"], "out_axes has 2 entries"),
        (vec!["vmap", &f, "--in-axes", "0,0", "--axis-size", "3", "--out-axes", "2"], "out_axes for output 0"),
    ] {
        assert_fails(&ferrax(&args, b""), 1, fragment);
    }
}

// ---- opt ----

/// `ferrax grad | ferrax grad - | ferrax opt -`: the second derivative of x sin x,
/// optimised to a handful of equations, gives the same values as unoptimised.
#[test]
fn opt_shrinks_the_second_derivative_and_keeps_its_values() {
    let dir = scratch("opt");
    let f = write(
        &dir,
        "f.fx",
        b"func @f(%x: f64[]) -> (f64[]) {\n  %s: f64[] = sin(%x)\n  %y: f64[] = mul(%x, %s)\n  return %y\n}\n",
    );
    let optimised = pipeline(&[&["grad", &f], &["grad", "-"], &["opt", "-"]]);
    assert_eq!(optimised.code, 0, "{}", optimised.stderr);
    let eqns = optimised.stdout.lines().filter(|l| l.trim_start().starts_with('%')).count();
    assert!(eqns <= 10, "{}", optimised.stdout);
    let opt_file = write(&dir, "gg_opt.fx", optimised.stdout.as_bytes());
    let x = f64_npy(&dir, "x.npy", &[], &[0.75]);
    let want = pipeline(&[&["grad", &f], &["grad", "-"], &["run", "-", &x]]);
    let got = ferrax(&["run", &opt_file, &x], b"");
    assert_eq!((got.code, &got.stdout), (0, &want.stdout), "{}", got.stderr);
    assert_fails(&ferrax(&["opt"], b""), 2, "opt");
}

/// `run --axis i=N`: the JIT on N worker threads equals the interpreter's vmap with the
/// axis name, outputs stacked along axis 0; a wrong leading axis or an undeclared name
/// is one line and exit 1.
#[test]
fn run_with_an_axis_binds_it_to_workers() {
    let dir = scratch("axis");
    let prog = write(
        &dir,
        "workers.fx",
        b"func @f[axis_names=[\"i\"]](%x: f64[2]) -> (f64[2], f64[2], i32[]) {\n  \
          %s: f64[2] = psum[axes=[\"i\"]](%x)\n  \
          %g: f64[2] = ppermute[axis_name=\"i\", perm=[[0,1],[1,2],[2,0]]](%x)\n  \
          %k: i32[] = axis_index[axis_name=\"i\"]()\n  return %s, %g, %k\n}\n",
    );
    let xs = write(&dir, "xs.npy", &npy::write(&Array::from_f64(&[3, 2], (0..6).map(f64::from).collect()).unwrap()));
    let jit = ferrax(&["run", &prog, &xs, "--axis", "i=3"], b"");
    let interp = ferrax(&["run", &prog, &xs, "--axis=i=3", "--backend", "interp"], b"");
    assert_eq!((jit.code, &jit.stdout), (0, &interp.stdout), "{}{}", jit.stderr, interp.stderr);
    assert_eq!(
        jit.stdout,
        "out0: f64[3,2] = [6.0, 9.0, 6.0, 9.0, 6.0, 9.0]\nout1: f64[3,2] = [4.0, 5.0, 0.0, 1.0, 2.0, 3.0]\n\
         out2: i32[3] = [0, 1, 2]\n"
    );
    assert_fails(&ferrax(&["run", &prog, &xs, "--axis", "i=2"], b""), 1, "must be f64[2,2], got f64[3,2]");
    assert_fails(&ferrax(&["run", &prog, &xs, "--axis", "j=3"], b""), 1, "declares no axis `j`");
    assert_fails(&ferrax(&["run", &prog, &xs, "--axis", "i"], b""), 2, "NAME=N");
    assert_fails(&ferrax(&["run", &prog, &xs], b""), 1, "must be f64[2], got f64[3,2]");
}
