//! The blocked pairwise order of float sums and products (`kernel::ordered`): the vector
//! loop, the scalar loop and the chunked full reduction give the interpreter's bits over
//! sizes around every lane, group, block and chunk edge, with S_in results, split
//! launches and random values; the tile-staged loop gives the inline loop's bits; 2×10^7
//! f32 ones sum to 2×10^7.

use super::support::{SCALAR, SIMD, compile, interp, run, same_bits};
use crate::kernel::KernelOptions;
use crate::kernel::chunked::MIN_CHUNK;
use ferrax_ir::prim::sum_order::BLOCK;
use ferrax_ir::{Array, DType, Module};

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

fn dims(s: &[usize]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

/// Random values of `dtype`: uniform in `[-1, 1)` scaled by a random power of two in
/// `2^-8 .. 2^8` (sums then cancel and round in every slot), or in `[0.999, 1.001)` for a
/// product that neither overflows nor underflows.
fn random(dtype: DType, shape: &[usize], seed: u64, near_one: bool) -> Array {
    let n: usize = shape.iter().product();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let v: Vec<f64> = (0..n)
        .map(|_| {
            let r = next();
            let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
            if near_one { 0.999 + unit * 0.002 } else { (unit * 2.0 - 1.0) * 2f64.powi((r % 17) as i32 - 8) }
        })
        .collect();
    match dtype {
        DType::F32 => Array::from_f32(shape, v.iter().map(|&x| x as f32).collect()).unwrap(),
        _ => Array::from_f64(shape, v).unwrap(),
    }
}

/// Compiles `module` with `opts`, runs it whole and split (`splits`, when the kernel has
/// more than one outer step or chunk), and asserts the interpreter's bits.
fn assert_interp_bits(module: &Module, args: &[Array], opts: &KernelOptions, what: &str) -> Vec<Array> {
    let c = compile(module, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = interp(module, args);
    let mut runs = vec![run(&c, module, args, &[])];
    if c.outer > 1 {
        let singles: Vec<(i64, i64)> = (0..c.outer).rev().map(|i| (i, i + 1)).collect();
        runs.push(run(&c, module, args, &singles));
    }
    for got in &runs {
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                same_bits(g, w),
                "{what}: result {k}\njit:    {}\ninterp: {}",
                g.describe(Some(8)),
                w.describe(Some(8))
            );
        }
    }
    runs.swap_remove(0)
}

/// Innermost-axis reductions (one or several reduced axes, with kept rows) on the vector
/// and the scalar loop, sums and products in f32 and f64, for lengths at every edge of
/// the order: lanes (2, 4), groups (8, 16), blocks (1024) and pairwise levels.
#[test]
fn innermost_reductions_are_the_interpreters_bits() {
    let mut lengths = vec![0usize, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63];
    lengths.extend((64..=1100).step_by(53));
    lengths.extend([
        511,
        512,
        513,
        BLOCK - 1,
        BLOCK,
        BLOCK + 1,
        BLOCK + 15,
        2 * BLOCK,
        3 * BLOCK + 7,
        5 * BLOCK - 1,
        7 * BLOCK - 5,
    ]);
    let mut seed = 1;
    for &n in &lengths {
        for dt in [DType::F32, DType::F64] {
            for op in ["reduce_sum", "reduce_prod"] {
                // [3, n] over axis 1 (three rows, split across launches), and [2, 7, n] over
                // axes [1, 2] (a pairwise level of 7 rows per result: three partials left
                // on its stack, as 7 blocks leave on the blocks' level).
                for (shape, axes, out) in [(vec![3, n], "1", vec![3]), (vec![2, 7, n], "1,2", vec![2])] {
                    let text = fusion(
                        &format!("%x: {dt}[{}]) -> ({dt}[{}]", dims(&shape), dims(&out)),
                        &format!("  %r: {dt}[{}] = {op}[axes=[{axes}]](%x)", dims(&out)),
                        "%r",
                    );
                    let module = ferrax_ir::parse(&text).unwrap();
                    seed += 1;
                    let args = [random(dt, &shape, seed, op == "reduce_prod")];
                    for opts in [SIMD, SCALAR] {
                        assert_interp_bits(&module, &args, &opts, &format!("{text} simd={}", opts.simd));
                    }
                }
            }
        }
    }
}

/// Kernels with an S_in result and an epilogue, and a reduced axis of extent 1 before the
/// last: the order is unchanged by what else the kernel computes.
#[test]
fn multi_output_kernels_keep_the_order() {
    for n in [5usize, 70, 1030, 2100] {
        let text = fusion(
            &format!("%x: f32[4,1,{n}], %y: f32[4,1,{n}]) -> (f32[4], f32[4,1,{n}]"),
            &format!(
                "  %p: f32[4,1,{n}] = mul(%x, %y)\n  %s: f32[4] = reduce_sum[axes=[1,2]](%p)\n  %q: f32[4] = sqrt(%s)"
            ),
            "%q, %p",
        );
        let module = ferrax_ir::parse(&text).unwrap();
        let args = [random(DType::F32, &[4, 1, n], 3, true), random(DType::F32, &[4, 1, n], 4, false)];
        for opts in [SIMD, SCALAR] {
            assert_interp_bits(&module, &args, &opts, &text);
        }
    }
}

