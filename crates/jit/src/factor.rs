//! Host routines of the factorisations and solves (`cholesky`, `triangular_solve`,
//! `eigh`, `lu`, `qr`, `svd`): faer's blocked Cholesky, triangular solves, self-adjoint
//! eigendecomposition, LU with partial pivoting (in `factor/lu.rs`), Householder QR and
//! SVD on each matrix of the batch, in the operands' dtype, called from an opaque step of
//! the schedule as the GEMM is.
//!
//! Semantics are the primitives' (`ferrax_ir::prim::LinalgOp`): only the lower triangle
//! of a `cholesky` operand is read (it is copied into the result, which faer factors in
//! place), the factor's upper triangle is zero, and a matrix faer finds not positive
//! definite gives NaN on and below the diagonal. A solve reads one triangle of `a`
//! through a (possibly transposed) view, and a right-side solve `x·op(a) = b` is the
//! left-side solve `op(a)ᵀ·xᵀ = bᵀ` on transposed views, so nothing is copied. `eigh`
//! reads the chosen triangle, returns faer's ascending eigenvalues, and fixes each
//! eigenvector's sign by the interpreter's rule (`ferrax_ir::prim::eigh_pivot`). `qr`
//! is faer's blocked Householder QR (`q` formed by applying the reflectors to the
//! identity's columns), whose reflectors have LAPACK's signs as the interpreter's do.
//! `svd` takes faer's thin decomposition (both sequential, `Par::Seq`, like the
//! Cholesky factor) (in f64 from there on) and hands it to the
//! interpreter's own `ferrax_ir::prim::svd_canonical`, which fixes the vectors' signs
//! and completes a full `u` or `vt` exactly as the reference does. The
//! results differ from the reference interpreter's (which works in f64) in the last bits:
//! the property table marks these primitives inexact.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::householder;
use faer::linalg::qr::no_pivoting::factor as qr_factor;
use faer::linalg::svd::{self, ComputeSvdVectors};
use faer::linalg::triangular_solve as tri;
use faer::mat::{MatMut, MatRef};
use faer::traits::RealField;
use faer::{Mat, Par};
use ferrax_ir::DType;
use ferrax_ir::prim::TriSolve;

mod lu;
pub(crate) use lu::Lu;

/// One `cholesky`: `batch` matrices of `n`×`n`.
#[derive(Clone, Debug)]
pub(crate) struct Factor {
    pub dtype: DType,
    pub batch: usize,
    pub n: usize,
}

/// One `triangular_solve`: `batch` systems of an `m`×`m` matrix and a `rows`×`cols`
/// right-hand side.
#[derive(Clone, Debug)]
pub(crate) struct Solve {
    pub dtype: DType,
    pub p: TriSolve,
    pub batch: usize,
    pub m: usize,
    pub rows: usize,
    pub cols: usize,
}

/// One `eigh`: `batch` symmetric `n`×`n` matrices read from one triangle.
#[derive(Clone, Debug)]
pub(crate) struct Eig {
    pub dtype: DType,
    pub lower: bool,
    pub batch: usize,
    pub n: usize,
}

