//! `dot_general` as GEMM calls into faer.
//!
//! The result is `[batch..., lhs free..., rhs free...]`, i.e. `B` row-major `M×N`
//! matrices. Each operand is seen as `B` matrices (`M×K` for the lhs, `K×N` for the
//! rhs) through strides: transposes and any order of the contracted axes cost nothing
//! as long as the row axes (and the column axes) collapse to one stride each. When
//! they do not (e.g. free axes interleaved with contracted ones in a way no single
//! stride describes), that operand alone is copied into scratch as contiguous
//! `[B, rows, cols]` first. Batches are a loop of calls, in alternating order from one
//! run to the next (`Gemm::batch_order`: a repeated product finds in cache the matrices
//! it read last). f32 and f64 use
//! `faer::linalg::matmul::matmul`, always sequential (`Par::Seq`): with more than one
//! thread allowed and `B·M·N·K >= GEMM_SPLIT`, the run is cut into independent blocks
//! run on the JIT's own pool (`pool`): whole batches when there are enough, else blocks
//! of output columns (or rows, when M > N), one faer call each. Every output element is
//! then computed by the same sequential faer kernel over the same `K` (only the packing
//! differs), so a split result equals the one-thread result up to faer's blocking of
//! `K`, which does not depend on `M`/`N` (the tests check the tolerance). i32 is a plain
//! loop with wrapping arithmetic (exactly the interpreter's result). Float products with
//! `K = 1` (outer products, batched elementwise products, as `vmap` of gradients makes)
//! are a direct loop, bit-identical to the interpreter, not one faer call per batch.
//! A large lhs whose rows are strided (the `xᵀ` of a weight gradient `xᵀ·dy`) with
//! at least twice as many rows as the result has columns is multiplied through
//! row-major copies of panels of its rows, in a per-thread buffer ([`row_panels`]): faer
//! runs such products at about half its usual speed (W9's step 0.915x of its time).

use faer::linalg::matmul::matmul;
use faer::mat::{MatMut, MatRef};
use faer::{Accum, Par};
use ferrax_ir::prim::linalg::DotDims;
use ferrax_ir::{DType, Type};
use std::ops::{Add, Mul};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How one operand is read: element `(b, r, c)` is at `batch[b] + rows[r] + cols[c]`
/// (element offsets), or, when `copy`, it is first copied contiguously to scratch.
struct Side {
    batch: Vec<isize>,
    rows: Vec<isize>,
    cols: Vec<isize>,
    /// Strides of the 2-D view, when the rows and columns each collapse to one stride.
    view: Option<(isize, isize)>,
    /// Byte offset of this operand's copy in the scratch buffer.
    scratch: usize,
}

/// `b·m·n·k` from which a GEMM is split across threads.
pub(crate) const GEMM_SPLIT: usize = 1 << 21;

/// The same for matrix-vector products (`m = 1` or `n = 1`): they stream the matrix
/// once, memory-bound, so both cores' share of bandwidth pays from a smaller size
/// (measured on W10's batched CG matvec, 16×256×256 f64: 0.22 ms on one thread).
pub(crate) const GEMV_SPLIT: usize = 1 << 18;

/// How a GEMM is divided among threads: whole batches, or each product's output in
/// blocks of rows or of columns (each block one sequential faer call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Split {
    None,
    Batches(usize),
    Rows(usize),
    Cols(usize),
}

/// Part `i` of `0..d` cut into `t` parts, boundaries on multiples of 8 where possible.
fn chunk(d: usize, t: usize, i: usize) -> (usize, usize) {
    let cut = |j: usize| if j == t { d } else { (d * j / t).div_ceil(8) * 8 }.min(d);
    (cut(i), cut(i + 1))
}

/// The operand and result pointers, shared by the threads of one split run.
#[derive(Clone, Copy)]
struct Ptrs<T>(*const T, *const T, *mut T);

// SAFETY: the threads of one run only read the operands and write disjoint blocks of the
// result; the run waits for all of them.
unsafe impl<T> Send for Ptrs<T> {}
unsafe impl<T> Sync for Ptrs<T> {}

impl<T> Ptrs<T> {
    fn get(&self) -> (*const T, *const T, *mut T) {
        (self.0, self.1, self.2)
    }
}

