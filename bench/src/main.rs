//! `ferrax-bench`: `gen` writes the workloads' inputs, `run` measures them (see the
//! crate docs of `ferrax_bench` and README.md's "Benchmarks").

use ferrax_bench::data::{Scale, write_all};
use ferrax_bench::run::{Options, run};
use ferrax_bench::{Error, Result};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  ferrax-bench gen --data DIR [--scale full|small]
  ferrax-bench run --data DIR [--only W1,W3|NAME,...] [--rounds N] [--calls N]

gen writes every workload's inputs as DIR/*.npy; run prints one
`workload<TAB>metric<TAB>value<TAB>unit` line per figure on stdout (notes on
stderr) and exits 1 if a workload failed its correctness gate.";

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
        other => Err(Error::at(other, "unknown command (gen or run)")),
    }
}

fn count(flag: &str, value: &str) -> Result<usize> {
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Error::at(flag, format!("`{value}` is not a positive count"))),
    }
}
