//! `conv_general_dilated` as blocked im2col packing plus faer's GEMM.
//!
//! The result positions (the result's batch and spatial axes) are cut into blocks of
//! at least [`ROWS`] rows (about [`PACKED`] packed elements). For each block and group,
//! the input patches are packed into a contiguous `[rows, taps·I]` matrix (zeros where a tap falls on padding or on a
//! dilation hole), multiplied by the group's kernel, packed once per run as
//! `[taps·I, O/groups]`, with one sequential faer call, and the `[rows, O/groups]`
//! product is scattered into the result by its strides. Blocks are independent, so
//! with more than one thread allowed and enough work (`positions·O·taps·I >=
//! GEMM_SPLIT`) they are dealt to the JIT's pool, each thread with its own packing
//! buffers. A block's packed patches stay in cache while the GEMM reads them.
//!
//! The groups: with `feature_group_count = G`, group `t` reads input features
//! `t·I..(t+1)·I` and writes output features `t·O/G..`; with `batch_group_count = B`,
//! group `t` reads the input batch `t·N/B..` and writes output features `t·O/B..`.
//! Sums run in faer's order over `taps·I` (not the interpreter's), so results agree
//! with the reference up to reassociation, as `dot_general`'s do. Taps on padding or
//! on dilation holes contribute nothing (as in XLA: `0 · inf` there is not NaN), while
//! packed zeros times an infinite or NaN weight would be NaN, so a kernel that is not
//! finite is left to the interpreter's rule (the caller's fallback).
//!
//! A convolution with at most 4 input features (an image's channels) takes the direct
//! path of [`direct`] instead: no packing, no GEMM.

mod direct;

use crate::gemm::GEMM_SPLIT;
use faer::linalg::matmul::matmul;
use faer::mat::{MatMut, MatRef};
use faer::{Accum, Par};
use ferrax_ir::prim::Conv;
use ferrax_ir::prim::conv::specs;
use ferrax_ir::{DType, Type};

/// The fewest result positions per packed block.
const ROWS: usize = 128;

/// Packed patch elements per block: with the block's product, about what stays in L2.
const PACKED: usize = 1 << 15;

/// One spatial axis.
struct Axis {
    out: usize,
    input: isize,
    taps: usize,
    stride: isize,
    lo: isize,
    ld: isize,
    rd: isize,
    lhs_step: isize,
    rhs_step: usize,
    out_step: usize,
}

impl Axis {
    /// The input index that tap `tap` of the window starting at `start` (in the dilated,
    /// padded input) reads, or `None` on padding or a dilation hole.
    fn input_index(&self, start: isize, tap: usize) -> Option<isize> {
        let q = start + tap as isize * self.rd;
        let q = if self.ld == 1 {
            q
        } else if q % self.ld == 0 {
            q / self.ld
        } else {
            return None;
        };
        (0..self.input).contains(&q).then_some(q)
    }
}

/// A planned convolution.
pub(crate) struct ConvPlan {
    dtype: DType,
    axes: Vec<Axis>,
    /// The result's batch (the input's over the batch groups) and its stride.
    out_batch: usize,
    out_batch_step: usize,
    out_feature_step: usize,
    lhs_batch_step: isize,
    lhs_feature_step: isize,
    rhs_out_step: usize,
    rhs_in_step: usize,
    /// Kernel input features (per group), output features per group, groups.
    in_per_group: usize,
    out_per_group: usize,
    groups: usize,
    /// Whether the groups split the features (else the batch).
    feature_groups: bool,
    taps: usize,
    positions: usize,
    /// The direct path's tap table, when the direct path runs it ([`direct`]).
    table: Option<direct::Table>,
}

