//! Per-example gradients with `vmap(grad)`, as differentially private training uses
//! them.
//!
//! A logistic-regression loss of one example is differentiated with `grad`, and
//! `vmap` maps that gradient over a batch drawn from the PRNG: one gradient row per
//! example, from one traced function (no loop over examples). The per-example norms
//! are printed, then each gradient is clipped to norm `C` and the clipped ones are
//! averaged (the DP-SGD step, without its noise).
//!
//!     cargo run --release --example per_example_grads

use ferrax::{Array, DType, Tensor, grad, random, vmap};

/// The loss of one example: `log(1 + exp(−y w·x))` with the label `y` in {−1, 1}.
fn loss([w, x, y]: [Tensor; 3]) -> Tensor {
    let margin = (&w * &x).sum_all() * &y;
    (-margin).exp().log1p()
}

/// Runs the example; an error if the batched gradients disagree with one-at-a-time ones.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (batch, dim, clip) = (8usize, 4usize, 1.0f64);
    let [kw, kx] = random::split_into::<_, 2>(&random::key(7))?;
    let w = random::normal(&kw, &[dim], DType::F64)?;
    let xs = random::normal(&kx, &[batch, dim], DType::F64)?;
    // Labels from a fixed "true" direction, so some examples are fitted and some not.
    let truth = [1.0, -1.0, 0.5, 0.0];
    let x = xs.to_f64_vec();
    let ys: Vec<f64> = x
        .chunks(dim)
        .map(|r| if r.iter().zip(truth).map(|(a, b)| a * b).sum::<f64>() > 0.0 { 1.0 } else { -1.0 })
        .collect();
    let ys = Array::from(ys);

    let g = grad(loss);
    // w is shared by every example (axis None), x and y are batched along axis 0.
    let per_example = vmap(|args: [Tensor; 3]| g.apply(&args)[0].clone()).in_axes(&[None, Some(0), Some(0)]);
    let grads: Array = per_example.call(&[w.clone(), xs.clone(), ys.clone()])?;
    println!("per-example gradients of the loss with respect to w: {:?}", grads.shape());
    println!("{grads}");

    let rows = grads.to_f64_vec();
    let mut clipped_mean = vec![0.0; dim];
    println!("\nexample  label  |grad|   clipped to {clip}");
    for (b, row) in rows.chunks(dim).enumerate() {
        // Each row must equal the gradient of that example alone.
        let one = g.call(&[w.clone(), Array::from(&x[b * dim..(b + 1) * dim]), Array::scalar(ys.to_f64_vec()[b])])?;
        if one[0].to_f64_vec().iter().zip(row).any(|(a, b)| (a - b).abs() > 1e-12) {
            return Err(format!("example {b}: vmap(grad) differs from grad").into());
        }
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        let scale = (clip / norm).min(1.0);
        clipped_mean.iter_mut().zip(row).for_each(|(m, v)| *m += v * scale / batch as f64);
        println!("{b:>7}  {:>5}  {norm:.4}   {:.4}", ys.to_f64_vec()[b], norm * scale);
    }
    println!("\nmean of the clipped gradients: {}", Array::from(clipped_mean));
    Ok(())
}
