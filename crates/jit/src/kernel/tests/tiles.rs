//! Tile staging ([`crate::kernel::tile`]): kernels whose f32 `exp`/`tanh`/`logistic` run
//! through the tile routines give the same bits as the inline code (the routines at each
//! width the host has, AVX2 and AVX-512), in elementwise
//! loops and reductions, for chained stages, values also read shifted, several rows, tiles
//! cut short, and inputs over every exponent with the special values; and the routines are
//! really called (counted as calls in the kernel's CLIF: inline f32 math makes none).

use super::support::{close, compile, interp, run, same_bits, values};
use crate::isa::VectorIsa;
use crate::kernel::KernelOptions;
use crate::math::tile;
use ferrax_ir::{Array, DType, Module};

const ON: KernelOptions = KernelOptions { fma: true, simd: true, dump: true, precise_math: false, tiles: true };
const OFF: KernelOptions = KernelOptions { tiles: false, ..ON };

fn fusion(sig: &str, body: &str, ret: &str) -> Module {
    let text = format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n");
    let m = ferrax_ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ferrax_ir::verify(&m).unwrap();
    m
}

/// f32 values with random bits (every exponent, subnormals, inf and NaN), the special
/// values, and a dense stretch of [-12, 12].
fn inputs(n: usize, seed: u64) -> Array {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let special = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-40, -1e-40, 0.625, -0.625, 20.0, 89.0];
    let v = (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match i % 4 {
                0 => f32::from_bits((s >> 32) as u32),
                1 => special[(s % special.len() as u64) as usize],
                _ => ((s >> 40) as f32 / (1u64 << 24) as f32) * 24.0 - 12.0,
            }
        })
        .collect();
    Array::from_f32(&[n], v).unwrap()
}

/// The number of calls in a kernel's CLIF.
fn calls(c: &super::support::Compiled) -> usize {
    c.dump.as_deref().unwrap_or_default().matches("call fn").count()
}

/// Runs `module` with tiles on and off; asserts both agree bit for bit, that the kernel
/// calls `stages` tile routines (on a host that has them; none with tiles off), and that
/// the results are close to the interpreter's.
fn check(module: &Module, args: &[Array], stages: usize) {
    let on = compile(module, &ON).unwrap();
    let off = compile(module, &OFF).unwrap();
    if tile::available() {
        assert_eq!(calls(&on), stages, "{}", on.dump.as_deref().unwrap_or_default());
    }
    assert_eq!(calls(&off), 0, "tiles off still calls a routine");
    let (a, b) = (run(&on, module, args, &[]), run(&off, module, args, &[]));
    let want = interp(module, args);
    for ((x, y), w) in a.iter().zip(&b).zip(&want) {
        assert!(same_bits(x, y), "tiles change bits:\n{}\n{}", x.describe(Some(16)), y.describe(Some(16)));
        assert!(close(x, w, 1e-4), "far from the interpreter:\n{}\n{}", x.describe(Some(16)), w.describe(Some(16)));
    }
}

#[test]
fn elementwise_functions_match_inline_code() {
    for op in ["exp", "tanh", "logistic"] {
        // Several tiles, tiles cut short (by whole groups of four vectors, or not), a scalar tail.
        for n in [64, 100, 515, 1027, 1044, 4099] {
            let m = fusion(&format!("%x: f32[{n}]) -> (f32[{n}]"), &format!("  %y: f32[{n}] = {op}(%x)"), "%y");
            check(&m, &[inputs(n, n as u64)], 1);
        }
    }
}

#[test]
fn routines_match_inline_code_on_every_exponent() {
    // 2^20 bit patterns spread over all floats, straight through the routines against the
    // inline kernels (tiles off), and a dense sweep of [−110, 110] (the one-step range of exp
    // and its edges) in tiles; at every width this host has.
    let n = 1 << 20;
    let mut xs: Vec<f32> = (0..n as u32).map(|i| f32::from_bits(i.wrapping_mul(4099))).collect();
    xs.extend((0..n).map(|i| (i as f64 / n as f64 * 220.0 - 110.0) as f32));
    let n = xs.len();
    let x = Array::from_f32(&[n], xs.clone()).unwrap();
    for (op, f) in [("exp", tile::TileFn::Exp), ("tanh", tile::TileFn::Tanh), ("logistic", tile::TileFn::Logistic)] {
        let m = fusion(&format!("%x: f32[{n}]) -> (f32[{n}]"), &format!("  %y: f32[{n}] = {op}(%x)"), "%y");
        let inline = run(&compile(&m, &OFF).unwrap(), &m, std::slice::from_ref(&x), &[]);
        for level in [VectorIsa::Avx2, VectorIsa::Avx512] {
            let mut ys = xs.clone();
            if !tile::apply_at(level, f, &mut ys) {
                println!("{op}: the {} tile routine is not tested: this host lacks its instructions", level.name());
                continue;
            }
            let got = Array::from_f32(&[n], ys).unwrap();
            assert!(same_bits(&got, &inline[0]), "{op}: the {} routine differs from the inline code", level.name());
            // Tiles of 512 span a narrow band of exponents each: most lie where exp's scale
            // is normal, so the routines' one-step path is compared too.
            let mut ys = xs.clone();
            ys.chunks_mut(512).for_each(|t| assert!(tile::apply_at(level, f, t)));
            let got = Array::from_f32(&[n], ys).unwrap();
            assert!(same_bits(&got, &inline[0]), "{op}: the {} routine differs on tiles", level.name());
            // Every tail length, and tiles cut at every offset of a vector.
            for len in 1..40 {
                let mut ys = xs[..len].to_vec();
                assert!(tile::apply_at(level, f, &mut ys));
                let want = &inline[0].as_f32().unwrap()[..len];
                assert!(ys.iter().zip(want).all(|(a, b)| a.to_bits() == b.to_bits()), "{op}: tail of {len}");
            }
        }
    }
}

