//! `ferrax fuse`: prints the kernels and the schedule; the output parses, verifies
//! and runs with the same results as the input module.

use ferrax_array::{Array, npy};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the binary; returns (exit code, stdout, stderr).
fn ferrax(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrax"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ferrax binary starts");
    let _ = child.stdin.take().expect("stdin is piped").write_all(stdin);
    let out = child.wait_with_output().expect("ferrax finishes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SOFTMAX: &str = "\
func @f(%x: f32[2,3]) -> (f32[2,3]) {
  %m: f32[2] = reduce_max[axes=[1]](%x)
  %mb: f32[2,3] = broadcast_in_dim[shape=[2,3], dims=[0]](%m)
  %d: f32[2,3] = sub(%x, %mb)
  %e: f32[2,3] = exp(%d)
  %s: f32[2] = reduce_sum[axes=[1]](%e)
  %sb: f32[2,3] = broadcast_in_dim[shape=[2,3], dims=[0]](%s)
  %y: f32[2,3] = div(%e, %sb)
  return %y
}
";

#[test]
fn fuse_prints_a_schedule_that_runs_like_the_input() {
    let dir = std::env::temp_dir().join(format!("ferrax-cli-{}-fuse", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let f = dir.join("softmax.fx");
    std::fs::write(&f, SOFTMAX).expect("write the module");
    let f = f.to_string_lossy().into_owned();

    let (code, fused, stderr) = ferrax(&["fuse", &f], b"");
    assert_eq!(code, 0, "{stderr}");
    assert!(fused.contains("[kind=\"fusion\"]"), "{fused}");
    let module = ferrax_ir::parse(&fused).expect("the output parses");
    ferrax_ir::verify(&module).expect("the output verifies");
    assert_eq!(module.entry().map(|e| e.eqns.len()), Some(3), "{fused}");
    // The same text from stdin.
    let (code, from_stdin, _) = ferrax(&["fuse", "-"], SOFTMAX.as_bytes());
    assert_eq!((code, &from_stdin), (0, &fused));

    let fused_file = dir.join("fused.fx");
    std::fs::write(&fused_file, &fused).expect("write the fused module");
    let x = dir.join("x.npy");
    let values = vec![0.5f32, -1.0, 2.0, 3.0, 3.0, -0.0];
    std::fs::write(&x, npy::write(&Array::from_f32(&[2, 3], values).expect("an array"))).expect("write x");
    let x = x.to_string_lossy().into_owned();
    let want = ferrax(&["run", &f, &x], b"");
    let got = ferrax(&["run", &fused_file.to_string_lossy(), &x], b"");
    assert_eq!(want.0, 0, "{}", want.2);
    assert_eq!((got.0, &got.1), (0, &want.1), "{}", got.2);
}

#[test]
fn fuse_usage_and_bad_modules() {
    let (code, _, stderr) = ferrax(&["fuse"], b"");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("fuse"), "{stderr}");
    let (code, _, stderr) = ferrax(&["fuse", "-"], b"func @f(%x: f32[2]) -> (f32[3]) {\n  return %x\n}\n");
    assert_ne!(code, 0);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}
