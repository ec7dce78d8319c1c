//! Two-stage (chunked) full reductions: sizes around the chunk boundaries, results
//! independent of how the chunks are split (the same bits), multi-output kernels with an
//! S_in result and an epilogue, multi-axis cuts, exact i32 and max results.

use super::support::{SCALAR, SIMD, compile, interp, run, same_bits, values};
use crate::kernel::chunked::{MAX_CHUNKS, MIN_CHUNK};
use ferrax_ir::{Array, DType, Module};

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

/// Runs `module` with the chunks in one call, one call per chunk in reverse order, and
/// an uneven split; asserts the three agree bit for bit and returns the results and the
/// number of partials.
fn run_splits(module: &Module, args: &[Array]) -> (Vec<Array>, usize) {
    ferrax_ir::verify(module).unwrap();
    let c = compile(module, &SIMD).unwrap();
    let whole = run(&c, module, args, &[]);
    let singles: Vec<(i64, i64)> = (0..c.outer).rev().map(|i| (i, i + 1)).collect();
    let uneven = [(0, c.outer / 3), (c.outer / 3, c.outer)];
    for split in [&singles[..], &uneven[..]] {
        let got = run(&c, module, args, split);
        for (g, w) in got.iter().zip(&whole) {
            assert!(same_bits(g, w), "split {split:?}: {} vs {}", g.describe(Some(8)), w.describe(Some(8)));
        }
    }
    (whole, c.partials)
}

/// `Σ|x|` of an f32 array, in f64.
fn abs_sum(x: &Array) -> f64 {
    x.as_f32().unwrap().iter().map(|&a| f64::from(a).abs()).sum()
}

/// Asserts that `got` (an f32 scalar) is the sum of `x` within the bound of one vector
/// loop over all of `x`, `(⌈n/16⌉ + 9 + chunks)·u·Σ|x|` (a chunked sum is within less).
fn assert_sum(got: &Array, x: &Array, chunks: usize) {
    let g = f64::from(got.as_f32().unwrap()[0]);
    let v = x.as_f32().unwrap();
    let exact: f64 = v.iter().map(|&a| f64::from(a)).sum();
    let bound = ((v.len() as f64 / 16.0).ceil() + 9.0 + chunks as f64) * 2f64.powi(-24) * abs_sum(x);
    assert!((g - exact).abs() <= bound, "{g} vs {exact}, bound {bound}");
}

#[test]
fn sizes_around_chunk_boundaries() {
    let step = MIN_CHUNK; // below MIN_CHUNK · MAX_CHUNKS elements, chunks are MIN_CHUNK long
    let sizes = [0, 1, 2 * step - 1, 2 * step, 2 * step + 1, 3 * step - 1, 3 * step, 3 * step + 1, 5 * step + 7];
    for n in sizes {
        let text = fusion(&format!("%x: f32[{n}]) -> (f32[]"), "  %s: f32[] = reduce_sum[axes=[0]](%x)", "%s");
        let module = ferrax_ir::parse(&text).unwrap();
        let x = values(DType::F32, &[n], 3, false);
        let (got, partials) = run_splits(&module, std::slice::from_ref(&x));
        let want_partials = if n >= 2 * step { n.div_ceil(step) } else { 0 };
        assert_eq!(partials, want_partials, "n = {n}");
        let want = interp(&module, std::slice::from_ref(&x));
        let (g, w) = (f64::from(got[0].as_f32().unwrap()[0]), f64::from(want[0].as_f32().unwrap()[0]));
        // Both are within their bounds of the exact sum; the chunked one within
        // (⌈step/16⌉ + 9 + chunks)·u·Σ|x|, the sequential one (n-1)·u·Σ|x|.
        let exact: f64 = x.as_f32().unwrap().iter().map(|&a| f64::from(a)).sum();
        let u = 2f64.powi(-24);
        let bound = ((step as f64 / 16.0).ceil() + 9.0 + partials as f64) * u * abs_sum(&x);
        assert!((g - exact).abs() <= bound, "n = {n}: {g} vs {exact}, bound {bound}");
        assert!((g - w).abs() <= bound + (n as f64) * u * abs_sum(&x), "n = {n}: {g} vs {w}");
    }
}

