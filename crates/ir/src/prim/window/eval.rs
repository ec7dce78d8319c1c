//! The reference evaluation of the window family, also the JIT's host routine: the
//! window geometry (which operand elements each window covers, in window order) and
//! the three loops over it, generic over the element type and working on slices so
//! that the JIT runs them on its buffers directly.
//!
//! Order of evaluation (the executable definition): windows in row-major order of the
//! result; inside a window, taps in row-major order of the window, holes and padding
//! skipped. `reduce_window` folds the covered elements left to right starting from
//! `init` (float sums in that order, i32 wrapping); the selection keeps the first
//! element and replaces it only by a strictly greater (smaller) one, or by a NaN when
//! it is not one; the scatter adds the windows' sources in window order.

use super::{Select, Window, WindowOp, WindowReduce};
use crate::prim::elements::{Num, array, bad_dtype};
use ferrax_array::{Array, Data};

/// Which operand elements each window covers: per axis and per result index along it,
/// the operand indices in window order. The windows of several axes cover the
/// cartesian product of their axes' lists.
///
/// Trailing axes the window leaves alone (one tap, stride 1, no padding or dilation:
/// the channels of a pooling) are not listed: each window of the other axes then stands
/// for a contiguous block of `inner` windows, one per element of those axes, and the
/// loops run over the block's elements innermost (the same per-element order, so the
/// same results, and a loop the compiler vectorises).
#[derive(Clone, Debug)]
pub struct Geometry {
    /// The result shape (one element per window).
    pub out_shape: Vec<usize>,
    /// Elements of the operand.
    pub in_len: usize,
    /// Elements of the trailing axes the window leaves alone (a block).
    pub inner: usize,
    /// Axes before the trailing ones.
    split: usize,
    taps: Vec<Vec<Vec<usize>>>,
    in_strides: Vec<usize>,
}

impl Geometry {
    /// The geometry of `window` over an operand of `shape` (errors name `op`).
    pub fn new(op: &str, window: &Window, shape: &[usize]) -> Result<Geometry, String> {
        let out_shape = window.out_shape(op, shape)?.to_vec();
        let windows = out_shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let in_len = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let (Some(windows), Some(in_len)) = (windows, in_len) else {
            return Err(format!("{op}: the element count of {shape:?} or of its windows {out_shape:?} overflows"));
        };
        let trivial = |a: usize| {
            window.dimensions[a] == 1
                && window.strides[a] == 1
                && window.padding[a] == [0, 0]
                && window.base_dilation[a] == 1
                && window.window_dilation[a] == 1
        };
        let mut split = shape.len();
        while split > 0 && trivial(split - 1) {
            split -= 1;
        }
        let inner = shape[split..].iter().product();
        let mut in_strides = vec![1usize; shape.len()];
        for a in (0..shape.len().saturating_sub(1)).rev() {
            in_strides[a] = in_strides[a + 1] * shape[a + 1];
        }
        // No window, no list: the per-axis lists of an empty result could be long.
        let taps = if windows == 0 {
            vec![]
        } else {
            (0..split).map(|a| axis_taps(window, a, shape[a], out_shape[a])).collect()
        };
        Ok(Geometry { out_shape, in_len, inner, split, taps, in_strides })
    }

    /// The number of windows (result elements).
    pub fn windows(&self) -> usize {
        self.out_shape.iter().product()
    }

    /// Calls `f(b, offsets)` for each block `b` of windows (results `b·inner ..
    /// (b+1)·inner`) in row-major order with the C-order offsets of the first operand
    /// element of each block it covers, in window order: the block's `j`-th window
    /// covers `offset + j` for each offset.
    pub fn for_each(&self, mut f: impl FnMut(usize, &[usize])) {
        if self.windows() == 0 {
            return;
        }
        let rank = self.split;
        let blocks: usize = self.out_shape[..rank].iter().product();
        let mut idx = vec![0usize; rank];
        let (mut offsets, mut next) = (Vec::new(), Vec::new());
        for b in 0..blocks {
            offsets.clear();
            offsets.push(0usize);
            for ((taps, &i), &stride) in self.taps.iter().zip(&idx).zip(&self.in_strides) {
                next.clear();
                for &base in &offsets {
                    next.extend(taps[i].iter().map(|&t| base + t * stride));
                }
                std::mem::swap(&mut offsets, &mut next);
            }
            f(b, &offsets);
            for a in (0..rank).rev() {
                idx[a] += 1;
                if idx[a] < self.out_shape[a] {
                    break;
                }
                idx[a] = 0;
            }
        }
    }
}

