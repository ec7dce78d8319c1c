//! The element semantics of the reference evaluation (public so that the JIT's host
//! routines compute the same bits) and shared helpers of its rules: element traits that
//! let one generic loop serve every dtype (with i32 arithmetic wrapping and float
//! `max`/`min` propagating NaN), axis permutation of C-order buffers, and the small
//! glue that turns a result buffer back into an [`Array`].
//!
//! The rules dispatch on the [`Data`] variant once and then run a monomorphised loop
//! over plain slices, so no per-element dynamic dispatch happens.

use ferrax_array::{Array, DType, Data, format_dims};
use std::borrow::Cow;

/// An element type of an [`Array`] buffer.
pub trait Elem: Copy + PartialOrd + 'static {
    /// Wraps a buffer of this element type as [`Data`].
    fn into_data(values: Vec<Self>) -> Data;
}

impl Elem for bool {
    fn into_data(values: Vec<bool>) -> Data {
        Data::Bool(values)
    }
}

impl Elem for i32 {
    fn into_data(values: Vec<i32>) -> Data {
        Data::I32(values)
    }
}

impl Elem for f32 {
    fn into_data(values: Vec<f32>) -> Data {
        Data::F32(values)
    }
}

impl Elem for f64 {
    fn into_data(values: Vec<f64>) -> Data {
        Data::F64(values)
    }
}

/// A numeric element (`i32`, `f32`, `f64`) with the arithmetic the IR defines for it.
pub trait Num: Elem {
    /// The additive identity.
    const ZERO: Self;
    /// The multiplicative identity.
    const ONE: Self;
    /// The identity of `max`: -inf for floats, `i32::MIN` for i32.
    const LOWEST: Self;
    /// The identity of `min`: +inf for floats, `i32::MAX` for i32.
    const HIGHEST: Self;
    /// `a + b`, wrapping for i32.
    fn add(a: Self, b: Self) -> Self;
    /// `a - b`, wrapping for i32.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b`, wrapping for i32.
    fn mul(a: Self, b: Self) -> Self;
    /// The larger of `a` and `b`; NaN if either is NaN; `max(-0, +0) = +0`.
    fn max(a: Self, b: Self) -> Self;
    /// The smaller of `a` and `b`; NaN if either is NaN; `min(-0, +0) = -0`.
    fn min(a: Self, b: Self) -> Self;
    /// True for a float NaN (never for i32).
    fn is_nan(self) -> bool;
}

impl Num for i32 {
    const ZERO: i32 = 0;
    const ONE: i32 = 1;
    const LOWEST: i32 = i32::MIN;
    const HIGHEST: i32 = i32::MAX;

    fn add(a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }

    fn sub(a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }

    fn mul(a: i32, b: i32) -> i32 {
        a.wrapping_mul(b)
    }

    fn max(a: i32, b: i32) -> i32 {
        Ord::max(a, b)
    }

    fn min(a: i32, b: i32) -> i32 {
        Ord::min(a, b)
    }

    fn is_nan(self) -> bool {
        false
    }
}

