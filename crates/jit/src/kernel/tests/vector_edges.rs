//! Edges of the vector path's analysis, each against the interpreter bit for bit: which
//! views are a shifted read of the innermost axis (and which are not), how far the vector
//! range reaches when pads nest inside a select's predicate, reductions over a row with
//! low padding (they need a scalar head, so they keep the scalar loop), and broadcasts of
//! values that have no vector form.

use super::support::{compile, interp, run, same_bits, values};
use crate::kernel::KernelOptions;
use ferrax_ir::{Array, DType, Module};

const DUMP: KernelOptions = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

/// Whether a dump's CLIF uses vector types.
fn has_vectors(dump: &str) -> bool {
    ["f32x4", "i32x4", "f64x2"].iter().any(|t| dump.contains(t))
}

/// Compiles `text` with the vector path, runs it on `args` (whole and, when `splits` is
/// given, over those outer ranges) and asserts bit-identical results to the interpreter;
/// returns whether the kernel used vectors.
fn check_vector(text: &str, args: &[Array], splits: &[(i64, i64)]) -> bool {
    let module: Module = ferrax_ir::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let c = compile(&module, &DUMP).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let want = interp(&module, args);
    let mut runs = vec![run(&c, &module, args, &[])];
    if !splits.is_empty() {
        runs.push(run(&c, &module, args, splits));
    }
    for got in runs {
        for (g, w) in got.iter().zip(&want) {
            assert!(same_bits(g, w), "{text}\njit:    {}\ninterp: {}", g.describe(Some(64)), w.describe(Some(64)));
        }
    }
    has_vectors(c.dump.as_deref().unwrap())
}

/// A rank-2 slice that moves only the innermost axis is a shifted read and vectorizes; one
/// that also drops a leading row is not (it reads other rows), and stays exact.
#[test]
fn rank2_slices_shift_only_the_innermost_axis() {
    for n in 1..=11usize {
        let inner = fusion(
            &format!("%x: f32[3,{}]) -> (f32[3,{n}]", n + 1),
            &format!(
                "  %a: f32[3,{n}] = slice[start=[0,1], limit=[3,{}], strides=[1,1]](%x)\n  %r: f32[3,{n}] = mul(%a, %a)",
                n + 1
            ),
            "%r",
        );
        let args = [values(DType::F32, &[3, n + 1], n as u64, true)];
        assert!(check_vector(&inner, &args, &[(0, 1), (1, 3)]), "{inner}");
        let rows = fusion(
            &format!("%x: f32[3,{}]) -> (f32[2,{n}]", n + 1),
            &format!(
                "  %a: f32[2,{n}] = slice[start=[1,1], limit=[3,{}], strides=[1,1]](%x)\n  %r: f32[2,{n}] = mul(%a, %a)",
                n + 1
            ),
            "%r",
        );
        check_vector(&rows, &args, &[]);
    }
}

/// A select whose predicate is a constant mask padded twice (the shape reverse mode gives a
/// read shifted twice): the vector range starts where both pads have passed, and the
/// elements before it come from the scalar head.
#[test]
fn nested_pads_in_a_predicate_bound_the_vector_range() {
    for m in 1..=13usize {
        let n = m + 3;
        for dt in [DType::F32, DType::I32] {
            let text = fusion(
                &format!("%x: {dt}[{n}], %y: {dt}[{n}]) -> ({dt}[{n}]"),
                &format!(
                    "  %t: bool[{m}] = constant[value=true]()
  %f: bool[] = constant[value=false]()
  %u: bool[{}] = pad[low=[2], high=[0], interior=[0]](%t, %f)
  %w: bool[{n}] = pad[low=[1], high=[0], interior=[0]](%u, %f)
  %v: {dt}[{n}] = select(%w, %x, %y)",
                    m + 2
                ),
                "%v",
            );
            let args = [values(dt, &[n], m as u64, true), values(dt, &[n], m as u64 + 5, true)];
            assert!(check_vector(&text, &args, &[(0, 2), (2, n as i64)]), "{text}");
        }
    }
}

/// Reductions over the innermost axis of a row padded at its low end: the pad shifts the
/// read before the operand's first element, which the vector reduction has no scalar head
/// for, so the pad value must still be summed (and the row's first elements not read twice
/// or from the previous row).
#[test]
fn reductions_of_low_padded_rows_count_the_pad() {
    for n in 1..=19usize {
        for (dt, op) in [(DType::I32, "reduce_sum"), (DType::F64, "reduce_max"), (DType::F32, "reduce_min")] {
            let pad = if op == "reduce_min" { "-1000" } else { "1000" };
            let text = fusion(
                &format!("%x: {dt}[3,{n}]) -> ({dt}[3]"),
                &format!(
                    "  %z: {dt}[] = constant[value={pad}]()
  %p: {dt}[3,{}] = pad[low=[0,2], high=[0,0], interior=[0,0]](%x, %z)
  %r: {dt}[3] = {op}[axes=[1]](%p)",
                    n + 2
                ),
                "%r",
            );
            let args = [values(dt, &[3, n], n as u64, false)];
            check_vector(&text, &args, &[]);
        }
    }
}

/// A broadcast along the innermost axis of a value with no vector form (`sign`) keeps the
/// scalar loop and compiles; a broadcast across it of such a value is one scalar per row,
/// splat, and vectorizes.
#[test]
fn broadcasts_of_values_without_a_vector_form() {
    for n in 1..=9usize {
        let along = fusion(
            &format!("%a: f32[3,{n}], %b: f32[{n}]) -> (f32[3,{n}]"),
            &format!(
                "  %s: f32[{n}] = sign(%b)\n  %bb: f32[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[1]](%s)\n  %r: f32[3,{n}] = add(%a, %bb)"
            ),
            "%r",
        );
        let args = [values(DType::F32, &[3, n], n as u64, true), values(DType::F32, &[n], n as u64 + 1, true)];
        check_vector(&along, &args, &[(0, 1), (1, 3)]);
        let across = fusion(
            &format!("%a: f32[3,{n}], %c: f32[3]) -> (f32[3,{n}]"),
            &format!(
                "  %s: f32[3] = sign(%c)\n  %cc: f32[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[0]](%s)\n  %r: f32[3,{n}] = mul(%a, %cc)"
            ),
            "%r",
        );
        let args = [values(DType::F32, &[3, n], n as u64, true), values(DType::F32, &[3], n as u64 + 2, true)];
        assert!(check_vector(&across, &args, &[(0, 2), (2, 3)]), "{across}");
    }
}
