//! Index arithmetic shared by the reference evaluation of the structural and indexing
//! primitives: C-order strides, and copies of rectangular boxes between buffers that
//! are seen through strided views.
//!
//! A [`View`] maps a multi-index `i` of a box to the flat offset `base + Σ i[k]·strides[k]`.
//! Strides may be zero (broadcast) or negative (`rev`), so one box copy expresses
//! broadcast, transpose, rev, slice, pad, concatenate and the dynamic slices. The
//! walk visits the box row by row (a row is a run along the innermost axis) with an
//! odometer over the outer axes, checks each row's first and last offsets against the
//! buffer once, and copies the row in a tight loop (a `copy_from_slice` when both
//! sides are contiguous), so there is no per-element allocation or dynamic dispatch.

use ferrax_array::{Array, Data, Shape, element_count};
use smallvec::{SmallVec, smallvec};

/// Per-axis steps of a view, in elements.
pub(crate) type Strides = SmallVec<[isize; 6]>;

/// Applies `$body` to the element vector of every variant of a [`Data`], wrapping the
/// resulting vector back into the same variant.
macro_rules! map_data {
    ($data:expr, |$v:ident| $body:expr) => {
        match $data {
            ferrax_array::Data::Bool($v) => ferrax_array::Data::Bool($body),
            ferrax_array::Data::I32($v) => ferrax_array::Data::I32($body),
            ferrax_array::Data::BF16($v) => ferrax_array::Data::BF16($body),
            ferrax_array::Data::F16($v) => ferrax_array::Data::F16($body),
            ferrax_array::Data::F32($v) => ferrax_array::Data::F32($body),
            ferrax_array::Data::F64($v) => ferrax_array::Data::F64($body),
        }
    };
}
pub(crate) use map_data;

/// C-order strides of `shape`, in elements. Products saturate; they can only get that
/// large for an empty array, whose strides are never used to read.
pub(crate) fn strides(shape: &[usize]) -> Strides {
    let mut out: Strides = smallvec![0; shape.len()];
    let mut step: usize = 1;
    for (slot, &dim) in out.iter_mut().zip(shape).rev() {
        *slot = isize::try_from(step).unwrap_or(isize::MAX);
        step = step.saturating_mul(dim);
    }
    out
}

/// A strided view of a flat buffer: the offset of the box's first element and the
/// step of each box axis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View<'a> {
    /// Offset of element `[0, 0, ...]`.
    pub base: isize,
    /// Step per axis (one per box axis; may be 0 or negative).
    pub strides: &'a [isize],
}

