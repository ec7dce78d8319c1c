//! The `ferrax` command: reads IR modules from files or stdin and prints, verifies or
//! runs them. Every error is one line on stderr naming its place,
//! with exit code 1; usage errors exit with 2. The transform subcommands (grad, jvp,
//! vmap, ..., opt) compose through pipes.

mod args;
mod workers;

use args::{Backend, Command, Pass, RunArgs, parse_args};
use ferrax_array::{Array, Budget, npy};
use ferrax_ir::{Error, EvalOptions, Module, PrintOptions, SourceMap};
use std::io::{Read, Write};
use std::process::ExitCode;

/// A failure to report: one line, and the exit code.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn error(message: impl Into<String>) -> Failure {
        Failure { code: 1, message: message.into() }
    }

    fn usage(message: impl Into<String>) -> Failure {
        Failure { code: 2, message: message.into() }
    }
}

fn main() -> ExitCode {
    install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut stdout = std::io::stdout().lock();
    match run_command(&args, &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("ferrax: {}", failure.message.replace('\n', " "));
            ExitCode::from(failure.code)
        }
    }
}

/// A panic is a bug in ferrax; still, the user sees one line and exit code 101, not a
/// backtrace.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("ferrax: internal error (please report it){location}");
    }));
}

fn run_command(args: &[String], out: &mut impl Write) -> Result<(), Failure> {
    let command = parse_args(args).map_err(Failure::usage)?;
    match command {
        Command::Help(text) => write_out(out, text.trim_end()),
        Command::Completions { shell } => {
            let script = args::completions(shell);
            write_out(out, String::from_utf8_lossy(&script).trim_end())
        }
        Command::Print { input, locs } => {
            let (module, _) = load(&input)?;
            write_out(out, ferrax_ir::print_with(&module, &PrintOptions { locs }).trim_end())
        }
        Command::Verify { input } => {
            let (module, _) = load(&input)?;
            write_out(out, &format!("{}: ok ({} Funcs)", display_name(&input), module.funcs.len()))
        }
        Command::Run(run) => run_module(&run, out),
        Command::Opt { input } => {
            let (module, _) = load(&input)?;
            let optimised =
                ferrax_transform::opt(&module).map_err(|e| Failure::error(format!("{}: {e}", display_name(&input))))?;
            write_out(out, ferrax_ir::print(&optimised).trim_end())
        }
        Command::Fuse { input } => {
            let (module, _) = load(&input)?;
            let fused =
                ferrax_fuse::fuse(&module).map_err(|e| Failure::error(format!("{}: {e}", display_name(&input))))?;
            write_out(out, ferrax_ir::print(&fused).trim_end())
        }
        Command::Vmap { input, in_axes, out_axes, axis_size, axis_name } => {
            let (module, _) = load(&input)?;
            let batched = match &axis_name {
                Some(name) => ferrax_transform::vmap_named(&module, &in_axes, &out_axes, axis_size, name),
                None => ferrax_transform::vmap(&module, &in_axes, &out_axes, axis_size),
            }
            .map(|m| ferrax_transform::dce(&m))
            .and_then(|m| ferrax_ir::verify(&m).map(|()| m))
            .map_err(|e| Failure::error(format!("{}: {e}", display_name(&input))))?;
            write_out(out, ferrax_ir::print(&batched).trim_end())
        }
        Command::Cost { input, wrt } => {
            let (module, _) = load(&input)?;
            let wrt = wrt.map_or(ferrax_transform::Wrt::Default, ferrax_transform::Wrt::Params);
            let report = ferrax_transform::cost_with_residuals(&module, &wrt)
                .map_err(|e| Failure::error(format!("{}: {e}", display_name(&input))))?;
            write_out(out, &report.to_string())
        }
        Command::Dot { input, func } => {
            let (module, _) = load(&input)?;
            let graph = ferrax_transform::dot(&module, func.as_deref())
                .map_err(|e| Failure::error(format!("{}: {e}", display_name(&input))))?;
            write_out(out, &graph)
        }
        Command::Transform { pass, input, wrt, has_aux, max_bytes } => {
            let (module, _) = load(&input)?;
            let transformed = transform(pass, &module, wrt, has_aux, max_bytes)
                .map_err(|e| Failure::error(format!("{}: {e}", display_name(&input))))?;
            write_out(out, ferrax_ir::print(&transformed).trim_end())
        }
    }
}

/// Runs a transform, then dead-code elimination; the result is verified. With
/// `max_bytes`, grad and value-and-grad are checkpointed to fit that peak.
fn transform(
    pass: Pass,
    module: &Module,
    wrt: Option<Vec<usize>>,
    has_aux: bool,
    max_bytes: Option<u64>,
) -> Result<Module, Error> {
    use ferrax_transform as t;
    let wrt = wrt.map_or(t::Wrt::Default, t::Wrt::Params);
    let out = match (pass, max_bytes) {
        (Pass::Grad, Some(n)) => t::grad_with_budget(module, &wrt, has_aux, n)?.0,
        (Pass::ValueAndGrad, Some(n)) => t::value_and_grad_with_budget(module, &wrt, has_aux, n)?.0,
        (pass, _) => plain_transform(pass, module, &wrt, has_aux)?,
    };
    let out = t::dce(&out);
    ferrax_ir::verify(&out)?;
    Ok(out)
}

