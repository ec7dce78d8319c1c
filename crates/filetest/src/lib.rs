//! The runner of the `ir/` corpus, in the manner of Cranelift's filetests.
//!
//! Each directory of `ir/` is one subtest; each `.fx` file in it is a module whose
//! expectations sit in `;` comment blocks after the Func they concern (the format is
//! documented in `ir/README.md`):
//!
//! - `parse`: a `; print:` block after a Func holds its canonical text; printing
//!   must also be a fixed point.
//! - `verify`: a `; error: FRAGMENT` comment on the offending line: parsing and
//!   verifying must fail there with a message containing FRAGMENT. A file without one
//!   must verify.
//! - `eval`: `; run` blocks after a Func give its inputs (`; in: f32[2] = [1.0, 2.0]`)
//!   and the expected outputs (`; out0: ...`, in the `ferrax run` format) or error
//!   (`; error: FRAGMENT`).
//! - `jvp`, `vjp`: a `; jvp:` (`; vjp:`) block after the entry Func holds the canonical
//!   text of the transformed module after `dce`, with optional `; wrt: 0,1` and
//!   `; in:` lines; the derivatives are also checked numerically with
//!   `ferrax_transform::check_grads`.
//! - `vmap`: a `; vmap:` block after the entry Func holds the canonical text of the
//!   batched module after `dce`, with `; in_axes: 0,none` and `; axis_size: N` lines
//!   (optional `; out_axes:` and `; in:`); the batched module, run on a batch, must
//!   equal the module run on each example.
//! - `opt`: a `; opt:` block after the entry Func holds the canonical text of
//!   `ferrax_transform::opt(module)` (optional `; in:` lines); the optimised module
//!   must give bit-identical results on drawn, special-valued and given arguments.
//!   [`check_opt_on_corpus`] applies the same check to every Func of the corpus and to
//!   its `jvp` and `vjp`.
//! - `fuse`: a `; fuse:` block after the entry Func holds the canonical text of
//!   `ferrax_fuse::fuse(module)` (optional `; launches: N` and `; in:` lines); the fused
//!   module must keep the kernel contract and give bit-identical results.
//!   [`check_fuse_on_corpus`] checks every corpus Func and its derivatives and `vmap`.
//!
//! A failure reports `file:line` and a diff. With `FERRAX_BLESS=1` in the environment
//! the runner rewrites `print`, `out`, `jvp`, `vjp`, `vmap`, `opt` and `fuse` expectations from the actual
//! results instead (test tooling is the one place an environment variable switches
//! behaviour); a failed numerical check is never blessed away.

mod ad;
mod eval;
mod expect;
mod fuse;
mod opt;
pub mod oracle;
mod parse;
mod verify;
mod vmap;

pub use fuse::{check_fuse_on_corpus, fuse_keeps_results};
pub use opt::check_opt_on_corpus;
pub use oracle::check_jax_fixture;

use std::path::{Path, PathBuf};

/// The subtests, by directory name.
pub const SUBTESTS: [&str; 8] = ["parse", "verify", "eval", "jvp", "vjp", "vmap", "opt", "fuse"];

/// Where the corpus lives: `<workspace>/ir`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir")
}

/// True when expectations should be rewritten (`FERRAX_BLESS=1`).
pub fn bless_requested() -> bool {
    std::env::var("FERRAX_BLESS").is_ok_and(|v| v == "1")
}

/// Runs every `.fx` file of `ir/<subtest>`; returns the number of files, or a
/// report of every failure.
pub fn run_subtest(subtest: &str, bless: bool) -> Result<usize, String> {
    let dir = corpus_dir().join(subtest);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fx"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        if let Err(report) = run_file(subtest, path, bless) {
            failures.push(report);
        }
    }
    if failures.is_empty() {
        Ok(files.len())
    } else {
        Err(format!("{} of {} files failed:\n\n{}", failures.len(), files.len(), failures.join("\n\n")))
    }
}

/// Runs one file of a subtest.
pub fn run_file(subtest: &str, path: &Path, bless: bool) -> Result<(), String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let outcome = match subtest {
        "parse" => parse::check(&text, bless),
        "verify" => verify::check(&text),
        "eval" => eval::check(&text, bless),
        "jvp" => ad::check(&text, ad::Mode::Jvp, bless),
        "vjp" => ad::check(&text, ad::Mode::Vjp, bless),
        "vmap" => vmap::check(&text, bless),
        "opt" => opt::check(&text, bless),
        "fuse" => fuse::check(&text, bless),
        other => return Err(format!("{name}: unknown subtest '{other}'")),
    };
    match outcome {
        Ok(None) => Ok(()),
        Ok(Some(blessed)) => std::fs::write(path, blessed).map_err(|e| format!("{name}: {e}")),
        Err(failure) => Err(format!("{name}:{failure}")),
    }
}

/// Checks that every well-formed corpus file (`ir/parse`, `ir/eval`, `ir/jvp`,
/// `ir/vjp`, `ir/vmap`, `ir/opt`, and the examples in `examples/ir`) prints canonically: `print(parse(print(parse(f))))` equals
/// `print(parse(f))`. Returns the number of files checked.
pub fn check_round_trips() -> Result<usize, String> {
    let dirs = ["parse", "eval", "jvp", "vjp", "vmap", "opt", "fuse", "../examples/ir"].map(|d| corpus_dir().join(d));
    let mut count = 0;
    let mut failures = Vec::new();
    for dir in dirs {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.retain(|p| p.extension().is_some_and(|e| e == "fx"));
        paths.sort();
        for path in paths {
            count += 1;
            if let Err(e) = round_trip(&path) {
                failures.push(format!("{}: {e}", path.display()));
            }
        }
    }
    if failures.is_empty() { Ok(count) } else { Err(failures.join("\n")) }
}

fn round_trip(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let module = ferrax_ir::parse(&text).map_err(|e| e.to_string())?;
    let with_locs = ferrax_ir::print_with(&module, &ferrax_ir::PrintOptions { locs: true });
    let again = ferrax_ir::parse(&with_locs).map_err(|e| format!("printed text does not parse: {e}"))?;
    if again != module && format!("{again:?}") != format!("{module:?}") {
        return Err("parsing the printed text (with locations) gives another module".into());
    }
    let printed = ferrax_ir::print(&module);
    let reprinted = ferrax_ir::print(&ferrax_ir::parse(&printed).map_err(|e| e.to_string())?);
    if reprinted == printed {
        Ok(())
    } else {
        Err(format!("printing is not a fixed point:\n{}", diff(&printed, &reprinted)))
    }
}

/// A unified diff of expected and actual text, for failure reports.
pub(crate) fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual).unified_diff().header("expected", "actual").to_string()
}
