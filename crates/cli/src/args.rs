//! Command-line parsing for the `ferrax` command (hand-written: three subcommands and
//! a handful of flags do not justify a parser crate's compile time).

use std::path::PathBuf;

/// Which interpreter of the IR runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter of `ferrax_ir`.
    Interp,
    /// Native code through Cranelift (`ferrax_jit`), the default.
    Jit,
}

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `ferrax print FILE [--locs]`.
    Print {
        /// The module, or `-` for stdin.
        input: String,
        /// Print `loc(...)` of equations.
        locs: bool,
    },
    /// `ferrax verify FILE`.
    Verify {
        /// The module, or `-` for stdin.
        input: String,
    },
    /// `ferrax run FILE ARGS.npy... [options]`.
    Run(RunArgs),
    /// `ferrax vmap FILE --in-axes 0,none --axis-size N [--out-axes 0]`.
    Vmap {
        /// The module, or `-` for stdin.
        input: String,
        /// One entry per parameter: an axis (negative counts from the end) or none.
        in_axes: Vec<Option<isize>>,
        /// One axis for every output, or one per output.
        out_axes: Vec<isize>,
        /// The batch size.
        axis_size: usize,
    },
    /// A transform subcommand: `grad`, `value-and-grad`, `jvp`, `vjp`, `hvp`,
    /// `linearize`, `transpose`.
    Transform {
        /// Which transform.
        pass: Pass,
        /// The module, or `-` for stdin.
        input: String,
        /// `--wrt 0,1`: parameter indices (the pass's default when absent).
        wrt: Option<Vec<usize>>,
        /// `--has-aux` (grad, value-and-grad).
        has_aux: bool,
        /// `--max-bytes N` (grad, value-and-grad): checkpoint to fit this peak.
        max_bytes: Option<u64>,
    },
    /// `ferrax cost FILE [--wrt 0,1]`: the cost model and the residuals of reverse mode.
    Cost {
        /// The module, or `-` for stdin.
        input: String,
        /// `--wrt`: the parameters whose reverse mode's residuals are reported.
        wrt: Option<Vec<usize>>,
    },
    /// `ferrax dot FILE [--func NAME]`: Graphviz of a Func.
    Dot {
        /// The module, or `-` for stdin.
        input: String,
        /// The Func to draw (default: the entry).
        func: Option<String>,
    },
    /// `ferrax opt FILE`: the module after `ferrax_transform::opt`.
    Opt {
        /// The module, or `-` for stdin.
        input: String,
    },
    /// `ferrax fuse FILE`: the module after `ferrax_fuse::fuse` (the JIT's schedule).
    Fuse {
        /// The module, or `-` for stdin.
        input: String,
    },
    /// `ferrax help` / `--help`.
    Help,
}

/// The transform subcommands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `grad`.
    Grad,
    /// `value-and-grad`.
    ValueAndGrad,
    /// `jvp`.
    Jvp,
    /// `vjp`.
    Vjp,
    /// `hvp`.
    Hvp,
    /// `linearize`.
    Linearize,
    /// `transpose`.
    Transpose,
    /// `jacfwd`.
    Jacfwd,
    /// `jacrev`.
    Jacrev,
    /// `hessian`.
    Hessian,
}

impl Pass {
    fn from_name(name: &str) -> Option<Pass> {
        Some(match name {
            "grad" => Pass::Grad,
            "value-and-grad" => Pass::ValueAndGrad,
            "jvp" => Pass::Jvp,
            "vjp" => Pass::Vjp,
            "hvp" => Pass::Hvp,
            "linearize" => Pass::Linearize,
            "transpose" => Pass::Transpose,
            "jacfwd" => Pass::Jacfwd,
            "jacrev" => Pass::Jacrev,
            "hessian" => Pass::Hessian,
            _ => return None,
        })
    }
}