/// Per result index along axis `a`, the operand indices (of `n`) its window covers, in
/// window order: operand index `i` sits at `low + i·base_dilation` of the padded axis,
/// and window `o`'s tap `k` at `o·stride + k·window_dilation`. The shorter of the taps
/// and the operand indices in range is walked, so a huge window or dilation over a few
/// elements stays cheap.
fn axis_taps(window: &Window, a: usize, n: usize, out: usize) -> Vec<Vec<usize>> {
    let big = |v: usize| v as i128;
    let (low, stride) = (big(window.padding[a][0]), big(window.strides[a]));
    let (bd, wd, taps) = (big(window.base_dilation[a]), big(window.window_dilation[a]), big(window.dimensions[a]));
    let n = big(n);
    (0..out)
        .map(|o| {
            let start = big(o) * stride;
            let last = start + (taps - 1) * wd;
            // Operand indices whose position lies in [start, last].
            let i_first = (start - low + bd - 1).div_euclid(bd).max(0);
            let i_last = (last - low).div_euclid(bd).min(n - 1);
            let mut list = Vec::new();
            if i_first > i_last {
                return list;
            }
            if i_last - i_first < taps {
                for i in i_first..=i_last {
                    let pos = low + i * bd - start;
                    if pos % wd == 0 {
                        list.push(i as usize);
                    }
                }
            } else {
                for k in 0..taps {
                    let q = start + k * wd - low;
                    if q >= 0 && q % bd == 0 && q / bd < n {
                        list.push((q / bd) as usize);
                    }
                }
            }
            list
        })
        .collect()
}

/// The identity `reduce_window`'s `init` must be.
fn identity<T: Num>(op: WindowReduce) -> T {
    match op {
        WindowReduce::Sum => T::ZERO,
        WindowReduce::Max => T::LOWEST,
        WindowReduce::Min => T::HIGHEST,
    }
}

/// `reduce_window` of `x` into `out` (one element per window), from `init`.
pub fn reduce_window_slice<T: Num>(g: &Geometry, op: WindowReduce, x: &[T], init: T, out: &mut [T]) {
    // One loop per combination, so that each is inlined (and vectorised) rather than
    // called through a pointer per element.
    match op {
        WindowReduce::Sum => reduce_blocks(g, x, init, out, T::add),
        WindowReduce::Max => reduce_blocks(g, x, init, out, T::max),
        WindowReduce::Min => reduce_blocks(g, x, init, out, T::min),
    }
}

fn reduce_blocks<T: Num>(g: &Geometry, x: &[T], init: T, out: &mut [T], f: impl Fn(T, T) -> T) {
    let n = g.inner;
    g.for_each(|b, offsets| {
        let block = &mut out[b * n..(b + 1) * n];
        block.fill(init);
        for &o in offsets {
            for (acc, &v) in block.iter_mut().zip(&x[o..o + n]) {
                *acc = f(*acc, v);
            }
        }
    });
}

/// Whether `c` replaces the selection `b` (see the module docs). Without short circuits,
/// so that the loop over a block's windows compiles to vector compares and blends
/// instead of a branch per element that random data mispredicts half the time.
#[inline(always)]
fn better<T: Num>(select: Select, c: T, b: T) -> bool {
    let strictly = match select {
        Select::Max => c > b,
        Select::Min => c < b,
    };
    strictly | (c.is_nan() & !b.is_nan())
}

/// The selection state of one block of windows: per window, the best value so far and
/// the tap (index into the block's offsets) it came from.
struct Selection<T> {
    best: Vec<T>,
    tap: Vec<u32>,
}

impl<T: Num> Selection<T> {
    fn new(n: usize) -> Selection<T> {
        Selection { best: vec![T::ZERO; n], tap: vec![0; n] }
    }

    /// Per window of the block at `offsets`, the operand offset it selects in `x`, written
    /// into `at` (one per window of the block); false when the windows cover nothing.
    /// The first tap wins ties, as in the interpreter's scan in window order.
    fn select(&mut self, select: Select, x: &[T], offsets: &[usize], at: &mut [usize]) -> bool {
        let Some((&first, rest)) = offsets.split_first() else {
            return false;
        };
        let n = at.len();
        if offsets.len() > u32::MAX as usize {
            // Too many taps to count in u32: one window at a time.
            for (j, a) in at.iter_mut().enumerate() {
                *a = offsets
                    .iter()
                    .map(|&o| o + j)
                    .fold(first + j, |b, c| if better(select, x[c], x[b]) { c } else { b });
            }
            return true;
        }
        self.best.copy_from_slice(&x[first..first + n]);
        self.tap.fill(0);
        for (k, &o) in rest.iter().enumerate() {
            let k = k as u32 + 1;
            for ((&c, b), t) in x[o..o + n].iter().zip(self.best.iter_mut()).zip(self.tap.iter_mut()) {
                let take = better(select, c, *b);
                *b = if take { c } else { *b };
                *t = if take { k } else { *t };
            }
        }
        for (j, (a, &t)) in at.iter_mut().zip(&self.tap).enumerate() {
            *a = offsets[t as usize] + j;
        }
        true
    }
}

