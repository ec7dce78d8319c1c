//! Constructors of [`Array`] generic over the element type, and approximate equality
//! for tests.
//!
//! The element types are the Rust types of the dtypes: `f32`, `f64`, `half::bf16`,
//! `half::f16`, `i32` and `bool` ([`Element`]); `arange` takes the numeric ones ([`Number`]), `linspace` the floats
//! ([`Float`]). Every constructor that allocates a size it is given checks it first
//! with overflow-checked arithmetic and against the default allocation [`Budget`]
//! (half of physical memory), and reports failure as an [`Error`], never a panic or an
//! abort.

use crate::{Array, Budget, DType, Data, Error, Shape, format_dims};
use half::{bf16, f16};
use std::sync::OnceLock;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::bf16 {}
    impl Sealed for half::f16 {}
    impl Sealed for i32 {}
    impl Sealed for bool {}
}

/// A Rust type that is the element type of a dtype: `f32`, `f64`, `bf16`, `f16`, `i32`
/// or `bool`.
pub trait Element: Copy + PartialEq + std::fmt::Debug + sealed::Sealed + 'static {
    /// The dtype of arrays of this element type.
    const DTYPE: DType;
    /// The one, as `ones` fills (`true` for bool).
    const ONE: Self;

    /// The elements as an array's data.
    fn into_data(values: Vec<Self>) -> Data;

    /// The elements of `data`, if they are of this type.
    fn slice(data: &Data) -> Option<&[Self]>;
}

/// A numeric element type: a float or `i32` (what [`Array::arange`] takes).
pub trait Number: Element {
    /// The value as f64 (exact for every `i32`).
    fn to_f64(self) -> f64;

    /// The element nearest `x` (for `i32`, `x` is an exact integer in range).
    fn from_f64(x: f64) -> Self;
}

/// A floating-point element type (what [`Array::linspace`] takes).
pub trait Float: Number {}

