//! Command-line parsing for the `ferrax` command. The subcommands and their flags are
//! declared with clap's derive API, which gives `--help` (with an example for every
//! subcommand), suggestions for misspelt flags and subcommands, and the scripts of
//! `ferrax completions SHELL`. [`parse_args`] turns a command line into the
//! [`Command`] that `main.rs` runs, and a usage error into the one line the command
//! prints.

use clap::error::ErrorKind;
use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand, ValueEnum, ValueHint};
use clap_complete::Shell;
use std::path::PathBuf;

/// Which interpreter of the IR runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// Native code compiled by Cranelift.
    Jit,
    /// The reference interpreter of the IR.
    Interp,
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
    /// `ferrax vmap FILE --in-axes 0,none --axis-size N [--out-axes 0] [--axis-name i]`.
    Vmap {
        /// The module, or `-` for stdin.
        input: String,
        /// One entry per parameter: an axis (negative counts from the end) or none.
        in_axes: Vec<Option<isize>>,
        /// One axis for every output, or one per output.
        out_axes: Vec<isize>,
        /// The batch size.
        axis_size: usize,
        /// The declared axis the batch binds (its collectives become operations
        /// along the batch axis).
        axis_name: Option<String>,
    },
    /// A transform subcommand: `grad`, `value-and-grad`, `jvp`, `vjp`, `hvp`,
    /// `linearize`, `transpose`, `jacfwd`, `jacrev`, `hessian`.
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
        /// The Func to draw, without its `@` (default: the entry).
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
    /// `ferrax completions SHELL`: the completion script for that shell.
    Completions {
        /// The shell the script is for.
        shell: Shell,
    },
    /// `ferrax help [SUBCOMMAND]`, `--help`, `-h` or `--version`: the text to print on
    /// standard output.
    Help(String),
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

/// Options of `ferrax run`.
#[derive(Debug, PartialEq, Eq, Args)]
pub struct RunArgs {
    /// The module, or `-` for standard input.
    #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub input: String,
    /// One .npy file per parameter of the entry Func, in order.
    #[arg(value_name = "ARRAY.npy", value_hint = ValueHint::FilePath)]
    pub arrays: Vec<PathBuf>,
    /// Which backend runs it.
    #[arg(long, value_enum, default_value_t = Backend::Jit)]
    pub backend: Backend,
    /// Write out0.npy, out1.npy, ... into this directory instead of printing.
    #[arg(long = "out", value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub out_dir: Option<PathBuf>,
    /// Print every element, even past 1000.
    #[arg(long)]
    pub full: bool,
    /// The allocation budget in bytes (default: half of physical memory, or less
    /// under the process's limits).
    #[arg(long, value_name = "N", value_parser = count, allow_negative_numbers = true)]
    pub max_bytes: Option<u64>,
    /// Bound on the total loop iterations of the run.
    #[arg(long, value_name = "N", value_parser = count, allow_negative_numbers = true)]
    pub fuel: Option<u64>,
    /// Print each kernel's Cranelift IR and disassembly to stderr (JIT backend).
    #[arg(long)]
    pub dump_jit: bool,
    /// Where `offload` writes the run's spill file (created if missing; the file is
    /// removed when the run ends). Default: $FERRAX_SPILL_DIR, else the system's
    /// temporary directory.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub spill_dir: Option<PathBuf>,
    /// Bind the declared axis NAME to N workers: every .npy has a leading axis of N
    /// (worker k gets slice k) and the outputs are stacked along axis 0. The JIT runs
    /// the workers as threads; the interpreter runs `vmap --axis-name` of the module.
    #[arg(long, value_name = "NAME=N", value_parser = named_axis)]
    pub axis: Option<(String, usize)>,
}

/// `--axis NAME=N`.
fn named_axis(text: &str) -> Result<(String, usize), String> {
    let (name, size) = text.split_once('=').ok_or("expects NAME=N")?;
    let size: usize = size.trim().parse().map_err(|_| "expects NAME=N with N a positive integer".to_string())?;
    if name.is_empty() || size == 0 {
        return Err("expects NAME=N with a name and N > 0".into());
    }
    Ok((name.trim().to_string(), size))
}

