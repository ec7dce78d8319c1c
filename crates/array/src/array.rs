//! `Array`: a contiguous, C-order host buffer with a static shape.

use crate::{Budget, DType, Error, Shape, budget::element_count, byte_size};
use half::{bf16, f16};
use std::fmt::Write as _;

/// The elements of an [`Array`], one vector per dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Boolean elements.
    Bool(Vec<bool>),
    /// 32-bit integer elements.
    I32(Vec<i32>),
    /// bfloat16 elements.
    BF16(Vec<bf16>),
    /// binary16 elements.
    F16(Vec<f16>),
    /// binary32 elements.
    F32(Vec<f32>),
    /// binary64 elements.
    F64(Vec<f64>),
}

impl Data {
    /// The dtype of these elements.
    pub fn dtype(&self) -> DType {
        match self {
            Data::Bool(_) => DType::Bool,
            Data::I32(_) => DType::I32,
            Data::BF16(_) => DType::BF16,
            Data::F16(_) => DType::F16,
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::Bool(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::BF16(v) => v.len(),
            Data::F16(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `len` zeros (`false` for bool).
    pub fn zeros(dtype: DType, len: usize) -> Data {
        match dtype {
            DType::Bool => Data::Bool(vec![false; len]),
            DType::I32 => Data::I32(vec![0; len]),
            DType::BF16 => Data::BF16(vec![bf16::ZERO; len]),
            DType::F16 => Data::F16(vec![f16::ZERO; len]),
            DType::F32 => Data::F32(vec![0.0; len]),
            DType::F64 => Data::F64(vec![0.0; len]),
        }
    }

    /// `values` as elements of `dtype`: floats rounded once to nearest, integers
    /// truncated (saturating), bools `!= 0`.
    pub fn from_f64s(dtype: DType, values: &[f64]) -> Data {
        match dtype {
            DType::Bool => Data::Bool(values.iter().map(|&x| x != 0.0).collect()),
            DType::I32 => Data::I32(values.iter().map(|&x| x as i32).collect()),
            DType::BF16 => Data::BF16(values.iter().map(|&x| crate::half16::bf16_from_f64(x)).collect()),
            DType::F16 => Data::F16(values.iter().map(|&x| crate::half16::f16_from_f64(x)).collect()),
            DType::F32 => Data::F32(values.iter().map(|&x| x as f32).collect()),
            DType::F64 => Data::F64(values.to_vec()),
        }
    }

    /// Element `i` converted to f64 (bool as 0/1).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Data::Bool(v) => f64::from(u8::from(v[i])),
            Data::I32(v) => f64::from(v[i]),
            Data::BF16(v) => f64::from(v[i]),
            Data::F16(v) => f64::from(v[i]),
            Data::F32(v) => f64::from(v[i]),
            Data::F64(v) => v[i],
        }
    }

    /// Element `i` as text, in the shortest form that reads back to the same bits
    /// (`nan`, `inf`, `-inf`, `true`, `false`).
    pub fn format_element(&self, i: usize) -> String {
        match self {
            Data::Bool(v) => v[i].to_string(),
            Data::I32(v) => v[i].to_string(),
            Data::BF16(v) => format_half(f32::from(v[i]), |x| bf16::from_f32(x).to_bits() == v[i].to_bits()),
            Data::F16(v) => format_half(f32::from(v[i]), |x| f16::from_f32(x).to_bits() == v[i].to_bits()),
            Data::F32(v) => format_f32(v[i]),
            Data::F64(v) => format_f64(v[i]),
        }
    }

    /// The elements of `parts` one after another; `None` when their dtypes differ (or
    /// there are none).
    pub fn concat(parts: &[&Data]) -> Option<Data> {
        macro_rules! join {
            ($variant:ident) => {{
                let mut out = Vec::new();
                for part in parts {
                    let Data::$variant(v) = part else { return None };
                    out.extend_from_slice(v);
                }
                Data::$variant(out)
            }};
        }
        Some(match parts.first()?.dtype() {
            DType::Bool => join!(Bool),
            DType::I32 => join!(I32),
            DType::BF16 => join!(BF16),
            DType::F16 => join!(F16),
            DType::F32 => join!(F32),
            DType::F64 => join!(F64),
        })
    }

    /// A new buffer of the same dtype holding the elements at `indices`, in order.
    pub fn gather(&self, indices: impl Iterator<Item = usize>) -> Data {
        match self {
            Data::Bool(v) => Data::Bool(indices.map(|i| v[i]).collect()),
            Data::I32(v) => Data::I32(indices.map(|i| v[i]).collect()),
            Data::BF16(v) => Data::BF16(indices.map(|i| v[i]).collect()),
            Data::F16(v) => Data::F16(indices.map(|i| v[i]).collect()),
            Data::F32(v) => Data::F32(indices.map(|i| v[i]).collect()),
            Data::F64(v) => Data::F64(indices.map(|i| v[i]).collect()),
        }
    }
}

/// A contiguous C-order buffer with a static shape: the host data every part of
/// ferrax exchanges.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub(crate) shape: Shape,
    pub(crate) data: Data,
}

impl Array {
    /// An array from its shape and C-order elements; the lengths must agree.
    pub fn new(shape: impl Into<Shape>, data: Data) -> Result<Array, Error> {
        let shape = shape.into();
        let expected = element_count(&shape)?;
        if expected != data.len() {
            return Err(Error::LengthMismatch { expected, actual: data.len() });
        }
        Ok(Array { shape, data })
    }

