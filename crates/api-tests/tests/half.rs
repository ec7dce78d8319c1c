//! bf16 and f16 through the public API: JAX's promotion lattice, `astype`, weak
//! scalars, derivatives (checked norm-wise against f64 finite differences of the same
//! computation, with a tolerance scaled to the 16-bit epsilon), the JIT, vmap and
//! random numbers.

use ferrax::ir::array::{bf16, f16};
use ferrax::{Array, DType, Tensor, eval, grad, jit, random, vmap};

fn bf16s(values: &[f64]) -> Array {
    Array::from(values.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>())
}

fn f16s(values: &[f64]) -> Array {
    Array::from(values.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>())
}

/// ‖got − want‖ ≤ tol·‖want‖ (norm-wise: element-wise fails near zero).
fn norm_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    let diff: f64 = got.iter().zip(want).map(|(g, w)| (g - w).powi(2)).sum::<f64>().sqrt();
    let norm: f64 = want.iter().map(|w| w * w).sum::<f64>().sqrt();
    assert!(diff <= tol * norm, "‖{got:?} − {want:?}‖ = {diff} > {tol}·{norm}");
}

#[test]
fn promotion_follows_jax_lattice() {
    let f = |(b, h, i, s): (Tensor, Tensor, Tensor, Tensor)| {
        [
            (&b + &h).dtype(),  // bf16 ⊔ f16 = f32
            (&i + &b).dtype(),  // i32 ⊔ bf16 = bf16
            (&b * 2.0).dtype(), // a weak scalar takes the tensor's dtype
            (1.0 - &h).dtype(), // on either side
            (&b + &s).dtype(),  // bf16 ⊔ f32 = f32
            b.astype(DType::F16).dtype(),
        ]
        .map(|d| Tensor::zeros(d, &[]))
    };
    let args = (bf16s(&[1.0]), f16s(&[1.0]), Array::from(vec![1i32]), Array::from(vec![1.0f32]));
    let out = eval(f, &args).unwrap();
    let dtypes: Vec<DType> = out.iter().map(Array::dtype).collect();
    assert_eq!(dtypes, [DType::F32, DType::BF16, DType::BF16, DType::F16, DType::F32, DType::F16]);
}

#[test]
fn gradients_in_16_bits_match_f64_finite_differences() {
    let f = |x: Tensor| (x.sin() * &x).sum_all();
    let xs: [f64; 4] = [0.5, -1.25, 2.0, 0.75];
    // Central differences of the same computation in f64.
    let h: f64 = 1e-6;
    let fd: Vec<f64> = xs.iter().map(|&x| ((x + h).sin() * (x + h) - (x - h).sin() * (x - h)) / (2.0 * h)).collect();
    for (args, eps) in [(bf16s(&xs), f64::from(bf16::EPSILON)), (f16s(&xs), f64::from(f16::EPSILON))] {
        let g = grad(f).call(&args).unwrap();
        assert_eq!(g.dtype(), args.dtype());
        norm_close(&g.to_f64_vec(), &fd, 8.0 * eps);
        let compiled = jit(grad(f)).call(&args).unwrap();
        assert_eq!(compiled.dtype(), args.dtype());
        norm_close(&compiled.to_f64_vec(), &g.to_f64_vec(), 2.0 * eps);
        // Per-example gradients against a loop over the batch.
        let batch = Array::new(vec![4, 1], args.data().clone()).unwrap();
        let per_row = vmap(grad(f)).call::<_, Tensor>(&batch).unwrap();
        let one_by_one: Vec<f64> = (0..4)
            .flat_map(|i| {
                let row = Array::new(vec![1], args.data().gather(i..i + 1)).unwrap();
                grad(f).call(&row).unwrap().to_f64_vec()
            })
            .collect();
        assert_eq!(per_row.to_f64_vec(), one_by_one);
    }
}

#[test]
fn the_jit_returns_16_bit_results_with_the_interpreters_bits() {
    // Exact primitives (add, mul by a power of two, max) agree bit for bit.
    let f = |(a, b): (Tensor, Tensor)| ((&a + &b) * 0.5).maximum(&a);
    let args = (bf16s(&[1.0, 2.5, -3.0, 1e30]), bf16s(&[0.00390625, -8.0, 7.0, 1e30]));
    let want = eval(f, &args).unwrap();
    let got = jit(f).call(&args).unwrap();
    assert_eq!(got.dtype(), DType::BF16);
    assert_eq!(got.to_f64_vec(), want.to_f64_vec());
}

