//! The harness catches what it is for: fake commands (shell scripts) that abort,
//! hang, print two error lines or a panic are defects, and a well-behaved one is not.

use ferrax_clifuzz::verdict::{DefectKind, Verdict};
use ferrax_clifuzz::{Config, fuzz, replay};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrax-clifuzz-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A fake `ferrax`: a shell script with `body`.
fn fake(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("fake-ferrax");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn config(dir: &Path, ferrax: PathBuf, cases: u64) -> Config {
    let mut config = Config::new(ferrax);
    config.cases = cases;
    config.limits.cpu = Duration::from_secs(1);
    config.limits.wall = Duration::from_millis(1500);
    config.work_dir = dir.join("work");
    config.save_dir = Some(dir.join("saved"));
    config
}

fn kinds(summary: &ferrax_clifuzz::Summary) -> Vec<DefectKind> {
    summary
        .defects
        .iter()
        .filter_map(|d| match d.verdict {
            Verdict::Defect { kind, .. } => Some(kind),
            _ => None,
        })
        .collect()
}

#[test]
fn a_one_line_error_is_not_a_defect() {
    let dir = scratch("clean");
    let summary = fuzz(&config(&dir, fake(&dir, "echo \"ferrax: $1: refused\" >&2; exit 1"), 40)).expect("runs");
    assert!(summary.defects.is_empty(), "{summary}");
    assert_eq!(summary.runs(), 40);
    assert_eq!(summary.per_subcommand.values().map(|c| c.refused).sum::<u64>(), 40);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn aborts_hangs_panics_and_long_errors_are_defects_and_are_saved() {
    let kinds_and_bodies = [
        ("abort", "kill -ABRT $$", DefectKind::Signal),
        ("hang", "sleep 30", DefectKind::Timeout),
        ("busy", "while :; do :; done", DefectKind::Timeout),
        ("panic", "echo 'ferrax: internal error (please report it) at x.rs:1:2' >&2; exit 101", DefectKind::Panic),
        ("two-lines", "echo 'ferrax: a' >&2; echo 'ferrax: b' >&2; exit 1", DefectKind::ErrorFormat),
        ("silent", "exit 1", DefectKind::ErrorFormat),
        ("oom", "exit 134", DefectKind::ExitCode),
        ("noisy", "echo warning >&2; exit 0", DefectKind::NoisySuccess),
    ];
    // One thread per fake, so the two that wait for a limit do not add up.
    std::thread::scope(|scope| {
        for (name, body, want) in kinds_and_bodies {
            scope.spawn(move || {
                let dir = scratch(name);
                let summary = fuzz(&config(&dir, fake(&dir, body), 2)).expect("runs");
                assert_eq!(kinds(&summary), vec![want; 2], "{name}: {summary}");
                // Each defect is saved, and replaying it finds the same defect.
                let saved = summary.defects[0].saved.clone().expect("saved");
                assert!(saved.join("case.txt").is_file() && saved.join("module.fx").is_file(), "{name}");
                let again = replay(&config(&dir, fake(&dir, body), 0), std::slice::from_ref(&saved)).expect("replays");
                assert_eq!(kinds(&again), vec![want], "{name}: {again}");
                assert_eq!(again.defects[0].label, saved.display().to_string());
                let _ = std::fs::remove_dir_all(&dir);
            });
        }
    });
}

#[test]
fn the_limits_reach_the_child() {
    let dir = scratch("limits");
    // The script prints its own address-space (KiB) and CPU-time (s) limits.
    let mut c = config(&dir, fake(&dir, "echo \"ferrax: limits $(ulimit -v) $(ulimit -t)\" >&2; exit 1"), 1);
    c.limits.memory = Some(256 << 20);
    c.limits.cpu = Duration::from_secs(7);
    c.limits.wall = Duration::from_secs(20);
    let mut case = ferrax_clifuzz::case::generate(0, 0, &[]);
    case.expect.stderr.push(format!("limits {} 7", 256 << 10));
    let (record, _) = ferrax_clifuzz::run_case(&c, &case, &dir.join("run"), (0, 0)).expect("runs");
    assert_eq!(record.verdict, Verdict::Refused { code: 1 }, "{record:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