impl Eig {
    /// Decomposes `a` into `v` (eigenvectors as columns) and `w` (ascending).
    ///
    /// # Safety
    /// `a` and `v` hold `batch·n·n` elements of the dtype, `w` `batch·n`; none overlap.
    pub(crate) unsafe fn run(&self, a: *const u8, v: *mut u8, w: *mut u8) -> Result<(), String> {
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(a.cast(), v.cast(), w.cast()),
                DType::F64 => self.float::<f64>(a.cast(), v.cast(), w.cast()),
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => {
                    return Err(format!("eigh: {} operand", self.dtype));
                }
            }
        }
        Ok(())
    }

    unsafe fn float<T: RealField + Copy + Into<f64> + std::ops::Neg<Output = T>>(
        &self,
        a: *const T,
        v: *mut T,
        w: *mut T,
    ) {
        let n = self.n;
        if n == 0 {
            return;
        }
        let side = if self.lower { faer::Side::Lower } else { faer::Side::Upper };
        for b in 0..self.batch {
            // SAFETY: matrix b of each buffer is in bounds (the caller's contract).
            let (src, vb, wb) = unsafe { (a.add(b * n * n), v.add(b * n * n), w.add(b * n)) };
            // SAFETY: a row-major n×n matrix.
            let m = unsafe { MatRef::from_raw_parts(src, n, n, n as isize, 1) };
            let wide = |x: T| -> f64 { x.into() };
            let finite = (0..n).all(|i| (0..n).all(|j| wide(m[(i, j)]).is_finite()));
            let eigen = if finite { m.self_adjoint_eigen(side).ok() } else { None };
            let Some(e) = eigen else {
                for k in 0..n * n {
                    // SAFETY: k < n·n; the same for w below.
                    unsafe { vb.add(k).write(T::nan_impl()) };
                }
                (0..n).for_each(|k| unsafe { wb.add(k).write(T::nan_impl()) });
                continue;
            };
            let (u, s) = (e.U(), e.S().column_vector());
            for k in 0..n {
                // SAFETY: k < n.
                unsafe { wb.add(k).write(s[k]) };
                let negate = ferrax_ir::prim::eigh_pivot(n, |r| wide(u[(r, k)])) < 0.0;
                for r in 0..n {
                    let x = if negate { -u[(r, k)] } else { u[(r, k)] };
                    // SAFETY: r, k < n.
                    unsafe { vb.add(r * n + k).write(x) };
                }
            }
        }
    }
}

/// One `qr`: `batch` matrices of `m`×`n`.
#[derive(Clone, Debug)]
pub(crate) struct Qr {
    pub dtype: DType,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub full: bool,
}

impl Qr {
    /// Factors `a` into `q` and `r`.
    ///
    /// # Safety
    /// `a` holds `batch·m·n` elements of the dtype, `q` and `r` the elements of the
    /// primitive's result types; none overlap.
    pub(crate) unsafe fn run(&self, a: *const u8, q: *mut u8, r: *mut u8) -> Result<(), String> {
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(a.cast(), q.cast(), r.cast()),
                DType::F64 => self.float::<f64>(a.cast(), q.cast(), r.cast()),
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => {
                    return Err(format!("qr: {} operand", self.dtype));
                }
            }
        }
        Ok(())
    }

    unsafe fn float<T: RealField + Copy>(&self, a: *const T, q: *mut T, r: *mut T) {
        let (m, n) = (self.m, self.n);
        let k = m.min(n);
        let (q_cols, r_rows) = if self.full { (m, m) } else { (k, k) };
        for b in 0..self.batch {
            // SAFETY: matrix b of each buffer is in bounds (the caller's contract).
            let (src, qb, rb) = unsafe { (a.add(b * m * n), q.add(b * m * q_cols), r.add(b * r_rows * n)) };
            // SAFETY: a row-major m×n matrix.
            let x = unsafe { MatRef::from_raw_parts(src, m, n, n as isize, 1) };
            let (q_mat, r_mat) = householder_qr(x, q_cols);
            for i in 0..m {
                for j in 0..q_cols {
                    // SAFETY: i < m, j < q_cols.
                    unsafe { qb.add(i * q_cols + j).write(q_mat[(i, j)]) };
                }
            }
            for i in 0..r_rows {
                for j in 0..n {
                    let value = if i < k && j >= i { r_mat[(i, j)] } else { T::zero_impl() };
                    // SAFETY: i < r_rows, j < n.
                    unsafe { rb.add(i * n + j).write(value) };
                }
            }
        }
    }
}