/// The examples at the end of `ferrax --help`: one for every subcommand.
const EXAMPLES: &str = "\
Examples:
  ferrax print model.fx --locs
  ferrax verify model.fx
  ferrax run model.fx x.npy w.npy --backend interp --out outs
  ferrax run data_parallel.fx xs.npy --axis i=4
  ferrax grad model.fx --wrt 0
  ferrax value-and-grad model.fx --has-aux --max-bytes 1000000
  ferrax jvp model.fx --wrt 0,1
  ferrax vjp model.fx --wrt 1
  ferrax hvp model.fx
  ferrax linearize model.fx | ferrax transpose -
  ferrax vmap model.fx --in-axes none,0 --axis-size 8 --out-axes 0
  ferrax jacfwd model.fx --wrt 0
  ferrax jacrev model.fx --wrt 0,1
  ferrax hessian model.fx
  ferrax opt model.fx
  ferrax cost model.fx --wrt 1
  ferrax dot model.fx --func @layer
  ferrax fuse model.fx
  ferrax completions bash > ferrax.bash
  ferrax grad model.fx | ferrax jvp - | ferrax run - x.npy v.npy

FILE may be '-' to read the module from standard input; the transforms print a module,
so they compose through pipes.";

/// The command line as clap sees it.
#[derive(Debug, Parser)]
#[command(
    name = "ferrax",
    version,
    about = "Print, verify, transform and run ferrax IR modules",
    after_help = EXAMPLES,
    // A missing subcommand is a one-line usage error, not the help on stderr.
    arg_required_else_help = false
)]
struct Cli {
    #[command(subcommand)]
    command: Sub,
}

/// The module argument of every subcommand.
#[derive(Debug, Args)]
struct Input {
    /// The module, or `-` for standard input.
    #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
    input: String,
}

/// The module and `--wrt` of the passes that default to parameter 0.
#[derive(Debug, Args)]
struct FirstParam {
    #[command(flatten)]
    file: Input,
    /// Differentiate with respect to these parameters, comma-separated (default: 0).
    #[arg(long, value_name = "INDICES", value_delimiter = ',', value_parser = index, action = ArgAction::Set)]
    wrt: Option<Vec<usize>>,
}

/// The module and `--wrt` of the passes that default to every float parameter.
#[derive(Debug, Args)]
struct FloatParams {
    #[command(flatten)]
    file: Input,
    /// Differentiate with respect to these parameters, comma-separated (default:
    /// every float parameter).
    #[arg(long, value_name = "INDICES", value_delimiter = ',', value_parser = index, action = ArgAction::Set)]
    wrt: Option<Vec<usize>>,
}

/// The arguments of `grad` and `value-and-grad`.
#[derive(Debug, Args)]
struct GradArgs {
    #[command(flatten)]
    wrt: FirstParam,
    /// The function returns its loss, then auxiliary values passed through.
    #[arg(long)]
    has_aux: bool,
    /// Checkpoint the reverse pass so that its peak live bytes fit N.
    #[arg(long, value_name = "N", value_parser = count, allow_negative_numbers = true)]
    max_bytes: Option<u64>,
}

/// The arguments of `vmap`.
#[derive(Debug, Args)]
struct VmapArgs {
    #[command(flatten)]
    file: Input,
    /// The batched axis of each parameter, comma-separated: an axis (negative counts
    /// from the end) or `none` for an unbatched parameter.
    #[arg(
        long,
        required = true,
        value_name = "AXES",
        value_delimiter = ',',
        value_parser = axis_or_none,
        allow_hyphen_values = true,
        action = ArgAction::Set
    )]
    in_axes: Vec<Option<isize>>,
    /// The batch size.
    #[arg(long, value_name = "N", value_parser = count, allow_negative_numbers = true)]
    axis_size: u64,
    /// Where the batch axis goes in the outputs: one axis for all, or one per output.
    #[arg(
        long,
        value_name = "AXES",
        value_delimiter = ',',
        value_parser = axis,
        default_value = "0",
        allow_hyphen_values = true,
        action = ArgAction::Set
    )]
    out_axes: Vec<isize>,
    /// Bind the module's declared axis NAME: its members are the batch's examples, so
    /// `psum` over it sums over the batch, `axis_index` counts along it, and so on.
    #[arg(long, value_name = "NAME")]
    axis_name: Option<String>,
}

/// The arguments of `dot`.
#[derive(Debug, Args)]
struct DotArgs {
    #[command(flatten)]
    file: Input,
    /// The Func to draw, with or without its `@` (default: the entry).
    #[arg(long, value_name = "NAME")]
    func: Option<String>,
}

