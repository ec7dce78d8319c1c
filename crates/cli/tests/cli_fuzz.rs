//! A short run of the command's fuzz harness (`crates/clifuzz`) on this build of
//! `ferrax`: damaged corpus programs and `.npy` files through every subcommand, each
//! run a child process under a 10 s timeout and a 4 GiB address-space limit; any run
//! that breaks the contract (a signal, a panic, a timeout, an error that is not one
//! line, output that does not parse) fails the test with its seed and case index,
//! and its input saved for `ferrax-clifuzz replay`. Seed `FERRAX_SEED` (default 0),
//! cases `FERRAX_CASES` (default below). The long run is in docs/testing.md.
//!
//! The regressions of `ir/fuzz/cli/` (one directory per case) replay here too.

use ferrax_clifuzz::{Config, fuzz, replay};
use ferrax_ir::testing::{cases, first_seed};
use std::path::{Path, PathBuf};

/// Cases of the short run: about 10 s on two idle cores, 35 s on busy ones.
const SHORT_RUN_CASES: usize = 500;

fn config(name: &str) -> Config {
    let mut config = Config::new(env!("CARGO_BIN_EXE_ferrax"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    config.work_dir = scratch.join(format!("clifuzz-{name}-{}", std::process::id()));
    config.save_dir = Some(scratch.join("clifuzz-defects"));
    config
}

#[test]
fn short_fuzz_run_breaks_no_contract() {
    let mut config = config("short");
    config.seed = first_seed();
    config.cases = cases(SHORT_RUN_CASES) as u64;
    let summary = fuzz(&config).expect("the harness runs");
    eprintln!("{summary}");
    assert!(
        summary.defects.is_empty(),
        "the command broke its contract (replay a case with target/debug/ferrax-clifuzz replay DIR, \
         or rerun with --seed S --case I):\n{summary}"
    );
    // Every subcommand ran, and some runs got past the parser.
    assert!(summary.per_subcommand.len() >= 19, "{summary}");
    assert!(summary.per_subcommand.values().map(|c| c.success).sum::<u64>() >= summary.runs() / 5, "{summary}");
}

#[test]
fn saved_regressions_replay_clean() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ir/fuzz/cli");
    let summary = replay(&config("replay"), std::slice::from_ref(&dir)).expect("the saved cases load");
    eprintln!("{summary}");
    assert!(summary.defects.is_empty(), "{summary}");
    assert!(summary.cases >= 1, "no saved case under {}", dir.display());
}