fn plain_transform(pass: Pass, module: &Module, wrt: &ferrax_transform::Wrt, has_aux: bool) -> Result<Module, Error> {
    use ferrax_transform as t;
    let wrt = wrt.clone();
    Ok(match pass {
        Pass::Grad => t::grad(module, &wrt, has_aux)?,
        Pass::ValueAndGrad => t::value_and_grad(module, &wrt, has_aux)?,
        Pass::Jvp => t::jvp(module, &wrt)?,
        Pass::Vjp => t::vjp(module, &wrt)?,
        Pass::Hvp => t::hvp(module, &wrt)?,
        Pass::Linearize => t::linearize(module, &wrt)?,
        Pass::Transpose => t::transpose(module)?,
        Pass::Jacfwd => t::jacfwd(module, &wrt)?,
        Pass::Jacrev => t::jacrev(module, &wrt)?,
        Pass::Hessian => t::hessian(module, &wrt)?,
    })
}

fn display_name(input: &str) -> &str {
    if input == "-" { "<stdin>" } else { input }
}

/// Writes a line; a closed pipe (`ferrax print f.fx | head -1`) is not an error.
fn write_out(out: &mut impl Write, text: &str) -> Result<(), Failure> {
    match writeln!(out, "{text}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::error(format!("writing output: {e}"))),
        _ => Ok(()),
    }
}

/// Reads, parses and verifies a module; errors carry `file:line:col`.
fn load(input: &str) -> Result<(Module, SourceMap), Failure> {
    let name = display_name(input);
    let mut bytes = Vec::new();
    let read = if input == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(input).and_then(|mut f| f.read_to_end(&mut bytes)).map(|_| ())
    };
    read.map_err(|e| Failure::error(format!("{name}: cannot read: {e}")))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| Failure::error(format!("{name}: not UTF-8 text (invalid byte at offset {})", e.valid_up_to())))?;
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| Failure::error(format!("{name}:{e}")))?;
    ferrax_ir::verify(&module).map_err(|e| Failure::error(locate(name, &e, &spans)))?;
    Ok((module, spans))
}

/// Prefixes an error with `file:line:col` of the Func or equation it names.
fn locate(name: &str, error: &Error, spans: &SourceMap) -> String {
    let place = match error {
        Error::Verify { place, .. } | Error::Eval { place, .. } | Error::Transform { place, .. } => place,
        Error::Parse { .. } => return format!("{name}:{error}"),
        Error::Array(_) => return format!("{name}: {error}"),
    };
    let position = match place.eqn {
        Some(eqn) => spans.eqn_pos(&place.func, eqn),
        None => spans.func_pos(&place.func),
    };
    match position {
        Some((line, col)) => format!("{name}:{line}:{col}: {error}"),
        None => format!("{name}: {error}"),
    }
}

fn run_module(run: &RunArgs, out: &mut impl Write) -> Result<(), Failure> {
    let name = display_name(&run.input);
    let (module, spans) = load(&run.input)?;
    let budget = run.max_bytes.map_or_else(Budget::default, Budget::new);
    let entry = module.entry().ok_or_else(|| Failure::error(format!("{name}: the module has no Func")))?;
    let param_types = workers::argument_types(entry, run.axis.as_ref().map(|(_, n)| *n));
    if run.arrays.len() != param_types.len() {
        return Err(Failure::error(format!(
            "@{} takes {} inputs but {} .npy files were given",
            entry.name,
            param_types.len(),
            run.arrays.len()
        )));
    }
    let mut args = Vec::with_capacity(run.arrays.len());
    for (i, (path, ty)) in run.arrays.iter().zip(&param_types).enumerate() {
        let array = npy::read_file(path, &budget).map_err(|e| Failure::error(format!("{}: {e}", path.display())))?;
        if array.dtype() != ty.dtype || array.shape() != ty.shape.as_slice() {
            return Err(Failure::error(format!(
                "{}: argument {i} of @{} must be {ty}, got {}[{}]",
                path.display(),
                entry.name,
                array.dtype(),
                ferrax_array::format_dims(array.shape())
            )));
        }
        args.push(array);
    }
    let outputs = match (run.backend, &run.axis) {
        (backend, Some((axis, n))) => {
            let options = EvalOptions { budget, fuel: run.fuel, spill_dir: run.spill_dir.clone() };
            let jit = ferrax_jit::JitOptions {
                max_bytes: run.max_bytes,
                fuel: run.fuel,
                spill_dir: run.spill_dir.clone(),
                ..Default::default()
            };
            let jit = (backend == Backend::Jit).then_some(&jit);
            workers::run(&module, &args, (axis, *n), jit, &options)
        }
        (Backend::Interp, None) => {
            let options = EvalOptions { budget, fuel: run.fuel, spill_dir: run.spill_dir.clone() };
            ferrax_ir::eval_entry(&module, &args, &options)
        }
        (Backend::Jit, None) => {
            let options = ferrax_jit::JitOptions {
                max_bytes: run.max_bytes,
                fuel: run.fuel,
                dump: run.dump_jit,
                spill_dir: run.spill_dir.clone(),
                ..Default::default()
            };
            ferrax_jit::compile(&module, &options).and_then(|exe| {
                if run.dump_jit {
                    eprint!("{}", exe.dump());
                }
                exe.call(&args)
            })
        }
    }
    .map_err(|e| Failure::error(locate(name, &e, &spans)))?;
    match &run.out_dir {
        Some(dir) => write_npy_outputs(dir, &outputs),
        None => {
            let limit = if run.full { None } else { Some(1000) };
            let text: Vec<String> =
                outputs.iter().enumerate().map(|(i, a)| format!("out{i}: {}", a.describe(limit))).collect();
            write_out(out, &text.join("\n"))
        }
    }
}

fn write_npy_outputs(dir: &std::path::Path, outputs: &[Array]) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::error(format!("{}: cannot create directory: {e}", dir.display())))?;
    for (i, array) in outputs.iter().enumerate() {
        let path = dir.join(format!("out{i}.npy"));
        npy::write_file(&path, array).map_err(|e| Failure::error(e.to_string()))?;
    }
    Ok(())
}