/// The subcommands; the first line of each doc comment is its line in `ferrax --help`.
#[derive(Debug, Subcommand)]
enum Sub {
    /// Parse, verify and print the canonical text.
    #[command(after_help = "Example: ferrax print model.fx --locs")]
    Print {
        #[command(flatten)]
        file: Input,
        /// Print the `loc(...)` of equations.
        #[arg(long)]
        locs: bool,
    },
    /// Parse and verify only.
    #[command(after_help = "Example: ferrax verify model.fx")]
    Verify(Input),
    /// Run the entry Func on one .npy file per parameter.
    #[command(after_help = "Example: ferrax run model.fx x.npy w.npy --backend interp --out outs")]
    Run(RunArgs),
    /// Gradient of a scalar function.
    #[command(after_help = "Example: ferrax grad model.fx --wrt 0")]
    Grad(GradArgs),
    /// The value, then the gradient, of a scalar function.
    #[command(after_help = "Example: ferrax value-and-grad model.fx --has-aux")]
    ValueAndGrad(GradArgs),
    /// Forward mode: params, tangents -> outs, tangents.
    #[command(after_help = "Example: ferrax jvp model.fx --wrt 0,1")]
    Jvp(FloatParams),
    /// Reverse mode: params, cotangents -> outs, cotangents.
    #[command(after_help = "Example: ferrax vjp model.fx --wrt 1")]
    Vjp(FloatParams),
    /// Hessian-vector product (jvp of grad).
    #[command(after_help = "Example: ferrax hvp model.fx --wrt 0")]
    Hvp(FirstParam),
    /// The primal Func, then the linear Func.
    #[command(after_help = "Example: ferrax linearize model.fx | ferrax transpose -")]
    Linearize(FloatParams),
    /// Transpose a linear Func marked [residuals=K].
    #[command(after_help = "Example: ferrax linearize model.fx | ferrax transpose -")]
    Transpose(Input),
    /// Batch the entry Func over a new axis.
    #[command(after_help = "Example: ferrax vmap model.fx --in-axes none,0 --axis-size 8")]
    Vmap(VmapArgs),
    /// Forward-mode Jacobian (out.shape + param.shape).
    #[command(after_help = "Example: ferrax jacfwd model.fx --wrt 0")]
    Jacfwd(FirstParam),
    /// Reverse-mode Jacobian (out.shape + param.shape).
    #[command(after_help = "Example: ferrax jacrev model.fx --wrt 0,1")]
    Jacrev(FirstParam),
    /// Hessian (out.shape + param.shape + param.shape).
    #[command(after_help = "Example: ferrax hessian model.fx")]
    Hessian(FirstParam),
    /// Inline, fold, simplify, hoist, cse and dce to a fixed point.
    #[command(after_help = "Example: ferrax opt model.fx")]
    Opt(Input),
    /// Flops, bytes and peak live bytes per Func; the residuals of reverse mode.
    #[command(after_help = "Example: ferrax cost model.fx --wrt 1")]
    Cost(FloatParams),
    /// Graphviz of a Func (fusion kernels as clusters).
    #[command(after_help = "Example: ferrax dot model.fx --func @layer | dot -Tsvg > layer.svg")]
    Dot(DotArgs),
    /// Kernels and their launch order (what the JIT builds).
    #[command(after_help = "Example: ferrax fuse model.fx")]
    Fuse(Input),
    /// Print a completion script for a shell.
    #[command(after_help = "Example: ferrax completions bash > ~/.local/share/bash-completion/completions/ferrax")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
}

/// `--wrt` entries: parameter indices.
fn index(text: &str) -> Result<usize, String> {
    text.trim().parse().map_err(|_| "expects parameter indices like 0,2".to_string())
}

/// `--max-bytes`, `--fuel`, `--axis-size`.
fn count(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| "expects a non-negative integer".to_string())
}

/// `--out-axes` entries.
fn axis(text: &str) -> Result<isize, String> {
    text.trim().parse().map_err(|_| "expects integers".to_string())
}

/// `--in-axes` entries.
fn axis_or_none(text: &str) -> Result<Option<isize>, String> {
    match text.trim() {
        "none" => Ok(None),
        n => n.parse().map(Some).map_err(|_| "expects integers or none".to_string()),
    }
}