macro_rules! element {
    ($ty:ty, $dtype:ident, $variant:ident, $one:expr) => {
        impl Element for $ty {
            const DTYPE: DType = DType::$dtype;
            const ONE: Self = $one;

            fn into_data(values: Vec<Self>) -> Data {
                Data::$variant(values)
            }

            fn slice(data: &Data) -> Option<&[Self]> {
                match data {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

element!(f32, F32, F32, 1.0);
element!(f64, F64, F64, 1.0);
element!(bf16, BF16, BF16, bf16::ONE);
element!(f16, F16, F16, f16::ONE);
element!(i32, I32, I32, 1);
element!(bool, Bool, Bool, true);

impl Number for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }

    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Number for f64 {
    fn to_f64(self) -> f64 {
        self
    }

    fn from_f64(x: f64) -> f64 {
        x
    }
}

impl Number for i32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }

    fn from_f64(x: f64) -> i32 {
        x as i32
    }
}

macro_rules! half_number {
    ($($ty:ty),*) => {$(
        impl Number for $ty {
            fn to_f64(self) -> f64 {
                f64::from(self)
            }

            /// Rounded once, to nearest even.
            fn from_f64(x: f64) -> $ty {
                <$ty>::from_f64(x)
            }
        }

        impl Float for $ty {}
    )*};
}

half_number!(bf16, f16);

impl Float for f32 {}
impl Float for f64 {}

/// The budget constructors without one check against: half of physical memory, read once.
fn default_budget() -> Budget {
    static BUDGET: OnceLock<Budget> = OnceLock::new();
    *BUDGET.get_or_init(Budget::default)
}

/// An empty vector with room for `len` elements of `T`, checked against the default
/// budget and allocated fallibly; `what` names the array in errors.
fn allocate<T: Element>(len: usize, what: impl Fn() -> String) -> Result<Vec<T>, Error> {
    let size = T::DTYPE.size_bytes() as u64;
    let bytes = (len as u64).checked_mul(size).ok_or_else(|| Error::Overflow { dims: len.to_string() })?;
    let budget = default_budget();
    budget.check(0, bytes, &what())?;
    let mut values = Vec::new();
    values.try_reserve_exact(len).map_err(|_| Error::OverBudget {
        what: what(),
        bytes,
        max_bytes: budget.max_bytes,
    })?;
    Ok(values)
}

impl Array {
    /// An array of `shape` from its elements in C order; an error when their number
    /// differs from the shape's element count.
    ///
    /// ```
    /// use ferrax_array::{Array, DType};
    /// let a = Array::from_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap();
    /// assert_eq!(a.dtype(), DType::I32);
    /// assert!(Array::from_vec(&[3], vec![1.0f32]).is_err());
    /// ```
    pub fn from_vec<T: Element>(shape: &[usize], values: Vec<T>) -> Result<Array, Error> {
        Array::new(shape, T::into_data(values))
    }

    /// A rank-0 array holding `value`, of the dtype of `T`.
    pub fn scalar<T: Element>(value: T) -> Array {
        Array { shape: Shape::new(), data: T::into_data(vec![value]) }
    }

    /// An array of `shape` with every element `value`.
    pub fn full<T: Element>(shape: &[usize], value: T) -> Result<Array, Error> {
        let len = crate::element_count(shape)?;
        let mut values = allocate::<T>(len, || format!("an array {}[{}]", T::DTYPE, format_dims(shape)))?;
        values.resize(len, value);
        Ok(Array { shape: shape.into(), data: T::into_data(values) })
    }

    /// An array of `dtype` and `shape` filled with ones (`true` for bool).
    pub fn ones(dtype: DType, shape: &[usize]) -> Result<Array, Error> {
        match dtype {
            DType::Bool => Array::full(shape, bool::ONE),
            DType::I32 => Array::full(shape, i32::ONE),
            DType::BF16 => Array::full(shape, bf16::ONE),
            DType::F16 => Array::full(shape, f16::ONE),
            DType::F32 => Array::full(shape, f32::ONE),
            DType::F64 => Array::full(shape, f64::ONE),
        }
    }

    /// The values `start, start + step, start + 2·step, ...` that lie before `stop`,
    /// as a 1-D array of the dtype of `T` (NumPy's `arange`).
    ///
    /// The element count is `max(0, ceil((stop - start) / step))`, computed exactly for
    /// `i32` and in f64 for floats, and element `i` is `start + i·step` computed in f64
    /// and rounded once to the dtype. So `arange(0.0, 1.0, 0.1)` has 10 elements, and,
    /// as in NumPy, rounding in the count can give a float range one element more than
    /// expected (`arange(1.0, 1.3, 0.1)` has 4, the last about 1.3). A zero or
    /// non-finite step, or a non-finite bound, is an error.
    ///
    /// ```
    /// use ferrax_array::Array;
    /// assert_eq!(Array::arange(0, 10, 3).unwrap().as_i32(), Some(&[0, 3, 6, 9][..]));
    /// assert_eq!(Array::arange(5, 0, -2).unwrap().as_i32(), Some(&[5, 3, 1][..]));
    /// assert_eq!(Array::arange(0.0f32, 1.0, 0.25).unwrap().len(), 4);
    /// assert!(Array::arange(1, 0, 1).unwrap().is_empty());
    /// ```
    pub fn arange<T: Number>(start: T, stop: T, step: T) -> Result<Array, Error> {
        let (a, b, s) = (start.to_f64(), stop.to_f64(), step.to_f64());
        if s == 0.0 || !a.is_finite() || !b.is_finite() || !s.is_finite() {
            let message =
                format!("arange({start:?}, {stop:?}, {step:?}) needs finite bounds and a finite, non-zero step");
            return Err(Error::Invalid(message));
        }
        let count = if T::DTYPE == DType::I32 {
            // Exact: every i32 and every difference of two is exact in i64.
            let (diff, step) = (b as i64 - a as i64, s as i64);
            let (quotient, remainder) = (diff / step, diff % step);
            let up = remainder != 0 && (remainder > 0) == (step > 0);
            (quotient + i64::from(up)).max(0) as f64
        } else {
            ((b - a) / s).ceil().max(0.0)
        };
        // A float range can be too long to count in usize (arange(0, 1e300, 1e-300)).
        if count >= usize::MAX as f64 {
            return Err(Error::Overflow { dims: format!("{count}") });
        }
        let len = count as usize;
        let mut values = allocate::<T>(len, || format!("an array {}[{len}]", T::DTYPE))?;
        values.extend((0..len).map(|i| T::from_f64(a + i as f64 * s)));
        Ok(Array { shape: [len].as_slice().into(), data: T::into_data(values) })
    }

    /// `n` evenly spaced values from `start` to `stop`, both included, as a 1-D array
    /// of the dtype of `T` (NumPy's `linspace` with `endpoint=True`). Element `i` is
    /// `start + i·(stop - start)/(n - 1)` computed in f64 and rounded once; the last is
    /// exactly `stop`; `n = 1` gives `[start]` and `n = 0` an empty array.
    ///
    /// ```
    /// use ferrax_array::Array;
    /// let a = Array::linspace(0.0f64, 1.0, 5).unwrap();
    /// assert_eq!(a.as_f64(), Some(&[0.0, 0.25, 0.5, 0.75, 1.0][..]));
    /// ```
    pub fn linspace<T: Float>(start: T, stop: T, n: usize) -> Result<Array, Error> {
        let (a, b) = (start.to_f64(), stop.to_f64());
        let mut values = allocate::<T>(n, || format!("an array {}[{n}]", T::DTYPE))?;
        let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
        values.extend((0..n).map(|i| if i + 1 == n && n > 1 { stop } else { T::from_f64(a + i as f64 * step) }));
        Ok(Array { shape: [n].as_slice().into(), data: T::into_data(values) })
    }

    /// The elements as a vector of `T`, in C order; `None` when the dtype is not `T`'s.
    pub fn to_vec<T: Element>(&self) -> Option<Vec<T>> {
        T::slice(&self.data).map(<[T]>::to_vec)
    }

    /// The elements as a slice of `T`; `None` when the dtype is not `T`'s.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::slice(&self.data)
    }

    /// True when `other` has the same dtype and shape and every pair of elements is
    /// close: `|a - b| <= atol + rtol·|b|` (NumPy's `allclose`; `other` is the
    /// reference). NaN is close to NaN (NumPy's `equal_nan=True`), an infinity only to
    /// the same infinity. Elements compare as f64 (bool as 0/1, i32 exactly).
    pub fn allclose(&self, other: &Array, rtol: f64, atol: f64) -> bool {
        self.assert_close(other, rtol, atol).is_ok()
    }

    /// [`Array::allclose`], with a readable account of the first difference when the
    /// arrays are not close: the dtypes, the shapes, or how many elements differ and
    /// the first of them (index and both values).
    ///
    /// ```
    /// use ferrax_array::Array;
    /// let got = Array::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.5]).unwrap();
    /// let want = Array::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    /// let message = got.assert_close(&want, 1e-6, 1e-6).unwrap_err();
    /// assert_eq!(message, "1 of 4 elements differ (rtol 1e-6, atol 1e-6); \
    ///     the first at [1, 1]: 4.5 against 4.0 (difference 0.5)");
    /// ```
    pub fn assert_close(&self, other: &Array, rtol: f64, atol: f64) -> Result<(), String> {
        if self.dtype() != other.dtype() {
            return Err(format!("dtypes differ: {} against {}", self.dtype(), other.dtype()));
        }
        if self.shape() != other.shape() {
            let (a, b) = (format_dims(self.shape()), format_dims(other.shape()));
            return Err(format!("shapes differ: [{a}] against [{b}]"));
        }
        let close = |i: usize| {
            let (a, b) = (self.data.get_f64(i), other.data.get_f64(i));
            if a.is_nan() || b.is_nan() {
                a.is_nan() && b.is_nan()
            } else if a.is_infinite() || b.is_infinite() {
                a == b
            } else {
                (a - b).abs() <= atol + rtol * b.abs()
            }
        };
        let mut differing = (0..self.len()).filter(|&i| !close(i));
        let Some(first) = differing.next() else { return Ok(()) };
        let count = 1 + differing.count();
        let (a, b) = (self.data.get_f64(first), other.data.get_f64(first));
        Err(format!(
            "{count} of {} elements differ (rtol {rtol:?}, atol {atol:?}); the first at {}: {} against {} (difference {})",
            self.len(),
            format_index(self.shape(), first),
            self.format_element(first),
            other.format_element(first),
            crate::format_f64((a - b).abs()),
        ))
    }
}

/// The multi-index of the C-order position `flat` in `shape`: `[1, 0, 2]`.
fn format_index(shape: &[usize], mut flat: usize) -> String {
    let mut index = vec![0; shape.len()];
    for (axis, &size) in shape.iter().enumerate().rev() {
        if size > 0 {
            index[axis] = flat % size;
            flat /= size;
        }
    }
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(feature = "ndarray")]
mod ndarray_conversions {
    use super::Element;
    use crate::Array;
    use ndarray::{ArrayD, IxDyn};

    impl<T: Element> From<ArrayD<T>> for Array {
        /// The same elements in C order (copied when `array` is not in standard layout).
        fn from(array: ArrayD<T>) -> Array {
            let shape = array.shape().to_vec();
            let len = array.len();
            let values: Vec<T> = if array.is_standard_layout() && len > 0 {
                // Contiguous: the elements are `len` consecutive ones from the offset.
                let (mut values, offset) = array.into_raw_vec_and_offset();
                let start = offset.unwrap_or(0);
                values.truncate(start + len);
                values.drain(..start);
                values
            } else {
                array.iter().copied().collect()
            };
            Array { shape: shape.as_slice().into(), data: T::into_data(values) }
        }
    }

    impl Array {
        /// The elements as an `ndarray::ArrayD<T>` of the same shape; `None` when the
        /// dtype is not `T`'s. (Feature `ndarray`.)
        pub fn to_ndarray<T: Element>(&self) -> Option<ArrayD<T>> {
            let values = self.to_vec::<T>()?;
            ArrayD::from_shape_vec(IxDyn(self.shape()), values).ok()
        }
    }
}
