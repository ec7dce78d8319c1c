//! The exactness policy: how a JIT result is compared with the interpreter's when no
//! more accurate reference is at hand (the `ir/` corpus, the API tests, the bench).
//!
//! - integer, bool and structural results (dtypes, shapes): exact;
//! - float results: bit-identical (NaNs equal to NaNs) when the module computes nothing
//!   inexact by design ([`inexact_ops`] is empty; with fma contraction on, a float `mul`
//!   counts, since `a*b + c` may become one `fma`);
//! - otherwise each float element must satisfy `|a − b| ≤ tol`, where `tol` is the sum of
//!   - [`ULPS`] ulps of `max(|a|, |b|)`, but never less than the dtype's smallest normal
//!     (ulp-based at every magnitude: a JIT returning 0 for f32 `exp(-12)` fails; below
//!     the normal range the kernels may flush);
//!   - for a result computed directly by a reassociated sum (`reduce_sum`, `cumsum`,
//!     `dot_general`, `scatter_add`) or by an `add`/`sub` of a single-use float product
//!     (what the JIT contracts into one `fma`), [`SUM_ULPS`] ulps of the magnitude of its
//!     terms at that element (`Σ|x|`, `Σ|a·b|`, `|a·b| + |c|`; [`agree_for`] evaluates
//!     them on the interpreter): a sum in another order errs by ulps of its terms, and a
//!     contracted `a·b + c` skips the rounding of `a·b`, which errs by half an ulp of the
//!     product, not of the (possibly cancelling) result;
//!   - for other results of a module that reassociates a sum or factorises a matrix
//!     (`cholesky`, `triangular_solve`, `eigh`, `lu`, `qr`, `svd`, whose rounding errors
//!     are relative to the matrix's norm, not to each element: a small entry of an
//!     orthogonal factor carries the error of the whole column), [`SUM_ULPS`] ulps of the
//!     largest finite magnitude of that result array (a norm-wise bound: the output's
//!     largest element stands for the size of the terms), or, in a module that
//!     factorises, of every float result (a tangent or cotangent computed from the
//!     factors inherits their error, which a small tangent does not scale down).
//!
//! The ulp is that of the least precise float dtype any inexact primitive of the module
//! computes in (an f32 `exp` converted to f64 differs in f32's last bits). Errors that an
//! ill-conditioned operation amplifies further (a contraction or sum feeding `tan`) are
//! beyond a per-element policy: the differential oracle of `tests/` judges those against
//! an f64 evaluation of the program.

use ferrax_ir::array::{bf16, f16};
use ferrax_ir::prim::Prim;
use ferrax_ir::prim::ReductionOp;
use ferrax_ir::prim::binary::BinaryOp;
use ferrax_ir::prim::reduce::ReduceOp;
use ferrax_ir::prim::unary::UnaryOp;
use ferrax_ir::{Array, DType, Eqn, EvalOptions, Func, Module, Value};

/// Ulps of `max(|a|, |b|)` any inexact float element may differ by: the vector kernels of
/// the transcendentals are within a few ulps of correctly rounded, and the corpus's
/// chains and loops of them amplify that (measured: up to 32 ulps for f32
/// `ir/fuse/expensive_through_broadcast.fx`, 56 for the f64 `ir/vmap/scan_batched_carry.fx`).
pub const ULPS: f64 = 64.0;

/// Ulps of the terms' magnitude a reassociated sum or a contracted product may differ by.
pub const SUM_ULPS: f64 = 16.0;

/// The spacing of `dtype`'s floats at `|x|` (integers: 0; beyond the largest finite
/// value, the spacing there; NaN for NaN).
pub fn ulp(x: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 => {
            let y = (x.abs() as f32).min(f32::MAX);
            if y.is_nan() {
                return f64::NAN;
            }
            let (lo, hi) = if y == f32::MAX { (y.to_bits() - 1, y.to_bits()) } else { (y.to_bits(), y.to_bits() + 1) };
            f64::from(f32::from_bits(hi) - f32::from_bits(lo))
        }
        DType::F64 => {
            let y = x.abs().min(f64::MAX);
            if y.is_nan() {
                return f64::NAN;
            }
            let (lo, hi) = if y == f64::MAX { (y.to_bits() - 1, y.to_bits()) } else { (y.to_bits(), y.to_bits() + 1) };
            f64::from_bits(hi) - f64::from_bits(lo)
        }
        DType::BF16 => {
            half_ulp(x, |v| ferrax_ir::array::bf16_from_f64(v).to_bits(), |b| f64::from(bf16::from_bits(b)), bf16::MAX)
        }
        DType::F16 => {
            half_ulp(x, |v| ferrax_ir::array::f16_from_f64(v).to_bits(), |b| f64::from(f16::from_bits(b)), f16::MAX)
        }
        DType::I32 | DType::Bool => 0.0,
    }
}

