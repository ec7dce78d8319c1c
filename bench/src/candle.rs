//! The W1 and W3 gradients with candle-core (feature `candle`): the Rust framework a
//! user would otherwise pick. candle is eager and has first-order reverse mode only (no
//! forward mode, vmap or HVP), so only `mlp_grad` and `elementwise_chain_grad` have a
//! candle version, reported as `mlp_grad_candle` and `elementwise_chain_grad_candle`.
//!
//! The inputs are the same `.npy` arrays, made into candle tensors once (parameters as
//! `Var`s); one timed call is the forward pass plus `backward()`, the gradients left in
//! candle's store (as JAX's results stay on its device). There is no compile step. The
//! results pass the same correctness gate as ferrax's, against JAX's (or, without
//! them, ferrax's interpreter).

use crate::data::Inputs;
use crate::report::{call_figures, figure};
use crate::run::{Options, gate, interp_results, jax_results, time_calls};
use crate::workloads::{Workload, select};
use crate::{Error, Result};
use candle_core::{Device, Tensor, Var};
use ferrax::Array;
use std::path::Path;
use std::time::Instant;

impl From<candle_core::Error> for Error {
    fn from(e: candle_core::Error) -> Error {
        Error(format!("candle: {e}"))
    }
}

/// Runs the candle versions of the selected W1/W3 workloads; whether all passed.
pub fn run(options: &Options, inputs: &mut Inputs, jax_dir: Option<&Path>) -> bool {
    let Ok(selected) = select(&options.only) else { return false };
    let mut passed = true;
    for w in selected.iter().filter(|w| w.name == "mlp_grad" || w.name == "elementwise_chain_grad") {
        let name = format!("{}_candle", w.name);
        match run_one(w, &name, options, inputs, jax_dir) {
            Ok(ok) => passed &= ok,
            Err(e) => {
                eprintln!("{name}: error: {e}");
                passed = false;
            }
        }
    }
    passed
}

/// One workload in candle; `Ok(false)` when it failed the gate.
fn run_one(w: &Workload, name: &str, options: &Options, inputs: &mut Inputs, jax_dir: Option<&Path>) -> Result<bool> {
    let args = (w.args)(inputs)?;
    let device = Device::Cpu;
    let tensors: Vec<Tensor> = args.iter().map(|a| to_tensor(a, &device)).collect::<Result<_>>()?;
    // W1: x and y are data, the six parameters are Vars; W3: a, b and c are all Vars.
    let first_var = if w.name == "mlp_grad" { 2 } else { 0 };
    let vars: Vec<Var> = tensors[first_var..].iter().map(Var::from_tensor).collect::<candle_core::Result<_>>()?;
    let step = || -> Result<(Tensor, Vec<Tensor>)> {
        let params: Vec<Tensor> = vars.iter().map(|v| v.as_tensor().clone()).collect();
        let loss = if w.name == "mlp_grad" { mlp_loss(&tensors[0], &tensors[1], &params)? } else { chain(&params)? };
        let store = loss.backward()?;
        let grads = vars
            .iter()
            .map(|v| store.get(v.as_tensor()).cloned().ok_or_else(|| Error::at(name, "a parameter has no gradient")))
            .collect::<Result<_>>()?;
        Ok((loss, grads))
    };

    let start = Instant::now();
    let (loss, grads) = step()?;
    let first_call = start.elapsed();
    let mut got = vec![to_array(&loss)?];
    for g in &grads {
        got.push(to_array(g)?);
    }
    let (reference, against) = match jax_dir {
        Some(dir) => (jax_results(dir, w.name, got.len())?, "JAX"),
        None => (interp_results(w, &args)?, "ferrax's interpreter"),
    };
    if !gate(name, &got, &reference, w.reductions, against) {
        eprintln!("{name}: no times reported");
        return Ok(false);
    }
    figure(name, "first_call", first_call.as_secs_f64() * 1e3, "ms");
    let calls = options.calls.unwrap_or(w.calls).max(1);
    let stats = time_calls(Workload::warmup(calls), calls, || step().map(drop))?;
    call_figures(name, "call", &stats);
    Ok(true)
}

/// W1's loss: mean softmax cross-entropy of the tanh MLP (log-softmax written out:
/// candle-core has no `log_softmax`; candle-nn's is the same formula).
fn mlp_loss(x: &Tensor, y: &Tensor, p: &[Tensor]) -> Result<Tensor> {
    let h1 = x.matmul(&p[0])?.broadcast_add(&p[1])?.tanh()?;
    let h2 = h1.matmul(&p[2])?.broadcast_add(&p[3])?.tanh()?;
    let logits = h2.matmul(&p[4])?.broadcast_add(&p[5])?;
    let shift = logits.max_keepdim(1)?.detach();
    let shifted = logits.broadcast_sub(&shift)?;
    let log_p = shifted.broadcast_sub(&shifted.exp()?.sum_keepdim(1)?.log()?)?;
    let batch = x.dims()[0] as f64;
    Ok((y * log_p)?.sum_all()?.affine(-1.0 / batch, 0.0)?)
}

/// W3's chain `sum(tanh(a*b + c) * exp(-a) / (1 + b*b))`.
fn chain(v: &[Tensor]) -> Result<Tensor> {
    let (a, b, c) = (&v[0], &v[1], &v[2]);
    let top = ((a * b)? + c)?.tanh()?.mul(&a.neg()?.exp()?)?;
    Ok(top.div(&b.sqr()?.affine(1.0, 1.0)?)?.sum_all()?)
}

fn to_tensor(a: &Array, device: &Device) -> Result<Tensor> {
    let values = a.as_f32().ok_or_else(|| Error::at("candle", format!("{} input, f32 expected", a.dtype())))?;
    Ok(Tensor::from_slice(values, a.shape(), device)?)
}

fn to_array(t: &Tensor) -> Result<Array> {
    let values: Vec<f32> = t.flatten_all()?.to_vec1()?;
    Ok(Array::from_f32(t.dims(), values)?)
}
