//! Outer-axis reductions (`kernel::outer`): natural-order loops accumulating into the
//! result buffer, vectorised along the kept innermost axis. Each output element folds its
//! terms left to right in C order: bit-identical to the interpreter for i32 and max/min,
//! and for float sums and products bit-identical to that left fold (computed here), which
//! is within the sum of the two orders' bounds of the interpreter's blocked pairwise
//! order. Without SIMD such kernels take the scalar loop nest, which keeps the
//! interpreter's order. With S_in results, tails, size-0 axes and split launches.

use super::support::{SCALAR, SIMD, check_with, close, compile, interp, run, same_bits, values};
use crate::kernel::KernelOptions;
use ferrax_ir::array::Data;
use ferrax_ir::{Array, DType};

/// The left fold in C order over `axes` of `x` (the outer path's order), per kept index.
fn left_fold(x: &Array, axes: &[usize], prod: bool) -> Array {
    let shape = x.shape().to_vec();
    let kept: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).collect();
    let out_shape: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
    let n_out: usize = out_shape.iter().product();
    // The flat index of every element, grouped by output index in C order of the rest.
    let strides: Vec<usize> = (0..shape.len()).map(|a| shape[a + 1..].iter().product()).collect();
    let mut groups = vec![Vec::new(); n_out];
    for flat in 0..x.len() {
        let idx: Vec<usize> = (0..shape.len()).map(|a| flat / strides[a] % shape[a]).collect();
        let o = kept.iter().fold(0, |o, &a| o * shape[a] + idx[a]);
        groups[o].push(flat);
    }
    fn fold<T: Copy>(v: &[T], groups: &[Vec<usize>], id: T, f: impl Fn(T, T) -> T) -> Vec<T> {
        groups.iter().map(|g| g.iter().fold(id, |a, &i| f(a, v[i]))).collect()
    }
    let data = match x.data() {
        Data::F32(v) if prod => Data::F32(fold(v, &groups, 1.0, |a, b| a * b)),
        Data::F32(v) => Data::F32(fold(v, &groups, 0.0, |a, b| a + b)),
        Data::F64(v) if prod => Data::F64(fold(v, &groups, 1.0, |a, b| a * b)),
        Data::F64(v) => Data::F64(fold(v, &groups, 0.0, |a, b| a + b)),
        _ => unreachable!("float data only"),
    };
    Array::new(&out_shape[..], data).unwrap()
}

/// Runs the reduction `text` (`op` over `axes` of `args[0]`, its first result) on the
/// vector path: the interpreter's bits, except a float sum or product, which must be the
/// left fold's bits and close to the interpreter's.
fn check_simd(text: &str, args: &[Array], op: &str, axes: &[usize]) {
    let ordered = args[0].dtype().is_float() && (op == "reduce_sum" || op == "reduce_prod");
    if !ordered {
        check_with(text, args, &SIMD);
        return;
    }
    let module = ferrax_ir::parse(text).unwrap();
    let got = run(&compile(&module, &SIMD).unwrap(), &module, args, &[]);
    let want = left_fold(&args[0], axes, op == "reduce_prod");
    assert!(
        same_bits(&got[0], &want),
        "{text}
{}
{}",
        got[0].describe(None),
        want.describe(None)
    );
    let interp = interp(&module, args);
    assert!(close(&got[0], &interp[0], 1e-5), "{text}");
    for (g, w) in got.iter().zip(&interp).skip(1) {
        assert!(same_bits(g, w), "{text}");
    }
}

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
                check_simd(&text, &args, op, axes);
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
        // The left fold of the S_in result `dz` (the interpreter's bits).
        let module = ferrax_ir::parse(&text).unwrap();
        let got = run(&compile(&module, &SIMD).unwrap(), &module, &args, &[]);
        let want = interp(&module, &args);
        assert!(same_bits(&got[0], &want[0]));
        assert!(same_bits(&got[1], &left_fold(&want[0], &[0], false)), "{text}");
        let module = ferrax_ir::parse(&text).unwrap();
        let c = compile(&module, &KernelOptions { dump: true, ..SIMD }).unwrap();
        // Axis 0 is reduced and the columns the only kept axis: bands of columns.
        assert_eq!(c.outer, m.div_ceil(crate::kernel::outer::BAND as usize) as i64);
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
    let fold = left_fold(&want[1], &[1], false);
    for opts in [SCALAR, SIMD] {
        let c = compile(&module, &opts).unwrap();
        assert_eq!(c.outer, 6);
        let got = run(&c, &module, &args, &[(0, 1), (1, 4), (4, 6)]);
        // The scalar loop nest keeps the interpreter's order, the outer path a left fold.
        let sum = if opts.simd { &fold } else { &want[0] };
        assert!(same_bits(&got[0], sum) && same_bits(&got[1], &want[1]), "{got:?}");
    }
}

