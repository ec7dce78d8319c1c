//! The correctness gate: a workload's results are compared elementwise with a
//! reference (JAX's saved results, or ferrax's interpreter) before any of its times
//! are reported.
//!
//! An element passes when `|got - want| <= rtol * |want| + atol * scale`, where `scale`
//! is the largest `|want|` of that array (1 if the array is all zeros): the absolute
//! part is relative to the array's magnitude, so that small gradients and large sums
//! are judged alike. Defaults ([`Tolerance::for_dtype`]): f32 rtol 1e-4, atol 1e-5;
//! f64 1e-10 and 1e-10. Results that are f32 sums of millions of terms use
//! [`Tolerance::reduction`] (rtol 1e-3): the order of summation alone moves them by
//! more than 1e-4. A NaN matches only a NaN, and dtypes and shapes must be equal.

use ferrax::{Array, DType};
use std::fmt;

/// Relative and absolute tolerance of one comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative to each element's reference value.
    pub rtol: f64,
    /// Relative to the largest reference magnitude of the array.
    pub atol: f64,
}

impl Tolerance {
    /// The default for results of `dtype`.
    pub fn for_dtype(dtype: DType) -> Tolerance {
        match dtype {
            DType::F32 => Tolerance { rtol: 1e-4, atol: 1e-5 },
            DType::F64 => Tolerance { rtol: 1e-10, atol: 1e-10 },
            // A few units of the 8 (bf16) or 11 (f16) significant bits.
            DType::BF16 => Tolerance { rtol: 2e-2, atol: 1e-2 },
            DType::F16 => Tolerance { rtol: 4e-3, atol: 1e-3 },
            DType::I32 | DType::Bool => Tolerance { rtol: 0.0, atol: 0.0 },
        }
    }

    /// For a sum of very many terms of `dtype` (order-dependent rounding).
    pub fn reduction(dtype: DType) -> Tolerance {
        match dtype {
            DType::F32 => Tolerance { rtol: 1e-3, atol: 1e-5 },
            DType::F64 => Tolerance { rtol: 1e-9, atol: 1e-10 },
            DType::BF16 => Tolerance { rtol: 2e-2, atol: 1e-2 },
            DType::F16 => Tolerance { rtol: 4e-3, atol: 1e-3 },
            DType::I32 | DType::Bool => Tolerance { rtol: 0.0, atol: 0.0 },
        }
    }
}

/// The outcome of comparing one result array with its reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The largest `|got - want|`.
    pub max_abs: f64,
    /// The largest `|got - want| / |want|` over elements with `want != 0`.
    pub max_rel: f64,
    /// The largest error divided by its allowance (pass: at most 1).
    pub worst: f64,
    /// Why the arrays cannot be compared or where a NaN differs, if so.
    pub problem: Option<String>,
}

impl Comparison {
    /// Whether the result is within tolerance.
    pub fn passed(&self) -> bool {
        self.problem.is_none() && self.worst <= 1.0
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            Some(p) => f.write_str(p),
            None => write!(
                f,
                "max abs err {:.3e}, max rel err {:.3e}, worst err/tolerance {:.3}",
                self.max_abs, self.max_rel, self.worst
            ),
        }
    }
}

/// Compares `got` with `want` elementwise (see the module docs).
pub fn compare(got: &Array, want: &Array, tol: Tolerance) -> Comparison {
    let mut c = Comparison { max_abs: 0.0, max_rel: 0.0, worst: 0.0, problem: None };
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        c.problem =
            Some(format!("got {}{:?}, the reference is {}{:?}", got.dtype(), got.shape(), want.dtype(), want.shape()));
        return c;
    }
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    let largest = w.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
    let scale = if largest > 0.0 { largest } else { 1.0 };
    for (i, (&a, &b)) in g.iter().zip(&w).enumerate() {
        if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
            if !(a.is_nan() && b.is_nan()) && a != b {
                c.problem = Some(format!("element {i}: got {a}, the reference is {b}"));
                return c;
            }
            continue;
        }
        let diff = (a - b).abs();
        c.max_abs = c.max_abs.max(diff);
        if b != 0.0 {
            c.max_rel = c.max_rel.max(diff / b.abs());
        }
        let allowed = tol.rtol * b.abs() + tol.atol * scale;
        let ratio = if allowed > 0.0 {
            diff / allowed
        } else if diff == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        c.worst = c.worst.max(ratio);
    }
    c
}

/// Compares every result with its reference; the result index of each comparison.
/// Results listed in `reductions` use [`Tolerance::reduction`].
pub fn compare_all(got: &[Array], want: &[Array], reductions: &[usize]) -> Vec<Comparison> {
    if got.len() != want.len() {
        let problem = format!("{} results, the reference has {}", got.len(), want.len());
        return vec![Comparison { max_abs: 0.0, max_rel: 0.0, worst: 0.0, problem: Some(problem) }];
    }
    got.iter()
        .zip(want)
        .enumerate()
        .map(|(i, (g, w))| {
            let tol =
                if reductions.contains(&i) { Tolerance::reduction(w.dtype()) } else { Tolerance::for_dtype(w.dtype()) };
            compare(g, w, tol)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_and_beyond_tolerance() {
        let want = Array::from(vec![1.0f32, 100.0, 0.0]);
        let close = Array::from(vec![1.00005f32, 100.004, 0.0005]);
        assert!(compare(&close, &want, Tolerance::for_dtype(DType::F32)).passed());
        let far = Array::from(vec![1.0f32, 100.05, 0.0]);
        let c = compare(&far, &want, Tolerance::for_dtype(DType::F32));
        assert!(!c.passed() && c.worst > 1.0, "{c}");
    }

    #[test]
    fn nan_shape_and_dtype_mismatches_fail() {
        let want = Array::from(vec![1.0f64, f64::NAN]);
        assert!(compare(&want, &want, Tolerance::for_dtype(DType::F64)).passed());
        let got = Array::from(vec![1.0f64, 2.0]);
        assert!(!compare(&got, &want, Tolerance::for_dtype(DType::F64)).passed());
        let other = Array::from(vec![1.0f32, 2.0]);
        assert!(!compare(&other, &got, Tolerance::for_dtype(DType::F64)).passed());
        assert!(
            !compare_all(std::slice::from_ref(&got), &[got.clone(), got.clone()], &[]).iter().all(Comparison::passed)
        );
    }
}
