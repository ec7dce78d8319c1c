//! Printing arrays the way NumPy's `repr` does, and conversions from Rust vectors
//! and slices.
//!
//! `Display` of an [`Array`] is NumPy's `repr`: `array([[1., 2.],\n       [3., 4.]],
//! dtype=float32)`. Nested brackets follow the axes; rows of a matrix start under
//! each other, blocks of higher rank are separated by blank lines; elements are
//! right-aligned to a common width. Floats are printed in their shortest round-trip
//! form cut to at most eight fractional digits (NumPy's default precision), with
//! NumPy's `1.` for whole numbers and `nan`/`inf`; bools as
//! `True`/`False`. The dtype is named for every type but float64 (NumPy's default).
//! A number that needs an exponent keeps Rust's form (`1e-7`) where NumPy would
//! switch the whole array to scientific notation. An array of more than 1000 elements shows the first and last three entries of
//! each axis longer than six around `...`, as NumPy does. Unlike NumPy, lines are not
//! wrapped at 75 characters.
//!
//! ```
//! use ferrax_array::Array;
//! let a = Array::from_f32(&[2, 2], vec![1.0, 2.5, -3.0, 4.0]).unwrap();
//! assert_eq!(a.to_string(), "array([[ 1. ,  2.5],\n       [-3. ,  4. ]], dtype=float32)");
//! let v: Array = vec![1.0f64, 2.0].into();
//! assert_eq!(v.to_string(), "array([1., 2.])");
//! ```

use crate::{Array, DType, Data, Element};
use std::fmt;

/// NumPy's text of element `i`: `1.`, `0.5`, `nan`, `True`, `-3`.
fn numpy_element(data: &Data, i: usize) -> String {
    /// NumPy's default float mode: the shortest round-trip text, but at most eight
    /// fractional digits (rounded, trailing zeros dropped), and `1.` for whole numbers.
    fn float(text: String, value: f64) -> String {
        let text = match text.find('.') {
            Some(p) if !text.contains('e') && text.len() - p - 1 > 8 => {
                let rounded = format!("{value:.8}");
                rounded.trim_end_matches('0').to_string()
            }
            _ => text,
        };
        match text.strip_suffix(".0") {
            Some(whole) if !whole.contains('e') => format!("{whole}."),
            _ => text,
        }
    }
    match data {
        Data::Bool(v) => if v[i] { "True" } else { "False" }.to_string(),
        Data::I32(v) => v[i].to_string(),
        Data::BF16(_) | Data::F16(_) => float(data.format_element(i), data.get_f64(i)),
        Data::F32(v) => float(crate::format_f32(v[i]), f64::from(v[i])),
        Data::F64(v) => float(crate::format_f64(v[i]), v[i]),
    }
}

/// Pads the integer and fraction parts of float texts so that their points line up,
/// as NumPy does (`1. `, `2.5`); other texts are returned unchanged.
fn align_points(texts: &mut [String], dtype: DType) {
    if !dtype.is_float() {
        return;
    }
    let split = |t: &str| t.find('.').filter(|_| !t.contains('e')).map(|p| (p, t.len() - p - 1));
    let frac = texts.iter().filter_map(|t| split(t)).map(|(_, f)| f).max().unwrap_or(0);
    for t in texts.iter_mut() {
        if let Some((_, f)) = split(t) {
            t.push_str(&" ".repeat(frac - f));
        }
    }
}

/// Which indices of an axis of `n` to show: all, or the first and last three (`None`
/// marks the `...`).
fn shown(n: usize, summarise: bool) -> Vec<Option<usize>> {
    match summarise && n > 6 {
        true => (0..3).map(Some).chain([None]).chain((n - 3..n).map(Some)).collect(),
        false => (0..n).map(Some).collect(),
    }
}

impl Array {
    /// The flat indices of the elements `Display` shows, in order.
    fn shown_indices(&self, summarise: bool) -> Vec<usize> {
        let mut out = vec![0usize];
        for &n in self.shape.iter() {
            let axis: Vec<usize> = shown(n, summarise).into_iter().flatten().collect();
            out = out.iter().flat_map(|&base| axis.iter().map(move |&i| base * n + i)).collect();
        }
        out
    }

    /// Writes the sub-array at `axis` whose flat offset is `base` (in units of the
    /// axis's stride) from the formatted elements.
    fn write_axis(
        &self,
        f: &mut fmt::Formatter<'_>,
        axis: usize,
        base: usize,
        cell: &dyn Fn(usize) -> String,
        summarise: bool,
    ) -> fmt::Result {
        if axis == self.shape.len() {
            return f.write_str(&cell(base));
        }
        let n = self.shape[axis];
        let rank = self.shape.len();
        f.write_str("[")?;
        for (k, i) in shown(n, summarise).into_iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
                if axis + 1 == rank {
                    f.write_str(" ")?;
                } else {
                    f.write_str(&"\n".repeat(rank - axis - 1))?;
                    f.write_str(&" ".repeat(6 + axis + 1))?;
                }
            }
            match i {
                Some(i) => self.write_axis(f, axis + 1, base * n + i, cell, summarise)?,
                None => f.write_str("...")?,
            }
        }
        f.write_str("]")
    }
}

impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let summarise = self.len() > 1000;
        let indices = self.shown_indices(summarise);
        let mut texts: Vec<String> = indices.iter().map(|&i| numpy_element(&self.data, i)).collect();
        align_points(&mut texts, self.dtype());
        let width = texts.iter().map(|t| t.len()).max().unwrap_or(0);
        let lookup: std::collections::HashMap<usize, String> =
            indices.into_iter().zip(texts).map(|(i, t)| (i, format!("{t:>width$}"))).collect();
        let cell = |i: usize| lookup.get(&i).cloned().unwrap_or_default();
        f.write_str("array(")?;
        self.write_axis(f, 0, 0, &cell, summarise)?;
        match self.dtype() {
            DType::F64 if self.is_empty() => f.write_str(", dtype=float64)"),
            DType::F64 => f.write_str(")"),
            DType::F32 => f.write_str(", dtype=float32)"),
            DType::BF16 => f.write_str(", dtype=bfloat16)"),
            DType::F16 => f.write_str(", dtype=float16)"),
            DType::I32 => f.write_str(", dtype=int32)"),
            DType::Bool => f.write_str(")"),
        }
    }
}

macro_rules! conversions {
    ($($ty:ty),*) => {$(
        impl From<Vec<$ty>> for Array {
            /// A vector as a rank-1 array.
            fn from(values: Vec<$ty>) -> Array {
                let n = values.len();
                Array::from_vec(&[n], values).expect("a vector's length is its shape")
            }
        }

        impl From<&[$ty]> for Array {
            /// A slice, copied, as a rank-1 array.
            fn from(values: &[$ty]) -> Array {
                Array::from(values.to_vec())
            }
        }

        impl<const N: usize> From<[$ty; N]> for Array {
            /// A Rust array as a rank-1 array.
            fn from(values: [$ty; N]) -> Array {
                Array::from(values.to_vec())
            }
        }

        impl TryFrom<&Array> for Vec<$ty> {
            type Error = crate::Error;

            /// The elements, in C order, when the dtype matches.
            fn try_from(array: &Array) -> Result<Vec<$ty>, crate::Error> {
                array.to_vec::<$ty>().ok_or_else(|| {
                    crate::Error::Invalid(format!("cannot read a {} array as {}", array.dtype(), <$ty as Element>::DTYPE))
                })
            }
        }
    )*};
}

conversions!(f32, f64, half::bf16, half::f16, i32, bool);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_numpy_repr() {
        assert_eq!(Array::scalar(1.5f32).to_string(), "array(1.5, dtype=float32)");
        assert_eq!(Array::scalar(2.0f64).to_string(), "array(2.)");
        let v = Array::from(vec![1.0f64, 0.25, -10.0]);
        assert_eq!(v.to_string(), "array([  1.  ,   0.25, -10.  ])");
        let i = Array::from_i32(&[2, 3], vec![1, 20, 3, -4, 5, 6]).unwrap();
        assert_eq!(i.to_string(), "array([[ 1, 20,  3],\n       [-4,  5,  6]], dtype=int32)");
        let b = Array::from([true, false]);
        assert_eq!(b.to_string(), "array([ True, False])");
        let f = Array::from(vec![f32::NAN, f32::INFINITY, 1.0]);
        assert_eq!(f.to_string(), "array([nan, inf,  1.], dtype=float32)");
        let sines = Array::from(vec![0.0f64, 1f64.sin(), 3.0f64.sqrt()]);
        assert_eq!(sines.to_string(), "array([0.        , 0.84147098, 1.73205081])");
        assert_eq!(Array::from(vec![0.1f32, 1e-7]).to_string(), "array([ 0.1, 1e-7], dtype=float32)");
        let cube = Array::from_i32(&[2, 1, 2], vec![1, 2, 3, 4]).unwrap();
        assert_eq!(cube.to_string(), "array([[[1, 2]],\n\n       [[3, 4]]], dtype=int32)");
        assert_eq!(Array::from_f64(&[0], vec![]).unwrap().to_string(), "array([], dtype=float64)");
    }

    #[test]
    fn summarises_large_arrays() {
        let a = Array::from((0..2000).collect::<Vec<i32>>());
        assert_eq!(a.to_string(), "array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)");
        let m = Array::from_i32(&[40, 40], (0..1600).collect()).unwrap();
        let text = m.to_string();
        assert!(text.starts_with("array([[   0,    1,    2, ...,   37,   38,   39],\n"), "{text}");
        assert!(text.contains("       ...,\n"), "{text}");
        assert!(text.ends_with("[1560, 1561, 1562, ..., 1597, 1598, 1599]], dtype=int32)"), "{text}");
    }

    #[test]
    fn converts_vectors_and_slices() {
        let a = Array::from(&[1.0f32, 2.0][..]);
        assert_eq!(a.shape(), [2]);
        assert_eq!(Vec::<f32>::try_from(&a).unwrap(), vec![1.0, 2.0]);
        let err = Vec::<i32>::try_from(&a).unwrap_err();
        assert_eq!(err.to_string(), "cannot read a f32 array as i32");
    }
}