#[test]
fn tanh_edges_match_inline_code_and_keep_zeros_and_subnormals() {
    // The branch threshold, the clamp and the ends of the float line on both sides; zeros
    // and subnormals must come back bit for bit (odd, and tanh x = x there).
    let mut xs = vec![0.0f32, f32::from_bits(1), 1e-40, f32::MIN_POSITIVE, 1e-20, 0.6249999, 0.625, 0.6250001];
    xs.extend([8.0, 8.2, 9.011, 9.5, 9.500001, 20.0, f32::MAX, f32::INFINITY, f32::NAN]);
    xs.extend(xs.clone().iter().map(|x| -x));
    let n = xs.len();
    let x = Array::from_f32(&[n], xs.clone()).unwrap();
    let m = fusion(&format!("%x: f32[{n}]) -> (f32[{n}]"), &format!("  %y: f32[{n}] = tanh(%x)"), "%y");
    let inline = run(&compile(&m, &OFF).unwrap(), &m, std::slice::from_ref(&x), &[]);
    let got = inline[0].as_f32().unwrap();
    for (x, y) in xs.iter().zip(got) {
        if *x == 0.0 || x.abs() < 1e-20 {
            assert_eq!(y.to_bits(), x.to_bits(), "tanh({x:e}) must be {x:e} itself, got {y:e}");
        }
        if x.abs() >= 9.011 {
            assert_eq!(*y, x.signum(), "tanh({x}) rounds to ±1");
        }
        assert_eq!(y.is_nan(), x.is_nan(), "tanh({x}) = {y}");
    }
    for level in [VectorIsa::Avx2, VectorIsa::Avx512] {
        let mut ys = xs.clone();
        if !tile::apply_at(level, tile::TileFn::Tanh, &mut ys) {
            println!("tanh edges: the {} tile routine is not tested: this host lacks its instructions", level.name());
            continue;
        }
        let ys = Array::from_f32(&[n], ys).unwrap();
        assert!(same_bits(&ys, &inline[0]), "the {} routine differs at the edges", level.name());
    }
}

#[test]
fn reduction_of_a_chain_matches() {
    // W3's forward: two stages, the accumulation per tile, an S_in result stored from the loop.
    let n = 40_000;
    let sig = format!("%a: f32[{n}], %b: f32[{n}], %c: f32[{n}]) -> (f32[], f32[{n}]");
    let body = format!(
        "  %ab: f32[{n}] = mul(%a, %b)\n  %abc: f32[{n}] = add(%ab, %c)\n  %t: f32[{n}] = tanh(%abc)\n  %na: f32[{n}] = neg(%a)\n  %e: f32[{n}] = exp(%na)\n  %p: f32[{n}] = mul(%t, %e)\n  %s: f32[] = reduce_sum[axes=[0]](%p)"
    );
    let m = fusion(&sig, &body, "%s, %t");
    let args =
        [values(DType::F32, &[n], 1, false), values(DType::F32, &[n], 2, false), values(DType::F32, &[n], 3, true)];
    check(&m, &args, 2);
}

