//! Judges one run against the command's contract:
//!
//! - success is exit 0 with nothing on stderr (unless `--dump-jit` asked for it), and
//!   output of the promised form: a printed module parses and verifies (and `print`'s
//!   is canonical: printing it again gives the same text), `verify` says `ok`, `run`
//!   prints one `outN:` line per result or writes `.npy` files that read back;
//! - a refusal is exit 1 or 2 with exactly one line on stderr, `ferrax: ` and a
//!   message, and no trace of a panic;
//! - anything else is a defect: a signal (an abort from a failed allocation, a stack
//!   overflow), exit 101 (a panic, which the command reports as an internal error),
//!   any other code, a timeout, an empty or multi-line error, output that breaks its
//!   promise, or a saved case's expectation unmet.

use crate::case::Case;
use crate::child::Finished;
use std::fmt;
use std::path::Path;

/// The kinds of defect, the summary's groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DefectKind {
    /// Killed at the wall-clock limit.
    Timeout,
    /// Ended by a signal (abort, segfault, ...).
    Signal,
    /// A panic (exit 101 or panic text on stderr).
    Panic,
    /// An exit code other than 0, 1, 2 and 101.
    ExitCode,
    /// An error that is not one `ferrax: ` line.
    ErrorFormat,
    /// Exit 0 with something on stderr.
    NoisySuccess,
    /// Exit 0 with output that breaks its promise.
    BadOutput,
    /// A saved case's expectation unmet.
    Expectation,
}

impl fmt::Display for DefectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DefectKind::Timeout => "timeout",
            DefectKind::Signal => "signal",
            DefectKind::Panic => "panic",
            DefectKind::ExitCode => "exit code",
            DefectKind::ErrorFormat => "error format",
            DefectKind::NoisySuccess => "noisy success",
            DefectKind::BadOutput => "bad output",
            DefectKind::Expectation => "expectation",
        })
    }
}

/// A run's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exit 0, output as promised.
    Success,
    /// A one-line error with exit 1 or 2.
    Refused {
        /// The exit code.
        code: i32,
    },
    /// A breach of the contract.
    Defect {
        /// Its group.
        kind: DefectKind,
        /// One line saying what happened.
        detail: String,
    },
}

fn defect(kind: DefectKind, detail: impl Into<String>) -> Verdict {
    Verdict::Defect { kind, detail: detail.into() }
}

/// The first `n` characters of `text` on one line.
pub fn excerpt(text: &str, n: usize) -> String {
    let one_line: String = text.trim_end().replace('\n', " \u{23CE} ");
    let cut: String = one_line.chars().take(n).collect();
    if cut.len() < one_line.len() { format!("{cut}...") } else { cut }
}

/// Judges `finished`, the run of `case` in `dir`.
pub fn judge(case: &Case, finished: &Finished, dir: &Path) -> Verdict {
    let stderr = String::from_utf8_lossy(&finished.stderr);
    let stdout = String::from_utf8_lossy(&finished.stdout);
    let verdict = contract(case, finished, &stderr, &stdout, dir);
    if matches!(verdict, Verdict::Defect { .. }) {
        return verdict;
    }
    let expect = &case.expect;
    let code = finished.code.unwrap_or(-1);
    if let Some(want) = expect.exit
        && want != code
    {
        return defect(DefectKind::Expectation, format!("exit {code}, expected {want}: {}", excerpt(&stderr, 200)));
    }
    for fragment in &expect.stdout {
        if !stdout.contains(fragment.as_str()) {
            return defect(DefectKind::Expectation, format!("stdout lacks '{fragment}': {}", excerpt(&stdout, 200)));
        }
    }
    for fragment in &expect.stderr {
        if !stderr.contains(fragment.as_str()) {
            return defect(DefectKind::Expectation, format!("stderr lacks '{fragment}': {}", excerpt(&stderr, 200)));
        }
    }
    verdict
}

