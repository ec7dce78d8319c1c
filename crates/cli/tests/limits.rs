//! The command under the process's own limits: with the address space lowered by
//! `ulimit -v`, the default allocation budget shrinks to fit it, so a buffer past it is
//! the one-line budget error (exit 1) rather than an abort on the failed allocation;
//! and Jacobians too large to build are refused before building.

use std::path::PathBuf;
use std::process::Command;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrax-cli-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs `ferrax args...` under `ulimit -v <kib>` (through `sh`): exit code and stderr.
fn ferrax_under_ulimit(kib: u64, args: &[&str]) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_ferrax"))
        .args(args)
        .output()
        .expect("sh runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_default_budget_fits_a_lowered_address_space() {
    let dir = scratch("ulimit");
    let file = dir.join("big.fx");
    // 8 GiB of f32: more than `ulimit -v 8000000` (8.2 GB) leaves once the process is
    // loaded, far less than half of the memory of any machine that runs this.
    std::fs::write(
        &file,
        "func @f() -> (f32[2147483648]) {\n  %c: f32[2147483648] = constant[value=1.0]()\n  return %c\n}\n",
    )
    .expect("write");
    let path = file.to_string_lossy().into_owned();
    for backend in ["jit", "interp"] {
        let (code, stderr) = ferrax_under_ulimit(8_000_000, &["run", &path, "--backend", backend]);
        assert_eq!(code, 1, "{backend}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{backend}: one line: {stderr}");
        assert!(stderr.contains("over the allocation budget of"), "{backend}: {stderr}");
        // The budget named is what the address space leaves, not half of the machine.
        let budget: u64 = stderr
            .split("over the allocation budget of ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{backend}: no budget in {stderr}"));
        assert!(budget < 8_000_000 * 1024, "{backend}: budget {budget} ignores the address-space limit");
    }
    // Under the limit, a small program still runs.
    let small = dir.join("small.fx");
    std::fs::write(&small, "func @f() -> (f32[4]) {\n  %c: f32[4] = constant[value=2.0]()\n  return %c\n}\n")
        .expect("write");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 8000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_ferrax"))
        .args(["run", &small.to_string_lossy()])
        .output()
        .expect("sh runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jacobians_too_large_to_build_are_one_line_errors() {
    let dir = scratch("jac");
    let n = 3000;
    let mut text = format!("func @f(%x: f32[]) -> ({}) {{\n", vec!["f32[]"; n].join(", "));
    for k in 0..n {
        text += &format!("  %y{k}: f32[] = sin(%x)\n");
    }
    text += &format!("  return {}\n}}\n", (0..n).map(|k| format!("%y{k}")).collect::<Vec<_>>().join(", "));
    let file = dir.join("outs.fx");
    std::fs::write(&file, text).expect("write");
    let path = file.to_string_lossy().into_owned();
    for pass in ["jacrev", "hessian"] {
        // The 8 GB address space of the fuzzing run that found the abort.
        let (code, stderr) = ferrax_under_ulimit(8_000_000, &[pass, &path]);
        assert_eq!(code, 1, "{pass}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{pass}: one line: {stderr}");
        assert!(stderr.contains("past the limit of 1000000 equations"), "{pass}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