/// Parses the arguments after the program name; the error is a one-line usage message.
pub fn parse_args(args: &[String]) -> Result<Command, String> {
    let cli = match Cli::try_parse_from(std::iter::once("ferrax").chain(args.iter().map(String::as_str))) {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            return Ok(Command::Help(e.render().to_string()));
        }
        Err(e) => return Err(one_line(&e)),
    };
    let transform = |pass, FirstParam { file, wrt }| Command::Transform {
        pass,
        input: file.input,
        wrt,
        has_aux: false,
        max_bytes: None,
    };
    let floats = |pass, FloatParams { file, wrt }| transform(pass, FirstParam { file, wrt });
    let grad = |pass, GradArgs { wrt: FirstParam { file, wrt }, has_aux, max_bytes }| Command::Transform {
        pass,
        input: file.input,
        wrt,
        has_aux,
        max_bytes,
    };
    Ok(match cli.command {
        Sub::Print { file, locs } => Command::Print { input: file.input, locs },
        Sub::Verify(file) => Command::Verify { input: file.input },
        Sub::Run(run) => Command::Run(run),
        Sub::Grad(args) => grad(Pass::Grad, args),
        Sub::ValueAndGrad(args) => grad(Pass::ValueAndGrad, args),
        Sub::Jvp(args) => floats(Pass::Jvp, args),
        Sub::Vjp(args) => floats(Pass::Vjp, args),
        Sub::Hvp(args) => transform(Pass::Hvp, args),
        Sub::Linearize(args) => floats(Pass::Linearize, args),
        Sub::Transpose(file) => transform(Pass::Transpose, FirstParam { file, wrt: None }),
        Sub::Jacfwd(args) => transform(Pass::Jacfwd, args),
        Sub::Jacrev(args) => transform(Pass::Jacrev, args),
        Sub::Hessian(args) => transform(Pass::Hessian, args),
        Sub::Vmap(VmapArgs { file, in_axes, axis_size, out_axes, axis_name }) => {
            let axis_size = usize::try_from(axis_size).map_err(|_| "--axis-size is too large".to_string())?;
            Command::Vmap { input: file.input, in_axes, out_axes, axis_size, axis_name }
        }
        Sub::Opt(file) => Command::Opt { input: file.input },
        Sub::Cost(FloatParams { file, wrt }) => Command::Cost { input: file.input, wrt },
        Sub::Dot(DotArgs { file, func }) => {
            Command::Dot { input: file.input, func: func.map(|f| f.trim_start_matches('@').to_string()) }
        }
        Sub::Fuse(file) => Command::Fuse { input: file.input },
        Sub::Completions { shell } => Command::Completions { shell },
    })
}

/// The completion script of `ferrax` for `shell`.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ferrax", &mut script);
    script
}

