//! Reduction kernels: inner, outer, middle and all axes, size-0 axes, argmax/argmin with
//! first-index and NaN semantics, multi-output (S_in results written in the loop),
//! epilogues, long f32 sums, and fma contraction on and off (and never on a target
//! without FMA).

use super::support::{
    SCALAR, SIMD, baseline_module, check, check_with, close, compile, compile_on, interp, run, run_text, values,
};
use crate::kernel::KernelOptions;
use ferrax_ir::{Array, DType};

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

#[test]
fn every_reduction_every_axis_set() {
    let shape = [3usize, 4, 5];
    let axis_sets: [&[usize]; 7] = [&[0], &[1], &[2], &[0, 2], &[1, 2], &[0, 1, 2], &[]];
    for op in ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"] {
        for dt in [DType::I32, DType::F32, DType::F64] {
            for axes in axis_sets {
                let kept: Vec<String> = (0..3).filter(|a| !axes.contains(a)).map(|a| shape[a].to_string()).collect();
                let ax: Vec<String> = axes.iter().map(|a| a.to_string()).collect();
                let text = fusion(
                    &format!("%a: {dt}[3,4,5]) -> ({dt}[{}]", kept.join(",")),
                    &format!("  %r: {dt}[{}] = {op}[axes=[{}]](%a)", kept.join(","), ax.join(",")),
                    "%r",
                );
                let args = [values(dt, &shape, 11, op != "reduce_prod")];
                // The scalar path keeps the interpreter's order: bit-identical.
                let want = check_with(&text, &args, &SCALAR);
                // The vector path: float sums and products over outer axes take the
                // outer-axis path (a left fold), the others the interpreter's order.
                let got = run_text(&text, &args, &SIMD);
                let exact = !dt.is_float() || op == "reduce_max" || op == "reduce_min";
                let ok =
                    if exact { super::support::same_bits(&got[0], &want[0]) } else { close(&got[0], &want[0], 1e-5) };
                assert!(ok, "{text}\n{}\n{}", got[0].describe(None), want[0].describe(None));
            }
        }
    }
}

#[test]
fn size_zero_axes_give_the_identity() {
    for op in ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"] {
        let text = fusion("%a: f32[3,0]) -> (f32[3]", &format!("  %r: f32[3] = {op}[axes=[1]](%a)"), "%r");
        check(&text, &[Array::from_f32(&[3, 0], vec![]).unwrap()]);
        let text = fusion("%a: i32[0,4]) -> (i32[4]", &format!("  %r: i32[4] = {op}[axes=[0]](%a)"), "%r");
        check(&text, &[Array::from_i32(&[0, 4], vec![]).unwrap()]);
    }
    let text = fusion("%a: f32[0,4]) -> (f32[0]", "  %r: f32[0] = reduce_sum[axes=[1]](%a)", "%r");
    check(&text, &[Array::from_f32(&[0, 4], vec![]).unwrap()]);
}

#[test]
fn argmax_argmin_first_index_and_nan() {
    for op in ["argmax", "argmin"] {
        for axis in 0..2 {
            let out = if axis == 0 { 6 } else { 4 };
            let text = fusion(
                &format!("%a: f32[4,6]) -> (i32[{out}]"),
                &format!("  %r: i32[{out}] = {op}[axis={axis}, index_dtype=i32](%a)"),
                "%r",
            );
            check(&text, &[values(DType::F32, &[4, 6], 3, true)]);
            let text = text.replace("f32", "i32");
            check(&text, &[values(DType::I32, &[4, 6], 4, true)]);
        }
    }
    let text = fusion("%a: f64[6]) -> (i32[], i32[]", "  %r: i32[] = argmax[axis=0, index_dtype=i32](%a)", "%r, %r");
    let a = Array::from_f64(&[6], vec![1.0, 3.0, 3.0, f64::NAN, 9.0, f64::NAN]).unwrap();
    let out = check(&text, &[a]);
    assert_eq!(out[0].as_i32().unwrap(), &[3]);
    // An empty searched axis has no index: an error, not a crash.
    let text = fusion("%a: f32[0,2]) -> (i32[2]", "  %r: i32[2] = argmax[axis=0, index_dtype=i32](%a)", "%r");
    let module = ferrax_ir::parse(&text).unwrap();
    assert!(compile(&module, &KernelOptions::default()).is_err());
}