/// [`ulp`] of a 16-bit float type, given its rounding, widening and largest value.
fn half_ulp<H: Into<f64>>(x: f64, to_bits: impl Fn(f64) -> u16, from_bits: impl Fn(u16) -> f64, max: H) -> f64 {
    let max: f64 = max.into();
    if x.is_nan() {
        return f64::NAN;
    }
    let b = to_bits(x.abs().min(max));
    let (lo, hi) = if from_bits(b) == max { (b - 1, b) } else { (b, b + 1) };
    from_bits(hi) - from_bits(lo)
}

/// The smallest positive normal number of a float dtype (0 for integers).
pub fn smallest_normal(dtype: DType) -> f64 {
    match dtype {
        DType::F32 => f64::from(f32::MIN_POSITIVE),
        DType::F64 => f64::MIN_POSITIVE,
        DType::BF16 => f64::from(bf16::MIN_POSITIVE),
        DType::F16 => f64::from(f16::MIN_POSITIVE),
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

/// Checks `actual` (JIT) against `expected` (interpreter) elementwise; `exact` demands
/// bit-identical floats, otherwise each float element gets [`ULPS`] ulps of its dtype
/// (floor: the smallest normal). Without the module, no allowance for reassociated sums
/// or contractions: use [`agree_for`] for results of a GEMM or a reduction. The error
/// names the first differing result and element.
pub fn agree(expected: &[Array], actual: &[Array], exact: bool) -> Result<(), String> {
    let tol = Tolerance { exact, ulp_dtype: None, sums: false, factorises: false };
    agree_with(expected, actual, &tol, &[])
}

/// The policy for the results of `func` of `module` on `args` (see the module docs): exact when it
/// computes nothing inexact; otherwise ulp bounds in the least precise dtype an inexact
/// primitive computes in, plus ulps of the terms' magnitude for results of a sum or a
/// contractible `add`/`sub` (measured by one more interpreter run of `module`, rewritten
/// to sum absolute values there) and norm-wise for other results of a module that
/// reassociates a sum.
pub fn agree_for(
    module: &Module,
    func: &str,
    args: &[Array],
    expected: &[Array],
    actual: &[Array],
) -> Result<(), String> {
    let exact = inexact_ops(module).is_empty();
    let (mut f32_inexact, mut f64_inexact, mut sums, mut factors) = (false, false, false, false);
    for f in module.funcs.values() {
        for e in &f.eqns {
            if !is_inexact(e, f) {
                continue;
            }
            for v in e.outputs.iter().chain(e.inputs.first()) {
                f32_inexact |= f.ty(*v).dtype == DType::F32;
                f64_inexact |= f.ty(*v).dtype == DType::F64;
            }
            let float = e.outputs.first().is_some_and(|&o| f.ty(o).dtype.is_float());
            sums |= (reassociates(&e.prim) || factorises(&e.prim)) && float;
            factors |= factorises(&e.prim) && float;
        }
    }
    let ulp_dtype = if f32_inexact { Some(DType::F32) } else { f64_inexact.then_some(DType::F64) };
    let tol = Tolerance { exact, ulp_dtype, sums, factorises: factors };
    let magnitudes = if exact { Vec::new() } else { term_magnitudes(module, func, args) };
    agree_with(expected, actual, &tol, &magnitudes)
}

struct Tolerance {
    exact: bool,
    /// The dtype whose ulps the float elements get (`None`: each result's own).
    ulp_dtype: Option<DType>,
    /// Whether the module reassociates a float sum.
    sums: bool,
    /// Whether the module factorises a matrix: the norm-wise bound then takes the
    /// largest magnitude over every float result, not each result's own (module docs).
    factorises: bool,
}

fn reassociates(prim: &Prim) -> bool {
    !prim.props().reassociates_over.is_empty()
}

/// Whether `prim` factorises or solves with a matrix (module docs): its error is
/// norm-wise.
fn factorises(prim: &Prim) -> bool {
    prim.props().factorises
}

/// Whether equation `e` of `f` is inexact by design (see [`inexact_ops`]): its
/// property-table row says a backend may approximate it on float results, or it is a
/// float `mul` that may be contracted with an `add`/`sub` into one `fma`
/// (`JitOptions::fma`, on by default): one rounding instead of two.
fn is_inexact(e: &Eqn, f: &Func) -> bool {
    let float = e.outputs.first().is_some_and(|&o| f.ty(o).dtype.is_float());
    let props = e.prim.props();
    // An elementwise op's row holds whatever its result dtype; sums and contractions
    // are inexact only on float results.
    let elementwise = props.class == ferrax_ir::prim::Class::Elementwise;
    (props.inexact && (float || elementwise)) || (float && e.prim == Prim::Binary(BinaryOp::Mul))
}

/// The entry's equations whose error scales with their terms rather than their value,
/// with the operands whose absolute values give that scale: an `add`/`sub` the JIT may
/// contract (an operand is a float `mul` used only there: `add(mul, c)`, `add(c, mul)`,
/// `sub(mul, c)`, `sub(c, mul)`), and the reassociated float sums (`reduce_sum`, `cumsum`,
/// `dot_general`, `scatter_add`: the property table's `reassociates_over`).
fn term_scaled(f: &Func) -> Vec<(usize, &'static [usize])> {
    let mut uses = vec![0usize; f.value_types.len()];
    for e in &f.eqns {
        for v in &e.inputs {
            uses[v.index()] += 1;
        }
    }
    for v in &f.results {
        uses[v.index()] += 1;
    }
    let mut product = vec![false; f.value_types.len()];
    for e in &f.eqns {
        if e.prim == Prim::Binary(BinaryOp::Mul) && f.ty(e.outputs[0]).dtype.is_float() {
            product[e.outputs[0].index()] = uses[e.outputs[0].index()] == 1;
        }
    }
    let is_product = |v: Value| product[v.index()];
    let mut out = Vec::new();
    for (i, e) in f.eqns.iter().enumerate() {
        if !e.outputs.first().is_some_and(|&o| f.ty(o).dtype.is_float()) {
            continue;
        }
        let operands: &'static [usize] = match (&e.prim, &e.inputs[..]) {
            (Prim::Binary(BinaryOp::Add), [x, y]) if is_product(*x) || is_product(*y) => &[0, 1],
            (Prim::Binary(BinaryOp::Sub), [x, y]) if is_product(*x) || is_product(*y) => &[0, 1],
            // A product's rounding error scales with its value, not with its factors.
            (Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Prod, .. }), _) => continue,
            (prim, _) if reassociates(prim) => prim.props().reassociates_over,
            _ => continue,
        };
        out.push((i, operands));
    }
    out
}

