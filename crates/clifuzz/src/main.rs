//! `ferrax-clifuzz`: fuzzes the `ferrax` command (see the library's docs), or replays
//! saved cases. Exit 0 when no run broke the contract, 1 when one did, 2 on usage
//! errors.

use ferrax_clifuzz::{Config, fuzz, replay};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "\
usage: ferrax-clifuzz [options]              fuzz the ferrax command
       ferrax-clifuzz replay DIR... [options]  run saved cases again

options:
  --ferrax PATH    the command (default: ferrax next to this binary)
  --corpus DIR     .fx files to mutate, searched recursively; repeatable
                   (default: the repository's ir/ and examples/ir/)
  --seed S         the run's seed (default 0)
  --runs N         how many cases (default 1000)
  --case I         only case I of the seed (reproduces a report)
  --jobs N         children at once (default 2)
  --timeout SECS   CPU-time limit of each child (default 10)
  --wall SECS      wall-clock limit of each child (default 6 x the CPU limit)
  --memory SIZE    address-space limit of each child: bytes, or with K/M/G
                   (default 4G; 0 for none)
  --time SECS      start no case after this long
  --save DIR       save each defect's case here (default clifuzz-defects)
  --no-follow-up   never run a transform's output
  -v               print every run";

fn size(text: &str) -> Result<u64, String> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&text[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("--memory expects a size like 4G, got '{text}'"))
}

fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value.parse().map_err(|_| format!("{flag} expects a number, got '{value}'"))
}

/// The parsed command line: the configuration and, for `replay`, its directories.
fn parse(args: Vec<String>) -> Result<(Config, Option<Vec<PathBuf>>), String> {
    let own = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let mut config = Config::new(own.with_file_name("ferrax"));
    config.save_dir = Some(PathBuf::from("clifuzz-defects"));
    let mut corpus = Vec::new();
    let mut replay_dirs = None;
    let mut wall = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" | "help" => return Err(USAGE.to_string()),
            "replay" if replay_dirs.is_none() => replay_dirs = Some(Vec::new()),
            "--ferrax" => config.ferrax = PathBuf::from(args.next().ok_or("--ferrax needs a path")?),
            "--corpus" => corpus.push(PathBuf::from(args.next().ok_or("--corpus needs a directory")?)),
            "--seed" => config.seed = number("--seed", args.next())?,
            "--runs" => config.cases = number("--runs", args.next())?,
            "--case" => {
                config.first_case = number("--case", args.next())?;
                config.cases = 1;
            }
            "--jobs" => config.jobs = number("--jobs", args.next())?,
            "--timeout" => {
                config.limits.cpu = Duration::from_secs_f64(number("--timeout", args.next())?);
                if wall.is_none() {
                    config.limits.wall = config.limits.cpu * 6;
                }
            }
            "--wall" => wall = Some(Duration::from_secs_f64(number("--wall", args.next())?)),
            "--memory" => {
                let bytes = size(&args.next().ok_or("--memory needs a size")?)?;
                config.limits.memory = (bytes > 0).then_some(bytes);
            }
            "--time" => config.stop_after = Some(Duration::from_secs_f64(number("--time", args.next())?)),
            "--save" => config.save_dir = Some(PathBuf::from(args.next().ok_or("--save needs a directory")?)),
            "--no-follow-up" => config.follow_ups = false,
            "-v" => config.verbose = true,
            other => match &mut replay_dirs {
                Some(dirs) if !other.starts_with('-') => dirs.push(PathBuf::from(other)),
                _ => return Err(format!("unknown argument '{other}'\n{USAGE}")),
            },
        }
    }
    if let Some(wall) = wall {
        config.limits.wall = wall;
    }
    if !corpus.is_empty() {
        config.corpus = corpus;
    }
    if !config.ferrax.is_file() {
        return Err(format!(
            "{} does not exist: build it first (cargo build -p ferrax-cli) or give --ferrax PATH",
            config.ferrax.display()
        ));
    }
    Ok((config, replay_dirs))
}

fn main() -> ExitCode {
    let (config, replay_dirs) = match parse(std::env::args().skip(1).collect()) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let result = match &replay_dirs {
        Some(dirs) => replay(&config, dirs),
        None => {
            eprintln!(
                "ferrax-clifuzz: seed {}, cases {}..{}, {} jobs; per child {:?} of CPU, {:?} of wall-clock time, {}",
                config.seed,
                config.first_case,
                config.first_case.saturating_add(config.cases),
                config.jobs,
                config.limits.cpu,
                config.limits.wall,
                config.limits.memory.map_or("no memory limit".to_string(), |m| format!("{} MiB", m >> 20))
            );
            fuzz(&config)
        }
    };
    match result {
        Ok(summary) => {
            print!("{summary}");
            if summary.defects.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(e) => {
            eprintln!("ferrax-clifuzz: {e}");
            ExitCode::from(2)
        }
    }
}