/// One line from clap's rendered error: the message (its indented continuation lines,
/// such as the missing arguments or the possible values, joined on), each suggestion
/// (`tip: a similar argument exists: '--wrt'`), and the usage line of the subcommand,
/// separated by `; `; the `error: ` prefix and the pointer to `--help` are dropped.
fn one_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let mut parts: Vec<String> = Vec::new();
    for paragraph in text.split("\n\n") {
        let mut lines = paragraph.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = lines.next() else { continue };
        if let Some(message) = first.strip_prefix("error: ") {
            let rest: Vec<&str> = lines.collect();
            parts.push(if rest.is_empty() { message.to_string() } else { format!("{message} {}", rest.join(", ")) });
        } else if first.starts_with("tip:") {
            // Not clap's "to pass '--x' as a value, use '-- --x'": every positional here
            // is a file, and an unknown flag is rarely the name of one.
            let tips = std::iter::once(first).chain(lines).filter(|tip| !tip.starts_with("tip: to pass '"));
            parts.extend(tips.map(String::from));
        } else if let Some(usage) = first.strip_prefix("Usage: ") {
            parts.push(format!("usage: {usage}"));
        }
    }
    if parts.is_empty() {
        // Not the layout above: keep clap's text, on one line.
        return text.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, String> {
        parse_args(&line.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn the_clap_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_commands() {
        assert_eq!(parse("print a.fx --locs"), Ok(Command::Print { input: "a.fx".into(), locs: true }));
        assert_eq!(parse("verify -"), Ok(Command::Verify { input: "-".into() }));
        assert_eq!(parse("opt -"), Ok(Command::Opt { input: "-".into() }));
        assert!(parse("opt a.fx b.fx").is_err());
        assert_eq!(parse("cost f.fx --wrt 1"), Ok(Command::Cost { input: "f.fx".into(), wrt: Some(vec![1]) }));
        assert_eq!(parse("cost f.fx --wrt=0,2"), Ok(Command::Cost { input: "f.fx".into(), wrt: Some(vec![0, 2]) }));
        assert_eq!(parse("dot f.fx --func @g"), Ok(Command::Dot { input: "f.fx".into(), func: Some("g".into()) }));
        assert_eq!(parse("dot f.fx --func=g"), Ok(Command::Dot { input: "f.fx".into(), func: Some("g".into()) }));
        let Ok(Command::Transform { max_bytes, .. }) = parse("grad f.fx --max-bytes 4096") else {
            panic!("grad --max-bytes did not parse");
        };
        assert_eq!(max_bytes, Some(4096));
        assert_eq!(
            parse("value-and-grad - --has-aux --wrt 1,0"),
            Ok(Command::Transform {
                pass: Pass::ValueAndGrad,
                input: "-".into(),
                wrt: Some(vec![1, 0]),
                has_aux: true,
                max_bytes: None
            })
        );
        assert_eq!(
            parse("transpose -"),
            Ok(Command::Transform {
                pass: Pass::Transpose,
                input: "-".into(),
                wrt: None,
                has_aux: false,
                max_bytes: None
            })
        );
        assert!(parse("jvp f.fx --max-bytes 4096").is_err());
        assert!(parse("transpose f.fx --wrt 0").is_err());
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
        assert_eq!(
            parse("vmap - --in-axes none,-1 --axis-size 5 --out-axes -1"),
            Ok(Command::Vmap {
                input: "-".into(),
                in_axes: vec![None, Some(-1)],
                out_axes: vec![-1],
                axis_size: 5,
                axis_name: None
            })
        );
        assert_eq!(
            parse("vmap f.fx --in-axes=0 --axis-size=2"),
            Ok(Command::Vmap {
                input: "f.fx".into(),
                in_axes: vec![Some(0)],
                out_axes: vec![0],
                axis_size: 2,
                axis_name: None
            })
        );
        assert_eq!(
            parse("vmap f.fx --in-axes 0 --axis-size 3 --axis-name i"),
            Ok(Command::Vmap {
                input: "f.fx".into(),
                in_axes: vec![Some(0)],
                out_axes: vec![0],
                axis_size: 3,
                axis_name: Some("i".into())
            })
        );
        assert_eq!(parse("completions zsh"), Ok(Command::Completions { shell: Shell::Zsh }));
    }

    #[test]
    fn help_and_version_are_text_for_stdout() {
        for line in ["help", "--help", "-h", "grad --help", "help grad", "--version"] {
            let Ok(Command::Help(text)) = parse(line) else { panic!("{line:?} is not help") };
            assert!(!text.trim().is_empty(), "{line:?}");
        }
        let Ok(Command::Help(text)) = parse("grad --help") else { panic!("grad --help") };
        assert!(text.contains("Example: ferrax grad model.fx --wrt 0"), "{text}");
        let Ok(Command::Help(text)) = parse("--help") else { panic!("--help") };
        for sub in Cli::command().get_subcommands() {
            assert!(text.contains(&format!("ferrax {} ", sub.get_name())), "no example of {}: {text}", sub.get_name());
        }
    }

    #[test]
    fn rejects_bad_usage() {
        for (line, expected) in [
            ("", "requires a subcommand"),
            ("frobnicate x", "unrecognized subcommand 'frobnicate'"),
            ("gard f.fx", "tip: a similar subcommand exists: 'grad'"),
            ("print", "the following required arguments were not provided: <FILE>"),
            ("print a b", "unexpected argument 'b'"),
            ("print a --nope", "unexpected argument '--nope'"),
            ("grad a --wrtt 0", "tip: a similar argument exists: '--wrt'"),
            ("run f.fx --fuel", "a value is required for '--fuel <N>'"),
            ("run f.fx --fuel -3", "invalid value '-3' for '--fuel <N>': expects a non-negative integer"),
            ("run f.fx --backend gpu", "invalid value 'gpu' for '--backend <BACKEND>' [possible values: jit, interp]"),
            ("run f.fx --full --full", "the argument '--full' cannot be used multiple times"),
            ("grad f.fx --wrt 0 --wrt 1", "the argument '--wrt <INDICES>' cannot be used multiple times"),
            ("grad f.fx --wrt 0,x", "invalid value 'x' for '--wrt <INDICES>': expects parameter indices"),
            ("vmap f.fx --axis-size 3", "not provided: --in-axes <AXES>"),
            ("vmap f.fx --in-axes 0 --axis-size 3 --wrt 0", "unexpected argument '--wrt'"),
            ("jvp f.fx --max-bytes 1", "unexpected argument '--max-bytes' found; usage: ferrax jvp <FILE>"),
            ("completions tcsh", "invalid value 'tcsh' for '<SHELL>'"),
        ] {
            let err = parse(line).unwrap_err();
            assert!(err.contains(expected), "{line:?}: {err}");
            assert!(!err.contains('\n') && !err.starts_with("error"), "{line:?}: {err}");
        }
        // The usage line names the subcommand.
        assert!(parse("fuse").unwrap_err().ends_with("usage: ferrax fuse <FILE>"));
    }
}
