//! The MLP of `mlp.rs` trained three ways with `ferrax::mixed`: in f32, with bf16
//! compute (f32 master parameters, no loss scaling: bf16 has f32's range), and with f16
//! compute and dynamic loss scaling. Prints the three loss curves side by side, the
//! peak live bytes of each gradient (the 16-bit runs keep 16-bit activations for the
//! backward pass), and the final loss scale of the f16 run.
//!
//!     cargo run --release --example mixed_precision

use ferrax::mixed::{DynamicLossScale, LossScale, NoLossScale, Policy, all_finite, select_tree};
use ferrax::nn::{cross_entropy, one_hot};
use ferrax::optim::{Adam, AdamState};
use ferrax::{Array, DType, Tensor, grad, jit, random, s, value_and_grad};

/// Logits of the MLP 2-32-32-2 with tanh hidden layers; `p` = [W1, b1, W2, b2, W3, b3].
fn logits(p: &[Tensor], x: &Tensor) -> Tensor {
    let h1 = (x.matmul(&p[0]) + &p[1]).tanh();
    let h2 = (h1.matmul(&p[2]) + &p[3]).tanh();
    h2.matmul(&p[4]) + &p[5]
}

/// The loss under `policy`: parameters and data cast to the compute dtype, the loss
/// returned in the output dtype.
fn loss(policy: &Policy, p: &[Tensor], x: &Tensor, y: &Tensor) -> Tensor {
    let p = policy.cast_to_compute(&p.to_vec());
    let (x, y) = policy.cast_to_compute(&(x.clone(), y.clone()));
    policy.cast_to_output(&cross_entropy(&logits(&p, &x), &y))
}

/// The data: points in the plane labelled by the sign of `x0 * x1`.
fn data() -> Result<(Array, Array, Vec<Array>), Box<dyn std::error::Error>> {
    let n = 1024;
    let keys = random::split(&random::key(0), 4)?;
    let x = random::uniform(&keys[0], &[n, 2], DType::F32, -1.0, 1.0)?;
    let labels: Vec<i32> = x.to_f64_vec().chunks(2).map(|r| i32::from(r[0] * r[1] > 0.0)).collect();
    let y = ferrax::eval(|l: Tensor| one_hot(&l, 2, DType::F32), &Array::from(labels))?;
    let mut params = Vec::new();
    for (k, &(fan_in, fan_out)) in [(2usize, 32usize), (32, 32), (32, 2)].iter().enumerate() {
        let scale = (2.0 / (fan_in + fan_out) as f64).sqrt();
        let w = ferrax::eval(|k: Tensor| random::normal(&k, &[fan_in, fan_out], DType::F32) * scale, &keys[k + 1])?;
        params.push(w);
        params.push(Array::zeros(DType::F32, &[fan_out], &Default::default())?);
    }
    Ok((x, y, params))
}

/// What a training run gives: the mean loss of each epoch, the gradient's peak live
/// bytes, and the loss scale at the end.
struct Run {
    losses: Vec<f64>,
    peak_bytes: u64,
    final_scale: String,
}

/// Trains for `epochs` under `policy` with the loss scale `scale` (its state passed
/// through the compiled step). A macro rather than a generic function: each loss scale
/// is its own type of traced state.
macro_rules! train {
    ($policy:expr, $scale:expr, $state_ty:ty, $describe:expr, $epochs:expr) => {{
        let policy: Policy = $policy.parse()?;
        let (x, y, params) = data()?;
        let (n, batch) = (1024usize, 128usize);
        let adam = Adam::new(0.01);
        let mut state = adam.init(&params)?;
        let mut params = params;
        let mut scale = $scale;
        type State = AdamState<Vec<Tensor>, Tensor>;
        let step = jit(|(p, s, ls, x, y): (Vec<Tensor>, State, $state_ty, Tensor, Tensor)| {
            let scaled = |p: Vec<Tensor>| ls.scale(&loss(&policy, &p, &x, &y));
            let grads = ls.unscale(&policy.cast_to_param(&grad(scaled).apply(&p)));
            let finite = all_finite(&grads);
            let (new_p, new_s) = adam.update(&grads, &s, &p);
            let (p, s) = select_tree(&finite, &(new_p, new_s), &(p.clone(), s.clone()));
            (loss(&policy, &p, &x, &y), p, s, ls.adjust(&finite))
        });
        let mut losses = Vec::new();
        for _ in 0..$epochs {
            let mut total = 0.0;
            for b in 0..n / batch {
                let rows = s((b * batch) as i64..((b + 1) * batch) as i64);
                let xb = ferrax::eval(|x: Tensor| x.slice(&[rows]), &x)?;
                let yb = ferrax::eval(|y: Tensor| y.slice(&[rows]), &y)?;
                let (value, p, st, ls) = step.call(&(params, state, scale, xb, yb))?;
                (params, state, scale) = (p, st, ls);
                total += value.to_f64_vec()[0];
            }
            losses.push(total / (n / batch) as f64);
        }
        // The gradient's peak live bytes on one batch (its forward values, parameters
        // and inputs included), from the cost model of the differentiated module.
        let xb = ferrax::eval(|x: Tensor| x.slice(&[s(0..batch as i64)]), &x)?;
        let yb = ferrax::eval(|y: Tensor| y.slice(&[s(0..batch as i64)]), &y)?;
        let measured = value_and_grad(|(p, x, y): (Vec<Tensor>, Tensor, Tensor)| loss(&policy, &p, &x, &y))
            .argnums(&[0])
            .with_max_bytes(u64::MAX);
        measured.call(&(params, xb, yb))?;
        let peak_bytes = measured.checkpoint_report().map_or(0, |r| r.unconstrained_peak);
        Run { losses, peak_bytes, final_scale: $describe(&scale) }
    }};
}

/// The dynamic loss scale's state: its scale and the finite steps since it changed.
fn dynamic(scale: &DynamicLossScale<Array>) -> String {
    format!("scale {} after {} finite steps in a row", scale.scale.to_f64_vec()[0], scale.counter.to_f64_vec()[0])
}

/// Runs the example; an error if a run's loss does not fall well below its start.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let epochs = 20;
    let none = |_: &NoLossScale| "none".to_string();
    let f32_run = train!("params=f32,compute=f32,output=f32", NoLossScale, NoLossScale, none, epochs);
    let bf16_run = train!("params=f32,compute=bf16,output=f32", NoLossScale, NoLossScale, none, epochs);
    let f16_run =
        train!("params=f32,compute=f16,output=f32", DynamicLossScale::new(), DynamicLossScale<Tensor>, dynamic, epochs);
    println!("epoch   f32 loss   bf16 loss   f16 loss (dynamic loss scale)");
    for e in 0..epochs {
        println!("{e:>5} {:>10.4} {:>11.4} {:>10.4}", f32_run.losses[e], bf16_run.losses[e], f16_run.losses[e]);
    }
    println!(
        "gradient peak live bytes: f32 {}, bf16 {}, f16 {}",
        f32_run.peak_bytes, bf16_run.peak_bytes, f16_run.peak_bytes
    );
    println!("f16 loss scale at the end: {}", f16_run.final_scale);
    for (name, run) in [("f32", &f32_run), ("bf16", &bf16_run), ("f16", &f16_run)] {
        let (first, last) = (run.losses[0], run.losses[epochs - 1]);
        if last.is_nan() || last >= 0.7 * first {
            return Err(format!("{name}: the loss did not fall: {first} -> {last}").into());
        }
    }
    Ok(())
}
