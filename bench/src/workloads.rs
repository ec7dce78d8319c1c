//! The registry of workloads: W1-W10 and W12 (the performance workloads of README.md's
//! benchmark section) as named programs with their
//! inputs, default call counts and tolerances.
//!
//! A workload's program is a boxed Rust closure from the flat list of argument tensors
//! to the flat list of results, built fresh by [`Workload::program`] (so that no
//! transform cache of an earlier build is reused when compile latency is measured).
//! The order of arguments and results is the contract with `bench/jax/bench.py`: its
//! functions take the same arrays in the same order and its `jax_out/<name>_<i>.npy`
//! files are the results in the same order.

use crate::data::Inputs;
use crate::{Error, Result};
use ferrax::{Array, Tensor};

/// A traced program: argument tensors in, result tensors out.
pub type Program = Box<dyn Fn(Vec<Tensor>) -> Vec<Tensor>>;

/// One benchmarked function.
pub struct Workload {
    /// The name in the output lines (`mlp_grad`, `dispatch`, ...).
    pub name: &'static str,
    /// The workload's label (`W1` ... `W6`), accepted by `--only`.
    pub id: &'static str,
    /// Builds the program (a fresh closure, with fresh transform objects, each call).
    pub program: fn() -> Program,
    /// The arguments, from the inputs.
    pub args: fn(&mut Inputs) -> Result<Vec<Array>>,
    /// Timed calls by default (the JAX side uses the same numbers); warm-up is a tenth.
    pub calls: usize,
    /// Results that are f32 sums of very many terms, whose value depends on the order
    /// of summation more than elementwise results do: checked with a looser relative
    /// tolerance ([`crate::gate::Tolerance::reduction`]).
    pub reductions: &'static [usize],
    /// Computes in a 16-bit float (mixed precision): every result is checked with the
    /// 16-bit tolerance, since XLA may skip roundings inside its fusions.
    pub mixed: bool,
}

impl Workload {
    /// Warm-up calls before the timed ones for `calls` timed calls.
    pub fn warmup(calls: usize) -> usize {
        (calls / 10).max(3)
    }
}

/// Every workload, in the order they run.
pub fn all() -> Vec<Workload> {
    let mut all = Vec::new();
    all.extend(crate::w1_mlp::workloads());
    all.extend(crate::w2_rosenbrock::workloads());
    all.extend(crate::w3_elementwise::workloads());
    all.extend(crate::w4_per_sample::workloads());
    all.extend(crate::w5_dispatch::workloads());
    all.extend(crate::w6_chain::workloads());
    all.extend(crate::w7_mixed::workloads());
    all.extend(crate::w8_cnn::workloads());
    all.extend(crate::w9_transformer::workloads());
    all.extend(crate::w10_linalg::workloads());
    all.extend(crate::w12_kernels::workloads());
    all
}

/// The workloads `only` names (by name or by id, comma lists allowed); all for none.
pub fn select(only: &[String]) -> Result<Vec<Workload>> {
    pick(all(), only, |w| (w.name, w.id))
}

/// The items of `every` that `only` names by name or label (`key`: both), comma lists
/// allowed; all for none; an error naming an unknown one.
pub(crate) fn pick<T>(
    every: Vec<T>,
    only: &[String],
    key: impl Fn(&T) -> (&'static str, &'static str),
) -> Result<Vec<T>> {
    let wanted: Vec<&str> = only.iter().flat_map(|s| s.split(',')).map(str::trim).filter(|s| !s.is_empty()).collect();
    let named = |t: &T, w: &str| {
        let (name, id) = key(t);
        name == w || id.eq_ignore_ascii_case(w)
    };
    if let Some(w) = wanted.iter().find(|w| !every.iter().any(|t| named(t, w))) {
        let names: Vec<&str> = every.iter().map(|t| key(t).0).collect();
        return Err(Error::at("--only", format!("no workload `{w}` (one of {})", names.join(", "))));
    }
    Ok(every.into_iter().filter(|t| wanted.is_empty() || wanted.iter().any(|w| named(t, w))).collect())
}

/// The arrays of `stems`, in order.
pub(crate) fn load(inputs: &mut Inputs, stems: &[&str]) -> Result<Vec<Array>> {
    stems.iter().map(|s| inputs.get(s)).collect()
}
