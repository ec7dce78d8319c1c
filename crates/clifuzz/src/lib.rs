//! A fuzz harness for the `ferrax` command, run the way a user runs it: as a separate
//! process, on files.
//!
//! Each case takes a program (a file of the `ir/` corpus, a generated module or a
//! stress template), damages it or not (`ferrax_ir::testing::mutate_text`, number
//! swaps), picks one of every subcommand (`run` on both backends) with flags, writes
//! the `.npy` inputs of `run` (some truncated, with lying headers, huge shapes, wrong
//! dtypes or random bytes), and runs the command in a child process under a
//! wall-clock timeout and an address-space limit. [`verdict`] judges each run against
//! the command's contract (success as promised, or one error line with exit 1 or 2);
//! anything else is a defect, printed with the seed and case index that rebuild it and
//! saved as a directory that [`replay`] runs again. A module a transform printed is
//! sometimes run as a follow-up, so transformed programs reach the backends.
//!
//! The `ferrax-clifuzz` binary drives long runs; `crates/cli/tests/cli_fuzz.rs` runs a
//! short one and replays the saved regressions of `ir/fuzz/cli/` in `cargo test`.

pub mod case;
pub mod child;
pub mod verdict;

use case::{Case, Expect, Program};
use child::{Finished, Limits};
use ferrax_ir::testing::Rng;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use verdict::{DefectKind, Verdict, excerpt};

/// The name of a saved case's description file.
pub const CASE_FILE: &str = "case.txt";

/// The name of the file a saved defect's observed output goes to (not replayed).
const OBSERVED_FILE: &str = "observed.txt";

/// What a fuzzing run does.
#[derive(Clone, Debug)]
pub struct Config {
    /// The `ferrax` binary.
    pub ferrax: PathBuf,
    /// Directories of `.fx` files to mutate (searched recursively).
    pub corpus: Vec<PathBuf>,
    /// The run's seed.
    pub seed: u64,
    /// The first case index.
    pub first_case: u64,
    /// How many cases.
    pub cases: u64,
    /// Children at once.
    pub jobs: usize,
    /// Each child's limits (a saved case may replace them).
    pub limits: Limits,
    /// Scratch space; each case runs in a fresh directory under it.
    pub work_dir: PathBuf,
    /// Where each defect's case is saved.
    pub save_dir: Option<PathBuf>,
    /// Run some transforms' output as a follow-up case.
    pub follow_ups: bool,
    /// Start no case after this long.
    pub stop_after: Option<Duration>,
    /// Print every run.
    pub verbose: bool,
}

impl Config {
    /// A configuration for `ferrax` with the defaults of the `ferrax-clifuzz` binary:
    /// the repository's corpus, seed 0, 1000 cases, 2 jobs, and per child 10 s of CPU
    /// time, 60 s of wall-clock time and 4 GiB of address space.
    pub fn new(ferrax: impl Into<PathBuf>) -> Config {
        Config {
            ferrax: ferrax.into(),
            corpus: default_corpus(),
            seed: 0,
            first_case: 0,
            cases: 1000,
            jobs: 2,
            limits: Limits { cpu: Duration::from_secs(10), wall: Duration::from_secs(60), memory: Some(4 << 30) },
            work_dir: std::env::temp_dir().join(format!("ferrax-clifuzz-{}", std::process::id())),
            save_dir: None,
            follow_ups: true,
            stop_after: None,
            verbose: false,
        }
    }
}

/// The repository's `ir/` and `examples/ir/` directories.
pub fn default_corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    vec![root.join("ir"), root.join("examples/ir")]
}

/// The `.fx` files under `dirs`, sorted by path (so a seed means the same programs on
/// every machine).
pub fn load_corpus(dirs: &[PathBuf]) -> std::io::Result<Vec<Program>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "fx") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut paths = Vec::new();
    for dir in dirs {
        walk(dir, &mut paths).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)?;
            Ok(Program { name: p.display().to_string(), text })
        })
        .collect()
}