/// faer's Householder QR of `x` (sequential): the first `q_cols` columns of `q` and the
/// factored matrix, whose upper triangle (first `min(m, n)` rows) is `r`.
fn householder_qr<T: RealField + Copy>(x: MatRef<'_, T>, q_cols: usize) -> (Mat<T>, Mat<T>) {
    let (m, n) = (x.nrows(), x.ncols());
    let k = m.min(n);
    let mut factored = x.to_owned();
    let mut q = Mat::<T>::identity(m, q_cols);
    if k == 0 {
        return (q, factored);
    }
    let block = qr_factor::recommended_block_size::<T>(m, n);
    let mut coeff = Mat::<T>::zeros(block, k);
    let scratch = qr_factor::qr_in_place_scratch::<T>(m, n, block, Par::Seq, Default::default())
        .or(householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<T>(m, block, q_cols));
    let mut mem = MemBuffer::new(scratch);
    qr_factor::qr_in_place(factored.as_mut(), coeff.as_mut(), Par::Seq, MemStack::new(&mut mem), Default::default());
    // The reflectors' basis: the factored matrix's strict lower part with a unit diagonal.
    let basis = Mat::<T>::from_fn(m, k, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Greater => factored[(i, j)],
        std::cmp::Ordering::Equal => T::one_impl(),
        std::cmp::Ordering::Less => T::zero_impl(),
    });
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        basis.as_ref(),
        coeff.as_ref(),
        faer::Conj::No,
        q.as_mut(),
        Par::Seq,
        MemStack::new(&mut mem),
    );
    (q, factored)
}

/// One `svd`: `batch` matrices of `m`×`n`.
#[derive(Clone, Debug)]
pub(crate) struct Svd {
    pub dtype: DType,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub p: ferrax_ir::prim::Svd,
}

impl Svd {
    /// Decomposes `a` into `outs`: `[u, s, vt]`, or `[s]` without `compute_uv`.
    ///
    /// # Safety
    /// `a` holds `batch·m·n` elements of the dtype and each of `outs` the elements of
    /// the primitive's result type; none overlap.
    pub(crate) unsafe fn run(&self, a: *const u8, outs: &[*mut u8]) -> Result<(), String> {
        let want = if self.p.compute_uv { 3 } else { 1 };
        if outs.len() != want {
            return Err(format!("svd: {} results, expected {want}", outs.len()));
        }
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(a.cast(), outs),
                DType::F64 => self.float::<f64>(a.cast(), outs),
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => {
                    return Err(format!("svd: {} operand", self.dtype));
                }
            }
        }
        Ok(())
    }

    unsafe fn float<T: RealField + Copy + Into<f64>>(&self, a: *const T, outs: &[*mut u8]) {
        let (m, n) = (self.m, self.n);
        let k = m.min(n);
        let full = self.p.full_matrices;
        let (u_cols, v_rows) = if full { (m, n) } else { (k, k) };
        let wide = |x: T| -> f64 { x.into() };
        for b in 0..self.batch {
            // SAFETY: matrix b is in bounds; a row-major m×n matrix.
            let x = unsafe { MatRef::from_raw_parts(a.add(b * m * n), m, n, n as isize, 1) };
            let finite = (0..m).all(|i| (0..n).all(|j| wide(x[(i, j)]).is_finite()));
            let (u, s, v) = match (finite, k) {
                (_, 0) => (Vec::new(), Vec::new(), Vec::new()),
                (true, _) => thin_svd(x, self.p.compute_uv).unwrap_or_else(|| nans(m, n)),
                (false, _) => nans(m, n),
            };
            let write = |out: *mut u8, at: usize, values: &[f64]| {
                let out: *mut T = out.cast();
                for (i, &value) in values.iter().enumerate() {
                    // SAFETY: block b of the result holds values.len() elements.
                    unsafe { out.add(at * values.len() + i).write(T::from_f64_impl(value)) };
                }
            };
            if !self.p.compute_uv {
                write(outs[0], b, &s);
                continue;
            }
            let (u, vt) = if finite || k == 0 {
                ferrax_ir::prim::svd_canonical(m, n, u, v, full)
            } else {
                (vec![f64::NAN; m * u_cols], vec![f64::NAN; v_rows * n])
            };
            write(outs[0], b, &u);
            write(outs[1], b, &s);
            write(outs[2], b, &vt);
        }
    }
}