#[test]
fn very_long_sums_keep_at_most_max_chunks() {
    let n = MIN_CHUNK * MAX_CHUNKS + 40;
    let text = fusion(&format!("%x: f32[{n}]) -> (f32[]"), "  %s: f32[] = reduce_sum[axes=[0]](%x)", "%s");
    let module = ferrax_ir::parse(&text).unwrap();
    let x = values(DType::F32, &[n], 9, false);
    let c = compile(&module, &SIMD).unwrap();
    assert!(c.partials <= MAX_CHUNKS && c.partials >= MAX_CHUNKS / 2, "{} chunks", c.partials);
    assert_eq!(c.outer as usize, c.partials);
    let got = f64::from(run(&c, &module, std::slice::from_ref(&x), &[])[0].as_f32().unwrap()[0]);
    let exact: f64 = x.as_f32().unwrap().iter().map(|&a| f64::from(a)).sum();
    let step = n.div_ceil(c.partials) as f64;
    let bound = ((step / 16.0).ceil() + 9.0 + c.partials as f64) * 2f64.powi(-24) * abs_sum(&x);
    assert!((got - exact).abs() <= bound, "{got} vs {exact}, bound {bound}");
}

#[test]
fn multi_output_kernel_is_chunked() {
    // value_and_grad's shape: the value (a sum with an epilogue) and an S_in gradient.
    let n = 3 * MIN_CHUNK + 5;
    let text = fusion(
        &format!("%a: f32[{n}], %b: f32[{n}]) -> (f32[], f32[{n}], f32[], f32[{n}]"),
        &format!(
            "  %p: f32[{n}] = mul(%a, %b)\n  %t: f32[{n}] = tanh(%p)\n  %s: f32[] = reduce_sum[axes=[0]](%t)\n  %g: f32[{n}] = mul(%t, %b)\n  %h: f32[] = constant[value=0.5]()\n  %m: f32[] = mul(%s, %h)"
        ),
        "%m, %g, %s, %t",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    let args = [values(DType::F32, &[n], 1, false), values(DType::F32, &[n], 2, false)];
    let (got, partials) = run_splits(&module, &args);
    assert_eq!(partials, 4);
    let want = interp(&module, &args);
    // Elementwise results are the interpreter's (precise math, no fma); the sum is within
    // its bound of the exact sum of the tanh values.
    assert!(same_bits(&got[1], &want[1]) && same_bits(&got[3], &want[3]));
    assert_sum(&got[2], &got[3], partials);
    // The epilogue uses the combined sum.
    let (m, s) = (got[0].as_f32().unwrap()[0], got[2].as_f32().unwrap()[0]);
    assert_eq!(m, s * 0.5);
}

#[test]
fn multi_axis_cuts_and_exact_reductions() {
    // [8, 10000]: cut along axis 0 (two rows per chunk); [1, 70000]: the extent-1 axis is
    // skipped and the vectorised axis is cut; i32 sums and max are exact whatever the cut.
    for (shape, dt, op) in [
        ([8usize, 10_000usize], DType::F32, "reduce_sum"),
        ([1, 70_000], DType::F32, "reduce_sum"),
        ([8, 10_000], DType::I32, "reduce_sum"),
        ([1, 70_000], DType::I32, "reduce_max"),
        ([5, 9_000], DType::F64, "reduce_max"),
        ([5, 9_000], DType::F64, "reduce_min"),
    ] {
        let [r, c] = shape;
        let text =
            fusion(&format!("%x: {dt}[{r},{c}]) -> ({dt}[]"), &format!("  %s: {dt}[] = {op}[axes=[0,1]](%x)"), "%s");
        let module = ferrax_ir::parse(&text).unwrap();
        let x = values(dt, &shape, 4, false);
        let (got, partials) = run_splits(&module, std::slice::from_ref(&x));
        assert!(partials >= 2, "{text}");
        let want = interp(&module, std::slice::from_ref(&x));
        if dt.is_float() && op == "reduce_sum" {
            assert_sum(&got[0], &x, partials);
        } else {
            assert!(same_bits(&got[0], &want[0]), "{text}\n{} vs {}", got[0].describe(None), want[0].describe(None));
        }
    }
}

#[test]
fn the_scalar_path_is_not_chunked() {
    // Without SIMD the reduction keeps the interpreter's order (bit-identical), one phase.
    let n = 4 * MIN_CHUNK;
    let text = fusion(&format!("%x: f32[{n}]) -> (f32[]"), "  %s: f32[] = reduce_sum[axes=[0]](%x)", "%s");
    let module = ferrax_ir::parse(&text).unwrap();
    let c = compile(&module, &SCALAR).unwrap();
    assert_eq!((c.partials, c.outer), (0, 1));
    let x = values(DType::F32, &[n], 5, false);
    let got = run(&c, &module, std::slice::from_ref(&x), &[]);
    assert!(same_bits(&got[0], &interp(&module, std::slice::from_ref(&x))[0]));
}