/// One run of the command and its verdict.
#[derive(Clone, Debug)]
pub struct Record {
    /// The case's label (`seed S case I`, or a saved case's directory).
    pub label: String,
    /// Its position in the run, for ordering (case index, step).
    pub order: (u64, u32),
    /// The subcommand, as grouped in the summary.
    pub subcommand: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Wall-clock time of the child.
    pub elapsed: Duration,
    /// Where the case was saved (defects only).
    pub saved: Option<PathBuf>,
}

/// Counts per subcommand.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Runs.
    pub runs: u64,
    /// Exit 0 as promised.
    pub success: u64,
    /// One-line errors.
    pub refused: u64,
    /// Defects.
    pub defects: u64,
    /// The longest run.
    pub slowest: Duration,
}

/// The outcome of a fuzzing run or a replay.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The seed (fuzzing runs).
    pub seed: u64,
    /// Cases made (a case with a follow-up is two runs).
    pub cases: u64,
    /// Counts per subcommand.
    pub per_subcommand: BTreeMap<String, Counts>,
    /// Every defect, in case order.
    pub defects: Vec<Record>,
    /// Wall-clock time of the whole run.
    pub elapsed: Duration,
}

impl Summary {
    /// Runs of every subcommand together.
    pub fn runs(&self) -> u64 {
        self.per_subcommand.values().map(|c| c.runs).sum()
    }

    fn add(&mut self, record: &Record) {
        let counts = self.per_subcommand.entry(record.subcommand.clone()).or_default();
        counts.runs += 1;
        counts.slowest = counts.slowest.max(record.elapsed);
        match record.verdict {
            Verdict::Success => counts.success += 1,
            Verdict::Refused { .. } => counts.refused += 1,
            Verdict::Defect { .. } => counts.defects += 1,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "seed {}: {} cases, {} runs in {:.1} s, {} defects",
            self.seed,
            self.cases,
            self.runs(),
            self.elapsed.as_secs_f64(),
            self.defects.len()
        )?;
        writeln!(
            f,
            "{:<16} {:>7} {:>7} {:>7} {:>7} {:>9}",
            "subcommand", "runs", "ok", "refused", "defects", "slowest"
        )?;
        for (name, c) in &self.per_subcommand {
            writeln!(
                f,
                "{name:<16} {:>7} {:>7} {:>7} {:>7} {:>8.2}s",
                c.runs,
                c.success,
                c.refused,
                c.defects,
                c.slowest.as_secs_f64()
            )?;
        }
        let mut groups: BTreeMap<(DefectKind, &str), Vec<&Record>> = BTreeMap::new();
        for d in &self.defects {
            if let Verdict::Defect { kind, .. } = d.verdict {
                groups.entry((kind, d.subcommand.as_str())).or_default().push(d);
            }
        }
        for ((kind, sub), records) in groups {
            let first = records[0];
            let detail = match &first.verdict {
                Verdict::Defect { detail, .. } => detail.as_str(),
                _ => "",
            };
            writeln!(f, "defects: {} x {kind} in {sub}, first {}: {detail}", records.len(), first.label)?;
            for r in records.iter().take(5) {
                let saved = r.saved.as_ref().map(|p| format!(" (saved in {})", p.display())).unwrap_or_default();
                writeln!(f, "  {}{saved}", r.label)?;
            }
        }
        Ok(())
    }
}