    /// An array of zeros, sized with checked arithmetic and checked against `budget`
    /// before anything is allocated.
    pub fn zeros(dtype: DType, shape: &[usize], budget: &Budget) -> Result<Array, Error> {
        let bytes = byte_size(dtype, shape)?;
        budget.check(0, bytes, &format!("an array {}[{}]", dtype, crate::format_dims(shape)))?;
        let len = element_count(shape)?;
        Ok(Array { shape: shape.into(), data: Data::zeros(dtype, len) })
    }

    /// A rank-0 zero of `dtype` (`false` for bool).
    pub fn zero(dtype: DType) -> Array {
        Array { shape: Shape::new(), data: Data::zeros(dtype, 1) }
    }

    /// A rank-0 f32 array.
    pub fn scalar_f32(value: f32) -> Array {
        Array { shape: Shape::new(), data: Data::F32(vec![value]) }
    }

    /// A rank-0 f64 array.
    pub fn scalar_f64(value: f64) -> Array {
        Array { shape: Shape::new(), data: Data::F64(vec![value]) }
    }

    /// A rank-0 i32 array.
    pub fn scalar_i32(value: i32) -> Array {
        Array { shape: Shape::new(), data: Data::I32(vec![value]) }
    }

    /// A rank-0 bool array.
    pub fn scalar_bool(value: bool) -> Array {
        Array { shape: Shape::new(), data: Data::Bool(vec![value]) }
    }

    /// A 1-D or n-D f32 array (panics-free: errors on a length mismatch).
    pub fn from_f32(shape: &[usize], values: Vec<f32>) -> Result<Array, Error> {
        Array::new(shape, Data::F32(values))
    }

    /// An f64 array.
    pub fn from_f64(shape: &[usize], values: Vec<f64>) -> Result<Array, Error> {
        Array::new(shape, Data::F64(values))
    }

    /// An i32 array.
    pub fn from_i32(shape: &[usize], values: Vec<i32>) -> Result<Array, Error> {
        Array::new(shape, Data::I32(values))
    }

    /// A bool array.
    pub fn from_bool(shape: &[usize], values: Vec<bool>) -> Result<Array, Error> {
        Array::new(shape, Data::Bool(values))
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of axes.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes of the buffer.
    pub fn byte_len(&self) -> u64 {
        (self.len() * self.dtype().size_bytes()) as u64
    }

    /// The elements.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The elements, by value.
    pub fn into_data(self) -> Data {
        self.data
    }

    /// f32 elements, if this is an f32 array.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.data {
            Data::F32(v) => Some(v),
            _ => None,
        }
    }

    /// f64 elements, if this is an f64 array.
    pub fn as_f64(&self) -> Option<&[f64]> {
        match &self.data {
            Data::F64(v) => Some(v),
            _ => None,
        }
    }