/// Options of `ferrax run`.
#[derive(Debug, PartialEq, Eq)]
pub struct RunArgs {
    /// The module, or `-` for stdin.
    pub input: String,
    /// One `.npy` file per parameter of the entry Func.
    pub arrays: Vec<PathBuf>,
    /// Which backend runs it.
    pub backend: Backend,
    /// Write `out{i}.npy` here instead of printing.
    pub out_dir: Option<PathBuf>,
    /// Print every element, even past 1000.
    pub full: bool,
    /// The allocation budget in bytes (default: half of physical memory).
    pub max_bytes: Option<u64>,
    /// Bound on the total loop iterations of the run.
    pub fuel: Option<u64>,
    /// Print each kernel's CLIF and disassembly to stderr (JIT backend).
    pub dump_jit: bool,
}

/// The usage text printed by `ferrax help`.
pub const USAGE: &str = "\
usage: ferrax <command> [args]

commands:
  print  FILE [--locs]        parse, verify and print the canonical text
  verify FILE                 parse and verify only
  run    FILE A.npy... [--backend jit|interp] [--dump-jit] [--out DIR] [--full]
                              [--max-bytes N] [--fuel N]
                              run the entry Func on one .npy file per parameter
  grad   FILE [--wrt 0,1] [--has-aux] [--max-bytes N]
                              gradient of a scalar function; with --max-bytes,
                              checkpointed so its peak live bytes fit N
  value-and-grad FILE [--wrt ..] [--has-aux] [--max-bytes N]
  jvp    FILE [--wrt ..]      forward mode: params, tangents -> outs, tangents
  vjp    FILE [--wrt ..]      reverse mode: params, cotangents -> outs, cotangents
  hvp    FILE [--wrt ..]      Hessian-vector product (jvp of grad)
  linearize FILE [--wrt ..]   the primal Func, then the linear Func
  transpose FILE              transpose a linear Func marked [residuals=K]
  vmap   FILE --in-axes 0,none --axis-size N [--out-axes 0]   batch the entry
  jacfwd|jacrev|hessian FILE [--wrt ..]   Jacobians (out.shape + param.shape)
  opt    FILE                 inline, fold, simplify, hoist, cse, dce to a fixed point
  cost   FILE [--wrt ..]      flops, bytes, peak live bytes per Func; residuals
  dot    FILE [--func NAME]   Graphviz of a Func (default: the entry)
  fuse   FILE                 kernels and their launch order (what the JIT builds)

FILE may be '-' to read the module from standard input.";

/// Parses the arguments after the program name; the error is a one-line usage message.
pub fn parse_args(args: &[String]) -> Result<Command, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("missing command (try 'ferrax help')".into());
    };
    match command.as_str() {
        "help" | "--help" | "-h" => Ok(Command::Help),
        "print" => {
            let (positional, flags) = split(rest, &["--locs"], &[])?;
            Ok(Command::Print { input: one_input("print", &positional)?, locs: flags.has("--locs") })
        }
        "verify" => {
            let (positional, _) = split(rest, &[], &[])?;
            Ok(Command::Verify { input: one_input("verify", &positional)? })
        }
        "opt" => {
            let (positional, _) = split(rest, &[], &[])?;
            Ok(Command::Opt { input: one_input("opt", &positional)? })
        }
        "cost" => {
            let (positional, flags) = split(rest, &[], &["--wrt"])?;
            Ok(Command::Cost { input: one_input("cost", &positional)?, wrt: wrt_list(&flags)? })
        }
        "dot" => {
            let (positional, flags) = split(rest, &[], &["--func"])?;
            let func = flags.value("--func").map(|f| f.trim_start_matches('@').to_string());
            Ok(Command::Dot { input: one_input("dot", &positional)?, func })
        }
        "fuse" => {
            let (positional, _) = split(rest, &[], &[])?;
            Ok(Command::Fuse { input: one_input("fuse", &positional)? })
        }
        "run" => parse_run(rest),
        "vmap" => parse_vmap(rest),
        name => match Pass::from_name(name) {
            Some(pass) => parse_transform(pass, rest),
            None => Err(format!(
                "unknown command '{name}' (available: print, verify, run, grad, value-and-grad, jvp, vjp, hvp, \
                 linearize, transpose, vmap, jacfwd, jacrev, hessian, opt, fuse, cost, dot; try 'ferrax help')"
            )),
        },
    }
}