impl ConvPlan {
    /// The plan of `conv` on operands of these types, or why there is none (the
    /// interpreter's rule then runs it).
    pub(crate) fn new(conv: &Conv, lhs: &Type, rhs: &Type, out: &Type) -> Result<ConvPlan, String> {
        if !matches!(lhs.dtype, DType::F32 | DType::F64) || out.dtype != lhs.dtype || rhs.dtype != lhs.dtype {
            return Err(format!("conv: no native routine for {lhs} x {rhs} -> {out}"));
        }
        let [ls, rs, os] = specs(&conv.dimension_numbers)?;
        let strides = |shape: &[usize]| {
            let mut s = vec![1usize; shape.len()];
            for a in (0..shape.len().saturating_sub(1)).rev() {
                s[a] = s[a + 1] * shape[a + 1];
            }
            s
        };
        let (lst, rst, ost) = (strides(&lhs.shape), strides(&rhs.shape), strides(&out.shape));
        let to_isize = |v: usize| isize::try_from(v).map_err(|_| format!("conv: {v} does not fit an offset"));
        let mut axes = Vec::with_capacity(rs.spatial.len());
        for k in 0..rs.spatial.len() {
            axes.push(Axis {
                out: out.shape[os.spatial[k]],
                input: to_isize(lhs.shape[ls.spatial[k]])?,
                taps: rhs.shape[rs.spatial[k]],
                stride: to_isize(conv.window_strides[k])?,
                lo: isize::try_from(conv.padding[k].0).map_err(|_| "conv: padding too large".to_string())?,
                ld: to_isize(conv.lhs_dilation[k])?,
                rd: to_isize(conv.rhs_dilation[k])?,
                lhs_step: to_isize(lst[ls.spatial[k]])?,
                rhs_step: rst[rs.spatial[k]],
                out_step: ost[os.spatial[k]],
            });
        }
        let groups = conv.feature_group_count.max(conv.batch_group_count);
        let o = rhs.shape[rs.batch];
        let taps = axes.iter().map(|a| a.taps).product();
        let out_batch = out.shape[os.batch];
        let positions = axes.iter().map(|a| a.out).product::<usize>() * out_batch;
        let mut plan = ConvPlan {
            dtype: lhs.dtype,
            out_batch,
            out_batch_step: ost[os.batch],
            out_feature_step: ost[os.feature],
            lhs_batch_step: to_isize(lst[ls.batch])?,
            lhs_feature_step: to_isize(lst[ls.feature])?,
            rhs_out_step: rst[rs.batch],
            rhs_in_step: rst[rs.feature],
            in_per_group: rhs.shape[rs.feature],
            out_per_group: o / groups.max(1),
            groups,
            feature_groups: conv.feature_group_count > 1,
            taps,
            positions,
            axes,
            table: None,
        };
        plan.table = plan.direct().then(|| plan.tap_table());
        Ok(plan)
    }