    /// i32 elements, if this is an i32 array.
    pub fn as_i32(&self) -> Option<&[i32]> {
        match &self.data {
            Data::I32(v) => Some(v),
            _ => None,
        }
    }

    /// bool elements, if this is a bool array.
    pub fn as_bool(&self) -> Option<&[bool]> {
        match &self.data {
            Data::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// Every element converted to f64 (bool as 0/1), in C order.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.data.get_f64(i)).collect()
    }

    /// The same elements with another shape of equal element count.
    pub fn reshaped(self, shape: &[usize]) -> Result<Array, Error> {
        Array::new(shape, self.data)
    }

    /// Element `i` (C order) as text, in the shortest form that reads back to the
    /// same bits (`nan`, `inf`, `-inf`, `true`, `false`).
    pub fn format_element(&self, i: usize) -> String {
        self.data.format_element(i)
    }

    /// The elements as `[v, v, ...]`; past `limit` elements (when given) only the
    /// first and last three around `...`.
    pub fn format_values(&self, limit: Option<usize>) -> String {
        let n = self.len();
        let mut out = String::from("[");
        let push = |out: &mut String, i: usize| {
            if out.len() > 1 {
                out.push_str(", ");
            }
            out.push_str(&self.format_element(i));
        };
        match limit {
            Some(limit) if n > limit => {
                (0..3).for_each(|i| push(&mut out, i));
                out.push_str(", ...");
                (n - 3..n).for_each(|i| push(&mut out, i));
            }
            _ => (0..n).for_each(|i| push(&mut out, i)),
        }
        out.push(']');
        out
    }

    /// `dtype[dims] = [values]`, the form `ferrax run` prints after `outN: `.
    pub fn describe(&self, limit: Option<usize>) -> String {
        let mut s = String::new();
        let _ = write!(s, "{}[{}] = {}", self.dtype(), crate::format_dims(&self.shape), self.format_values(limit));
        s
    }
}

/// Shortest round-trip text of an f32 (`1.0`, `1e-7`, `nan`, `inf`, `-inf`).
pub fn format_f32(x: f32) -> String {
    if x.is_nan() { "nan".to_string() } else { format!("{x:?}") }
}

/// Shortest text of a 16-bit float (given widened, `x`) that reads back to the same
/// 16 bits: the fewest significant digits whose f32 rounds to them (`same`), printed
/// as that f32 prints (`0.1` rather than `0.10009765625`).
pub fn format_half(x: f32, same: impl Fn(f32) -> bool) -> String {
    if !x.is_finite() {
        return format_f32(x);
    }
    for digits in 0..9 {
        if let Ok(y) = format!("{x:.digits$e}").parse::<f32>()
            && same(y)
        {
            return format_f32(y);
        }
    }
    format_f32(x)
}

/// Shortest round-trip text of an f64.
pub fn format_f64(x: f64) -> String {
    if x.is_nan() { "nan".to_string() } else { format!("{x:?}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_checks_length() {
        assert!(Array::from_f32(&[2, 2], vec![1.0; 4]).is_ok());
        let err = Array::from_f32(&[2, 3], vec![1.0; 4]).unwrap_err();
        assert_eq!(err, Error::LengthMismatch { expected: 6, actual: 4 });
    }

    #[test]
    fn formats_round_trip_text() {
        let a = Array::from_f32(&[5], vec![1.0, 0.1, f32::NAN, f32::NEG_INFINITY, 1e-7]).unwrap();
        assert_eq!(a.describe(None), "f32[5] = [1.0, 0.1, nan, -inf, 1e-7]");
        let b = Array::from_i32(&[1001], (0..1001).collect()).unwrap();
        assert_eq!(b.format_values(Some(1000)), "[0, 1, 2, ..., 998, 999, 1000]");
        assert_eq!(Array::scalar_bool(true).describe(None), "bool[] = [true]");
    }

    #[test]
    fn zeros_respects_budget() {
        let budget = Budget::new(64);
        assert_eq!(Array::zeros(DType::F64, &[8], &budget).unwrap().len(), 8);
        assert!(Array::zeros(DType::F64, &[9], &budget).is_err());
        assert!(Array::zeros(DType::F64, &[usize::MAX, 2], &budget).is_err());
    }
}