/// A float element (`f32`, `f64`) with the math the unary and binary rules need.
pub(crate) trait Float: Num + std::ops::Neg<Output = Self> + std::ops::Div<Output = Self> {
    /// `e^x`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// `ln(1 + x)`.
    fn ln_1p(self) -> Self;
    /// `e^x - 1`.
    fn exp_m1(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Round toward -inf.
    fn floor(self) -> Self;
    /// Round toward +inf.
    fn ceil(self) -> Self;
    /// Round half to even.
    fn round_ties_even(self) -> Self;
    /// The error function (from `libm`).
    fn erf(self) -> Self;
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// `self^y`.
    fn powf(self, y: Self) -> Self;
    /// Four-quadrant `atan(self / y)`.
    fn atan2(self, y: Self) -> Self;
    /// C `fmod`: the remainder with the sign of `self`.
    fn fmod(self, y: Self) -> Self;
    /// The magnitude of `self` with the sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
}

/// Implements [`Num`] and [`Float`] for a std float type, with its `libm` erf.
macro_rules! impl_float {
    ($t:ty, $erf:path) => {
        impl Num for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const LOWEST: $t = <$t>::NEG_INFINITY;
            const HIGHEST: $t = <$t>::INFINITY;

            fn add(a: $t, b: $t) -> $t {
                a + b
            }

            fn sub(a: $t, b: $t) -> $t {
                a - b
            }

            fn mul(a: $t, b: $t) -> $t {
                a * b
            }

            fn max(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() {
                    a + b
                } else if a == b {
                    if a.is_sign_negative() { b } else { a }
                } else if a > b {
                    a
                } else {
                    b
                }
            }

            fn min(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() {
                    a + b
                } else if a == b {
                    if a.is_sign_negative() { a } else { b }
                } else if a < b {
                    a
                } else {
                    b
                }
            }

            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }

        impl Float for $t {
            fn exp(self) -> $t {
                <$t>::exp(self)
            }

            fn ln(self) -> $t {
                <$t>::ln(self)
            }

            fn ln_1p(self) -> $t {
                <$t>::ln_1p(self)
            }

            fn exp_m1(self) -> $t {
                <$t>::exp_m1(self)
            }

            fn sin(self) -> $t {
                <$t>::sin(self)
            }

            fn cos(self) -> $t {
                <$t>::cos(self)
            }

            fn tan(self) -> $t {
                <$t>::tan(self)
            }

            fn tanh(self) -> $t {
                <$t>::tanh(self)
            }

            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }

            fn abs(self) -> $t {
                <$t>::abs(self)
            }

            fn floor(self) -> $t {
                <$t>::floor(self)
            }

            fn ceil(self) -> $t {
                <$t>::ceil(self)
            }

            fn round_ties_even(self) -> $t {
                <$t>::round_ties_even(self)
            }

            fn erf(self) -> $t {
                $erf(self)
            }

            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }

            fn powf(self, y: $t) -> $t {
                <$t>::powf(self, y)
            }

            fn atan2(self, y: $t) -> $t {
                <$t>::atan2(self, y)
            }

            fn fmod(self, y: $t) -> $t {
                self % y
            }

            fn copysign(self, sign: $t) -> $t {
                <$t>::copysign(self, sign)
            }
        }
    };
}

impl_float!(f32, libm::erff);
impl_float!(f64, libm::erf);

/// Wraps a result buffer as an array of `shape`, reporting a length mismatch as text.
pub(crate) fn array(shape: &[usize], data: Data) -> Result<Array, String> {
    Array::new(shape, data).map_err(|e| e.to_string())
}

/// The error for an operand dtype a rule does not handle (the verifier rejects these).
pub(crate) fn bad_dtype(op: &str, dtype: DType) -> String {
    format!("{op}: cannot evaluate on a {dtype} operand")
}

/// Checks that elementwise operands have one shape (the verifier guarantees it).
pub(crate) fn same_shape(op: &str, a: &Array, b: &Array) -> Result<(), String> {
    if a.shape() == b.shape() {
        Ok(())
    } else {
        Err(format!("{op}: operand shapes differ: [{}] vs [{}]", format_dims(a.shape()), format_dims(b.shape())))
    }
}

/// i32 division truncating toward zero that never traps: `x / 0 = -1` and
/// `i32::MIN / -1 = i32::MIN` (XLA's semantics).
pub(crate) fn div_i32(x: i32, y: i32) -> i32 {
    if y == 0 { -1 } else { x.wrapping_div(y) }
}

/// i32 remainder with the sign of `x` that never traps: `rem(x, 0) = x` and
/// `rem(i32::MIN, -1) = 0` (XLA's semantics).
pub(crate) fn rem_i32(x: i32, y: i32) -> i32 {
    if y == 0 { x } else { x.wrapping_rem(y) }
}

/// Applies `f` to every element, in order.
pub(crate) fn map<T: Copy, U>(v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
    v.iter().map(|&a| f(a)).collect()
}

/// Applies `f` to every pair of corresponding elements, in order.
pub(crate) fn zip_map<T: Copy, U>(a: &[T], b: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

/// Strides (in elements) of a C-order buffer of `shape`.
pub(crate) fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    strides
}