fn contract(case: &Case, finished: &Finished, stderr: &str, stdout: &str, dir: &Path) -> Verdict {
    if finished.timed_out {
        return defect(
            DefectKind::Timeout,
            format!("killed after {:.1} s of wall-clock time", finished.elapsed.as_secs_f64()),
        );
    }
    if finished.out_of_cpu {
        return defect(
            DefectKind::Timeout,
            format!("out of CPU time (SIGXCPU) after {:.1} s of wall-clock time", finished.elapsed.as_secs_f64()),
        );
    }
    if let Some(signal) = finished.signal {
        return defect(DefectKind::Signal, format!("signal {signal}: {}", excerpt(stderr, 200)));
    }
    let code = finished.code.unwrap_or(-1);
    if code == 101 || stderr.contains("panicked") || stderr.contains("internal error") {
        return defect(DefectKind::Panic, format!("exit {code}: {}", excerpt(stderr, 200)));
    }
    let dump = case.args.iter().any(|a| a == "--dump-jit");
    match code {
        0 => {
            if !dump && !stderr.is_empty() {
                return defect(DefectKind::NoisySuccess, excerpt(stderr, 200));
            }
            output_promise(case, stdout, dir).map_or(Verdict::Success, |d| defect(DefectKind::BadOutput, d))
        }
        1 | 2 => {
            // With --dump-jit the kernels' text may precede the error line.
            let error = if dump { stderr.trim_end().rsplit('\n').next().unwrap_or("") } else { stderr };
            let lines = error.lines().count();
            let message = error.strip_prefix("ferrax: ").map(str::trim).unwrap_or("");
            let terminated = dump || error.ends_with('\n');
            if lines != 1 || !terminated || message.is_empty() {
                return defect(
                    DefectKind::ErrorFormat,
                    format!("exit {code} with {lines} lines on stderr: {}", excerpt(stderr, 200)),
                );
            }
            Verdict::Refused { code }
        }
        other => defect(DefectKind::ExitCode, format!("exit {other}: {}", excerpt(stderr, 200))),
    }
}

/// What is wrong with a successful run's output, if anything.
fn output_promise(case: &Case, stdout: &str, dir: &Path) -> Option<String> {
    let sub = case.args.first().map_or("", String::as_str);
    match sub {
        "print" | "opt" | "fuse" | "vmap" | "grad" | "value-and-grad" | "jvp" | "vjp" | "hvp" | "linearize"
        | "transpose" | "jacfwd" | "jacrev" | "hessian" => {
            let module = match ferrax_ir::parse(stdout) {
                Ok(m) => m,
                Err(e) => return Some(format!("the printed module does not parse: {}", excerpt(&e.to_string(), 200))),
            };
            if let Err(e) = ferrax_ir::verify(&module) {
                return Some(format!("the printed module does not verify: {}", excerpt(&e.to_string(), 200)));
            }
            let locs = case.args.iter().any(|a| a == "--locs");
            if sub == "print" && !locs && ferrax_ir::print(&module).trim_end() != stdout.trim_end() {
                return Some("print's output is not canonical (printing it again changes it)".into());
            }
            None
        }
        "verify" => (!stdout.trim_end().ends_with("Funcs)") || stdout.lines().count() != 1)
            .then(|| format!("verify printed {}", excerpt(stdout, 120))),
        "run" => run_promise(case, stdout, dir),
        "cost" | "dot" => stdout.trim().is_empty().then(|| format!("{sub} printed nothing")),
        _ => None,
    }
}

