//! The pass sweep: every pass `ferrax` runs, timed on straight-line chains of growing
//! length, so a pass that is quadratic in the number of equations shows up as a time
//! that grows 100× when the program grows 10×.
//!
//! Two chains, both of scalar f32 values (so `grad` applies):
//!
//! - `sin`: `a_{i+1} = sin(a_i)`, one consumer per value;
//! - `two`: `a_{i+1} = sin(a_i)`, `t_{i+1} = add(t_i, a_i)`: every `a_i` has two
//!   consumers, which is what made fusion's cycle check quadratic.
//!
//! `ferrax-bench passes` prints one `passes<TAB><chain>/<pass>/<equations><TAB>seconds<TAB>s`
//! line per measurement on stdout, then on stderr per pass the growth exponent between
//! the two largest sizes (1 is linear, 2 quadratic).

use crate::{Error, Result};
use ferrax_ir::{Module, parse};
use ferrax_transform::{self as t, Wrt};
use std::time::Instant;

/// The chains the sweep builds.
pub const CHAINS: [&str; 2] = ["sin", "two"];

/// The passes the sweep times, in order.
pub const PASSES: [&str; 18] = [
    "parse", "verify", "inline", "cse", "fold", "simplify", "hoist", "dce", "opt", "jvp", "vjp", "grad", "vmap",
    "cost", "fuse", "jit", "interp", "jacrev",
];

/// The text of a chain of about `equations` equations (`sin` or `two`).
pub fn chain_text(chain: &str, equations: usize) -> Result<String> {
    use std::fmt::Write;
    let mut text = String::from("func @chain(%a0: f32[]) -> (f32[]) {\n");
    match chain {
        "sin" => {
            for i in 0..equations.max(1) {
                let _ = writeln!(text, "  %a{}: f32[] = sin(%a{i})", i + 1);
            }
            let _ = writeln!(text, "  return %a{}", equations.max(1));
        }
        "two" => {
            let steps = (equations / 2).max(1);
            text += "  %t0: f32[] = sin(%a0)\n";
            for i in 0..steps {
                let _ = writeln!(text, "  %a{}: f32[] = sin(%a{i})\n  %t{}: f32[] = add(%t{i}, %a{i})", i + 1, i + 1);
            }
            let _ = writeln!(text, "  return %t{steps}");
        }
        other => return Err(Error::at(other, "unknown chain (sin or two)")),
    }
    text += "}\n";
    Ok(text)
}

/// The equations of every Func of `module`.
fn size(module: &Module) -> usize {
    module.funcs.values().map(|f| f.eqns.len()).sum()
}

/// Runs pass `pass` on `module` (whose text is `text`), as the `ferrax` command would;
/// returns the size of what it made (equations, or values for the runs).
fn run_pass(pass: &str, text: &str, module: &Module) -> std::result::Result<usize, ferrax_ir::Error> {
    let wrt = Wrt::Default;
    let x = || [ferrax_ir::array::Array::scalar_f32(0.5)];
    match pass {
        "parse" => parse(text).map(|m| size(&m)),
        "verify" => ferrax_ir::verify(module).map(|()| size(module)),
        "inline" => t::inline_calls(module).map(|m| size(&m)),
        "cse" => Ok(size(&t::cse(module))),
        "fold" => t::fold(module).map(|m| size(&m)),
        "simplify" => Ok(size(&t::simplify(module))),
        "hoist" => Ok(size(&t::hoist(module))),
        "dce" => Ok(size(&t::dce(module))),
        "opt" => t::opt(module).map(|m| size(&m)),
        "jvp" => t::jvp(module, &wrt).map(|m| size(&m)),
        "vjp" => t::vjp(module, &wrt).map(|m| size(&m)),
        "grad" => t::grad(module, &wrt, false).map(|m| size(&m)),
        "vmap" => t::vmap(module, &[Some(0)], &[0], 4).map(|m| size(&t::dce(&m))),
        "cost" => t::cost_with_residuals(module, &wrt).map(|c| c.to_string().len()),
        "fuse" => ferrax_fuse::fuse(module).map(|m| size(&m)),
        "jit" => ferrax_jit::compile(module, &ferrax_jit::JitOptions::default())
            .and_then(|exe| exe.call(&x()))
            .map(|outs| outs.len()),
        "interp" => ferrax_ir::eval_entry(module, &x(), &Default::default()).map(|outs| outs.len()),
        "jacrev" => t::jacrev(module, &wrt).map(|m| size(&m)),
        other => Err(ferrax_ir::Error::transform(ferrax_ir::Place::default(), format!("unknown pass {other}"))),
    }
}

/// Options of the sweep.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// Equations per chain, ascending.
    pub sizes: Vec<usize>,
    /// Chains to build (`sin`, `two`).
    pub chains: Vec<String>,
    /// Passes to time (empty: all of [`PASSES`]).
    pub passes: Vec<String>,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            sizes: vec![1_000, 10_000, 100_000],
            chains: CHAINS.iter().map(|s| s.to_string()).collect(),
            passes: Vec::new(),
        }
    }
}

/// One timing.
#[derive(Clone, Debug)]
pub struct Timing {
    /// The chain.
    pub chain: String,
    /// The pass.
    pub pass: String,
    /// Equations of the chain.
    pub equations: usize,
    /// Seconds the pass took.
    pub seconds: f64,
}

/// Runs the sweep, printing each timing as it is made; returns them all.
pub fn sweep(options: &SweepOptions) -> Result<Vec<Timing>> {
    let passes: Vec<String> =
        if options.passes.is_empty() { PASSES.iter().map(|s| s.to_string()).collect() } else { options.passes.clone() };
    let mut out = Vec::new();
    for chain in &options.chains {
        for &n in &options.sizes {
            let text = chain_text(chain, n)?;
            let module = parse(&text).map_err(|e| Error(format!("{chain}/{n}: {e}")))?;
            let equations = module.entry().map_or(0, |f| f.eqns.len());
            for pass in &passes {
                let start = Instant::now();
                run_pass(pass, &text, &module).map_err(|e| Error(format!("{chain}/{pass}/{equations}: {e}")))?;
                let seconds = start.elapsed().as_secs_f64();
                println!("passes\t{chain}/{pass}/{equations}\t{seconds:.4}\ts");
                out.push(Timing { chain: chain.clone(), pass: pass.clone(), equations, seconds });
            }
        }
    }
    for chain in &options.chains {
        for pass in &passes {
            let mine: Vec<&Timing> = out.iter().filter(|t| &t.chain == chain && &t.pass == pass).collect();
            if let [.., first, last] = mine[..]
                && last.equations > first.equations
            {
                let exponent = (last.seconds.max(1e-6) / first.seconds.max(1e-6)).ln()
                    / (last.equations as f64 / first.equations as f64).ln();
                eprintln!(
                    "{chain}/{pass}: {:.4} s at {} equations, {:.4} s at {}: grows as N^{exponent:.2}",
                    first.seconds, first.equations, last.seconds, last.equations
                );
            }
        }
    }
    Ok(out)
}