/// Where the harness writes and runs a case: a fresh directory with its files.
fn stage(case: &Case, dir: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in &case.files {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

/// Runs one case in `dir` (created, and removed afterwards) and judges it; a defect
/// is saved under `config.save_dir`.
pub fn run_case(config: &Config, case: &Case, dir: &Path, order: (u64, u32)) -> std::io::Result<(Record, Finished)> {
    stage(case, dir)?;
    let stdin = case.stdin.as_deref().and_then(|name| case.file(name)).unwrap_or(&[]);
    let limits = Limits {
        cpu: case.timeout.unwrap_or(config.limits.cpu),
        wall: case.timeout.map_or(config.limits.wall, |t| config.limits.wall.max(t * 6)),
        memory: case.memory.or(config.limits.memory),
    };
    let finished = child::run(&config.ferrax, &case.args, dir, stdin, limits)
        .map_err(|e| std::io::Error::new(e.kind(), format!("starting {}: {e}", config.ferrax.display())))?;
    let verdict = verdict::judge(case, &finished, dir);
    let _ = std::fs::remove_dir_all(dir);
    let mut record = Record {
        label: case.label.clone(),
        order,
        subcommand: case.subcommand(),
        verdict,
        elapsed: finished.elapsed,
        saved: None,
    };
    if let (Verdict::Defect { .. }, Some(save)) = (&record.verdict, &config.save_dir) {
        let slug: String =
            case.label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect::<String>();
        let target = save.join(slug.trim_matches('-'));
        save_case(case, &target, &record, &finished)?;
        record.saved = Some(target);
    }
    if config.verbose {
        eprintln!(
            "{} {}: {:?} in {:.2} s",
            record.label,
            record.subcommand,
            record.verdict,
            record.elapsed.as_secs_f64()
        );
    }
    Ok((record, finished))
}

/// Subcommands whose output is a module a follow-up can run.
const PRINTS_A_MODULE: &[&str] = &[
    "opt",
    "fuse",
    "vmap",
    "grad",
    "value-and-grad",
    "jvp",
    "vjp",
    "hvp",
    "linearize",
    "transpose",
    "jacfwd",
    "jacrev",
    "hessian",
];

/// Runs generated case `index` (and its follow-up, if any).
fn run_generated(config: &Config, corpus: &[Program], index: u64) -> std::io::Result<Vec<Record>> {
    let case = case::generate(config.seed, index, corpus);
    let dir = config.work_dir.join(format!("case-{index}"));
    let (record, finished) = run_case(config, &case, &dir, (index, 0))?;
    let mut records = vec![record];
    let mut rng = Rng::new(case::case_seed(config.seed, index) ^ 0xF0_11_0F);
    if config.follow_ups
        && records[0].verdict == Verdict::Success
        && PRINTS_A_MODULE.contains(&records[0].subcommand.as_str())
        && rng.chance(40)
    {
        let text = String::from_utf8_lossy(&finished.stdout).into_owned();
        let label = format!("{} follow-up", case.label);
        let next = case::follow_up(&mut rng, text, label);
        records.push(run_case(config, &next, &dir, (index, 1))?.0);
    }
    Ok(records)
}

/// Runs `config.cases` generated cases on `config.jobs` threads; defects are printed
/// to stderr as they are found. The summary lists them in case order, so the same
/// seed gives the same summary whatever the number of jobs (timeouts aside).
pub fn fuzz(config: &Config) -> std::io::Result<Summary> {
    let corpus = load_corpus(&config.corpus)?;
    std::fs::create_dir_all(&config.work_dir)?;
    let started = Instant::now();
    let next = AtomicU64::new(config.first_case);
    let end = config.first_case.saturating_add(config.cases);
    let records: Mutex<Vec<Record>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let made = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    if config.stop_after.is_some_and(|limit| started.elapsed() > limit) {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= end || failure.lock().map_or(true, |f| f.is_some()) {
                        break;
                    }
                    made.fetch_add(1, Ordering::Relaxed);
                    match run_generated(config, &corpus, index) {
                        Ok(found) => {
                            for r in &found {
                                if let Verdict::Defect { kind, detail } = &r.verdict {
                                    eprintln!("DEFECT {} ({}): {kind}: {detail}", r.label, r.subcommand);
                                }
                            }
                            records.lock().expect("no worker panics").extend(found);
                        }
                        Err(e) => {
                            *failure.lock().expect("no worker panics") = Some(e);
                            break;
                        }
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&config.work_dir);
    if let Some(e) = failure.into_inner().expect("no worker panics") {
        return Err(e);
    }
    let mut records = records.into_inner().expect("no worker panics");
    records.sort_by_key(|r| r.order);
    let mut summary = Summary { seed: config.seed, cases: made.into_inner(), ..Summary::default() };
    for r in &records {
        summary.add(r);
    }
    summary.defects = records.into_iter().filter(|r| matches!(r.verdict, Verdict::Defect { .. })).collect();
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Runs every saved case under `dirs` (a directory holding `case.txt`, or a directory
/// of such directories), one after the other.
pub fn replay(config: &Config, dirs: &[PathBuf]) -> std::io::Result<Summary> {
    let mut cases = Vec::new();
    for dir in dirs {
        if dir.join(CASE_FILE).is_file() {
            cases.push(dir.clone());
            continue;
        }
        let mut inner: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join(CASE_FILE).is_file())
            .collect();
        inner.sort();
        cases.extend(inner);
    }
    std::fs::create_dir_all(&config.work_dir)?;
    // A replayed case is a directory already: nothing to save.
    let config = &Config { save_dir: None, ..config.clone() };
    let started = Instant::now();
    let mut summary = Summary { seed: config.seed, ..Summary::default() };
    for (i, dir) in cases.iter().enumerate() {
        let case = load_case(dir)?;
        let (record, _) = run_case(config, &case, &config.work_dir.join(format!("replay-{i}")), (i as u64, 0))?;
        summary.cases += 1;
        summary.add(&record);
        if matches!(record.verdict, Verdict::Defect { .. }) {
            summary.defects.push(record);
        }
    }
    let _ = std::fs::remove_dir_all(&config.work_dir);
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Writes `case` to `dir`: its files, `case.txt` (the arguments, one per line, and
/// its limits) and `observed.txt` (what the command did).
pub fn save_case(case: &Case, dir: &Path, record: &Record, finished: &Finished) -> std::io::Result<()> {
    use std::fmt::Write;
    stage(case, dir)?;
    let mut text = String::new();
    let _ = writeln!(text, "; {} ({}), found by ferrax-clifuzz", case.label, record.subcommand);
    if let Verdict::Defect { kind, detail } = &record.verdict {
        let _ = writeln!(text, "; {kind}: {}", excerpt(detail, 300));
    }
    let _ = writeln!(text, "; replay: ferrax-clifuzz replay {}", dir.display());
    let _ = write!(text, "{}", describe_case(case));
    std::fs::write(dir.join(CASE_FILE), text)?;
    let observed = format!(
        "exit code: {:?}, signal: {:?}, wall-clock limit: {}, CPU limit: {}, {:.2} s\n--- stderr\n{}\n--- stdout (first 4000 bytes)\n{}\n",
        finished.code,
        finished.signal,
        finished.timed_out,
        finished.out_of_cpu,
        finished.elapsed.as_secs_f64(),
        String::from_utf8_lossy(&finished.stderr),
        String::from_utf8_lossy(&finished.stdout[..finished.stdout.len().min(4000)]),
    );
    std::fs::write(dir.join(OBSERVED_FILE), observed)
}

/// The `case.txt` lines describing a case (arguments, stdin, limits, expectations).
pub fn describe_case(case: &Case) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    for arg in &case.args {
        let _ = writeln!(text, "arg: {arg}");
    }
    if let Some(stdin) = &case.stdin {
        let _ = writeln!(text, "stdin: {stdin}");
    }
    if let Some(t) = case.timeout {
        let _ = writeln!(text, "timeout: {}", t.as_secs_f64());
    }
    if let Some(m) = case.memory {
        let _ = writeln!(text, "memory: {m}");
    }
    if let Some(code) = case.expect.exit {
        let _ = writeln!(text, "exit: {code}");
    }
    for s in &case.expect.stdout {
        let _ = writeln!(text, "stdout: {s}");
    }
    for s in &case.expect.stderr {
        let _ = writeln!(text, "stderr: {s}");
    }
    text
}

/// Reads a saved case: `case.txt` and every other file of the directory (but
/// `observed.txt` and `README.md`).
///
/// `case.txt` holds `key: value` lines (`;` starts a comment): `arg:` once per
/// argument, in order (file names relative to the directory); `stdin:` a file fed to
/// standard input; `timeout:` seconds of CPU time and `memory:` bytes of address
/// space replacing the harness's limits; `exit:` the expected code; `stdout:` and `stderr:` fragments the streams
/// must contain.
pub fn load_case(dir: &Path) -> std::io::Result<Case> {
    let bad = |msg: String| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: {msg}", dir.display()));
    let text = std::fs::read_to_string(dir.join(CASE_FILE)).map_err(|e| bad(format!("{CASE_FILE}: {e}")))?;
    let mut case = Case {
        label: dir.display().to_string(),
        args: Vec::new(),
        files: Vec::new(),
        stdin: None,
        timeout: None,
        memory: None,
        expect: Expect::default(),
    };
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with(';') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(bad(format!("{CASE_FILE}:{}: expected 'key: value'", n + 1)));
        };
        let value = value.strip_prefix(' ').unwrap_or(value);
        let number = |v: &str| v.trim().parse::<f64>().map_err(|_| bad(format!("{CASE_FILE}:{}: not a number", n + 1)));
        match key {
            "arg" => case.args.push(value.to_string()),
            "stdin" => case.stdin = Some(value.trim().to_string()),
            "timeout" => case.timeout = Some(Duration::from_secs_f64(number(value)?.max(0.0))),
            "memory" => case.memory = Some(number(value)? as u64),
            "exit" => case.expect.exit = Some(number(value)? as i32),
            "stdout" => case.expect.stdout.push(value.to_string()),
            "stderr" => case.expect.stderr.push(value.to_string()),
            other => return Err(bad(format!("{CASE_FILE}:{}: unknown key '{other}'", n + 1))),
        }
    }
    if case.args.is_empty() {
        return Err(bad(format!("{CASE_FILE} has no 'arg:' line")));
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    names.sort();
    for path in names {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_file() && ![CASE_FILE, OBSERVED_FILE, "README.md"].contains(&name.as_str()) {
            case.files.push((name, std::fs::read(&path)?));
        }
    }
    Ok(case)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_cases_load_back() {
        let dir = std::env::temp_dir().join(format!("ferrax-clifuzz-save-{}", std::process::id()));
        let case = Case {
            label: "seed 1 case 2".into(),
            args: vec!["run".into(), "module.fx".into(), "".into(), "a b".into()],
            files: vec![("module.fx".into(), b"func".to_vec()), ("a0.npy".into(), vec![0, 1, 2])],
            stdin: Some("module.fx".into()),
            timeout: Some(Duration::from_millis(2500)),
            memory: Some(1 << 30),
            expect: Expect { exit: Some(1), stdout: vec!["x: y".into()], stderr: vec!["budget".into()] },
        };
        let record = Record {
            label: case.label.clone(),
            order: (2, 0),
            subcommand: "run-jit".into(),
            verdict: Verdict::Defect { kind: DefectKind::Signal, detail: "signal 6".into() },
            elapsed: Duration::ZERO,
            saved: None,
        };
        let finished = Finished {
            code: None,
            signal: Some(6),
            timed_out: false,
            out_of_cpu: false,
            stdout: vec![],
            stderr: b"x".to_vec(),
            elapsed: Duration::ZERO,
        };
        save_case(&case, &dir, &record, &finished).expect("saved");
        let mut back = load_case(&dir).expect("loaded");
        let _ = std::fs::remove_dir_all(&dir);
        back.label = case.label.clone();
        back.files.sort();
        let mut want = case.clone();
        want.files.sort();
        assert_eq!(back, want);
    }
}
