//! Bool values as lane masks in the vector loops: comparisons, `select` on a computed
//! predicate, bool logic and `convert` of a bool, and `iota`, each engaged (vector types
//! in the dumped CLIF) and bit-identical to the scalar loop and the interpreter at every
//! size around the vector width, with NaNs and the integer extremes among the inputs, on
//! the host and on the baseline SSE2 target. A bool that a kernel loads or stores keeps
//! the scalar loop.

use super::support::{baseline_module, compile, compile_on, interp, run, same_bits, values};
use crate::kernel::KernelOptions;
use ferrax_ir::DType;
use ferrax_ir::array::Data;

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

fn has_vectors(dump: &str) -> bool {
    ["f32x4", "i32x4", "f64x2", "i64x2"].iter().any(|t| dump.contains(t))
}

/// Compiles `text` vectorised, scalar and on the baseline target, and checks all three
/// against the interpreter bit for bit; `vector` says whether the vector loop must be
/// engaged.
fn check(text: &str, types: &[(DType, Vec<usize>)], seed: u64, vector: bool) {
    let simd = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
    let scalar = KernelOptions { simd: false, ..simd.clone() };
    let module = ferrax_ir::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let args: Vec<_> = types.iter().enumerate().map(|(i, (dt, s))| values(*dt, s, seed + i as u64, true)).collect();
    let want = interp(&module, &args);
    let v = compile(&module, &simd).unwrap();
    assert_eq!(has_vectors(v.dump.as_deref().unwrap()), vector, "{text}");
    let s = compile(&module, &scalar).unwrap();
    let base = compile_on(baseline_module(), &module, &simd).unwrap();
    for c in [&v, &s, &base] {
        for (g, w) in run(c, &module, &args, &[]).iter().zip(&want) {
            assert!(same_bits(g, w), "{text}\njit: {}\nwant: {}", g.describe(None), w.describe(None));
        }
    }
}

/// The one-hot pattern of a cross-entropy: `sum(convert(eq(labels, iota)) * logp)` over
/// the classes, with labels out of range and negative among them.
#[test]
fn one_hot_reduction_vectorises() {
    for n in 1..=11usize {
        let text = fusion(
            &format!("%l: i32[3], %p: f32[3,{n}]) -> (f32[3]"),
            &format!(
                "  %ll: i32[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[0]](%l)\n  %io: i32[3,{n}] = iota[dtype=i32, shape=[3,{n}], dim=1]()\n  %eq: bool[3,{n}] = eq(%ll, %io)\n  %oh: f32[3,{n}] = convert[dtype=f32](%eq)\n  %m: f32[3,{n}] = mul(%oh, %p)\n  %r: f32[3] = reduce_sum[axes=[1]](%m)"
            ),
            "%r",
        );
        let labels = ferrax_ir::Array::new(&[3usize][..], Data::I32(vec![n as i32 / 2, -1, n as i32])).unwrap();
        let module = ferrax_ir::parse(&text).unwrap();
        let simd = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
        let c = compile(&module, &simd).unwrap();
        assert!(has_vectors(c.dump.as_deref().unwrap()), "n={n}");
        let args = [labels, values(DType::F32, &[3, n], 7, false)];
        let want = interp(&module, &args);
        assert!(same_bits(&run(&c, &module, &args, &[])[0], &want[0]), "n={n}");
        check(&text, &[(DType::I32, vec![3]), (DType::F32, vec![3, n])], n as u64, true);
    }
}

/// Every comparison on every vector dtype, `select` on it, bool logic, `convert` of a bool
/// to each numeric dtype, NaNs included.
#[test]
fn compare_select_and_convert_match_scalar() {
    for n in [1usize, 2, 3, 4, 5, 7, 8, 9, 13] {
        for dt in [DType::F32, DType::F64, DType::I32] {
            for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
                let text = fusion(
                    &format!("%a: {dt}[2,{n}], %b: {dt}[2,{n}]) -> ({dt}[2,{n}], {dt}[2,{n}]"),
                    &format!(
                        "  %p: bool[2,{n}] = {cmp}(%a, %b)\n  %s: {dt}[2,{n}] = select(%p, %a, %b)\n  %q: bool[2,{n}] = lt(%b, %a)\n  %nq: bool[2,{n}] = not(%q)\n  %o: bool[2,{n}] = or(%nq, %p)\n  %x: bool[2,{n}] = and(%o, %q)\n  %c: {dt}[2,{n}] = convert[dtype={dt}](%x)\n  %d: {dt}[2,{n}] = add(%c, %s)"
                    ),
                    "%s, %d",
                );
                check(&text, &[(dt, vec![2, n]), (dt, vec![2, n])], n as u64, true);
            }
        }
    }
}

/// A predicate computed per row and broadcast along the innermost axis (a splat mask), a
/// bool constant, and `iota` counting along either axis in every numeric dtype.
#[test]
fn splat_masks_and_iota() {
    for n in [1usize, 3, 4, 6, 9] {
        for dt in [DType::F32, DType::F64, DType::I32] {
            let text = fusion(
                &format!("%a: {dt}[3,{n}], %r: {dt}[3]) -> ({dt}[3,{n}]"),
                &format!(
                    "  %z: {dt}[] = constant[value=0]()\n  %zz: {dt}[3] = broadcast_in_dim[shape=[3], dims=[]](%z)\n  %pr: bool[3] = gt(%r, %zz)\n  %pp: bool[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[0]](%pr)\n  %t: bool[] = constant[value=true]()\n  %tt: bool[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[]](%t)\n  %both: bool[3,{n}] = and(%pp, %tt)\n  %i1: {dt}[3,{n}] = iota[dtype={dt}, shape=[3,{n}], dim=1]()\n  %i0: {dt}[3,{n}] = iota[dtype={dt}, shape=[3,{n}], dim=0]()\n  %s: {dt}[3,{n}] = select(%both, %i1, %a)\n  %u: {dt}[3,{n}] = sub(%s, %i0)"
                ),
                "%u",
            );
            check(&text, &[(dt, vec![3, n]), (dt, vec![3])], n as u64 + 3, true);
        }
    }
}

/// Bools in memory are bytes: a kernel that stores one (or loads one) stays scalar, and
/// exact.
#[test]
fn loaded_and_stored_bools_stay_scalar() {
    let stored = fusion(
        "%a: f32[9], %b: f32[9]) -> (f32[9], bool[9]",
        "  %p: bool[9] = lt(%a, %b)\n  %s: f32[9] = select(%p, %a, %b)",
        "%s, %p",
    );
    check(&stored, &[(DType::F32, vec![9]), (DType::F32, vec![9])], 5, false);
    let loaded = fusion("%p: bool[9], %a: f32[9], %b: f32[9]) -> (f32[9]", "  %s: f32[9] = select(%p, %a, %b)", "%s");
    check(&loaded, &[(DType::Bool, vec![9]), (DType::F32, vec![9]), (DType::F32, vec![9])], 6, false);
}