#[test]
fn random_numbers_come_in_16_bit_dtypes() {
    let key = random::key(7);
    for dtype in [DType::BF16, DType::F16] {
        let u = random::uniform(&key, &[4096], dtype, 0.0, 1.0).unwrap();
        assert_eq!(u.dtype(), dtype);
        let v = u.to_f64_vec();
        assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)), "{dtype}: outside [0, 1)");
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean - 0.5).abs() < 0.03, "{dtype}: mean {mean}");
        let n = random::normal(&key, &[4096], dtype).unwrap();
        assert_eq!(n.dtype(), dtype);
        let m = n.to_f64_vec();
        let var = m.iter().map(|x| x * x).sum::<f64>() / m.len() as f64;
        assert!((var - 1.0).abs() < 0.1, "{dtype}: variance {var}");
    }
}

/// `matmul_preferred(.., F32)` on 16-bit operands (JAX's `preferred_element_type`):
/// the f32 accumulation itself, where `matmul` rounds it to 16 bits; its derivatives in
/// both modes against f64 finite differences, the operands' cotangents in their own
/// dtype; the JIT against the interpreter; vmap against a loop.
#[test]
fn matmul_with_a_preferred_f32_result_keeps_the_accumulation() {
    let (a, b) = ([1.0, 0.5, -0.25, 2.0, 0.75, -1.5], [0.125, -1.0, 3.0, 0.5, -0.75, 1.25]);
    for (cast, eps) in [(bf16s as fn(&[f64]) -> Array, f64::from(bf16::EPSILON)), (f16s, f64::from(f16::EPSILON))] {
        let shape = |x: Array, s: &[usize]| Array::new(s.to_vec(), x.data().clone()).unwrap();
        let (a16, b16) = (shape(cast(&a), &[2, 3]), shape(cast(&b), &[3, 2]));
        let f = |(x, y): (Tensor, Tensor)| x.matmul_preferred(&y, DType::F32);
        let out = eval(f, &(a16.clone(), b16.clone())).unwrap();
        assert_eq!(out.dtype(), DType::F32);
        // The exact products of the 16-bit values, summed in f32: exact here.
        let (a64, b64) = (a16.to_f64_vec(), b16.to_f64_vec());
        let want: Vec<f64> =
            (0..4).map(|ij| (0..3).map(|k| a64[(ij / 2) * 3 + k] * b64[k * 2 + ij % 2]).sum()).collect();
        assert_eq!(out.to_f64_vec(), want);
        let compiled = jit(f).call(&(a16.clone(), b16.clone())).unwrap();
        assert_eq!(compiled.dtype(), DType::F32);
        norm_close(&compiled.to_f64_vec(), &want, 4.0 * f64::from(f32::EPSILON));
        // Reverse mode: d/dA sum(A B) = 1 Bᵀ, in A's dtype.
        let loss = |(x, y): (Tensor, Tensor)| (x.matmul_preferred(&y, DType::F32) * 1.5).sum_all();
        let (ga, gb) = grad(loss).call(&(a16.clone(), b16.clone())).unwrap();
        assert_eq!((ga.dtype(), gb.dtype()), (a16.dtype(), b16.dtype()));
        let ga_want: Vec<f64> = (0..6).map(|ik| 1.5 * (b64[(ik % 3) * 2] + b64[(ik % 3) * 2 + 1])).collect();
        let gb_want: Vec<f64> = (0..6).map(|kj| 1.5 * (a64[kj / 2] + a64[3 + kj / 2])).collect();
        norm_close(&ga.to_f64_vec(), &ga_want, 2.0 * eps);
        norm_close(&gb.to_f64_vec(), &gb_want, 2.0 * eps);
        // Forward mode: the tangent is f32, dot(tA, B) + dot(A, tB).
        let (_, t) = ferrax::jvp(f, &(a16.clone(), b16.clone()), &(a16.clone(), b16.clone())).unwrap();
        assert_eq!(t.dtype(), DType::F32);
        norm_close(&t.to_f64_vec(), &want.iter().map(|w| 2.0 * w).collect::<Vec<_>>(), 4.0 * eps);
        // Batched over a leading axis of A, against a loop.
        let stacked = Array::new(vec![2, 1, 3], a16.data().clone()).unwrap();
        let per_row = vmap(|(x, y): (Tensor, Tensor)| x.matmul_preferred(&y, DType::F32))
            .in_axes(&[Some(0), None])
            .call::<_, Tensor>(&(stacked, b16.clone()))
            .unwrap();
        assert_eq!(per_row.dtype(), DType::F32);
        assert_eq!(per_row.to_f64_vec(), want);
    }
}