#[test]
fn multi_output_and_epilogue() {
    // softmax-like row kernel: e = exp(x - b) written per element; s = sum(e) with an
    // epilogue 1/s and log(s) + b0.
    let text = fusion(
        "%x: f32[5,7], %b: f32[5]) -> (f32[5,7], f32[5], f32[5]",
        "  %bb: f32[5,7] = broadcast_in_dim[shape=[5,7], dims=[0]](%b)\n  %d: f32[5,7] = sub(%x, %bb)\n  %e: f32[5,7] = exp(%d)\n  %s: f32[5] = reduce_sum[axes=[1]](%e)\n  %one: f32[5] = constant[value=1]()\n  %inv: f32[5] = div(%one, %s)\n  %l: f32[5] = log(%s)\n  %lb: f32[5] = add(%l, %b)",
        "%e, %inv, %lb",
    );
    // The vector loop writes e exactly; the sums follow the interpreter's order (checked
    // bit for bit in `kernel::tests::order`); the scalar loop matches the interpreter.
    let args = [values(DType::F32, &[5, 7], 1, false), values(DType::F32, &[5], 2, false)];
    let module = ferrax_ir::parse(&text).unwrap();
    let want = interp(&module, &args);
    let got = run(&compile(&module, &SIMD).unwrap(), &module, &args, &[]);
    assert!(super::support::same_bits(&got[0], &want[0]));
    for k in 1..3 {
        assert!(close(&got[k], &want[k], 1e-5), "{}\n{}", got[k].describe(None), want[k].describe(None));
    }
    check_with(&text, &args, &SCALAR);
    // A full reduction with an epilogue and an S_in result; split over the outer extent 1.
    let text = fusion(
        "%x: f64[3,4]) -> (f64[], f64[3,4]",
        "  %y: f64[3,4] = mul(%x, %x)\n  %s: f64[] = reduce_sum[axes=[0,1]](%y)\n  %r: f64[] = sqrt(%s)",
        "%r, %y",
    );
    let args = [values(DType::F64, &[3, 4], 5, false)];
    let out = check_with(&text, &args, &SCALAR);
    assert_eq!(out[1].shape(), &[3, 4]);
    let module = ferrax_ir::parse(&text).unwrap();
    let got = run(&compile(&module, &SIMD).unwrap(), &module, &args, &[]);
    assert!(close(&got[0], &out[0], 1e-12) && super::support::same_bits(&got[1], &out[1]));
}

#[test]
fn reduce_split_range_equals_full_call() {
    let text = fusion("%x: i32[6,5,3]) -> (i32[6,3]", "  %s: i32[6,3] = reduce_max[axes=[1]](%x)", "%s");
    let module = ferrax_ir::parse(&text).unwrap();
    let args = [values(DType::I32, &[6, 5, 3], 1, true)];
    let c = compile(&module, &KernelOptions::default()).unwrap();
    assert_eq!(c.outer, 6);
    let halves = run(&c, &module, &args, &[(0, 2), (2, 6)]);
    assert_eq!(halves, interp(&module, &args));
}

/// A long f32 sum: the scalar path is bit-identical to the interpreter (the same blocked
/// pairwise order) and within the left fold's bound `(n-1)·2^-24·Σ|x|` of the exact (f64)
/// sum; the vector path within `(⌈n/16⌉ + 9)·2^-24·Σ|x|` (loose: `kernel::tests::order`
/// checks the order's own bound).
#[test]
fn long_f32_sum_within_bound() {
    let n = 100_003usize;
    let text = fusion(&format!("%x: f32[{n}]) -> (f32[]"), "  %s: f32[] = reduce_sum[axes=[0]](%x)", "%s");
    let x = values(DType::F32, &[n], 17, false);
    let out = check_with(&text, std::slice::from_ref(&x), &SCALAR);
    let got = f64::from(out[0].as_f32().unwrap()[0]);
    let vec = f64::from(run_text(&text, std::slice::from_ref(&x), &SIMD)[0].as_f32().unwrap()[0]);
    let v = x.as_f32().unwrap();
    let exact: f64 = v.iter().map(|&a| f64::from(a)).sum();
    let abs: f64 = v.iter().map(|&a| f64::from(a).abs()).sum();
    let bound = (n as f64 - 1.0) * 2f64.powi(-24) * abs;
    assert!((got - exact).abs() <= bound, "{got} vs {exact}, bound {bound}");
    let vbound = ((n as f64 / 16.0).ceil() + 9.0) * 2f64.powi(-24) * abs;
    assert!((vec - exact).abs() <= vbound, "{vec} vs {exact}, bound {vbound}");
    eprintln!(
        "f32 sum of {n}: sequential error {:.3e}, vector error {:.3e}, Σ|x| = {abs:.3e}",
        (got - exact).abs(),
        (vec - exact).abs()
    );
}