fn run_promise(case: &Case, stdout: &str, dir: &Path) -> Option<String> {
    let results =
        case.module_text().and_then(|t| ferrax_ir::parse(&t).ok()).and_then(|m| m.entry().map(|f| f.results.len()))?;
    if case.args.iter().any(|a| a == "--out") {
        for i in 0..results {
            let path = dir.join("out").join(format!("out{i}.npy"));
            let bytes = match std::fs::read(&path) {
                Ok(b) => b,
                Err(e) => return Some(format!("out{i}.npy: {e}")),
            };
            if let Err(e) = ferrax_ir::array::npy::read(&bytes, &ferrax_ir::array::Budget::new(1 << 32)) {
                return Some(format!("out{i}.npy does not read back: {e}"));
            }
        }
        return None;
    }
    let lines: Vec<&str> = stdout.lines().collect();
    let expected = results.max(1);
    if lines.len() != expected {
        return Some(format!("{} lines for {results} results: {}", lines.len(), excerpt(stdout, 120)));
    }
    for (i, line) in lines.iter().enumerate().take(results) {
        if !line.starts_with(&format!("out{i}: ")) {
            return Some(format!("line {i} is not out{i}: {}", excerpt(line, 120)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Expect;
    use std::time::Duration;

    fn case(args: &[&str]) -> Case {
        Case {
            label: "t".into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            files: vec![],
            stdin: None,
            timeout: None,
            memory: None,
            expect: Expect::default(),
        }
    }

    fn finished(code: Option<i32>, signal: Option<i32>, stdout: &str, stderr: &str) -> Finished {
        Finished {
            code,
            signal,
            timed_out: false,
            out_of_cpu: false,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            elapsed: Duration::from_millis(5),
        }
    }

    fn kind(verdict: Verdict) -> Option<DefectKind> {
        match verdict {
            Verdict::Defect { kind, .. } => Some(kind),
            _ => None,
        }
    }

    #[test]
    fn classifies_exits() {
        let dir = Path::new(".");
        let print = case(&["print", "m.fx"]);
        let module = "func @f(%0: f32[]) -> (f32[]) {\n  return %0\n}\n";
        assert_eq!(judge(&print, &finished(Some(0), None, module, ""), dir), Verdict::Success);
        assert_eq!(
            judge(&print, &finished(Some(1), None, "", "ferrax: m.fx:1:1: bad\n"), dir),
            Verdict::Refused { code: 1 }
        );
        assert_eq!(judge(&print, &finished(Some(2), None, "", "ferrax: usage\n"), dir), Verdict::Refused { code: 2 });
        for (f, want) in [
            (finished(None, Some(6), "", ""), DefectKind::Signal),
            (finished(Some(134), None, "", "memory allocation failed\n"), DefectKind::ExitCode),
            (finished(Some(101), None, "", "ferrax: internal error (please report it) at a.rs:1\n"), DefectKind::Panic),
            (finished(Some(1), None, "", "thread 'main' panicked at x\n"), DefectKind::Panic),
            (finished(Some(1), None, "", "ferrax: one\nferrax: two\n"), DefectKind::ErrorFormat),
            (finished(Some(1), None, "", ""), DefectKind::ErrorFormat),
            (finished(Some(1), None, "", "ferrax: \n"), DefectKind::ErrorFormat),
            (finished(Some(1), None, "", "no prefix\n"), DefectKind::ErrorFormat),
            (finished(Some(0), None, module, "warning\n"), DefectKind::NoisySuccess),
            (finished(Some(0), None, "func @f(", ""), DefectKind::BadOutput),
            (finished(Some(0), None, "func @f(%0: f32[]) -> (f32[]) { return %0 }", ""), DefectKind::BadOutput),
        ] {
            assert_eq!(kind(judge(&print, &f, dir)), Some(want), "{f:?}");
        }
        let mut slow = finished(None, Some(9), "", "");
        slow.timed_out = true;
        assert_eq!(kind(judge(&print, &slow, dir)), Some(DefectKind::Timeout));
        let mut busy = finished(None, Some(24), "", "");
        busy.out_of_cpu = true;
        assert_eq!(kind(judge(&print, &busy, dir)), Some(DefectKind::Timeout));
    }

    #[test]
    fn checks_run_output_and_expectations() {
        let dir = Path::new(".");
        let mut run = case(&["run", "module.fx", "a0.npy"]);
        run.files.push(("module.fx".into(), b"func @f(%0: f32[]) -> (f32[], f32[]) {\n  return %0, %0\n}\n".to_vec()));
        assert_eq!(
            judge(&run, &finished(Some(0), None, "out0: f32[] = [1.0]\nout1: f32[] = [1.0]\n", ""), dir),
            Verdict::Success
        );
        assert_eq!(
            kind(judge(&run, &finished(Some(0), None, "out0: f32[] = [1.0]\n", ""), dir)),
            Some(DefectKind::BadOutput)
        );
        run.expect.stdout.push("[2.0]".into());
        assert_eq!(
            kind(judge(&run, &finished(Some(0), None, "out0: f32[] = [1.0]\nout1: f32[] = [1.0]\n", ""), dir)),
            Some(DefectKind::Expectation)
        );
        run.expect = Expect { exit: Some(1), stdout: vec![], stderr: vec!["budget".into()] };
        assert_eq!(
            judge(&run, &finished(Some(1), None, "", "ferrax: over the budget\n"), dir),
            Verdict::Refused { code: 1 }
        );
        assert_eq!(
            kind(judge(&run, &finished(Some(1), None, "", "ferrax: other\n"), dir)),
            Some(DefectKind::Expectation)
        );
        let dump = case(&["run", "module.fx", "--dump-jit"]);
        assert_eq!(
            judge(&dump, &finished(Some(1), None, "", "kernel k0\nclif...\nferrax: bad\n"), dir),
            Verdict::Refused { code: 1 }
        );
    }
}