impl<'a> View<'a> {
    /// The whole of a contiguous C-order buffer whose strides are `strides`.
    pub(crate) fn contiguous(strides: &'a [isize]) -> View<'a> {
        View { base: 0, strides }
    }
}

/// Sum of `index[k] * strides[k]`: the offset of a multi-index (wrapping, so absurd
/// input cannot panic; every row is bounds-checked before it is touched).
pub(crate) fn offset(index: &[usize], strides: &[isize]) -> isize {
    index.iter().zip(strides).fold(0isize, |acc, (&i, &s)| acc.wrapping_add((i as isize).wrapping_mul(s)))
}

/// Calls `row` with the offset, in each of the `N` views, of the first element of every
/// innermost row of the box `shape`, in C order. A rank-0 box is one row of length 1.
/// An empty box has no rows.
fn for_each_row<const N: usize>(
    shape: &[usize],
    views: [View<'_>; N],
    mut row: impl FnMut([isize; N]) -> Result<(), String>,
) -> Result<(), String> {
    if views.iter().any(|v| v.strides.len() != shape.len()) {
        return Err(format!("internal: a view has the wrong number of strides for a rank-{} box", shape.len()));
    }
    if shape.contains(&0) {
        return Ok(());
    }
    let outer = &shape[..shape.len().saturating_sub(1)];
    let mut index: SmallVec<[usize; 6]> = smallvec![0; outer.len()];
    let mut offsets = views.map(|v| v.base);
    loop {
        row(offsets)?;
        // Advance the odometer over the outer axes, innermost first.
        let mut axis = outer.len();
        loop {
            if axis == 0 {
                return Ok(());
            }
            axis -= 1;
            index[axis] += 1;
            for (off, view) in offsets.iter_mut().zip(&views) {
                *off = off.wrapping_add(view.strides[axis]);
            }
            if index[axis] < outer[axis] {
                break;
            }
            for (off, view) in offsets.iter_mut().zip(&views) {
                *off = off.wrapping_sub(view.strides[axis].wrapping_mul(outer[axis] as isize));
            }
            index[axis] = 0;
        }
    }
}

/// The length and step of the rows of a box seen through `strides`.
fn row_shape(shape: &[usize], strides: &[isize]) -> (usize, isize) {
    (shape.last().copied().unwrap_or(1), strides.last().copied().unwrap_or(0))
}

/// Checks that the `n` offsets `start, start + step, ...` lie inside a buffer of
/// `len` elements; returns `start` as an index.
fn check_row(start: isize, step: isize, n: usize, len: usize) -> Result<usize, String> {
    let last = start.wrapping_add(step.wrapping_mul(n as isize - 1));
    let inside = |o: isize| o >= 0 && (o as usize) < len;
    if inside(start) && inside(last) {
        Ok(start as usize)
    } else {
        Err(format!("internal: a strided access ({start}..={last}) leaves a buffer of {len} elements"))
    }
}

/// The elements of the box `shape` seen through `view` of `src`, in C order.
pub(crate) fn gather_box<T: Copy>(src: &[T], view: View<'_>, shape: &[usize]) -> Result<Vec<T>, String> {
    let count = element_count(shape).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(count);
    let (n, step) = row_shape(shape, view.strides);
    for_each_row(shape, [view], |[start]| {
        let start = check_row(start, step, n, src.len())?;
        if step == 1 {
            out.extend_from_slice(&src[start..start + n]);
        } else if step == -1 {
            out.extend(src[start + 1 - n..=start].iter().rev());
        } else {
            out.extend((0..n).map(|j| src[(start as isize + j as isize * step) as usize]));
        }
        Ok(())
    })?;
    Ok(out)
}

/// Copies the box `shape`, seen through `sv` in `src`, onto the same box seen through
/// `dv` in `dst`.
pub(crate) fn copy_box<T: Copy>(
    src: &[T],
    sv: View<'_>,
    dst: &mut [T],
    dv: View<'_>,
    shape: &[usize],
) -> Result<(), String> {
    let (n, s_step) = row_shape(shape, sv.strides);
    let (_, d_step) = row_shape(shape, dv.strides);
    for_each_row(shape, [sv, dv], |[s, d]| {
        let s = check_row(s, s_step, n, src.len())?;
        let d = check_row(d, d_step, n, dst.len())?;
        if s_step == 1 && d_step == 1 {
            dst[d..d + n].copy_from_slice(&src[s..s + n]);
        } else {
            for j in 0..n as isize {
                dst[(d as isize + j * d_step) as usize] = src[(s as isize + j * s_step) as usize];
            }
        }
        Ok(())
    })
}

/// [`gather_box`] on an array: a new array of `shape` read through `view` of `x`.
pub(crate) fn gather_array(x: &Array, view: View<'_>, shape: &[usize]) -> Result<Array, String> {
    let data = map_data!(x.data(), |v| gather_box(v, view, shape)?);
    Array::new(Shape::from(shape), data).map_err(|e| e.to_string())
}

/// [`copy_box`] between two buffers of the same dtype.
pub(crate) fn copy_data(src: &Data, sv: View<'_>, dst: &mut Data, dv: View<'_>, shape: &[usize]) -> Result<(), String> {
    match (src, dst) {
        (Data::Bool(s), Data::Bool(d)) => copy_box(s, sv, d, dv, shape),
        (Data::I32(s), Data::I32(d)) => copy_box(s, sv, d, dv, shape),
        (Data::F32(s), Data::F32(d)) => copy_box(s, sv, d, dv, shape),
        (Data::F64(s), Data::F64(d)) => copy_box(s, sv, d, dv, shape),
        (Data::BF16(s), Data::BF16(d)) => copy_box(s, sv, d, dv, shape),
        (Data::F16(s), Data::F16(d)) => copy_box(s, sv, d, dv, shape),
        (s, d) => Err(format!("dtypes differ: {} copied into {}", s.dtype(), d.dtype())),
    }
}

/// `count` copies of the single element of a rank-0 array.
pub(crate) fn splat(value: &Array, count: usize) -> Result<Data, String> {
    if value.len() != 1 {
        return Err(format!("expected a scalar, got an array of {} elements", value.len()));
    }
    Ok(map_data!(value.data(), |v| vec![v[0]; count]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_are_c_order() {
        assert_eq!(strides(&[2, 3, 4]).as_slice(), &[12, 4, 1]);
        assert_eq!(strides(&[]).as_slice(), &[] as &[isize]);
        assert_eq!(strides(&[0, usize::MAX, 4]).as_slice(), &[isize::MAX, 4, 1]);
    }

    #[test]
    fn boxes_copy_through_views() {
        let src: Vec<i32> = (0..6).collect();
        // The transpose of a 2x3 matrix: steps 1 and 3.
        let t = gather_box(&src, View { base: 0, strides: &[1, 3] }, &[3, 2]).unwrap();
        assert_eq!(t, vec![0, 3, 1, 4, 2, 5]);
        // Reversed rows: base 2, step -1 along the inner axis.
        let r = gather_box(&src, View { base: 2, strides: &[3, -1] }, &[2, 3]).unwrap();
        assert_eq!(r, vec![2, 1, 0, 5, 4, 3]);
        let mut dst = vec![0; 8];
        copy_box(&src, View { base: 0, strides: &[3, 1] }, &mut dst, View { base: 1, strides: &[4, 1] }, &[2, 3])
            .unwrap();
        assert_eq!(dst, vec![0, 0, 1, 2, 0, 3, 4, 5]);
        assert!(gather_box(&src, View { base: 4, strides: &[1] }, &[3]).is_err());
        assert!(gather_box(&src, View { base: 0, strides: &[1] }, &[2, 3]).is_err());
        assert_eq!(gather_box(&src, View { base: 5, strides: &[] }, &[]).unwrap(), vec![5]);
    }
}