/// NaN factors of an `m`×`n` matrix (thin `u`, `s`, `v`).
fn nans(m: usize, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let k = m.min(n);
    (vec![f64::NAN; m * k], vec![f64::NAN; k], vec![f64::NAN; n * k])
}

/// faer's thin SVD of `x` (`k > 0`) in f64, columns ordered by descending singular
/// value: row-major `u` (`m`×`k`), `s`, `v` (`n`×`k`), the vectors only when asked for.
fn thin_svd<T: RealField + Copy + Into<f64>>(
    x: MatRef<'_, T>,
    vectors: bool,
) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let (m, n) = (x.nrows(), x.ncols());
    let wide = |x: T| -> f64 { x.into() };
    let k = m.min(n);
    let want = if vectors { ComputeSvdVectors::Thin } else { ComputeSvdVectors::No };
    let mut mem = MemBuffer::new(svd::svd_scratch::<T>(m, n, want, want, Par::Seq, Default::default()));
    let mut sd = Diag::<T>::zeros(k);
    let (mut uf, mut vf) = (Mat::<T>::zeros(m, k), Mat::<T>::zeros(n, k));
    let (u_out, v_out) = if vectors { (Some(uf.as_mut()), Some(vf.as_mut())) } else { (None, None) };
    svd::svd(x, sd.as_mut(), u_out, v_out, Par::Seq, MemStack::new(&mut mem), Default::default()).ok()?;
    let sf = sd.column_vector();
    if !vectors {
        let mut s: Vec<f64> = (0..k).map(|c| wide(sf[c])).collect();
        s.sort_by(|a, b| b.total_cmp(a));
        return Some((Vec::new(), s, Vec::new()));
    }
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&i, &j| wide(sf[j]).total_cmp(&wide(sf[i])));
    let s = order.iter().map(|&c| wide(sf[c])).collect();
    let (uf, vf) = (uf.as_ref(), vf.as_ref());
    let u = (0..m).flat_map(|i| order.iter().map(move |&c| wide(uf[(i, c)]))).collect();
    let v = (0..n).flat_map(|i| order.iter().map(move |&c| wide(vf[(i, c)]))).collect();
    Some((u, s, v))
}

impl Factor {
    /// Factors `a` into `out`.
    ///
    /// # Safety
    /// `a` and `out` hold `batch·n·n` elements of the dtype and do not overlap.
    pub(crate) unsafe fn run(&self, a: *const u8, out: *mut u8) -> Result<(), String> {
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(a.cast(), out.cast()),
                DType::F64 => self.float::<f64>(a.cast(), out.cast()),
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => {
                    return Err(format!("cholesky: {} operand", self.dtype));
                }
            }
        }
        Ok(())
    }

    unsafe fn float<T: RealField + Copy>(&self, a: *const T, out: *mut T) {
        let n = self.n;
        if n == 0 {
            return;
        }
        let mut mem = MemBuffer::new(cholesky_in_place_scratch::<T>(n, faer::Par::Seq, Default::default()));
        for b in 0..self.batch {
            // SAFETY: matrix b of each buffer is in bounds (the caller's contract).
            let (src, dst) = unsafe { (a.add(b * n * n), out.add(b * n * n)) };
            for i in 0..n {
                for j in 0..n {
                    // SAFETY: i, j < n.
                    unsafe {
                        dst.add(i * n + j).write(if j <= i { src.add(i * n + j).read() } else { T::zero_impl() })
                    };
                }
            }
            // SAFETY: dst is a row-major n×n matrix no other view aliases.
            let l = unsafe { MatMut::from_raw_parts_mut(dst, n, n, n as isize, 1) };
            let stack = MemStack::new(&mut mem);
            let ok = cholesky_in_place(l, Default::default(), faer::Par::Seq, stack, Default::default()).is_ok();
            for i in 0..n {
                for j in 0..n {
                    let value = match (j > i, ok) {
                        (true, _) => T::zero_impl(),
                        (false, true) => continue,
                        (false, false) => T::nan_impl(),
                    };
                    // SAFETY: i, j < n.
                    unsafe { dst.add(i * n + j).write(value) };
                }
            }
        }
    }
}