/// A planned `dot_general`.
pub(crate) struct Gemm {
    dtype: DType,
    b: usize,
    m: usize,
    n: usize,
    k: usize,
    lhs: Side,
    rhs: Side,
    scratch: usize,
    /// Whether the lhs is read through row-major copies of panels of its rows
    /// ([`row_panels`]).
    lhs_panels: bool,
    /// Runs so far: odd runs take the batches in reverse order (see [`Gemm::batch_order`]).
    runs: AtomicUsize,
}

/// Elements of one lhs panel copy ([`row_panels`]): 2 MiB of f32 per thread.
const PANEL_ELEMS: usize = 1 << 19;

/// The column-major lhs products that go through panel copies: at least this many lhs
/// elements, at least twice as many rows as the result has columns, and a contraction of
/// at most [`PANEL_MAX_K`] (so that a panel of 8 rows stays small).
const PANEL_FROM: usize = 1 << 19;
const PANEL_MAX_K: usize = 1 << 15;

thread_local! {
    /// The panel copies of the calling thread (u64 words: aligned for f32 and f64).
    static PANEL: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `dst[i·ld + j] = src[i + j·cs]` for `i < h`, `j < k`: rows of a column-major matrix
/// copied row-major, in 16×16 blocks (both sides of a block stay in L1).
///
/// # Safety
/// `src` is valid for those reads, `dst` for those writes.
unsafe fn transpose<T: Copy>(src: *const T, cs: isize, h: usize, k: usize, dst: *mut T, ld: usize) {
    const B: usize = 16;
    for j0 in (0..k).step_by(B) {
        for i0 in (0..h).step_by(B) {
            for j in j0..(j0 + B).min(k) {
                // SAFETY: by the contract, for every i < h and j < k.
                unsafe {
                    let col = src.offset(j as isize * cs);
                    for i in i0..(i0 + B).min(h) {
                        *dst.add(i * ld + j) = *col.add(i);
                    }
                }
            }
        }
    }
}

/// Calls `f(r, panel)` for consecutive panels of the `rows × k` column-major matrix at
/// `src` (row stride 1, column stride `cs`), each copied row-major into the thread's
/// buffer first: `r` is the panel's first row.
///
/// faer multiplies a row-major result by an lhs whose rows are strided (the `xᵀ` of a
/// weight gradient `xᵀ·dy`, the tokens contracted) at about half its usual speed when
/// the lhs has many rows and the result few columns (measured on W9's 1024×1024×256 `dW`
/// of its MLP: 4.45 ms a call, against 2.25 ms for its forward product of the same shape
/// with a row-major lhs). The copy reads and writes the lhs once. Its rows are `k + 16`
/// elements apart: with a power-of-two `k` (W9's 1024 tokens), rows `k` apart fall on the
/// same L1 sets and the copy ran at 8 GB/s instead of 14.5.
///
/// # Safety
/// `src` is valid for the reads of that matrix.
unsafe fn row_panels<T: Copy>(
    src: *const T,
    cs: isize,
    rows: usize,
    k: usize,
    mut f: impl FnMut(usize, MatRef<'_, T>),
) {
    let ld = k + 16;
    let panel = (PANEL_ELEMS / ld).max(8);
    PANEL.with(|cell| {
        let mut buf = cell.borrow_mut();
        let words = (panel * ld * std::mem::size_of::<T>()).div_ceil(8);
        if buf.len() < words {
            buf.resize(words, 0);
        }
        let dst = buf.as_mut_ptr() as *mut T;
        let mut r = 0;
        while r < rows {
            let h = panel.min(rows - r);
            // SAFETY: rows r..r+h of the matrix, into a buffer of panel·ld >= h·ld elements.
            unsafe {
                transpose(src.add(r), cs, h, k, dst, ld);
                f(r, MatRef::from_raw_parts(dst, h, k, ld as isize, 1));
            }
            r += h;
        }
    });
}

fn strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

/// Offsets of every multi-index over `axes` (C order over the listed axes).
fn offsets(axes: &[usize], shape: &[usize], st: &[isize]) -> Vec<isize> {
    let mut out = vec![0isize];
    for &a in axes {
        out = out.iter().flat_map(|&o| (0..shape[a]).map(move |i| o + i as isize * st[a])).collect();
    }
    out
}

/// The single stride of `axes` if they collapse (size-1 axes ignored).
fn collapse(axes: &[usize], shape: &[usize], st: &[isize]) -> Option<isize> {
    let live: Vec<usize> = axes.iter().copied().filter(|&a| shape[a] != 1).collect();
    for w in live.windows(2) {
        if st[w[0]] != st[w[1]] * shape[w[1]] as isize {
            return None;
        }
    }
    Some(live.last().map_or(1, |&a| st[a]))
}

fn side(ty: &Type, batch: &[usize], rows: &[usize], cols: &[usize]) -> Side {
    let st = strides(&ty.shape);
    let view = collapse(rows, &ty.shape, &st).zip(collapse(cols, &ty.shape, &st));
    Side {
        batch: offsets(batch, &ty.shape, &st),
        rows: offsets(rows, &ty.shape, &st),
        cols: offsets(cols, &ty.shape, &st),
        view,
        scratch: 0,
    }
}

/// The most indices of one axis group (batch, rows, columns or contraction) of a
/// GEMM operand: 2^28, a 2 GiB offset table.
pub(crate) const MAX_GROUP_INDICES: usize = 1 << 28;

impl Gemm {
    /// Plans `dot_general[dims](lhs, rhs) -> out`.
    pub(crate) fn new(dims: &DotDims, lhs: &Type, rhs: &Type, out: &Type) -> Result<Gemm, String> {
        if lhs.dtype != rhs.dtype || lhs.dtype != out.dtype || lhs.dtype == DType::Bool {
            return Err(format!("jit: dot_general of {lhs} and {rhs} into {out} is not supported"));
        }
        // The plan lists the offset of every index of each axis group (8 bytes each);
        // refuse a group that would take more than the bound rather than abort
        // allocating it (declared types are checked against the budget only later).
        for (ty, groups) in [
            (lhs, [&dims.lhs_batch[..], &dims.lhs_free(lhs.rank()), &dims.lhs_contract]),
            (rhs, [&dims.rhs_batch[..], &dims.rhs_contract, &dims.rhs_free(rhs.rank())]),
        ] {
            for axes in groups {
                let count = axes.iter().try_fold(1usize, |acc, &a| acc.checked_mul(*ty.shape.get(a)?));
                if count.is_none_or(|c| c > MAX_GROUP_INDICES) {
                    return Err(format!(
                        "jit: dot_general of {lhs} and {rhs}: an axis group of {ty} has more than \
                         {MAX_GROUP_INDICES} indices, too many to plan"
                    ));
                }
            }
        }
        let l = side(lhs, &dims.lhs_batch, &dims.lhs_free(lhs.rank()), &dims.lhs_contract);
        let r = side(rhs, &dims.rhs_batch, &dims.rhs_contract, &dims.rhs_free(rhs.rank()));
        let (b, m, k, n) = (l.batch.len(), l.rows.len(), l.cols.len(), r.cols.len());
        let lhs_panels = matches!(l.view, Some((1, cs)) if cs.abs() > 1)
            && m >= 2 * n
            && m.saturating_mul(k) >= PANEL_FROM
            && k <= PANEL_MAX_K;
        let mut g =
            Gemm { dtype: lhs.dtype, b, m, n, k, lhs: l, rhs: r, scratch: 0, lhs_panels, runs: AtomicUsize::new(0) };
        let size = g.dtype.size_bytes();
        if g.lhs.view.is_none() {
            g.lhs.scratch = 0;
            g.scratch = (b * m * k * size).div_ceil(64) * 64;
        }
        if g.rhs.view.is_none() {
            g.rhs.scratch = g.scratch;
            g.scratch += b * k * n * size;
        }
        Ok(g)
    }

    /// The product's work, `b·m·n·k` multiply-adds (saturating: a product too large to
    /// count is too large to run, which the budget reports at the call).
    pub(crate) fn work(&self) -> usize {
        self.b.saturating_mul(self.m).saturating_mul(self.n).saturating_mul(self.k)
    }

    /// The product in a few words, for the profile: dtype, `b×m×n×k` and how the operands
    /// are read (`col-major`: a view whose rows are strided; `copy`: copied first;
    /// `panels`: the lhs through row-major panel copies).
    pub(crate) fn describe(&self) -> String {
        let side = |name: &str, s: &Side| match &s.view {
            None => format!(" {name} copy"),
            Some(v) if v.0 == 1 && v.1 != 1 => format!(" {name} col-major"),
            Some(_) => String::new(),
        };
        let panels = if self.lhs_panels { " panels" } else { "" };
        format!(
            "{:?} {}x{}x{}x{}{}{}{}",
            self.dtype,
            self.b,
            self.m,
            self.n,
            self.k,
            side("lhs", &self.lhs),
            side("rhs", &self.rhs),
            panels
        )
    }

    /// Bytes of scratch memory a run needs (operand copies; 0 when none is copied).
    pub(crate) fn scratch_bytes(&self) -> usize {
        self.scratch
    }

    /// Whether an operand is copied (for the dump and tests): (lhs, rhs).
    #[cfg(test)]
    pub(crate) fn copies(&self) -> (bool, bool) {
        (self.lhs.view.is_none(), self.rhs.view.is_none())
    }

    /// Computes `out = lhs · rhs`.
    ///
    /// # Safety
    /// The pointers are buffers of the planned types (`scratch` of `scratch_bytes()`),
    /// `out` not overlapping the others.
    pub(crate) unsafe fn run(&self, lhs: *const u8, rhs: *const u8, out: *mut u8, scratch: *mut u8, threads: usize) {
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 if self.k == 1 => {
                    self.outer::<f32>(lhs as *const f32, rhs as *const f32, out as *mut f32, threads)
                }
                DType::F64 if self.k == 1 => {
                    self.outer::<f64>(lhs as *const f64, rhs as *const f64, out as *mut f64, threads)
                }
                DType::F32 => {
                    self.float::<f32>(lhs as *const f32, rhs as *const f32, out as *mut f32, scratch, threads)
                }
                DType::F64 => {
                    self.float::<f64>(lhs as *const f64, rhs as *const f64, out as *mut f64, scratch, threads)
                }
                DType::I32 => self.int(lhs as *const i32, rhs as *const i32, out as *mut i32),
                // Never planned: bool products are not GEMMs, and `compile` refuses
                // 16-bit programs.
                DType::Bool | DType::BF16 | DType::F16 => {}
            }
        }
    }

    /// A product with one contracted element (`K = 1`: outer products, batched
    /// elementwise products): `out[b, i, j] = 0 + lhs[b, i] · rhs[b, j]`, the
    /// interpreter's single accumulation step (so bit-identical to it), as one vectorisable
    /// loop per output row instead of one GEMM call per batch. A large one (the gradient
    /// of a batch of matrices from two batches of vectors) is split by batches, since
    /// writing the result is its whole cost.
    unsafe fn outer<T: Copy + Default + Add<Output = T> + Mul<Output = T>>(
        &self,
        lhs: *const T,
        rhs: *const T,
        out: *mut T,
        threads: usize,
    ) {
        let (m, n) = (self.m, self.n);
        let (lk, rk) = (self.lhs.cols[0], self.rhs.rows[0]);
        let ptrs = Ptrs(lhs, rhs, out);
        let batches = |range: std::ops::Range<usize>| {
            let (lhs, rhs, out) = ptrs.get();
            let mut row = Vec::with_capacity(n);
            for b in range {
                let (lb, rb) = (self.lhs.batch[b] + lk, self.rhs.batch[b] + rk);
                row.clear();
                // SAFETY: offsets come from the operands' shapes.
                row.extend(self.rhs.cols.iter().map(|&c| unsafe { rhs.offset(rb + c).read() }));
                for (i, &r) in self.lhs.rows.iter().enumerate() {
                    // SAFETY: as above; `out` holds b*m*n elements, and different batches
                    // write disjoint rows.
                    let (a, dst) = unsafe {
                        (lhs.offset(lb + r).read(), std::slice::from_raw_parts_mut(out.add((b * m + i) * n), n))
                    };
                    dst.iter_mut().zip(&row).for_each(|(o, &y)| *o = T::default() + a * y);
                }
            }
        };
        let t = threads.min(crate::pool::Pool::global().workers() + 1).min(self.b);
        if t < 2 || self.b * m * n < GEMV_SPLIT {
            return batches(0..self.b);
        }
        crate::pool::Pool::global().run(t, &|i| batches(self.b * i / t..self.b * (i + 1) / t));
    }

    /// Copies an operand that has no 2-D view into scratch; returns its view.
    unsafe fn prepare<T: Copy>(s: &Side, src: *const T, scratch: *mut u8) -> (*const T, Vec<isize>, isize, isize) {
        match s.view {
            Some((rs, cs)) => (src, s.batch.clone(), rs, cs),
            None => {
                let dst = unsafe { scratch.add(s.scratch) } as *mut T;
                let mut i = 0;
                for &bo in &s.batch {
                    for &ro in &s.rows {
                        for &co in &s.cols {
                            // SAFETY: offsets come from the operand's shape; dst has b*rows*cols slots.
                            unsafe { dst.add(i).write(src.offset(bo + ro + co).read()) };
                            i += 1;
                        }
                    }
                }
                let (r, c) = (s.rows.len() as isize, s.cols.len() as isize);
                (dst, (0..s.batch.len() as isize).map(|b| b * r * c).collect(), c, 1)
            }
        }
    }

    unsafe fn float<T: faer::traits::ComplexField + Copy + Default>(
        &self,
        lhs: *const T,
        rhs: *const T,
        out: *mut T,
        scratch: *mut u8,
        threads: usize,
    ) {
        let (m, n, k) = (self.m, self.n, self.k);
        if m == 0 || n == 0 {
            return;
        }
        if k == 0 {
            // SAFETY: out holds b*m*n elements.
            unsafe { std::slice::from_raw_parts_mut(out, self.b * m * n).fill(T::default()) };
            return;
        }
        // SAFETY: by the caller's contract.
        let (lp, lb, lrs, lcs) = unsafe { Self::prepare(&self.lhs, lhs, scratch) };
        let (rp, rb, rrs, rcs) = unsafe { Self::prepare(&self.rhs, rhs, scratch) };
        let ptrs = Ptrs(lp, rp, out);
        // `out[b][rows, cols] = lhs[b][rows, :] · rhs[b][:, cols]`.
        let block = |b: usize, rows: (usize, usize), cols: (usize, usize)| {
            let (lp, rp, out) = ptrs.get();
            let ((r0, r1), (c0, c1)) = (rows, cols);
            // SAFETY: the views stay inside the operands (offsets from their shapes);
            // blocks of different calls write disjoint parts of `out`.
            unsafe {
                let a = lp.offset(lb[b] + r0 as isize * lrs);
                let bm = MatRef::from_raw_parts(rp.offset(rb[b] + c0 as isize * rcs), k, c1 - c0, rrs, rcs);
                let c = |r: usize, rows: usize| {
                    MatMut::from_raw_parts_mut(out.add(b * m * n + (r0 + r) * n + c0), rows, c1 - c0, n as isize, 1)
                };
                if self.lhs_panels {
                    row_panels(a, lcs, r1 - r0, k, |r, a| {
                        matmul(c(r, a.nrows()), Accum::Replace, a, bm, T::one_impl(), Par::Seq)
                    });
                } else {
                    let a = MatRef::from_raw_parts(a, r1 - r0, k, lrs, lcs);
                    matmul(c(0, r1 - r0), Accum::Replace, a, bm, T::one_impl(), Par::Seq);
                }
            }
        };
        let reverse = self.runs.fetch_add(1, Ordering::Relaxed) % 2 == 1;
        match self.split(threads) {
            Split::None => Self::batch_order(0..self.b, reverse).for_each(|b| block(b, (0, m), (0, n))),
            Split::Batches(t) => crate::pool::Pool::global().run(t, &|i| {
                Self::batch_order(self.b * i / t..self.b * (i + 1) / t, reverse).for_each(|b| block(b, (0, m), (0, n)))
            }),
            Split::Rows(t) => Self::batch_order(0..self.b, reverse)
                .for_each(|b| crate::pool::Pool::global().run(t, &|i| block(b, chunk(m, t, i), (0, n)))),
            Split::Cols(t) => Self::batch_order(0..self.b, reverse)
                .for_each(|b| crate::pool::Pool::global().run(t, &|i| block(b, (0, m), chunk(n, t, i)))),
        }
    }

    /// The batches of `range` forwards, or backwards when `reverse`. Runs alternate
    /// (a serpentine order): the matrices a thread read last in one run are the first it
    /// reads in the next, still in its cache, so a loop that repeats one product over
    /// operands larger than the caches (CG's batched matvec: 16 matrices of 512 KB, 8 MB
    /// against 2 MB of L2 per core) reads part of them from L2 instead of L3 or memory
    /// (measured on that matvec over two threads: 139-156 us per product in one order,
    /// 112-116 us alternating). Each batch is one product computed alone, so the order
    /// changes no result.
    fn batch_order(range: std::ops::Range<usize>, reverse: bool) -> impl Iterator<Item = usize> {
        let (start, end) = (range.start, range.end);
        range.map(move |b| if reverse { start + end - 1 - b } else { b })
    }

    /// How a run on up to `threads` threads is split (see [`GEMM_SPLIT`]): into about
    /// two tasks per thread (whole batches, else blocks of the larger of M and N, each
    /// at least 32 wide), so that a thread the host does not schedule delays little.
    fn split(&self, threads: usize) -> Split {
        let from = if self.m == 1 || self.n == 1 { GEMV_SPLIT } else { GEMM_SPLIT };
        if threads < 2 || self.b * self.m * self.n * self.k < from {
            return Split::None;
        }
        let t = threads.min(crate::pool::Pool::global().workers() + 1);
        if t < 2 {
            return Split::None;
        }
        if self.b >= t {
            // A matrix-vector product streams its matrices: one contiguous block of
            // batches per thread, so the thread that read a block last time (the caller
            // claims the first task) reads it again, partly from its own cache (see
            // `batch_order`). Other products take two tasks per thread.
            let tasks = if self.m == 1 || self.n == 1 { t } else { 2 * t };
            return Split::Batches(self.b.min(tasks));
        }
        let parts = |d: usize| (2 * t).min(d / 32);
        let (rows, cols) = (parts(self.m), parts(self.n));
        if rows < 2 && cols < 2 {
            Split::None
        } else if self.n >= self.m && cols >= 2 {
            Split::Cols(cols)
        } else if rows >= 2 {
            Split::Rows(rows)
        } else {
            Split::Cols(cols)
        }
    }

    unsafe fn int(&self, lhs: *const i32, rhs: *const i32, out: *mut i32) {
        let mut o = 0;
        for b in 0..self.b {
            for &ro in &self.lhs.rows {
                for &co in &self.rhs.cols {
                    let mut acc = 0i32;
                    for (&lk, &rk) in self.lhs.cols.iter().zip(&self.rhs.rows) {
                        // SAFETY: offsets come from the operands' shapes.
                        let (x, y) = unsafe {
                            (
                                lhs.offset(self.lhs.batch[b] + ro + lk).read(),
                                rhs.offset(self.rhs.batch[b] + rk + co).read(),
                            )
                        };
                        acc = acc.wrapping_add(x.wrapping_mul(y));
                    }
                    // SAFETY: out holds b*m*n elements.
                    unsafe { out.add(o).write(acc) };
                    o += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Gemm, Split};
    use ferrax_ir::prim::linalg::DotDims;
    use ferrax_ir::{DType, Type};

    fn dims(lc: &[usize], rc: &[usize], lb: &[usize], rb: &[usize]) -> DotDims {
        DotDims {
            lhs_contract: lc.to_vec(),
            rhs_contract: rc.to_vec(),
            lhs_batch: lb.to_vec(),
            rhs_batch: rb.to_vec(),
            preferred: None,
        }
    }

    #[test]
    fn transposes_are_strides_and_only_unviewable_operands_are_copied() {
        let f = |s: &[usize]| Type::new(DType::F32, s);
        // x^T · y: contracting the lhs's axis 0 is a column stride, no copy.
        let g = Gemm::new(&dims(&[0], &[0], &[], &[]), &f(&[4, 3]), &f(&[4, 5]), &f(&[3, 5])).unwrap();
        assert_eq!(g.copies(), (false, false));
        // Batch axis in the middle of both operands: still strides.
        let g = Gemm::new(&dims(&[2], &[0], &[1], &[1]), &f(&[3, 2, 4]), &f(&[4, 2, 5]), &f(&[2, 3, 5])).unwrap();
        assert_eq!(g.copies(), (false, false));
        // Free axes 0 and 2 of the lhs around a contracted axis 1: no single row stride.
        let g = Gemm::new(&dims(&[1], &[0], &[], &[]), &f(&[2, 4, 3]), &f(&[4, 5]), &f(&[2, 3, 5])).unwrap();
        assert_eq!(g.copies(), (true, false));
        assert_eq!(g.scratch_bytes(), (2 * 3 * 4 * 4_usize).div_ceil(64) * 64);
    }

    /// Runs `g` on deterministic operands with `threads`, returning the result.
    fn run_f32(g: &Gemm, lhs: &Type, rhs: &Type, out: &Type, threads: usize) -> Vec<f32> {
        let fill = |t: &Type, seed: usize| -> Vec<f32> {
            (0..t.element_count().unwrap()).map(|i| ((i * 7919 + seed * 104729) % 1999) as f32 / 999.5 - 1.0).collect()
        };
        let (a, b) = (fill(lhs, 1), fill(rhs, 2));
        let mut c = vec![f32::NAN; out.element_count().unwrap()];
        let mut scratch = vec![0u8; g.scratch_bytes()];
        // SAFETY: the buffers have the planned types and sizes.
        unsafe {
            g.run(
                a.as_ptr() as *const u8,
                b.as_ptr() as *const u8,
                c.as_mut_ptr() as *mut u8,
                scratch.as_mut_ptr(),
                threads,
            )
        };
        c
    }

    #[test]
    fn outer_products_match_the_interpreter() {
        let f = |s: &[usize]| Type::new(DType::F32, s);
        // Batched outer product [b,m] x [b,n] -> [b,m,n] (per-example weight gradients),
        // a transposed one, and an elementwise product [b] x [b,n].
        let cases = [
            (dims(&[], &[], &[0], &[0]), f(&[5, 3]), f(&[5, 7]), f(&[5, 3, 7])),
            (dims(&[], &[], &[1], &[0]), f(&[3, 5]), f(&[5, 7]), f(&[5, 3, 7])),
            (dims(&[], &[], &[0], &[0]), f(&[6]), f(&[6, 9]), f(&[6, 9])),
            (dims(&[1], &[0], &[], &[]), f(&[4, 1]), f(&[1, 6]), f(&[4, 6])),
        ];
        for (d, l, r, o) in cases {
            let g = Gemm::new(&d, &l, &r, &o).unwrap();
            assert_eq!(g.k, 1);
            let got = run_f32(&g, &l, &r, &o, 1);
            let fill = |t: &Type, seed: usize| {
                let n = t.element_count().unwrap();
                let v = (0..n).map(|i| ((i * 7919 + seed * 104729) % 1999) as f32 / 999.5 - 1.0).collect();
                ferrax_ir::Array::from_f32(&t.shape, v).unwrap()
            };
            let m = ferrax_ir::parse(&format!(
                "func @f(%a: {l}, %b: {r}) -> ({o}) {{\n  %c: {o} = dot_general[lhs_contract={:?}, rhs_contract={:?}, lhs_batch={:?}, rhs_batch={:?}](%a, %b)\n  return %c\n}}",
                d.lhs_contract, d.rhs_contract, d.lhs_batch, d.rhs_batch
            ))
            .unwrap();
            let want = ferrax_ir::eval(&m, "f", &[fill(&l, 1), fill(&r, 2)], &Default::default()).unwrap();
            let want = want[0].as_f32().unwrap();
            assert!(got.iter().zip(want).all(|(x, y)| x.to_bits() == y.to_bits()), "{l} {r}");
        }
    }

    #[test]
    fn split_outer_products_equal_one_thread() {
        // [4,256] x [4,256] -> [4,256,256]: large enough to be split by batches.
        let f = |s: &[usize]| Type::new(DType::F32, s);
        let (l, r, o) = (f(&[4, 256]), f(&[4, 256]), f(&[4, 256, 256]));
        let g = Gemm::new(&dims(&[], &[], &[0], &[0]), &l, &r, &o).unwrap();
        assert!(g.b * g.m * g.n >= super::GEMV_SPLIT);
        let (one, two) = (run_f32(&g, &l, &r, &o, 1), run_f32(&g, &l, &r, &o, 2));
        assert!(one.iter().zip(&two).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(one.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn alternate_runs_reverse_the_batch_order_and_change_no_result() {
        assert_eq!(Gemm::batch_order(2..6, false).collect::<Vec<_>>(), [2, 3, 4, 5]);
        assert_eq!(Gemm::batch_order(2..6, true).collect::<Vec<_>>(), [5, 4, 3, 2]);
        assert_eq!(Gemm::batch_order(3..3, true).count(), 0);
        let f = |s: &[usize]| Type::new(DType::F32, s);
        let (l, r, o) = (f(&[6, 40, 64]), f(&[6, 64, 1]), f(&[6, 40, 1]));
        let g = Gemm::new(&dims(&[2], &[1], &[0], &[0]), &l, &r, &o).unwrap();
        for threads in [1, 2] {
            let first = run_f32(&g, &l, &r, &o, threads);
            let second = run_f32(&g, &l, &r, &o, threads);
            assert!(first.iter().all(|x| x.is_finite()));
            assert!(first.iter().zip(&second).all(|(x, y)| x.to_bits() == y.to_bits()));
        }
        assert_eq!(g.runs.load(std::sync::atomic::Ordering::Relaxed), 4);
    }

    #[test]
    fn transposed_lhs_panels_match_the_direct_product() {
        let f = |s: &[usize]| Type::new(DType::F32, s);
        // xᵀ·dy shapes (the lhs contracted on its leading axis, so its rows are strided),
        // with sizes off the 16×16 blocks of the copy: one matrix, and a batch of two.
        let cases = [
            (dims(&[0], &[0], &[], &[]), f(&[1040, 600]), f(&[1040, 130]), f(&[600, 130])),
            (dims(&[1], &[1], &[0], &[0]), f(&[2, 1030, 520]), f(&[2, 1030, 70]), f(&[2, 520, 70])),
        ];
        for (d, l, r, o) in cases {
            let g = Gemm::new(&d, &l, &r, &o).unwrap();
            assert!(g.lhs_panels, "{l} {r}");
            let mut direct = Gemm::new(&d, &l, &r, &o).unwrap();
            direct.lhs_panels = false;
            let want = run_f32(&direct, &l, &r, &o, 1);
            for threads in [1, 2] {
                let got = run_f32(&g, &l, &r, &o, threads);
                for (i, (x, y)) in want.iter().zip(&got).enumerate() {
                    assert!((x - y).abs() <= 1e-4 * x.abs().max(1.0), "{l} {r} [{i}]: {x} vs {y}");
                }
            }
        }
        // Not for a row-major lhs, a result with as many columns as half its rows, or a
        // small lhs.
        let not = [
            (dims(&[1], &[0], &[], &[]), f(&[1024, 1024]), f(&[1024, 256]), f(&[1024, 256])),
            (dims(&[0], &[0], &[], &[]), f(&[1024, 1024]), f(&[1024, 600]), f(&[1024, 600])),
            (dims(&[0], &[0], &[], &[]), f(&[128, 784]), f(&[128, 64]), f(&[784, 64])),
        ];
        for (d, l, r, o) in not {
            assert!(!Gemm::new(&d, &l, &r, &o).unwrap().lhs_panels, "{l} {r}");
        }
    }

    #[test]
    fn split_runs_equal_one_thread() {
        let f = |s: &[usize]| Type::new(DType::F32, s);
        let cases = [
            // Columns (n >= m), the lhs transposed by stride.
            (dims(&[0], &[0], &[], &[]), f(&[200, 96]), f(&[200, 130]), f(&[96, 130]), Split::Cols(4)),
            // Rows (m > n).
            (dims(&[1], &[0], &[], &[]), f(&[300, 120]), f(&[120, 64]), f(&[300, 64]), Split::Rows(4)),
            // Whole batches.
            (dims(&[2], &[1], &[0], &[0]), f(&[3, 64, 200]), f(&[3, 200, 70]), f(&[3, 64, 70]), Split::Batches(3)),
            // Too small to split.
            (dims(&[1], &[0], &[], &[]), f(&[16, 16]), f(&[16, 16]), f(&[16, 16]), Split::None),
            // A matrix-vector product splits from a smaller size than a GEMM.
            (dims(&[1], &[0], &[], &[]), f(&[512, 512]), f(&[512, 1]), f(&[512, 1]), Split::Rows(4)),
            // A batched matrix-vector product: one block of batches per thread.
            (dims(&[2], &[1], &[0], &[0]), f(&[8, 96, 400]), f(&[8, 400, 1]), f(&[8, 96, 1]), Split::Batches(2)),
        ];
        for (d, l, r, o, split) in cases {
            let g = Gemm::new(&d, &l, &r, &o).unwrap();
            let expect = if crate::pool::Pool::global().workers() == 0 { Split::None } else { split };
            assert_eq!(g.split(2), expect, "{l} {r}");
            assert_eq!(g.split(1), Split::None);
            let one = run_f32(&g, &l, &r, &o, 1);
            let two = run_f32(&g, &l, &r, &o, 2);
            assert!(one.iter().all(|x| x.is_finite()));
            for (i, (x, y)) in one.iter().zip(&two).enumerate() {
                assert!((x - y).abs() <= 1e-5 * x.abs().max(1.0), "{l} {r} [{i}]: {x} vs {y}");
            }
        }
    }
}