fn parse_run(rest: &[String]) -> Result<Command, String> {
    let (positional, flags) = split(rest, &["--full", "--dump-jit"], &["--backend", "--out", "--max-bytes", "--fuel"])?;
    let Some((input, arrays)) = positional.split_first() else {
        return Err("run: missing the module file".into());
    };
    let backend = match flags.value("--backend") {
        Some("interp") => Backend::Interp,
        None | Some("jit") => Backend::Jit,
        Some(other) => return Err(format!("run: unknown backend '{other}' (expected interp or jit)")),
    };
    Ok(Command::Run(RunArgs {
        input: input.clone(),
        arrays: arrays.iter().map(PathBuf::from).collect(),
        backend,
        out_dir: flags.value("--out").map(PathBuf::from),
        full: flags.has("--full"),
        max_bytes: flags.number("--max-bytes")?,
        fuel: flags.number("--fuel")?,
        dump_jit: flags.has("--dump-jit"),
    }))
}

fn parse_vmap(rest: &[String]) -> Result<Command, String> {
    let (positional, flags) = split(rest, &[], &["--in-axes", "--axis-size", "--out-axes"])?;
    let input = one_input("vmap", &positional)?;
    let in_axes = flags.value("--in-axes").ok_or("vmap: missing --in-axes (e.g. --in-axes 0,none)")?;
    let in_axes = in_axes
        .split(',')
        .map(|a| match a.trim() {
            "none" => Ok(None),
            n => n.parse::<isize>().map(Some).map_err(|_| format!("--in-axes expects integers or none, got '{n}'")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let axis_size = flags.number("--axis-size")?.ok_or("vmap: missing --axis-size N")?;
    let axis_size = usize::try_from(axis_size).map_err(|_| "--axis-size is too large".to_string())?;
    let out_axes = match flags.value("--out-axes") {
        None => vec![0],
        Some(list) => list
            .split(',')
            .map(|a| a.trim().parse::<isize>().map_err(|_| format!("--out-axes expects integers, got '{a}'")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(Command::Vmap { input, in_axes, out_axes, axis_size })
}

fn parse_transform(pass: Pass, rest: &[String]) -> Result<Command, String> {
    let aux_allowed = matches!(pass, Pass::Grad | Pass::ValueAndGrad);
    let switches: &[&str] = if aux_allowed { &["--has-aux"] } else { &[] };
    let options: &[&str] = match pass {
        Pass::Transpose => &[],
        Pass::Grad | Pass::ValueAndGrad => &["--wrt", "--max-bytes"],
        _ => &["--wrt"],
    };
    let (positional, flags) = split(rest, switches, options)?;
    Ok(Command::Transform {
        pass,
        input: one_input("transform", &positional)?,
        wrt: wrt_list(&flags)?,
        has_aux: flags.has("--has-aux"),
        max_bytes: flags.number("--max-bytes")?,
    })
}

/// `--wrt 0,2` as indices.
fn wrt_list(flags: &Flags) -> Result<Option<Vec<usize>>, String> {
    flags
        .value("--wrt")
        .map(|list| {
            list.split(',')
                .map(|i| i.trim().parse::<usize>().map_err(|_| format!("--wrt expects indices like 0,2, got '{list}'")))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()
}

fn one_input(command: &str, positional: &[String]) -> Result<String, String> {
    match positional {
        [one] => Ok(one.clone()),
        [] => Err(format!("{command}: missing the module file")),
        [_, extra, ..] => Err(format!("{command}: unexpected argument '{extra}'")),
    }
}

struct Flags(Vec<(String, Option<String>)>);

impl Flags {
    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).and_then(|(_, v)| v.as_deref())
    }

    fn number(&self, name: &str) -> Result<Option<u64>, String> {
        self.value(name)
            .map(|v| v.parse::<u64>().map_err(|_| format!("{name} expects a non-negative integer, got '{v}'")))
            .transpose()
    }
}

/// Splits arguments into positionals and flags (switches take no value; options take
/// one, as `--opt V` or `--opt=V`). `-` alone is a positional (stdin).
fn split(args: &[String], switches: &[&str], options: &[&str]) -> Result<(Vec<String>, Flags), String> {
    let mut positional = Vec::new();
    let mut flags = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if !arg.starts_with("--") {
            positional.push(arg.clone());
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if flags.iter().any(|(n, _): &(String, Option<String>)| n == name) {
            return Err(format!("option {name} given twice"));
        }
        if switches.contains(&name) && inline.is_none() {
            flags.push((name.to_string(), None));
        } else if options.contains(&name) {
            let value = match inline {
                Some(v) => v,
                None => iter.next().cloned().ok_or_else(|| format!("option {name} needs a value"))?,
            };
            flags.push((name.to_string(), Some(value)));
        } else {
            return Err(format!("unknown option '{arg}'"));
        }
    }
    Ok((positional, Flags(flags)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, String> {
        parse_args(&line.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn parses_commands() {
        assert_eq!(parse("print a.fx --locs"), Ok(Command::Print { input: "a.fx".into(), locs: true }));
        assert_eq!(parse("verify -"), Ok(Command::Verify { input: "-".into() }));
        assert_eq!(parse("opt -"), Ok(Command::Opt { input: "-".into() }));
        assert!(parse("opt a.fx b.fx").is_err());
        assert_eq!(parse("cost f.fx --wrt 1"), Ok(Command::Cost { input: "f.fx".into(), wrt: Some(vec![1]) }));
        assert_eq!(parse("dot f.fx --func @g"), Ok(Command::Dot { input: "f.fx".into(), func: Some("g".into()) }));
        let Ok(Command::Transform { max_bytes, .. }) = parse("grad f.fx --max-bytes 4096") else {
            panic!("grad --max-bytes did not parse");
        };
        assert_eq!(max_bytes, Some(4096));
        assert!(parse("jvp f.fx --max-bytes 4096").is_err());
        assert_eq!(parse("fuse f.fx"), Ok(Command::Fuse { input: "f.fx".into() }));
        assert!(parse("fuse").is_err());
        let Ok(Command::Run(run)) = parse("run f.fx x.npy y.npy --out d --full --max-bytes=100 --fuel 7") else {
            panic!("run did not parse");
        };
        assert_eq!(run.arrays.len(), 2);
        assert_eq!((run.full, run.max_bytes, run.fuel, run.backend), (true, Some(100), Some(7), Backend::Jit));
        assert_eq!(run.out_dir, Some(PathBuf::from("d")));
        let Ok(Command::Run(run)) = parse("run f.fx --backend interp --dump-jit") else { panic!("run") };
        assert_eq!((run.backend, run.dump_jit), (Backend::Interp, true));
    }

    #[test]
    fn rejects_bad_usage() {
        for (line, expected) in [
            ("", "missing command"),
            ("frobnicate x", "unknown command"),
            ("print", "missing the module file"),
            ("print a b", "unexpected argument 'b'"),
            ("print a --nope", "unknown option"),
            ("run f.fx --fuel", "needs a value"),
            ("run f.fx --fuel -3", "non-negative integer"),
            ("run f.fx --backend gpu", "unknown backend"),
            ("run f.fx --full --full", "given twice"),
        ] {
            let err = parse(line).unwrap_err();
            assert!(err.contains(expected), "{line:?}: {err}");
        }
    }
}
