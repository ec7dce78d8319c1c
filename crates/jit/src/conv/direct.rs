//! Direct convolution for few input features (a network's first layer: 1-4 image
//! channels), without im2col packing or the GEMM.
//!
//! With `I` input features the packed GEMM has a contraction of `taps·I` (27 for a 3x3
//! kernel over RGB): too short for the GEMM's micro-kernels to run near their peak, while
//! the packing copies every input element `taps` times. Here each result position
//! accumulates its `O` features in one row: for each tap in range and each input feature,
//! the input value times the kernel's contiguous row of `O` weights, added along the row
//! (vectorised by the compiler, at AVX2 width where the host has it). Taps on padding or
//! dilation holes are skipped, so a kernel holding infinities or NaNs needs no fallback.
//! Measured on W8's first layer (64x32x32x3 NHWC * 3x3x3x32 HWIO, SAME; per-step
//! profile, 3 alternations): 3.2-3.7 ms a call packed, 2.3-2.55 ms direct. Its taps are
//! tabulated once, when the plan is made, for every spatial position (at most
//! [`MAX_TABLE`] pairs), and each position accumulates blocks of [`ACC`] outputs in registers, alternate taps
//! into two sets so that the fused multiply-adds are not held by each other's latency.
//!
//! Sums run tap by tap, input feature by feature (the packed GEMM's order differs by
//! reassociation only), each term fused into the sum at AVX2 and above and rounded
//! twice below: like the GEMM library's own kernels, whose choice follows the host too,
//! the last bits depend on the vector level (the tile routines' bits do not).

use super::{ConvPlan, SendConst, SendPtr};
use std::ops::{Add, Mul};

/// `a + v·w`, fused where the caller was compiled with FMA (`FMA`), else two roundings.
pub(crate) trait MulAdd: Copy + Default + Add<Output = Self> + Mul<Output = Self> {
    /// `a + v·w`.
    fn mul_add<const FMA: bool>(a: Self, v: Self, w: Self) -> Self;
}

impl MulAdd for f32 {
    #[inline(always)]
    fn mul_add<const FMA: bool>(a: f32, v: f32, w: f32) -> f32 {
        if FMA { v.mul_add(w, a) } else { a + v * w }
    }
}

impl MulAdd for f64 {
    #[inline(always)]
    fn mul_add<const FMA: bool>(a: f64, v: f64, w: f64) -> f64 {
        if FMA { v.mul_add(w, a) } else { a + v * w }
    }
}

/// The most input features (per group) the direct path takes. Measured at 3 (W8's
/// first layer: 30% faster than packed); above a handful the packed GEMM's contraction
/// (taps·I) is long enough for its micro-kernels, so the GEMM stays.
pub(crate) const DIRECT_MAX_IN: usize = 4;

/// The fewest output features: a row shorter than a vector or two gains nothing.
const DIRECT_MIN_OUT: usize = 8;

/// The taps in range of every spatial result position, flattened.
pub(crate) struct Table {
    /// Where each position's taps start in `taps` (one more entry than positions).
    starts: Vec<usize>,
    /// (kernel offset, input offset without the batch) of each tap.
    taps: Vec<(usize, isize)>,
    /// Each position's offset in the result, without the batch.
    out: Vec<usize>,
}

/// The most (position, tap) pairs the direct path tabulates (16 MiB of table).
const MAX_TABLE: usize = 1 << 20;

/// Output features accumulated in registers at a time.
const ACC: usize = 32;

/// Result positions per task of a split run.
const DIRECT_CHUNK: usize = 256;

