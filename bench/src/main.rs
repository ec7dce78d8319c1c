//! `ferrax-bench`: `gen` writes the workloads' inputs, `run` measures them, `calibrate`
//! the machine's limits (see the
//! crate docs of `ferrax_bench` and README.md's "Benchmarks"); `passes` times the
//! passes of the `ferrax` command on long chains (`ferrax_bench::passes`).

use ferrax_bench::data::{Scale, write_all};
use ferrax_bench::passes::{SweepOptions, sweep};
use ferrax_bench::run::{Options, run};
use ferrax_bench::{Error, Result};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  ferrax-bench gen --data DIR [--scale full|small]
  ferrax-bench run --data DIR [--only W1,W3|NAME,...] [--rounds N] [--calls N]
  ferrax-bench calibrate [--quick]
  ferrax-bench passes [--sizes 1000,10000,100000] [--chains sin,two] [--passes fuse,cost,...]
  ferrax-bench sweep [--only W1,W3|NAME,...]
  ferrax-bench plot --csv FILE --out FILE.svg

gen writes every workload's inputs as DIR/*.npy; run prints one
`workload<TAB>metric<TAB>value<TAB>unit` line per figure on stdout (notes on
stderr) and exits 1 if a workload failed its correctness gate. passes times every
pass of the `ferrax` command on chains of the given numbers of equations (one
`passes<TAB>chain/pass/equations<TAB>seconds<TAB>s` line each) and prints each
pass's growth exponent on stderr. calibrate prints the machine's limits (GEMM
GFLOP/s and copy/triad GB/s on 1 thread and on every core) as `machine` lines.
sweep times W1-W4 over their sizes (`scaling<TAB>name/size<TAB>median<TAB>us`
lines); plot draws bench/sweep's scaling.csv as an SVG of log-log panels.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("ferrax-bench: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(args: &[String]) -> Result<bool> {
    let Some((command, rest)) = args.split_first() else {
        return Err(Error("no command".into()));
    };
    if command == "passes" {
        return passes(rest);
    }
    if command == "sweep" {
        let only: Vec<String> = match rest {
            [] => Vec::new(),
            [flag, value] if flag == "--only" => vec![value.clone()],
            _ => return Err(Error::at(command, "takes only --only LIST")),
        };
        ferrax_bench::sweep::sweep(&only)?;
        return Ok(true);
    }
    if command == "plot" {
        let (csv, out) = match rest {
            [a, csv, b, out] if a == "--csv" && b == "--out" => (PathBuf::from(csv), PathBuf::from(out)),
            _ => return Err(Error::at(command, "takes --csv FILE --out FILE.svg")),
        };
        ferrax_bench::plot::plot(&csv, &out)?;
        return Ok(true);
    }
    if command == "calibrate" {
        let quick = match rest {
            [] => false,
            [q] if q == "--quick" => true,
            _ => return Err(Error::at(command, "takes only --quick")),
        };
        ferrax_bench::calibrate::calibrate(quick);
        return Ok(true);
    }
    let mut data: Option<PathBuf> = None;
    let mut scale = Scale::Full;
    let mut options = Options { data: PathBuf::new(), only: Vec::new(), rounds: 5, calls: None };
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| Error::at(flag, "needs a value"));
        match flag.as_str() {
            "--data" => data = Some(PathBuf::from(value()?)),
            "--scale" => scale = value()?.parse()?,
            "--only" => options.only.push(value()?.clone()),
            "--rounds" => options.rounds = count(flag, value()?)?,
            "--calls" => options.calls = Some(count(flag, value()?)?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            other => return Err(Error::at(other, "unknown option")),
        }
    }
    let data = data.ok_or_else(|| Error::at(command, "--data DIR is required"))?;
    match command.as_str() {
        "gen" => {
            let stems = write_all(&data, scale)?;
            eprintln!("wrote {} inputs to {}", stems.len(), data.display());
            Ok(true)
        }
        "run" => {
            options.data = data;
            run(&options)
        }
        other => Err(Error::at(other, "unknown command (gen, run, calibrate or passes)")),
    }
}

/// `ferrax-bench passes`: the pass sweep of `ferrax_bench::passes`.
fn passes(rest: &[String]) -> Result<bool> {
    let mut options = SweepOptions::default();
    let list = |v: &str| v.split(',').filter(|s| !s.is_empty()).map(String::from).collect::<Vec<_>>();
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| Error::at(flag, "needs a value"));
        match flag.as_str() {
            "--sizes" => options.sizes = list(value()?).iter().map(|s| count(flag, s)).collect::<Result<_>>()?,
            "--chains" => options.chains = list(value()?),
            "--passes" => options.passes = list(value()?),
            other => return Err(Error::at(other, "unknown option")),
        }
    }
    options.sizes.sort_unstable();
    sweep(&options)?;
    Ok(true)
}

fn count(flag: &str, value: &str) -> Result<usize> {
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Error::at(flag, format!("`{value}` is not a positive count"))),
    }
}