    /// Computes the result; `false` (with nothing written) when the kernel holds an
    /// infinity or a NaN, which the caller then hands to the interpreter's rule.
    ///
    /// # Safety
    /// The pointers are buffers of the planned types; `out` does not overlap them.
    pub(crate) unsafe fn run(&self, lhs: *const u8, rhs: *const u8, out: *mut u8, threads: usize) -> bool {
        if let Some(table) = &self.table {
            // SAFETY: by the caller's contract.
            unsafe {
                match self.dtype {
                    DType::F32 => self.run_direct::<f32>(table, lhs.cast(), rhs.cast(), out.cast(), threads),
                    DType::F64 => self.run_direct::<f64>(table, lhs.cast(), rhs.cast(), out.cast(), threads),
                    // Never planned (see `new`).
                    DType::Bool | DType::I32 | DType::BF16 | DType::F16 => return false,
                }
            }
            return true;
        }
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(lhs as *const f32, rhs as *const f32, out as *mut f32, threads),
                DType::F64 => self.float::<f64>(lhs as *const f64, rhs as *const f64, out as *mut f64, threads),
                // Never planned (see `new`).
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => false,
            }
        }
    }

    unsafe fn float<T: faer::traits::ComplexField + Copy + Default + Into<f64>>(
        &self,
        lhs: *const T,
        rhs: *const T,
        out: *mut T,
        threads: usize,
    ) -> bool {
        let k = self.taps * self.in_per_group;
        let (n, groups) = (self.out_per_group, self.groups);
        if self.positions == 0 || n == 0 {
            return true;
        }
        let out = SendPtr(out);
        if k == 0 {
            self.for_each_block(1, &|rows| {
                for t in 0..groups {
                    // SAFETY: the block's positions and the group's features are in range.
                    unsafe { self.scatter(&vec![T::default(); (rows.1 - rows.0) * n], rows, t, out.get()) };
                }
            });
            return true;
        }
        // The kernel of each group as `[k, n]`, row (tap, i), column j: written row by
        // row, each row read along the kernel's `O` axis.
        let mut kernels = vec![T::default(); groups * k * n];
        let mut tap = vec![0usize; self.axes.len()];
        for (t, group) in kernels.chunks_exact_mut(k * n).enumerate() {
            tap.iter_mut().for_each(|x| *x = 0);
            for taps in group.chunks_exact_mut(self.in_per_group * n) {
                let off: usize = self.axes.iter().zip(&tap).map(|(a, &p)| p * a.rhs_step).sum();
                for (i, row) in taps.chunks_exact_mut(n).enumerate() {
                    let src = t * n * self.rhs_out_step + i * self.rhs_in_step + off;
                    for (j, d) in row.iter_mut().enumerate() {
                        // SAFETY: the offset is inside the kernel (indices within its shape).
                        *d = unsafe { rhs.add(src + j * self.rhs_out_step).read() };
                    }
                }
                advance(&mut tap, &self.axes);
            }
        }
        // A tap on padding or on a dilation hole contributes nothing (XLA's semantics),
        // but a packed zero times an infinite or NaN weight would give NaN.
        if !kernels.iter().all(|&w| w.into().is_finite()) {
            return false;
        }
        let lhs = SendConst(lhs);
        let work = self.positions.saturating_mul(n * groups).saturating_mul(k);
        let threads = if work >= GEMM_SPLIT { threads.max(1) } else { 1 };
        self.for_each_block(threads, &|rows| {
            let m = rows.1 - rows.0;
            let mut patches = vec![T::default(); m * k];
            let mut product = vec![T::default(); m * n];
            for t in 0..groups {
                // SAFETY: offsets come from the operand's shape; patches holds m*k.
                unsafe { self.pack(lhs.get(), rows, t, &mut patches) };
                // SAFETY: the slices hold the matrices' elements, row-major.
                unsafe {
                    let a = MatRef::from_raw_parts(patches.as_ptr(), m, k, k as isize, 1);
                    let b = MatRef::from_raw_parts(kernels.as_ptr().add(t * k * n), k, n, n as isize, 1);
                    let c = MatMut::from_raw_parts_mut(product.as_mut_ptr(), m, n, n as isize, 1);
                    matmul(c, Accum::Replace, a, b, T::one_impl(), Par::Seq);
                }
                // SAFETY: the block's positions and the group's features are in range.
                unsafe { self.scatter(&product, rows, t, out.get()) };
            }
        });
        true
    }

    /// Runs `f` on every block of result positions, on `threads` threads (with few
    /// positions and long rows, as a kernel's gradient has, the blocks shrink so that
    /// every thread gets one).
    fn for_each_block(&self, threads: usize, f: &(dyn Fn((usize, usize)) + Sync)) {
        let rows = self.block_rows().min(self.positions.div_ceil(threads.max(1)).max(8));
        let blocks = self.positions.div_ceil(rows);
        let block = |b: usize| f((b * rows, ((b + 1) * rows).min(self.positions)));
        if threads <= 1 || blocks < 2 {
            (0..blocks).for_each(block);
        } else {
            let t = threads.min(blocks);
            crate::pool::Pool::global().run(t, &|i| (blocks * i / t..blocks * (i + 1) / t).for_each(block));
        }
    }

    /// Result positions per block: about [`PACKED`] packed elements, at least [`ROWS`].
    fn block_rows(&self) -> usize {
        let k = (self.taps * self.in_per_group).max(1);
        (PACKED / k).clamp(ROWS, 8 * ROWS)
    }

    /// The result position `p` (row-major over batch and the spatial axes in the
    /// kernel's order) as its batch index and spatial indices.
    fn position(&self, mut p: usize, index: &mut [usize]) -> usize {
        for (a, i) in self.axes.iter().zip(index.iter_mut()).rev() {
            *i = p % a.out;
            p /= a.out;
        }
        p
    }

    /// Packs the patches of positions `rows` for group `t` as `[rows, (tap, i)]`.
    unsafe fn pack<T: Copy + Default>(&self, lhs: *const T, rows: (usize, usize), t: usize, patches: &mut [T]) {
        let (ipg, fs) = (self.in_per_group, self.lhs_feature_step);
        let k = self.taps * ipg;
        let (feature0, batch0) = if self.feature_groups { (t * ipg, 0) } else { (0, t * self.out_batch) };
        let mut index = vec![0usize; self.axes.len()];
        let mut tap = vec![0usize; self.axes.len()];
        // Per axis: the window's first position in the dilated, padded input.
        let mut start = vec![0isize; self.axes.len()];
        for (r, p) in (rows.0..rows.1).enumerate() {
            let b = self.position(p, &mut index) + batch0;
            let base = b as isize * self.lhs_batch_step + feature0 as isize * fs;
            for ((s, a), &i) in start.iter_mut().zip(&self.axes).zip(&index) {
                *s = i as isize * a.stride - a.lo;
            }
            let row = &mut patches[r * k..(r + 1) * k];
            tap.iter_mut().for_each(|x| *x = 0);
            for dst in row.chunks_exact_mut(ipg) {
                match self.tap_offset(&start, &tap) {
                    // SAFETY: the tap is inside the input (checked by tap_offset), and
                    // so are its `ipg` features.
                    Some(off) if fs == 1 => unsafe {
                        dst.copy_from_slice(std::slice::from_raw_parts(lhs.offset(base + off), ipg))
                    },
                    Some(off) => {
                        for (i, d) in dst.iter_mut().enumerate() {
                            // SAFETY: as above.
                            *d = unsafe { lhs.offset(base + off + i as isize * fs).read() };
                        }
                    }
                    None => dst.fill(T::default()),
                }
                advance(&mut tap, &self.axes);
            }
        }
    }

    /// The input offset of tap `tap` of the window starting at `start`, or `None` on
    /// padding or a dilation hole.
    fn tap_offset(&self, start: &[isize], tap: &[usize]) -> Option<isize> {
        let mut off = 0;
        for ((a, &s0), &s) in self.axes.iter().zip(start).zip(tap) {
            off += a.input_index(s0, s)? * a.lhs_step;
        }
        Some(off)
    }

    /// Writes the `[rows, n]` product of group `t` into the result.
    unsafe fn scatter<T: Copy>(&self, product: &[T], rows: (usize, usize), t: usize, out: *mut T) {
        let n = self.out_per_group;
        let mut index = vec![0usize; self.axes.len()];
        for (r, p) in (rows.0..rows.1).enumerate() {
            let b = self.position(p, &mut index);
            let base = b * self.out_batch_step
                + self.axes.iter().zip(&index).map(|(a, &i)| i * a.out_step).sum::<usize>()
                + t * n * self.out_feature_step;
            for (j, &v) in product[r * n..(r + 1) * n].iter().enumerate() {
                // SAFETY: the position and feature are inside the result.
                unsafe { out.add(base + j * self.out_feature_step).write(v) };
            }
        }
    }
}

/// Steps a C-order tap index over the kernel's spatial sizes.
fn advance(tap: &mut [usize], axes: &[Axis]) {
    for (t, a) in tap.iter_mut().zip(axes).rev() {
        *t += 1;
        if *t < a.taps {
            return;
        }
        *t = 0;
    }
}

/// The result pointer, shared by the threads of one run (each writes its own blocks).
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: threads write disjoint result positions; the run waits for all of them.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}
impl<T> SendPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

/// The input pointer, read by every thread.
#[derive(Clone, Copy)]
struct SendConst<T>(*const T);
// SAFETY: only read during the run.
unsafe impl<T> Send for SendConst<T> {}
unsafe impl<T> Sync for SendConst<T> {}
impl<T> SendConst<T> {
    fn get(&self) -> *const T {
        self.0
    }
}