/// Full reductions of 32,768 elements and more are chunked: cut along the last axis (in
/// whole powers of two of blocks) or along a leading one (powers of two of its indices),
/// with the chunks run in one call, one call each in reverse order: the interpreter's bits.
#[test]
fn chunked_full_reductions_are_the_interpreters_bits() {
    let cases: [(&[usize], DType, bool); 10] = [
        (&[2 * MIN_CHUNK], DType::F32, false),
        (&[2 * MIN_CHUNK + 1], DType::F32, false),
        (&[40_000], DType::F32, false),
        (&[40_001], DType::F64, false),
        (&[100_003], DType::F32, false),
        (&[1, 70_000], DType::F32, false),
        (&[8, 5_000], DType::F32, false),
        (&[40, 1_000], DType::F64, false),
        (&[3, 7, 2_000], DType::F32, false),
        (&[45_000], DType::F64, true),
    ];
    for (k, &(shape, dt, near_one)) in cases.iter().enumerate() {
        let op = if near_one { "reduce_prod" } else { "reduce_sum" };
        let axes: Vec<usize> = (0..shape.len()).collect();
        let text = fusion(
            &format!("%x: {dt}[{}]) -> ({dt}[]", dims(shape)),
            &format!("  %r: {dt}[] = {op}[axes=[{}]](%x)", dims(&axes)),
            "%r",
        );
        let module = ferrax_ir::parse(&text).unwrap();
        let args = [random(dt, shape, 100 + k as u64, near_one)];
        let c = compile(&module, &SIMD).unwrap();
        assert!(c.partials >= 2, "not chunked: {text}");
        assert_interp_bits(&module, &args, &SIMD, &text);
    }
}

/// The tile-staged loop (f32 `exp` through the AVX2 routines, per block) gives the bits of
/// the inline vector loop, on hosts that have the routines (elsewhere both are inline).
#[test]
fn staged_tiles_keep_the_order() {
    for n in [600usize, BLOCK + 600, 3 * BLOCK] {
        let text = fusion(
            &format!("%x: f32[2,{n}]) -> (f32[2], f32[2,{n}]"),
            &format!("  %e: f32[2,{n}] = exp(%x)\n  %s: f32[2] = reduce_sum[axes=[1]](%e)"),
            "%s, %e",
        );
        let module = ferrax_ir::parse(&text).unwrap();
        let args = [random(DType::F32, &[2, n], 9, false)];
        let fast = KernelOptions { precise_math: false, ..SIMD };
        let staged = run(&compile(&module, &fast).unwrap(), &module, &args, &[]);
        let inline = run(&compile(&module, &KernelOptions { tiles: false, ..fast }).unwrap(), &module, &args, &[]);
        assert!(staged.iter().zip(&inline).all(|(a, b)| same_bits(a, b)), "{text}");
    }
}

/// The issue's case: 2×10^7 f32 ones (a broadcast scalar, so no 80 MB input) sum to
/// exactly 2×10^7 on the chunked JIT loop, the scalar loop, and (two rows of 10^7) the
/// one-phase vector loop, as on the interpreter; a left fold would stop at 2^24 = 16777216.
#[test]
fn twenty_million_f32_ones() {
    let n = 20_000_000usize;
    let cases =
        [(vec![n], "0", vec![], 2e7f32), (vec![2, n / 2], "0,1", vec![], 2e7), (vec![2, n / 2], "1", vec![2], 1e7)];
    for (shape, axes, out, each) in cases {
        let text = fusion(
            &format!("%c: f32[]) -> (f32[{}]", dims(&out)),
            &format!(
                "  %o: f32[{0}] = broadcast_in_dim[shape=[{0}], dims=[]](%c)\n  %s: f32[{1}] = reduce_sum[axes=[{axes}]](%o)",
                dims(&shape),
                dims(&out)
            ),
            "%s",
        );
        let module = ferrax_ir::parse(&text).unwrap();
        let args = [Array::scalar_f32(1.0)];
        let want = Array::from_f32(&out, vec![each; out.iter().product()]).unwrap();
        for opts in [SIMD, SCALAR] {
            let got = run(&compile(&module, &opts).unwrap(), &module, &args, &[]);
            assert_eq!(got[0], want, "{text} simd={}", opts.simd);
        }
    }
    let text = fusion(
        "%c: f32[]) -> (f32[]",
        &format!("  %o: f32[{n}] = broadcast_in_dim[shape=[{n}], dims=[]](%c)\n  %s: f32[] = reduce_sum[axes=[0]](%o)"),
        "%s",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    assert_eq!(interp(&module, &[Array::scalar_f32(1.0)])[0], Array::scalar_f32(2e7));
}

/// The stated bound: on random f32 data, the ordered sum is within `γ_d·Σ|x|` of the f64
/// sum, `d = 72 + ⌈log2⌈n/1024⌉⌉` (one row), far tighter than a left fold's `γ_{n-1}`.
#[test]
fn random_f32_sums_within_the_stated_bound() {
    for n in [1000usize, 40_000, 300_007] {
        let text = fusion(&format!("%x: f32[{n}]) -> (f32[]"), "  %s: f32[] = reduce_sum[axes=[0]](%x)", "%s");
        let module = ferrax_ir::parse(&text).unwrap();
        let x = random(DType::F32, &[n], 77, false);
        let got = assert_interp_bits(&module, std::slice::from_ref(&x), &SIMD, &text);
        let g = f64::from(got[0].as_f32().unwrap()[0]);
        let v = x.as_f32().unwrap();
        let exact: f64 = v.iter().map(|&a| f64::from(a)).sum();
        let abs: f64 = v.iter().map(|&a| f64::from(a).abs()).sum();
        let d = 72.0 + (n.div_ceil(BLOCK) as f64).log2().ceil();
        let u = 2f64.powi(-24);
        let bound = d * u / (1.0 - d * u) * abs;
        assert!((g - exact).abs() <= bound, "n = {n}: {g} vs {exact}, bound {bound}");
    }
}