impl Solve {
    /// Solves into `out` (a copy of `b` solved in place).
    ///
    /// # Safety
    /// `a` holds `batch·m·m` elements, `b` and `out` `batch·rows·cols`; `out` overlaps
    /// neither.
    pub(crate) unsafe fn run(&self, a: *const u8, b: *const u8, out: *mut u8) -> Result<(), String> {
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(a.cast(), b.cast(), out.cast()),
                DType::F64 => self.float::<f64>(a.cast(), b.cast(), out.cast()),
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => {
                    return Err(format!("triangular_solve: {} operand", self.dtype));
                }
            }
        }
        Ok(())
    }

    unsafe fn float<T: RealField + Copy>(&self, a: *const T, b: *const T, out: *mut T) {
        let (m, rows, cols) = (self.m, self.rows, self.cols);
        // SAFETY: out and b hold batch·rows·cols elements and do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(b, out, self.batch * rows * cols) };
        if m == 0 || rows * cols == 0 {
            return;
        }
        let p = self.p;
        for k in 0..self.batch {
            // SAFETY: system k of each buffer is in bounds; the views are row-major.
            let (am, x) = unsafe {
                (
                    MatRef::from_raw_parts(a.add(k * m * m), m, m, m as isize, 1),
                    MatMut::from_raw_parts_mut(out.add(k * rows * cols), rows, cols, cols as isize, 1),
                )
            };
            let op_a = if p.transpose_a { am.transpose() } else { am };
            let op_lower = p.lower != p.transpose_a;
            // x·op(a) = b is op(a)ᵀ·xᵀ = bᵀ.
            let (t, lower, x) =
                if p.left_side { (op_a, op_lower, x) } else { (op_a.transpose(), !op_lower, x.transpose_mut()) };
            match (lower, p.unit_diagonal) {
                (true, false) => tri::solve_lower_triangular_in_place(t, x, faer::Par::Seq),
                (true, true) => tri::solve_unit_lower_triangular_in_place(t, x, faer::Par::Seq),
                (false, false) => tri::solve_upper_triangular_in_place(t, x, faer::Par::Seq),
                (false, true) => tri::solve_unit_upper_triangular_in_place(t, x, faer::Par::Seq),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Eig, Factor, Qr, Solve, Svd};
    use ferrax_ir::prim::{Eigh, LinalgOp, Prim, TriSolve};
    use ferrax_ir::{Array, DType, EvalOptions, Func, Module, Type};

    /// The interpreter's result of `prim` on `args`.
    fn interp(prim: Prim, args: &[Array], out: Type) -> Array {
        let mut f = Func::new("f");
        let params: Vec<_> = args.iter().map(|a| f.new_value(Type::new(a.dtype(), a.shape()))).collect();
        let r = f.new_value(out.clone());
        f.params = params.clone();
        f.results = vec![r];
        f.result_types = vec![out];
        f.eqns.push(ferrax_ir::Eqn {
            prim,
            inputs: params.into_iter().collect(),
            outputs: [r].into_iter().collect(),
            loc: None,
        });
        let mut m = Module::new();
        m.push(f);
        ferrax_ir::eval(&m, "f", args, &EvalOptions::default()).unwrap().remove(0)
    }

    /// Deterministic values in [-1, 1], with `boost` added on the diagonal of each
    /// trailing `n`×`n` matrix (well conditioned, and positive definite once symmetric).
    fn values(shape: &[usize], seed: u64, boost: f64) -> Vec<f64> {
        let n = shape[shape.len() - 1];
        let count: usize = shape.iter().product();
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..count)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let x = (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                let (r, c) = (i / n % shape[shape.len() - 2], i % n);
                if r == c { x + boost } else { x }
            })
            .collect()
    }

    fn array(dtype: DType, shape: &[usize], v: Vec<f64>) -> Array {
        match dtype {
            DType::F32 => Array::from_f32(shape, v.into_iter().map(|x| x as f32).collect()).unwrap(),
            _ => Array::from_f64(shape, v).unwrap(),
        }
    }

    fn close(a: &Array, b: &Array, tol: f64) -> bool {
        a.to_f64_vec()
            .iter()
            .zip(b.to_f64_vec())
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()) || (x.is_nan() && y.is_nan()))
    }

    /// Runs `f` on raw copies of `ins` into a fresh result of `out`'s type.
    fn raw(ins: &[&Array], out: &Type, f: impl FnOnce(&[*mut u8], *mut u8)) -> Array {
        let bytes = |t: &Type| t.element_count().unwrap() * t.dtype.size_bytes();
        let mut bufs: Vec<Vec<u8>> = ins.iter().map(|a| vec![0u8; bytes(&Type::new(a.dtype(), a.shape()))]).collect();
        for (a, b) in ins.iter().zip(&mut bufs) {
            // SAFETY: the buffer holds the array's bytes.
            unsafe { crate::exec::buf::write_array(a, b.as_mut_ptr()) };
        }
        let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
        let mut o = vec![0u8; bytes(out)];
        f(&ptrs, o.as_mut_ptr());
        // SAFETY: `o` holds a value of type `out`.
        unsafe { crate::exec::buf::read_array(o.as_ptr(), out) }.unwrap()
    }

    #[test]
    fn faer_factors_like_the_interpreter() {
        for dtype in [DType::F32, DType::F64] {
            let tol = if dtype == DType::F32 { 1e-5 } else { 1e-12 };
            for (batch, n) in [(1, 1), (3, 4), (2, 17)] {
                let shape = [batch, n, n];
                let a = array(dtype, &shape, values(&shape, n as u64, 2.0 * n as f64));
                let ty = Type::new(dtype, &shape);
                let want = interp(Prim::Linalg(LinalgOp::Cholesky), std::slice::from_ref(&a), ty.clone());
                let f = Factor { dtype, batch, n };
                // SAFETY: the buffers hold the types the routine was made for.
                let got = raw(&[&a], &ty, |ins, out| unsafe { f.run(ins[0], out) }.unwrap());
                assert!(close(&got, &want, tol), "{dtype} {shape:?}\n{got:?}\n{want:?}");
            }
            // Not positive definite: NaN on and below the diagonal, zero above.
            let a = array(dtype, &[2, 2], vec![1.0, 2.0, 2.0, 1.0]);
            let ty = Type::new(dtype, &[2, 2]);
            let f = Factor { dtype, batch: 1, n: 2 };
            // SAFETY: as above.
            let got = raw(&[&a], &ty, |ins, out| unsafe { f.run(ins[0], out) }.unwrap()).to_f64_vec();
            assert!(got[0].is_nan() && got[1] == 0.0 && got[2].is_nan() && got[3].is_nan(), "{got:?}");
        }
    }

    #[test]
    fn faer_solves_every_variant_like_the_interpreter() {
        for dtype in [DType::F32, DType::F64] {
            let tol = if dtype == DType::F32 { 1e-4 } else { 1e-11 };
            for bits in 0..16u8 {
                let p = TriSolve {
                    left_side: bits & 1 != 0,
                    lower: bits & 2 != 0,
                    transpose_a: bits & 4 != 0,
                    unit_diagonal: bits & 8 != 0,
                };
                let (batch, m, k) = (2, 5, 3);
                let a = array(dtype, &[batch, m, m], values(&[batch, m, m], u64::from(bits), 4.0));
                let bs = if p.left_side { [batch, m, k] } else { [batch, k, m] };
                let b = array(dtype, &bs, values(&bs, 99, 0.0));
                let ty = Type::new(dtype, &bs);
                let want = interp(Prim::Linalg(LinalgOp::TriangularSolve(p)), &[a.clone(), b.clone()], ty.clone());
                let (rows, cols) = (bs[1], bs[2]);
                let s = Solve { dtype, p, batch, m, rows, cols };
                // SAFETY: the buffers hold the types the routine was made for.
                let got = raw(&[&a, &b], &ty, |ins, out| unsafe { s.run(ins[0], ins[1], out) }.unwrap());
                assert!(close(&got, &want, tol), "{dtype} {p:?}\n{got:?}\n{want:?}");
            }
        }
    }

    /// The interpreter's results of the one-operand `prim` on `a` (also the
    /// reference of `factor/lu.rs`'s tests).
    pub(super) fn interp_all(prim: Prim, a: &Array) -> Vec<Array> {
        let ty = Type::new(a.dtype(), a.shape());
        let outs = prim.infer(std::slice::from_ref(&ty), &Module::new()).unwrap();
        let mut f = Func::new("f");
        let x = f.new_value(ty);
        let results: Vec<_> = outs.iter().map(|t| f.new_value(t.clone())).collect();
        f.params = vec![x];
        f.results = results.clone();
        f.result_types = outs;
        f.eqns.push(ferrax_ir::Eqn {
            prim,
            inputs: [x].into_iter().collect(),
            outputs: results.into_iter().collect(),
            loc: None,
        });
        let mut m = Module::new();
        m.push(f);
        ferrax_ir::eval(&m, "f", std::slice::from_ref(a), &EvalOptions::default()).unwrap()
    }

    /// Runs `f` on a raw copy of `a` into fresh results of `outs`' types.
    fn raw_all(a: &Array, outs: &[Type], f: impl FnOnce(*mut u8, &[*mut u8])) -> Vec<Array> {
        let bytes = |t: &Type| t.element_count().unwrap() * t.dtype.size_bytes();
        let mut input = vec![0u8; bytes(&Type::new(a.dtype(), a.shape()))];
        // SAFETY: the buffer holds the array's bytes.
        unsafe { crate::exec::buf::write_array(a, input.as_mut_ptr()) };
        let mut bufs: Vec<Vec<u8>> = outs.iter().map(|t| vec![0u8; bytes(t)]).collect();
        let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
        f(input.as_mut_ptr(), &ptrs);
        // SAFETY: each buffer holds a value of its type.
        bufs.iter().zip(outs).map(|(b, t)| unsafe { crate::exec::buf::read_array(b.as_ptr(), t) }.unwrap()).collect()
    }

    #[test]
    fn faer_qr_and_svd_like_the_interpreter() {
        for dtype in [DType::F32, DType::F64] {
            let tol = if dtype == DType::F32 { 1e-4 } else { 1e-10 };
            // 40×30 and 30×40 run faer's blocked Householder code (blocks of 8 reflectors).
            for (batch, m, n) in [(2, 5, 3), (1, 3, 5), (2, 4, 4), (1, 3, 0), (1, 1, 1), (1, 40, 30), (1, 30, 40)] {
                // Dominant diagonal entries 1, 3, 5, ...: distinct singular values.
                let mut vals = values(&[batch, m, n], (m * 7 + n) as u64, 0.0);
                for (i, x) in vals.iter_mut().enumerate() {
                    let (r, c) = (i / n.max(1) % m, i % n.max(1));
                    *x = if r == c { 2.0 * r as f64 + 1.0 } else { 0.2 * *x };
                }
                let a = array(dtype, &[batch, m, n], vals);
                let ty = Type::new(dtype, &[batch, m, n]);
                for full in [true, false] {
                    let prim = Prim::Linalg(LinalgOp::Qr(ferrax_ir::prim::Qr { full_matrices: full }));
                    let outs = prim.infer(std::slice::from_ref(&ty), &Module::new()).unwrap();
                    let want = interp_all(prim, &a);
                    let q = Qr { dtype, batch, m, n, full };
                    // SAFETY: the buffers hold the types the routine was made for.
                    let got = raw_all(&a, &outs, |x, o| unsafe { q.run(x, o[0], o[1]) }.unwrap());
                    for (g, w) in got.iter().zip(&want) {
                        assert!(close(g, w, tol), "qr {dtype} {m}x{n} full={full}\n{g:?}\n{w:?}");
                    }
                    for uv in [true, false] {
                        let p = ferrax_ir::prim::Svd { full_matrices: full, compute_uv: uv };
                        let prim = Prim::Linalg(LinalgOp::Svd(p));
                        let outs = prim.infer(std::slice::from_ref(&ty), &Module::new()).unwrap();
                        let want = interp_all(prim, &a);
                        let s = Svd { dtype, batch, m, n, p };
                        // SAFETY: as above.
                        let got = raw_all(&a, &outs, |x, o| unsafe { s.run(x, o) }.unwrap());
                        for (g, w) in got.iter().zip(&want) {
                            assert!(close(g, w, tol), "svd {dtype} {m}x{n} {p:?}\n{g:?}\n{w:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn faer_decomposes_like_the_interpreter() {
        for dtype in [DType::F32, DType::F64] {
            let tol = if dtype == DType::F32 { 1e-4 } else { 1e-10 };
            for lower in [true, false] {
                // Separated eigenvalues: a diagonal 1, 3, 5, ... with small off-diagonal noise.
                let (batch, n) = (3, 6);
                let mut vals = values(&[batch, n, n], u64::from(lower), 0.0);
                for (i, x) in vals.iter_mut().enumerate() {
                    let (r, c) = (i / n % n, i % n);
                    *x = if r == c { 2.0 * r as f64 + 1.0 } else { 0.1 * *x };
                }
                let a = array(dtype, &[batch, n, n], vals);
                let p = Eigh { lower, sort_eigenvalues: true };
                let want = {
                    let mut f = Func::new("f");
                    let x = f.new_value(Type::new(dtype, &[batch, n, n]));
                    let (v, w) =
                        (f.new_value(Type::new(dtype, &[batch, n, n])), f.new_value(Type::new(dtype, &[batch, n])));
                    f.params = vec![x];
                    f.results = vec![v, w];
                    f.result_types = vec![Type::new(dtype, &[batch, n, n]), Type::new(dtype, &[batch, n])];
                    let prim = Prim::Linalg(LinalgOp::Eigh(p));
                    f.eqns.push(ferrax_ir::Eqn {
                        prim,
                        inputs: [x].into_iter().collect(),
                        outputs: [v, w].into_iter().collect(),
                        loc: None,
                    });
                    let mut m = Module::new();
                    m.push(f);
                    ferrax_ir::eval(&m, "f", std::slice::from_ref(&a), &EvalOptions::default()).unwrap()
                };
                let e = Eig { dtype, lower, batch, n };
                let wty = Type::new(dtype, &[batch, n]);
                let mut w_out = None;
                let v = raw(&[&a], &Type::new(dtype, &[batch, n, n]), |ins, out| {
                    let mut w = vec![0u8; batch * n * dtype.size_bytes()];
                    // SAFETY: the buffers hold the types the routine was made for.
                    unsafe { e.run(ins[0], out, w.as_mut_ptr()) }.unwrap();
                    // SAFETY: `w` holds a value of type `wty`.
                    w_out = Some(unsafe { crate::exec::buf::read_array(w.as_ptr(), &wty) }.unwrap());
                });
                let w = w_out.unwrap();
                assert!(
                    close(&w, &want[1], tol) && close(&v, &want[0], tol),
                    "{dtype} lower={lower}\n{v:?}\n{:?}",
                    want[0]
                );
            }
        }
    }
}