#[test]
fn bands_of_columns_split_like_a_full_call() {
    // Axis 0 reduced, the innermost axis the only kept one: a launch takes bands of
    // `BAND` columns, so threads split the columns. Every split gives the left fold's bits,
    // S_in results and epilogue included; shapes with a last band of a few vectors and a
    // scalar tail (1301 = 2·512 + 69·4 + 1), f64 lanes, a max, two reduced axes, one band.
    let band = crate::kernel::outer::BAND as usize;
    assert_eq!(band % 16, 0, "a band is whole vectors of every width");
    let cases: [(&[usize], &[usize], &str, DType); 6] = [
        (&[16, 2048], &[0], "reduce_sum", DType::F32),
        (&[5, 1301], &[0], "reduce_sum", DType::F32),
        (&[3, 5, 1100], &[0, 1], "reduce_sum", DType::F32),
        (&[7, 1029], &[0], "reduce_sum", DType::F64),
        (&[6, 1200], &[0], "reduce_max", DType::F32),
        (&[4, 100], &[0], "reduce_sum", DType::F32),
    ];
    for (shape, axes, op, dt) in cases {
        let last = shape[shape.len() - 1];
        let (s, t) = (dims(shape), dt.to_string());
        let ax = axes.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(",");
        let text = fusion(
            &format!("%x: {t}[{s}], %y: {t}[{s}]) -> ({t}[{s}], {t}[{last}], {t}[{last}]"),
            &format!(
                "  %p: {t}[{s}] = mul(%x, %y)\n  %r: {t}[{last}] = {op}[axes=[{ax}]](%p)\n  %e: {t}[{last}] = mul(%r, %r)"
            ),
            "%p, %r, %e",
        );
        let module = ferrax_ir::parse(&text).unwrap();
        let args = [values(dt, shape, 1, true), values(dt, shape, 2, true)];
        let want = interp(&module, &args);
        let c = compile(&module, &SIMD).unwrap();
        let bands = last.div_ceil(band) as i64;
        assert_eq!(c.outer, bands, "{text}");
        let reduced = if op == "reduce_sum" { left_fold(&want[0], axes, false) } else { want[1].clone() };
        let squared = apply_epilogue(
            &format!(
                "func @e(%r: {t}[{last}]) -> ({t}[{last}]) {{\n  %e: {t}[{last}] = mul(%r, %r)\n  return %e\n}}\n"
            ),
            &reduced,
        );
        let one_by_one: Vec<(i64, i64)> = (0..bands).map(|b| (b, b + 1)).collect();
        for splits in [&[][..], &one_by_one, &[(0, bands / 2), (bands / 2, bands)]] {
            let got = run(&c, &module, &args, splits);
            assert!(same_bits(&got[0], &want[0]), "{text} {splits:?}");
            assert!(same_bits(&got[1], &reduced) && same_bits(&got[2], &squared[0]), "{text} {splits:?}");
        }
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

/// The epilogue `text_epilogue` (a Func of the reduced value) applied to `sum`.
fn apply_epilogue(text_epilogue: &str, sum: &Array) -> Vec<Array> {
    interp(&ferrax_ir::parse(text_epilogue).unwrap(), std::slice::from_ref(sum))
}

#[test]
fn epilogue_of_the_sum_runs_over_each_finished_block() {
    // A bf16 bias gradient as the JIT computes it: the f32 sum rounded to bf16 and back,
    // the reduced value itself not returned, so the sum accumulates in the rounded
    // result's buffer and is rounded in place; also with a second epilogue result, with
    // the reduced value returned beside it, and with a kept axis before the reduced one
    // under split launches.
    let cases: [(&[usize], usize, bool, &[(i64, i64)]); 4] = [
        (&[128, 512], 0, false, &[]),
        (&[9, 7], 0, true, &[]),
        (&[6, 5, 3], 1, false, &[(0, 2), (2, 6)]),
        (&[6, 5, 3], 1, true, &[(0, 5), (5, 6)]),
    ];
    for (shape, axis, keep_sum, splits) in cases {
        let kept: Vec<usize> = (0..shape.len()).filter(|&a| a != axis).map(|a| shape[a]).collect();
        let (s, k) = (dims(shape), dims(&kept));
        let (sig, ret) = if keep_sum {
            (format!("%x: f32[{s}], %y: f32[{s}]) -> (f32[{s}], f32[{k}], bf16[{k}], f32[{k}]"), "%p, %r, %h, %s")
        } else {
            (format!("%x: f32[{s}], %y: f32[{s}]) -> (f32[{s}], f32[{k}], bf16[{k}]"), "%p, %r, %h")
        };
        let body = format!(
            "  %p: f32[{s}] = mul(%x, %y)\n  %s: f32[{k}] = reduce_sum[axes=[{axis}]](%p)\n  %h: bf16[{k}] = convert[dtype=bf16](%s)\n  %r: f32[{k}] = convert[dtype=f32](%h)"
        );
        let text = fusion(&sig, &body, ret);
        let epilogue = format!(
            "func @e(%s: f32[{k}]) -> (f32[{k}], bf16[{k}]) {{\n  %h: bf16[{k}] = convert[dtype=bf16](%s)\n  %r: f32[{k}] = convert[dtype=f32](%h)\n  return %r, %h\n}}\n"
        );
        let module = ferrax_ir::parse(&text).unwrap();
        let args = [values(DType::F32, shape, 1, false), values(DType::F32, shape, 2, false)];
        let want = interp(&module, &args);
        let fold = left_fold(&want[0], &[axis], false);
        let rounded = apply_epilogue(&epilogue, &fold);
        let c = compile(&module, &KernelOptions { dump: true, ..SIMD }).unwrap();
        assert!(c.dump.as_deref().unwrap().contains("load.f32x4"), "not on the vector outer path:\n{text}");
        let got = run(&c, &module, &args, splits);
        assert!(same_bits(&got[0], &want[0]), "{text}");
        assert!(same_bits(&got[1], &rounded[0]) && same_bits(&got[2], &rounded[1]), "{text}\n{got:?}\n{rounded:?}");
        if keep_sum {
            assert!(same_bits(&got[3], &fold), "{text}");
        }
        // Within one bf16 ulp of the interpreter (its pairwise order may round the other way).
        assert!(close(&got[1], &want[1], 1.0 / 128.0), "{text}");
    }
}
