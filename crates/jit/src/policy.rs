//! The exactness policy: how a JIT result is compared with the interpreter's.
//!
//! - integer, bool and structural results (dtypes, shapes): exact;
//! - float results: bit-identical (NaNs equal to NaNs) when the module computes
//!   nothing inexact-by-design ([`inexact_ops`] is empty; with fma contraction on, a
//!   float `mul` counts, since `a*b + c` may become one `fma`); otherwise each element must
//!   satisfy `|a - b| <= tol * max(1, |a|, |b|)` with `tol` = 2e-5 for f32 and 1e-12
//!   for f64 (transcendental kernels are within a few ulp; a GEMM reassociates its
//!   sums, and `max(1, ...)` allows for cancellation in sums of O(1) terms).

use ferrax_ir::prim::Prim;
use ferrax_ir::prim::binary::BinaryOp;
use ferrax_ir::prim::unary::UnaryOp;
use ferrax_ir::{Array, DType, Module};

/// The float tolerance of the policy for `dtype` (0 for exact comparison).
pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F32 => 2e-5,
        DType::F64 => 1e-12,
        DType::I32 | DType::Bool => 0.0,
    }
}

/// The primitives of `module` whose JIT results may differ from the interpreter's in
/// the last bits (transcendentals, `pow`, `atan2`, `rem`, float `mul` (fma
/// contraction), `dot_general`, float reductions), by name, without repeats.
pub fn inexact_ops(module: &Module) -> Vec<&'static str> {
    let mut out = Vec::new();
    for f in module.funcs.values() {
        for e in &f.eqns {
            let float = e.outputs.first().is_some_and(|&o| f.ty(o).dtype.is_float());
            let inexact = match &e.prim {
                Prim::Unary(op) => !matches!(
                    op,
                    UnaryOp::Neg
                        | UnaryOp::Abs
                        | UnaryOp::Sign
                        | UnaryOp::Floor
                        | UnaryOp::Ceil
                        | UnaryOp::Round
                        | UnaryOp::Not
                        | UnaryOp::IsFinite
                        | UnaryOp::Sqrt
                ),
                // A float `mul` may be contracted with an `add`/`sub` into one `fma`
                // (`JitOptions::fma`, on by default): one rounding instead of two.
                Prim::Binary(op) => {
                    matches!(op, BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Rem) || (float && *op == BinaryOp::Mul)
                }
                Prim::DotGeneral(_) | Prim::Reduce { .. } | Prim::Cumsum { .. } => float,
                _ => false,
            };
            if inexact && !out.contains(&e.prim.name()) {
                out.push(e.prim.name());
            }
        }
    }
    out
}

/// Checks `actual` (JIT) against `expected` (interpreter) under the policy; `exact`
/// demands bit-identical floats. The error names the first differing result and element.
pub fn agree(expected: &[Array], actual: &[Array], exact: bool) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!("{} results, expected {}", actual.len(), expected.len()));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e.dtype() != a.dtype() || e.shape() != a.shape() {
            return Err(format!("out{i}: {}[{:?}], expected {}[{:?}]", a.dtype(), a.shape(), e.dtype(), e.shape()));
        }
        let tol = if exact { 0.0 } else { tolerance(e.dtype()) };
        let bits = |x: &Array, k: usize| match x.data() {
            ferrax_array::Data::F32(v) => (v[k].to_bits() as u64, v[k] as f64),
            ferrax_array::Data::F64(v) => (v[k].to_bits(), v[k]),
            ferrax_array::Data::I32(v) => (v[k] as u32 as u64, v[k] as f64),
            ferrax_array::Data::Bool(v) => (v[k] as u64, v[k] as u8 as f64),
        };
        for k in 0..e.len() {
            let ((eb, ev), (ab, av)) = (bits(e, k), bits(a, k));
            let same = eb == ab
                || (ev.is_nan() && av.is_nan())
                || (tol > 0.0 && (ev - av).abs() <= tol * ev.abs().max(av.abs()).max(1.0));
            if !same {
                return Err(format!(
                    "out{i}[{k}]: {}, expected {} (tolerance {tol})",
                    a.format_element(k),
                    e.format_element(k)
                ));
            }
        }
    }
    Ok(())
}
