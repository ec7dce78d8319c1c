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
            let inexact = is_inexact(e, f);
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
    agree_with_floor(expected, actual, exact, 0.0)
}

/// [`agree`] for the results of `module`: exact when it computes nothing inexact;
/// otherwise every float result gets at least the tolerance of the least precise
/// dtype an inexact primitive computes in (an f32 `exp` converted to f64 differs in
/// f32's last bits, not f64's).
pub fn agree_for(module: &Module, expected: &[Array], actual: &[Array]) -> Result<(), String> {
    let mut floor: f64 = 0.0;
    for f in module.funcs.values() {
        for e in &f.eqns {
            let dtype = e.outputs.first().map(|&o| f.ty(o).dtype);
            if let Some(d) = dtype.filter(|d| d.is_float())
                && is_inexact(e, f)
            {
                floor = floor.max(tolerance(d));
            }
            // Inexact in its operands' dtype (a reduction to an index, a comparison).
            if is_inexact(e, f)
                && let Some(&i) = e.inputs.first()
                && f.ty(i).dtype.is_float()
            {
                floor = floor.max(tolerance(f.ty(i).dtype));
            }
        }
    }
    let exact = inexact_ops(module).is_empty();
    agree_with_floor(expected, actual, exact, floor)
}

/// Whether equation `e` of `f` is inexact by design (see [`inexact_ops`]).
fn is_inexact(e: &ferrax_ir::Eqn, f: &ferrax_ir::Func) -> bool {
    let float = e.outputs.first().is_some_and(|&o| f.ty(o).dtype.is_float());
    match &e.prim {
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
    }
}

fn agree_with_floor(expected: &[Array], actual: &[Array], exact: bool, floor: f64) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!("{} results, expected {}", actual.len(), expected.len()));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e.dtype() != a.dtype() || e.shape() != a.shape() {
            return Err(format!("out{i}: {}[{:?}], expected {}[{:?}]", a.dtype(), a.shape(), e.dtype(), e.shape()));
        }
        let tol = if exact || !e.dtype().is_float() { 0.0 } else { tolerance(e.dtype()).max(floor) };
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