/// Per result of `func`, the magnitude of its terms at each element when the result is
/// computed directly by a [`term_scaled`] equation of `func`: `func` rewritten to
/// take absolute values of those operands (a `sub` becomes an `add`), run on the
/// interpreter. `None` for other results; empty when there are none or the rewritten
/// module does not run.
fn term_magnitudes(module: &Module, func: &str, args: &[Array]) -> Vec<Option<Array>> {
    let Some(entry) = module.func(func) else { return Vec::new() };
    let scaled = term_scaled(entry);
    let direct: Vec<bool> =
        entry.results.iter().map(|r| scaled.iter().any(|&(i, _)| entry.eqns[i].outputs.contains(r))).collect();
    if !direct.contains(&true) {
        return Vec::new();
    }
    let mut f = entry.clone();
    let mut eqns = Vec::with_capacity(f.eqns.len() + 2 * scaled.len());
    for (i, e) in entry.eqns.iter().enumerate() {
        let Some(&(_, operands)) = scaled.iter().find(|&&(j, _)| j == i) else {
            eqns.push(e.clone());
            continue;
        };
        let mut inputs = e.inputs.clone();
        for &k in operands {
            let v = e.inputs[k];
            let out = f.new_value(f.ty(v).clone());
            eqns.push(Eqn {
                prim: Prim::Unary(UnaryOp::Abs),
                inputs: [v].into_iter().collect(),
                outputs: [out].into_iter().collect(),
                loc: None,
            });
            inputs[k] = out;
        }
        let prim = if e.prim == Prim::Binary(BinaryOp::Sub) { Prim::Binary(BinaryOp::Add) } else { e.prim.clone() };
        eqns.push(Eqn { prim, inputs, ..e.clone() });
    }
    f.eqns = eqns;
    let mut rewritten = module.clone();
    if let Some(slot) = rewritten.funcs.get_mut(&entry.name) {
        *slot = f;
    }
    let options = EvalOptions { fuel: Some(100_000), ..EvalOptions::default() };
    let Ok(outs) = ferrax_ir::eval(&rewritten, func, args, &options) else { return Vec::new() };
    outs.into_iter().zip(direct).map(|(o, d)| d.then_some(o)).collect()
}

