//! faer's speed on the GEMM shapes of the W1 MLP step, for choosing
//! how the JIT calls it: each product `(m, k, n)` as planned (row-major operands,
//! transposes as strides) and as its transpose `Cᵀ = Bᵀ·Aᵀ` (the same memory seen
//! column-major), best of many runs, GFLOP/s; and faer's own two-thread split
//! (`Par::rayon(2)`) for reference (the JIT splits on its own pool instead, see `gemm`).
//! `cargo run --release -p ferrax-jit --example gemm_shapes`.

use faer::linalg::matmul::matmul;
use faer::mat::{MatMut, MatRef};
use faer::{Accum, Par};
use std::time::Instant;

/// Best time in seconds of `f` over `reps` runs.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    // (m, k, n, lhs transposed, rhs transposed): the W1 step's products.
    let shapes = [
        (128, 784, 512, false, false),
        (128, 512, 512, false, false),
        (128, 512, 10, false, false),
        (128, 10, 512, false, true),
        (128, 512, 512, false, true),
        (784, 128, 512, true, false),
        (512, 128, 512, true, false),
        (512, 128, 10, true, false),
    ];
    for (m, k, n, lt, rt) in shapes {
        let a: Vec<f32> = (0..m * k).map(|i| (i % 13) as f32 * 0.01).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 7) as f32 * 0.01).collect();
        let mut c = vec![0f32; m * n];
        // Row-major A (m×k) is at (k, 1) strides, or (1, m) when stored transposed.
        let (ars, acs) = if lt { (1, m as isize) } else { (k as isize, 1) };
        let (brs, bcs) = if rt { (1, k as isize) } else { (n as isize, 1) };
        let flops = 2.0 * (m * k * n) as f64;
        let mut run = |transposed: bool, par: Par| {
            let (ap, bp, cp) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
            // SAFETY: every view lies inside its buffer (shapes and strides from above).
            best(50, || unsafe {
                if transposed {
                    let at = MatRef::from_raw_parts(ap, k, m, acs, ars);
                    let bt = MatRef::from_raw_parts(bp, n, k, bcs, brs);
                    let ct = MatMut::from_raw_parts_mut(cp, n, m, 1, n as isize);
                    matmul(ct, Accum::Replace, bt, at, 1.0f32, par);
                } else {
                    let am = MatRef::from_raw_parts(ap, m, k, ars, acs);
                    let bm = MatRef::from_raw_parts(bp, k, n, brs, bcs);
                    let cm = MatMut::from_raw_parts_mut(cp, m, n, n as isize, 1);
                    matmul(cm, Accum::Replace, am, bm, 1.0f32, par);
                }
            })
        };
        let (plain, trans, two) = (run(false, Par::Seq), run(true, Par::Seq), run(false, Par::rayon(2)));
        println!(
            "({m:>4},{k:>4},{n:>4}) lhsT={lt:<5} rhsT={rt:<5}  as planned {:>6.1}  transposed {:>6.1}  rayon(2) {:>6.1} GFLOP/s",
            flops / plain / 1e9,
            flops / trans / 1e9,
            flops / two / 1e9
        );
    }
}
