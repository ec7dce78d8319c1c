//! Outer-axis reductions (`kernel::outer`): natural-order loops accumulating into the
//! result buffer, vectorised along the kept innermost axis. Bit-identical to the
//! interpreter on both the scalar and the vector path (each output element still sums its
//! terms in order), with S_in results, tails, size-0 axes and split launches.

use super::support::{SCALAR, SIMD, check_with, compile, interp, run, same_bits, values};
use crate::kernel::KernelOptions;
use ferrax_ir::DType;

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

fn dims(s: &[usize]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

#[test]
fn outer_axes_every_op_dtype_and_shape() {
    let cases: [(&[usize], &[usize]); 6] = [
        (&[7, 9], &[0]),
        (&[3, 4, 10], &[0]),
        (&[3, 4, 10], &[1]),
        (&[3, 4, 10], &[0, 1]),
        (&[2, 3, 4, 5], &[1, 2]),
        (&[5, 3], &[0]),
    ];
    for (shape, axes) in cases {
        let kept: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).map(|a| shape[a]).collect();
        for op in ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"] {
            for dt in [DType::I32, DType::F32, DType::F64] {
                let text = fusion(
                    &format!("%a: {dt}[{}]) -> ({dt}[{}]", dims(shape), dims(&kept)),
                    &format!("  %r: {dt}[{}] = {op}[axes=[{}]](%a)", dims(&kept), dims(axes)),
                    "%r",
                );
                let args = [values(dt, shape, 3, op != "reduce_prod")];
                check_with(&text, &args, &SCALAR);
                check_with(&text, &args, &SIMD);
            }
        }
    }
}

#[test]
fn bias_gradient_kernel_with_its_elementwise_result() {
    // The backward kernel of `tanh(x·W + b)`: dz = dy * (1 - h²), written per element, and
    // its column sum (the bias gradient), as the fusion pass emits it.
    for (n, m) in [(128, 512), (9, 7), (4, 3)] {
        let text = fusion(
            &format!("%h: f32[{n},{m}], %dy: f32[{n},{m}]) -> (f32[{n},{m}], f32[{m}]"),
            &format!(
                "  %one: f32[{n},{m}] = constant[value=1.0]()\n  %h2: f32[{n},{m}] = mul(%h, %h)\n  %d: f32[{n},{m}] = sub(%one, %h2)\n  %dz: f32[{n},{m}] = mul(%dy, %d)\n  %db: f32[{m}] = reduce_sum[axes=[0]](%dz)"
            ),
            "%dz, %db",
        );
        let args = [values(DType::F32, &[n, m], 1, true), values(DType::F32, &[n, m], 2, true)];
        check_with(&text, &args, &SCALAR);
        check_with(&text, &args, &SIMD);
        let module = ferrax_ir::parse(&text).unwrap();
        let c = compile(&module, &KernelOptions { dump: true, ..SIMD }).unwrap();
        // Axis 0 is reduced: one launch, never split.
        assert_eq!(c.outer, 1);
        if m >= 4 {
            assert!(c.dump.as_deref().unwrap().contains("load.f32x4"), "not vectorised:\n{text}");
        }
    }
}

#[test]
fn kept_outer_axis_splits_like_a_full_call() {
    let text = fusion(
        "%x: f64[6,5,3], %y: f64[6,5,3]) -> (f64[6,3], f64[6,5,3]",
        "  %p: f64[6,5,3] = mul(%x, %y)\n  %s: f64[6,3] = reduce_sum[axes=[1]](%p)",
        "%s, %p",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    let args = [values(DType::F64, &[6, 5, 3], 1, true), values(DType::F64, &[6, 5, 3], 2, true)];
    let want = interp(&module, &args);
    for opts in [SCALAR, SIMD] {
        let c = compile(&module, &opts).unwrap();
        assert_eq!(c.outer, 6);
        let got = run(&c, &module, &args, &[(0, 1), (1, 4), (4, 6)]);
        assert!(got.iter().zip(&want).all(|(g, w)| same_bits(g, w)), "{got:?}");
    }
}

#[test]
fn size_zero_axes() {
    // A reduced axis of extent 0: the identity; a kept axis of extent 0: nothing.
    for (shape, out) in [([0usize, 6], [6usize]), ([3, 0], [0])] {
        let text = fusion(
            &format!("%a: f32[{}]) -> (f32[{}]", dims(&shape), dims(&out)),
            &format!("  %r: f32[{}] = reduce_max[axes=[0]](%a)", dims(&out)),
            "%r",
        );
        check_with(&text, &[values(DType::F32, &shape, 1, false)], &SIMD);
        check_with(&text, &[values(DType::F32, &shape, 1, false)], &SCALAR);
    }
}