/// The permutation that keeps the axes not in `moved` first (in order), then `moved`
/// in the order listed.
pub(crate) fn axes_last_perm(rank: usize, moved: &[usize]) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..rank).filter(|a| !moved.contains(a)).collect();
    perm.extend_from_slice(moved);
    perm
}

/// The C-order elements of `v` (of `shape`) transposed so that output axis `i` is input
/// axis `perm[i]`. Borrows `v` when `perm` is the identity.
pub(crate) fn permute<'a, T: Copy>(v: &'a [T], shape: &[usize], perm: &[usize]) -> Cow<'a, [T]> {
    if perm.iter().enumerate().all(|(i, &a)| i == a) {
        return Cow::Borrowed(v);
    }
    let mut out = Vec::with_capacity(v.len());
    if v.is_empty() {
        return Cow::Owned(out);
    }
    let in_strides = c_strides(shape);
    let dims: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let steps: Vec<usize> = perm.iter().map(|&a| in_strides[a]).collect();
    let last = perm.len() - 1;
    let mut index = vec![0usize; last];
    let mut base = 0usize;
    loop {
        out.extend((0..dims[last]).map(|j| v[base + j * steps[last]]));
        if !advance(&mut index, &mut base, &dims, &steps) {
            return Cow::Owned(out);
        }
    }
}

/// Steps the multi-index `index` over the leading axes (odometer order, last fastest),
/// keeping `base` the matching offset; false once every index has been visited.
fn advance(index: &mut [usize], base: &mut usize, dims: &[usize], steps: &[usize]) -> bool {
    for axis in (0..index.len()).rev() {
        index[axis] += 1;
        *base += steps[axis];
        if index[axis] < dims[axis] {
            return true;
        }
        *base -= steps[axis] * dims[axis];
        index[axis] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_are_c_order() {
        assert_eq!(c_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(c_strides(&[]), Vec::<usize>::new());
        assert_eq!(c_strides(&[5]), vec![1]);
    }

    #[test]
    fn permute_transposes() {
        let v: Vec<i32> = (0..6).collect();
        assert_eq!(&*permute(&v, &[2, 3], &[1, 0]), &[0, 3, 1, 4, 2, 5]);
        assert!(matches!(permute(&v, &[2, 3], &[0, 1]), Cow::Borrowed(_)));
        let v: Vec<i32> = (0..24).collect();
        let p = permute(&v, &[2, 3, 4], &[2, 0, 1]);
        // Output [4, 2, 3]: element (k, i, j) is input (i, j, k) = 12i + 4j + k.
        assert_eq!(p[0..6], [0, 4, 8, 12, 16, 20]);
        assert_eq!(p[6..12], [1, 5, 9, 13, 17, 21]);
        assert_eq!(permute::<i32>(&[], &[0, 3], &[1, 0]).len(), 0);
    }

    #[test]
    fn axes_last_keeps_order() {
        assert_eq!(axes_last_perm(4, &[2, 0]), vec![1, 3, 2, 0]);
        assert_eq!(axes_last_perm(2, &[]), vec![0, 1]);
    }

    #[test]
    fn float_max_min_propagate_nan_and_order_zeros() {
        assert!(<f32 as Num>::max(f32::NAN, 1.0).is_nan());
        assert!(<f32 as Num>::max(1.0, f32::NAN).is_nan());
        assert!(<f64 as Num>::min(f64::NAN, 1.0).is_nan());
        assert_eq!(<f32 as Num>::max(-0.0, 0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(<f32 as Num>::max(0.0, -0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(<f64 as Num>::min(0.0, -0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(<f64 as Num>::min(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(<i32 as Num>::add(i32::MAX, 1), i32::MIN);
    }

    #[test]
    fn integer_division_never_traps() {
        assert_eq!(div_i32(7, -2), -3);
        assert_eq!(div_i32(-7, 2), -3);
        assert_eq!(div_i32(5, 0), -1);
        assert_eq!(div_i32(0, 0), -1);
        assert_eq!(div_i32(i32::MIN, -1), i32::MIN);
        assert_eq!(rem_i32(-7, 2), -1);
        assert_eq!(rem_i32(7, -2), 1);
        assert_eq!(rem_i32(5, 0), 5);
        assert_eq!(rem_i32(i32::MIN, -1), 0);
    }
}