fn agree_with(
    expected: &[Array],
    actual: &[Array],
    tol: &Tolerance,
    magnitudes: &[Option<Array>],
) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!("{} results, expected {}", actual.len(), expected.len()));
    }
    // The largest finite float magnitude over every expected result.
    let overall = expected
        .iter()
        .filter(|e| e.dtype().is_float())
        .flat_map(|e| e.to_f64_vec())
        .filter(|x| x.is_finite())
        .fold(0.0, |m: f64, x| m.max(x.abs()));
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e.dtype() != a.dtype() || e.shape() != a.shape() {
            return Err(format!("out{i}: {}[{:?}], expected {}[{:?}]", a.dtype(), a.shape(), e.dtype(), e.shape()));
        }
        let float = e.dtype().is_float();
        let dtype = tol.ulp_dtype.unwrap_or(e.dtype());
        let (ev, av) = (e.to_f64_vec(), a.to_f64_vec());
        // The size of the terms of a reassociated sum: the largest finite element.
        let largest = |v: &[f64]| v.iter().filter(|x| x.is_finite()).fold(0.0, |m: f64, x| m.max(x.abs()));
        let scale = match (tol.sums, tol.factorises) {
            (true, true) => overall,
            (true, false) => largest(&ev),
            (false, _) => 0.0,
        };
        let terms = magnitudes.get(i).and_then(|m| m.as_ref()).map(|m| m.to_f64_vec());
        let bits = |x: &Array, k: usize| match x.data() {
            ferrax_array::Data::F32(v) => v[k].to_bits() as u64,
            ferrax_array::Data::F64(v) => v[k].to_bits(),
            ferrax_array::Data::I32(v) => v[k] as u32 as u64,
            ferrax_array::Data::Bool(v) => v[k] as u64,
            ferrax_array::Data::BF16(v) => u64::from(v[k].to_bits()),
            ferrax_array::Data::F16(v) => u64::from(v[k].to_bits()),
        };
        for k in 0..e.len() {
            let (x, y) = (ev[k], av[k]);
            let same = bits(e, k) == bits(a, k) || (x.is_nan() && y.is_nan());
            if same {
                continue;
            }
            let allowed = if tol.exact || !float {
                0.0
            } else {
                let t = (ULPS * ulp(x.abs().max(y.abs()), dtype)).max(smallest_normal(dtype));
                // The terms' magnitude where it was measured, else the norm-wise proxy.
                let terms = terms.as_ref().map_or(scale, |m| m[k]);
                t + SUM_ULPS * ulp(terms, dtype)
            };
            // Non-finite values only agree with themselves (above).
            let close = x.is_finite() && y.is_finite() && (x - y).abs() <= allowed;
            if !close {
                return Err(format!(
                    "out{i}[{k}]: {}, expected {} (allowed difference {allowed:e})",
                    a.format_element(k),
                    e.format_element(k)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Array {
        Array::from_f32(&[values.len()], values.to_vec()).unwrap()
    }

    fn run(text: &str, args: &[Array]) -> (Module, Vec<Array>) {
        let module = ferrax_ir::parse(text).unwrap();
        ferrax_ir::verify(&module).unwrap();
        let out = ferrax_ir::eval_entry(&module, args, &EvalOptions::default()).unwrap();
        (module, out)
    }

    /// Moves every element of an f32 result by `n` ulps.
    fn nudged(a: &Array, n: i32) -> Array {
        let v = a.as_f32().unwrap().iter().map(|x| f32::from_bits((x.to_bits() as i32 + n) as u32)).collect();
        Array::from_f32(a.shape(), v).unwrap()
    }

    #[test]
    fn a_jit_that_returns_zero_for_tiny_transcendentals_fails() {
        for (op, x) in [("exp", -12.0f32), ("logistic", -20.0)] {
            let text = format!("func @main(%x: f32[1]) -> (f32[1]) {{\n  %y: f32[1] = {op}(%x)\n  return %y\n}}\n");
            let args = [f32s(&[x])];
            let (module, want) = run(&text, &args);
            assert!(want[0].as_f32().unwrap()[0] > 1e-9, "{op}({x}) is tiny but normal");
            let zero = [f32s(&[0.0])];
            assert!(agree_for(&module, "main", &args, &want, &zero).is_err(), "{op}({x}) = 0 must fail");
            assert!(agree(&want, &zero, false).is_err(), "{op}({x}) = 0 must fail");
            // A few ulps off is within the kernels' accuracy; a thousand is not.
            agree_for(&module, "main", &args, &want, &[nudged(&want[0], 3)]).unwrap();
            assert!(agree_for(&module, "main", &args, &want, &[nudged(&want[0], 1000)]).is_err());
        }
    }

    #[test]
    fn below_the_normal_range_the_floor_is_the_smallest_normal() {
        let text = "func @main(%x: f32[1]) -> (f32[1]) {\n  %y: f32[1] = exp(%x)\n  return %y\n}\n";
        let args = [f32s(&[-100.0])];
        let (module, want) = run(text, &args);
        assert!(want[0].as_f32().unwrap()[0] < f32::MIN_POSITIVE);
        agree_for(&module, "main", &args, &want, &[f32s(&[0.0])]).unwrap();
        assert!(agree_for(&module, "main", &args, &want, &[f32s(&[2.0 * f32::MIN_POSITIVE])]).is_err());
    }

    #[test]
    fn a_contracted_product_may_err_by_an_ulp_of_the_product_not_of_the_result() {
        // x·y ≈ 1.2e8 and z ≈ -x·y: the rounded product errs by up to 4, the result is ~8.
        let text = "func @main(%x: f32[3], %y: f32[3], %z: f32[3]) -> (f32[3]) {
  %p: f32[3] = mul(%x, %y)
  %s: f32[3] = add(%p, %z)
  return %s
}
";
        let (x, y) = ([10987.0f32, 12001.5, -9876.25], [10973.0f32, 9999.75, 12345.5]);
        let z: Vec<f32> = x.iter().zip(&y).map(|(a, b)| -(f64::from(*a) * f64::from(*b)) as f32 + 7.0).collect();
        let args = [f32s(&x), f32s(&y), f32s(&z)];
        let (module, want) = run(text, &args);
        let fused: Vec<f32> = (0..3).map(|k| x[k].mul_add(y[k], z[k])).collect();
        assert_ne!(fused, want[0].as_f32().unwrap(), "the example must cancel");
        agree_for(&module, "main", &args, &want, &[f32s(&fused)]).unwrap();
        // The allowance is a few ulps of the product, not anything.
        let off: Vec<f32> = fused.iter().map(|v| v + 1000.0).collect();
        assert!(agree_for(&module, "main", &args, &want, &[f32s(&off)]).is_err());
        // Without the contraction term (a plain result), the same difference fails.
        assert!(agree(&want, &[f32s(&fused)], false).is_err());
    }

    #[test]
    fn a_reassociated_sum_errs_by_ulps_of_its_terms() {
        let text = "func @main(%x: f32[2,4]) -> (f32[2]) {
  %s: f32[2] = reduce_sum[axes=[1]](%x)
  return %s
}
";
        let args = [Array::from_f32(&[2, 4], vec![1e4, 1.0, -1e4, 0.5, 3.0, 1.0, 2.0, 4.0]).unwrap()];
        let (module, want) = run(text, &args);
        let other_order = [f32s(&[1.5 + 1e-3, 10.0])];
        agree_for(&module, "main", &args, &want, &other_order).unwrap();
        assert!(agree_for(&module, "main", &args, &want, &[f32s(&[1.6, 10.0])]).is_err());
    }

    #[test]
    fn exact_programs_and_integers_must_match_bit_for_bit() {
        let text = "func @main(%x: f32[2], %n: i32[2]) -> (f32[2], i32[2]) {
  %y: f32[2] = add(%x, %x)
  %m: i32[2] = add(%n, %n)
  return %y, %m
}
";
        let args = [f32s(&[1.0, 2.0]), Array::from_i32(&[2], vec![1, 2]).unwrap()];
        let (module, want) = run(text, &args);
        let off = [nudged(&want[0], 1), want[1].clone()];
        assert!(agree_for(&module, "main", &args, &want, &off).is_err());
        let int_off = [want[0].clone(), Array::from_i32(&[2], vec![2, 5]).unwrap()];
        assert!(agree(&want, &int_off, false).is_err());
        assert_eq!(ulp(1.0, DType::F32), f64::from(f32::EPSILON));
        assert_eq!(ulp(f64::MAX, DType::F64), ulp(f64::INFINITY, DType::F64));
    }
}
