//! Training a small MLP with Adam, the whole step compiled with `jit`.
//!
//! The data is a synthetic two-class problem drawn with the PRNG: points in the plane,
//! labelled by the sign of `x0 * x1` (the XOR pattern, which no linear model separates).
//! One training step, loss, gradient (reverse mode) and the Adam update, is one traced
//! function compiled once with `jit`; each epoch calls it on every mini-batch and prints
//! the mean loss and the accuracy.
//!
//!     cargo run --release --example mlp

use ferrax::nn::{cross_entropy, one_hot};
use ferrax::optim::{Adam, AdamState};
use ferrax::{Array, DType, Tensor, grad, jit, random, s};

/// Logits of the MLP 2-32-32-2 with tanh hidden layers; `p` = [W1, b1, W2, b2, W3, b3].
fn logits(p: &[Tensor], x: &Tensor) -> Tensor {
    let h1 = (x.matmul(&p[0]) + &p[1]).tanh();
    let h2 = (h1.matmul(&p[2]) + &p[3]).tanh();
    h2.matmul(&p[4]) + &p[5]
}

/// Mean softmax cross-entropy of a batch with one-hot labels.
fn loss(p: &[Tensor], x: &Tensor, y: &Tensor) -> Tensor {
    cross_entropy(&logits(p, x), y)
}

/// Runs the example; an error if the loss does not fall well below its start.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (n, batch, epochs) = (1024usize, 128usize, 30usize);
    let keys = random::split(&random::key(0), 4)?;
    let x = random::uniform(&keys[0], &[n, 2], DType::F32, -1.0, 1.0)?;
    let xs = x.to_f64_vec();
    let labels: Vec<i32> = xs.chunks(2).map(|r| i32::from(r[0] * r[1] > 0.0)).collect();
    let y = ferrax::eval(|l: Tensor| one_hot(&l, 2, DType::F32), &Array::from(labels.clone()))?;

    // Glorot-style initialisation from the PRNG.
    let sizes = [(2usize, 32usize), (32, 32), (32, 2)];
    let mut params = Vec::new();
    for (k, &(fan_in, fan_out)) in sizes.iter().enumerate() {
        let scale = (2.0 / (fan_in + fan_out) as f64).sqrt();
        let w = ferrax::eval(|k: Tensor| random::normal(&k, &[fan_in, fan_out], DType::F32) * scale, &keys[k + 1])?;
        params.push(w);
        params.push(Array::zeros(DType::F32, &[fan_out], &Default::default())?);
    }
    let adam = Adam::new(0.01);
    let mut state = adam.init(&params)?;

    // One step: loss, gradient and update, traced once and compiled.
    let step = jit(|(p, s, x, y): (Vec<Tensor>, AdamState<Vec<Tensor>, Tensor>, Tensor, Tensor)| {
        let value = loss(&p, &x, &y);
        let g = grad(|p: Vec<Tensor>| loss(&p, &x, &y)).apply(&p);
        let (p, s) = adam.update(&g, &s, &p);
        (value, p, s)
    });
    let accuracy = jit(|(p, x, y): (Vec<Tensor>, Tensor, Tensor)| {
        let predicted = logits(&p, &x).argmax(1);
        predicted.eq_(y.argmax(1)).cast(DType::F32).mean_all()
    });

    let mut first = None;
    let mut last = 0.0;
    let bar = indicatif::ProgressBar::new((epochs * (n / batch)) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} steps, loss {msg}").map_err(|e| e.to_string())?,
    );
    // Printed through the bar, which clears and redraws itself around it (and prints
    // it plainly when the output is not a terminal and the bar is hidden).
    bar.suspend(|| println!("epoch   mean loss   accuracy"));
    for epoch in 0..epochs {
        let mut total = 0.0;
        for b in 0..n / batch {
            let rows = s((b * batch) as i64..((b + 1) * batch) as i64);
            let xb = ferrax::eval(|x: Tensor| x.slice(&[rows]), &x)?;
            let yb = ferrax::eval(|y: Tensor| y.slice(&[rows]), &y)?;
            let (value, p, s) = step.call(&(params, state, xb, yb))?;
            (params, state) = (p, s);
            total += value.to_f64_vec()[0];
            bar.set_message(format!("{:.4}", value.to_f64_vec()[0]));
            bar.inc(1);
        }
        let mean = total / (n / batch) as f64;
        let acc = accuracy.call(&(params.clone(), x.clone(), y.clone()))?.to_f64_vec()[0];
        bar.suspend(|| println!("{epoch:>5} {mean:>11.4} {acc:>10.3}"));
        first.get_or_insert(mean);
        last = mean;
    }
    bar.finish_and_clear();
    let first = first.unwrap_or(last);
    println!("compiled the step {} time(s)", step.compiles());
    if last > 0.5 * first {
        return Err(format!("the loss did not fall: {first} -> {last}").into());
    }
    Ok(())
}