#[test]
fn fma_on_and_off() {
    let text = fusion(
        "%a: f64[9], %b: f64[9], %c: f64[9]) -> (f64[9]",
        "  %p: f64[9] = mul(%a, %b)\n  %s: f64[9] = add(%p, %c)",
        "%s",
    );
    let args =
        [values(DType::F64, &[9], 1, false), values(DType::F64, &[9], 2, false), values(DType::F64, &[9], 3, false)];
    // Off: bit-identical (check uses fma = false).
    check(&text, &args);
    // On: each element within half an ulp of the product of the unfused result.
    let module = ferrax_ir::parse(&text).unwrap();
    let opts = KernelOptions { fma: true, simd: true, dump: true, precise_math: true, tiles: true };
    let c = compile(&module, &opts).unwrap();
    let got = run(&c, &module, &args, &[]);
    let want = interp(&module, &args);
    let (g, w) = (got[0].as_f64().unwrap(), want[0].as_f64().unwrap());
    let (a, b) = (args[0].as_f64().unwrap(), args[1].as_f64().unwrap());
    for i in 0..9 {
        let tol = (a[i] * b[i]).abs() * f64::EPSILON + w[i].abs() * f64::EPSILON;
        assert!((g[i] - w[i]).abs() <= tol, "{i}: {} vs {}", g[i], w[i]);
    }
    let fused = c.dump.as_deref().unwrap().contains("fma");
    let host_fma = std::is_x86_feature_detected!("fma");
    assert_eq!(fused, host_fma, "fma contraction should follow the host");
    let opts = KernelOptions { fma: true, simd: true, dump: false, precise_math: true, tiles: true };
    check_with(
        &text.replace("f64", "f32"),
        &vec![values(DType::F32, &[9], 1, true); 3],
        &KernelOptions { fma: false, ..opts },
    );
}

/// Contraction follows the target, not the options alone: on a target without FMA (the
/// baseline SSE2 one) `fma: true` keeps `mul` and `add` apart. With `c = -(a*b)` rounded,
/// the unfused `a*b + c` is exactly 0, while a fused one is the product's rounding error,
/// which the host (when it has FMA) shows for these inputs.
#[test]
fn a_target_without_fma_never_contracts() {
    let text = fusion(
        "%a: f64[9], %b: f64[9], %c: f64[9]) -> (f64[9]",
        "  %p: f64[9] = mul(%a, %b)\n  %s: f64[9] = add(%p, %c)",
        "%s",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    let (a, b) = (values(DType::F64, &[9], 1, false), values(DType::F64, &[9], 2, false));
    let c: Vec<f64> = a.as_f64().unwrap().iter().zip(b.as_f64().unwrap()).map(|(x, y)| -(x * y)).collect();
    let args = [a, b, Array::from_f64(&[9], c).unwrap()];
    assert!(interp(&module, &args)[0].as_f64().unwrap().iter().all(|&v| v == 0.0));
    let opts = KernelOptions { fma: true, simd: true, dump: true, precise_math: false, tiles: true };
    let base = compile_on(baseline_module(), &module, &opts).unwrap();
    assert!(!base.dump.as_deref().unwrap().contains("fma"), "{}", base.dump.as_deref().unwrap());
    let got = run(&base, &module, &args, &[]);
    assert!(got[0].as_f64().unwrap().iter().all(|&v| v == 0.0), "{}", got[0].describe(None));
    if std::is_x86_feature_detected!("fma") {
        let host = compile(&module, &opts).unwrap();
        let fused = run(&host, &module, &args, &[]);
        assert!(fused[0].as_f64().unwrap().iter().any(|&v| v != 0.0), "{}", fused[0].describe(None));
    }
}

/// Kernels that break the contract are refused with an error naming the kernel, not a panic.
#[test]
fn contract_violations_are_errors() {
    let bad = [
        fusion(
            "%a: f32[2,3], %b: f32[3,2]) -> (f32[2,2]",
            "  %c: f32[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)",
            "%c",
        ),
        fusion(
            "%a: f32[2,3]) -> (f32[]",
            "  %s: f32[2] = reduce_sum[axes=[1]](%a)\n  %t: f32[] = reduce_max[axes=[0]](%s)",
            "%t",
        ),
        fusion(
            "%a: f32[2,3], %b: f32[3]) -> (f32[2,3], f32[3]",
            "  %c: f32[2,3] = neg(%a)\n  %d: f32[3] = neg(%b)",
            "%c, %d",
        ),
        fusion(
            "%a: f32[2,3]) -> (f32[2,3]",
            "  %s: f32[2] = reduce_sum[axes=[1]](%a)\n  %b: f32[2,3] = broadcast_in_dim[shape=[2,3], dims=[0]](%s)\n  %c: f32[2,3] = sub(%a, %b)",
            "%c",
        ),
    ];
    for text in bad {
        let module = ferrax_ir::parse(&text).unwrap();
        let err = compile(&module, &KernelOptions::default()).err().unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(err.to_string().contains("@k"), "{err}");
    }
}