/// `select_and_gather_add` of `t` by the windows of `x` into `out`.
pub fn select_and_gather_slice<T: Num>(g: &Geometry, select: Select, t: &[T], x: &[T], out: &mut [T]) {
    let n = g.inner;
    let (mut at, mut sel) = (vec![0usize; n], Selection::new(n));
    g.for_each(|b, offsets| {
        let block = &mut out[b * n..(b + 1) * n];
        if sel.select(select, x, offsets, &mut at) {
            for (o, &a) in block.iter_mut().zip(&at) {
                *o = t[a];
            }
        } else {
            block.fill(T::ZERO);
        }
    });
}

/// `select_and_scatter_add` of `s` by the windows of `x` into `out` (shaped like `x`).
pub fn select_and_scatter_slice<T: Num>(g: &Geometry, select: Select, s: &[T], x: &[T], out: &mut [T]) {
    let n = g.inner;
    let (mut at, mut sel) = (vec![0usize; n], Selection::new(n));
    out.fill(T::ZERO);
    g.for_each(|b, offsets| {
        if sel.select(select, x, offsets, &mut at) {
            for (j, &a) in at.iter().enumerate() {
                out[a] = T::add(out[a], s[b * n + j]);
            }
        }
    });
}

/// Evaluates one op on typed slices of its two operands.
fn eval_typed<T: Num>(op: &WindowOp, g: &Geometry, a: &[T], b: &[T]) -> Result<Vec<T>, String> {
    match op {
        WindowOp::ReduceWindow { op, .. } => {
            let init = b[0];
            check_init(*op, init)?;
            let mut out = vec![T::ZERO; g.windows()];
            reduce_window_slice(g, *op, a, init, &mut out);
            Ok(out)
        }
        WindowOp::SelectAndGatherAdd { select, .. } => {
            let mut out = vec![T::ZERO; g.windows()];
            select_and_gather_slice(g, *select, a, b, &mut out);
            Ok(out)
        }
        WindowOp::SelectAndScatterAdd { select, .. } => {
            let mut out = vec![T::ZERO; g.in_len];
            select_and_scatter_slice(g, *select, a, b, &mut out);
            Ok(out)
        }
    }
}

/// Checks that `init` is the identity of `op`, as `reduce_window` requires.
pub fn check_init<T: Num>(op: WindowReduce, init: T) -> Result<(), String> {
    let want = identity::<T>(op);
    if init == want {
        Ok(())
    } else {
        Err(format!("init must be the identity of {op} ({}), got {}", show(want), show(init)))
    }
}

/// An element for an error message.
fn show<T: Num>(v: T) -> String {
    let data = T::into_data(vec![v]);
    data.get_f64(0).to_string()
}

/// Evaluates a window-family op (f32, f64, i32; the interpreter widens 16-bit floats).
pub fn eval(op: &WindowOp, xs: &[&Array]) -> Result<Array, String> {
    let [a, b] = super::super::operands::<2>(xs)?;
    let types = [crate::Type::new(a.dtype(), a.shape()), crate::Type::new(b.dtype(), b.shape())];
    let [out_ty] = <[crate::Type; 1]>::try_from(super::infer(op, &types)?)
        .map_err(|_| format!("{}: expected one result type", op.name()))?;
    // The operand whose windows are taken: `x` for reduce_window, the second otherwise.
    let x = match op {
        WindowOp::ReduceWindow { .. } => a,
        WindowOp::SelectAndGatherAdd { .. } | WindowOp::SelectAndScatterAdd { .. } => b,
    };
    let g = Geometry::new(op.name(), op.window(), x.shape())?;
    let data = match (a.data(), b.data()) {
        (Data::F32(a), Data::F32(b)) => Data::F32(eval_typed(op, &g, a, b)?),
        (Data::F64(a), Data::F64(b)) => Data::F64(eval_typed(op, &g, a, b)?),
        (Data::I32(a), Data::I32(b)) => Data::I32(eval_typed(op, &g, a, b)?),
        _ => return Err(bad_dtype(op.name(), a.dtype())),
    };
    array(&out_ty.shape, data)
}