impl ConvPlan {
    /// Whether the direct path runs this convolution: one group, at most
    /// [`DIRECT_MAX_IN`] input features, at least [`DIRECT_MIN_OUT`] output features,
    /// contiguous along the kernel's and the result's feature axes, at least as many
    /// result positions as taps.
    pub(crate) fn direct(&self) -> bool {
        self.groups == 1
            && self.in_per_group <= DIRECT_MAX_IN
            && self.out_per_group >= DIRECT_MIN_OUT
            && self.rhs_out_step == 1
            && self.out_feature_step == 1
            && self.spatial().saturating_mul(self.taps) <= MAX_TABLE
            // Few positions of many taps (a weight gradient of a tiny batch): the packed
            // path, whose blocks shrink so that every thread gets one.
            && self.positions >= self.taps
    }

    /// Result positions per batch element.
    fn spatial(&self) -> usize {
        self.axes.iter().map(|a| a.out).product()
    }

    /// The taps in range of every spatial result position (built once, with the plan).
    pub(crate) fn tap_table(&self) -> Table {
        // Per axis and result index: the (kernel offset, input offset) of each tap in range.
        let lists: Vec<Vec<Vec<(usize, isize)>>> = self
            .axes
            .iter()
            .map(|a| {
                (0..a.out)
                    .map(|o| {
                        (0..a.taps)
                            .filter_map(|t| {
                                Some((t * a.rhs_step, a.input_index(o as isize * a.stride - a.lo, t)? * a.lhs_step))
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        // Per spatial result position (row-major): the products of the axes' lists, and
        // its offset in the result.
        let mut table = Table { starts: vec![0], taps: Vec::new(), out: Vec::new() };
        let mut index = vec![0usize; self.axes.len()];
        let (mut taps, mut next) = (Vec::new(), Vec::new());
        for s in 0..self.spatial() {
            let mut rest = s;
            for (i, a) in index.iter_mut().zip(&self.axes).rev() {
                *i = rest % a.out;
                rest /= a.out;
            }
            taps.clear();
            taps.push((0usize, 0isize));
            for (list, &i) in lists.iter().zip(&index) {
                next.clear();
                for &(r, l) in &taps {
                    next.extend(list[i].iter().map(|&(rt, lt)| (r + rt, l + lt)));
                }
                std::mem::swap(&mut taps, &mut next);
            }
            table.taps.extend_from_slice(&taps);
            table.starts.push(table.taps.len());
            table.out.push(self.axes.iter().zip(&index).map(|(a, &i)| i * a.out_step).sum());
        }
        table
    }

    /// Computes the result by the direct path (see [`ConvPlan::direct`]) over `table`
    /// (from [`ConvPlan::tap_table`]).
    ///
    /// # Safety
    /// As [`ConvPlan::run`].
    pub(crate) unsafe fn run_direct<T>(&self, table: &Table, lhs: *const T, rhs: *const T, out: *mut T, threads: usize)
    where
        T: MulAdd,
    {
        if self.positions == 0 {
            return;
        }
        let (lhs, rhs, out) = (SendConst(lhs), SendConst(rhs), SendPtr(out));
        let chunks = self.positions.div_ceil(DIRECT_CHUNK);
        let work = self.positions.saturating_mul(self.taps * self.in_per_group).saturating_mul(self.out_per_group);
        let t = if work >= crate::gemm::GEMM_SPLIT { threads.clamp(1, chunks) } else { 1 };
        let part = |i: usize| {
            for c in chunks * i / t..chunks * (i + 1) / t {
                let rows = (c * DIRECT_CHUNK, ((c + 1) * DIRECT_CHUNK).min(self.positions));
                // SAFETY: by the caller's contract; parts write disjoint result positions.
                unsafe { self.direct_rows(table, lhs.get(), rhs.get(), out.get(), rows) };
            }
        };
        if t == 1 {
            part(0);
        } else {
            crate::pool::Pool::global().run(t, &part);
        }
    }

    /// The result positions `rows`, at the widest vectors the host has.
    ///
    /// # Safety
    /// As [`ConvPlan::run`]; `table` from [`ConvPlan::tap_table`].
    unsafe fn direct_rows<T>(&self, table: &Table, lhs: *const T, rhs: *const T, out: *mut T, rows: (usize, usize))
    where
        T: MulAdd,
    {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::selected() >= crate::isa::VectorIsa::Avx2 {
            // SAFETY: the host has AVX2 (the selected level never exceeds it).
            unsafe { direct_avx2(self, table, lhs, rhs, out, rows) };
            return;
        }
        // SAFETY: by the caller's contract.
        unsafe { direct_generic::<T, false>(self, table, lhs, rhs, out, rows) }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn direct_avx2<T>(
    plan: &ConvPlan,
    table: &Table,
    lhs: *const T,
    rhs: *const T,
    out: *mut T,
    rows: (usize, usize),
) where
    T: MulAdd,
{
    // SAFETY: by the caller's contract.
    unsafe { direct_generic::<T, true>(plan, table, lhs, rhs, out, rows) }
}

/// The loops of the direct path (inlined into each width's entry).
///
/// # Safety
/// As [`ConvPlan::run`].
#[inline(always)]
unsafe fn direct_generic<T, const FMA: bool>(
    plan: &ConvPlan,
    table: &Table,
    lhs: *const T,
    rhs: *const T,
    out: *mut T,
    rows: (usize, usize),
) where
    T: MulAdd,
{
    let o = plan.out_per_group;
    let mut acc = vec![T::default(); o];
    let spatial = plan.spatial();
    for p in rows.0..rows.1 {
        let (b, s) = (p / spatial, p % spatial);
        let batch = b as isize * plan.lhs_batch_step;
        let taps = &table.taps[table.starts[s]..table.starts[s + 1]];
        // Blocks of ACC output features held in registers across the taps, then the rest.
        let whole = o / ACC * ACC;
        for j0 in (0..whole).step_by(ACC) {
            // Two sets of accumulators, for alternate taps: twice the independent chains,
            // so the adds are not held by one another's latency.
            let mut reg = [[T::default(); ACC]; 2];
            for (n, &(r, l)) in taps.iter().enumerate() {
                // SAFETY: the lists hold only taps in range.
                unsafe { accumulate::<T, FMA>(plan, &mut reg[n & 1], lhs, rhs, (r + j0, l + batch)) };
            }
            for ((d, &a), &b) in acc[j0..j0 + ACC].iter_mut().zip(&reg[0]).zip(&reg[1]) {
                *d = a + b;
            }
        }
        acc[whole..].fill(T::default());
        for &(r, l) in taps {
            // SAFETY: as above.
            unsafe { accumulate::<T, FMA>(plan, &mut acc[whole..], lhs, rhs, (r + whole, l + batch)) };
        }
        let base = b * plan.out_batch_step + table.out[s];
        // SAFETY: the position's `o` features are inside the result, contiguous.
        unsafe { std::ptr::copy_nonoverlapping(acc.as_ptr(), out.add(base), o) };
    }
}

/// Adds one tap's terms to `acc`: for each input feature, the input value at `at.1` times
/// the kernel's row of `acc.len()` outputs at `at.0`.
///
/// # Safety
/// The tap is inside the input and the kernel, with its input features and outputs.
#[inline(always)]
unsafe fn accumulate<T: MulAdd, const FMA: bool>(
    plan: &ConvPlan,
    acc: &mut [T],
    lhs: *const T,
    rhs: *const T,
    at: (usize, isize),
) {
    for i in 0..plan.in_per_group {
        // SAFETY: by the caller's contract.
        let (v, w) = unsafe {
            (
                lhs.offset(at.1 + i as isize * plan.lhs_feature_step).read(),
                std::slice::from_raw_parts(rhs.add(at.0 + i * plan.rhs_in_step), acc.len()),
            )
        };
        for (a, &w) in acc.iter_mut().zip(w) {
            *a = T::mul_add::<FMA>(*a, v, w);
        }
    }
}

#[cfg(test)]
mod tests;