#[test]
fn rows_chains_and_shifted_reads_match() {
    // A reduction over the last axis of several rows, a stage inside another stage's operand.
    let body = "  %t: f32[3,700] = tanh(%x)\n  %e: f32[3,700] = exp(%t)\n  %s: f32[3] = reduce_sum[axes=[1]](%e)";
    let m = fusion("%x: f32[3,700]) -> (f32[3]", body, "%s");
    let x = inputs(2100, 5).reshaped(&[3, 700]).unwrap();
    check(&m, &[x], 2);
    // tanh read in place and shifted by one (the shifted read stays inline).
    let n = 1500;
    let body = format!(
        "  %t: f32[{n}] = tanh(%x)\n  %lo: f32[{}] = slice[start=[0], limit=[{}], strides=[1]](%t)\n  %hi: f32[{}] = slice[start=[1], limit=[{n}], strides=[1]](%t)\n  %y: f32[{}] = add(%lo, %hi)",
        n - 1,
        n - 1,
        n - 1,
        n - 1
    );
    let m = fusion(&format!("%x: f32[{n}]) -> (f32[{}]", n - 1), &body, "%y");
    check(&m, &[inputs(n, 9)], 1);
    // Two rows of an elementwise kernel, the stage's operand a broadcast row.
    let body = "  %bb: f32[2,600] = broadcast_in_dim[shape=[2,600], dims=[1]](%b)\n  %z: f32[2,600] = mul(%x, %bb)\n  %y: f32[2,600] = logistic(%z)";
    let m = fusion("%x: f32[2,600], %b: f32[600]) -> (f32[2,600]", body, "%y");
    let x = inputs(1200, 11).reshaped(&[2, 600]).unwrap();
    check(&m, &[x, inputs(600, 12)], 1);
}

#[test]
fn short_rows_and_f64_stay_inline() {
    let m = fusion("%x: f32[8,40]) -> (f32[8,40]", "  %y: f32[8,40] = tanh(%x)", "%y");
    assert_eq!(calls(&compile(&m, &ON).unwrap()), 0, "a 40-element row is staged");
    let m = fusion("%x: f64[4000]) -> (f64[4000]", "  %y: f64[4000] = exp(%x)", "%y");
    assert_eq!(calls(&compile(&m, &ON).unwrap()), 0, "f64 is staged");
}

/// f32 values around every f16: each f16 widened, the midpoints to its neighbours (the
/// ties) and one f32 ulp either side of them, over all 65,536 patterns.
fn around_every_f16() -> Vec<f32> {
    let mut xs = Vec::new();
    for bits in 0..=u16::MAX {
        let x = f32::from(ferrax_array::f16::from_bits(bits));
        let next = f32::from(ferrax_array::f16::from_bits(bits.wrapping_add(1)));
        xs.push(x);
        if x.is_finite() && next.is_finite() && (x >= 0.0) == (next >= 0.0) {
            let mid = ((f64::from(x) + f64::from(next)) / 2.0) as f32;
            xs.extend([mid, f32::from_bits(mid.to_bits() - 1), f32::from_bits(mid.to_bits() + 1)]);
        }
    }
    // Past the largest f16 (65504) and its tie with 2^16, and f32 subnormals.
    xs.extend([65519.0, 65520.0, 65536.0, 1e-40, -1e-40, f32::MIN_POSITIVE]);
    xs
}

#[test]
fn f16_rounding_routine_matches_inline_code() {
    if !tile::f16c_available() {
        return;
    }
    let xs = around_every_f16();
    let n = xs.len();
    let m = fusion(
        &format!("%x: f32[{n}]) -> (f32[{n}]"),
        &format!("  %h: f16[{n}] = convert[dtype=f16](%x)\n  %y: f32[{n}] = convert[dtype=f32](%h)"),
        "%y",
    );
    let x = Array::from_f32(&[n], xs.clone()).unwrap();
    let inline = run(&compile(&m, &OFF).unwrap(), &m, std::slice::from_ref(&x), &[]);
    assert!(
        same_bits(&inline[0], &interp(&m, std::slice::from_ref(&x))[0]),
        "the inline code differs from the interpreter"
    );
    let mut ys = xs.clone();
    tile::apply(tile::TileFn::RoundF16, &mut ys);
    let got = Array::from_f32(&[n], ys).unwrap();
    assert!(same_bits(&got, &inline[0]), "the F16C routine differs from the inline code");
}

#[test]
fn f16_rounding_is_staged() {
    // A legalized f16 chain: each f16 result is computed in f32 and rounded by a convert
    // to f16 and back; with F16C both roundings go through the routine.
    let stages = if tile::f16c_available() { 2 } else { 0 };
    for n in [64, 515, 1044] {
        let body = format!(
            "  %p: f32[{n}] = mul(%x, %y)\n  %h: f16[{n}] = convert[dtype=f16](%p)\n  %r: f32[{n}] = convert[dtype=f32](%h)\n  %s: f32[{n}] = add(%r, %x)\n  %h2: f16[{n}] = convert[dtype=f16](%s)\n  %r2: f32[{n}] = convert[dtype=f32](%h2)"
        );
        let m = fusion(&format!("%x: f32[{n}], %y: f32[{n}]) -> (f32[{n}]"), &body, "%r2");
        check(&m, &[inputs(n, 3), inputs(n, 4)], stages);
    }
}
