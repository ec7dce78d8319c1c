//! `ferrax run --axis NAME=N`: the module's declared axis bound to N workers. Every
//! argument carries a leading axis of N (worker `k` gets slice `k`) and every output is
//! stacked along a new axis 0. The JIT backend runs the compiled module on N threads
//! (`ferrax_dist::ThreadGroup`), whose collectives exchange data; the interpreter
//! runs `vmap --axis-name NAME` of the module, the collectives' definition, so that
//! the two backends can be compared.

use ferrax_array::Array;
use ferrax_ir::{Error, EvalOptions, Module, Place};
use std::time::Duration;

/// How long a worker waits at a collective for the others.
const TIMEOUT: Duration = Duration::from_secs(60);

fn fail(entry: &str, message: impl Into<String>) -> Error {
    Error::eval(Place { func: entry.to_string(), eqn: None, prim: None }, message)
}

/// The types of the .npy files `run` takes for `entry`: its parameters' types, each
/// with a leading axis of `workers` when an axis is bound to that many workers.
pub(crate) fn argument_types(entry: &ferrax_ir::Func, workers: Option<usize>) -> Vec<ferrax_ir::Type> {
    let types = entry.param_types();
    let Some(n) = workers else { return types };
    types
        .into_iter()
        .map(|t| {
            let mut shape = t.shape.to_vec();
            shape.insert(0, n);
            ferrax_ir::Type::new(t.dtype, &shape)
        })
        .collect()
}

/// Runs `module` on `n` workers of the axis `name` by the interpreter (`jit` false) or
/// the JIT with `options`.
pub(crate) fn run(
    module: &Module,
    args: &[Array],
    (name, n): (&str, usize),
    jit: Option<&ferrax_jit::JitOptions>,
    eval: &EvalOptions,
) -> Result<Vec<Array>, Error> {
    let entry = module.entry().ok_or_else(|| fail("", "the module has no Func"))?;
    if !entry.axis_names().contains(&name) {
        return Err(fail(&entry.name, format!("--axis: @{} declares no axis `{name}`", entry.name)));
    }
    let Some(options) = jit else {
        let all = vec![Some(0); entry.params.len()];
        let bound = ferrax_transform::vmap_named(module, &all, &[0], n, name)?;
        return ferrax_ir::eval_entry(&bound, args, eval);
    };
    let exe = ferrax_jit::compile(module, options)?;
    let args: Vec<&Array> = args.iter().collect();
    ferrax_dist::run_on_threads(&exe, &args, &[], n, TIMEOUT).map_err(|m| fail(&entry.name, m))
}
