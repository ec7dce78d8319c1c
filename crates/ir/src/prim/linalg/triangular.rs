//! `cholesky` and `triangular_solve`, with `jax.lax.linalg`'s semantics: leading axes are
//! batch axes, the last two a square matrix (or, for the solve's right-hand side, a
//! matrix of as many rows or columns as it has). f32 and f64 only, as in JAX.
//!
//! - `cholesky(a)` reads the lower triangle of `a` and returns the lower factor `L`
//!   (`a = L·Lᵀ`) with the upper triangle zero. A matrix that is not positive definite
//!   gives NaNs on and below the diagonal (that batch element only), as JAX does, not
//!   an error.
//! - `triangular_solve[left_side, lower, transpose_a, unit_diagonal](a, b)` solves
//!   `op(a)·x = b` (`left_side`) or `x·op(a) = b`, where `op(a)` is `a` or `aᵀ`
//!   (`transpose_a`) and `a` is read in its `lower` (or upper) triangle only, its
//!   diagonal taken as ones when `unit_diagonal`. Linear in `b`.
//!
//! The reference evaluation computes in f64 (and rounds an f32 result once), so it is at
//! least as accurate as a backend working in the operands' dtype.
//!
//! Derivatives, as JAX defines them: the jvp of the solve is `op(a)⁻¹·(db − op(da)·x)`
//! (or `(db − x·op(da))·op(a)⁻¹`), with `da` first restricted to the triangle the solve
//! reads; its transpose in `b` is the solve with `op(a)` transposed. The jvp of
//! `cholesky` first rebuilds the symmetric tangent from its lower triangle
//! (`S = tril(da) + tril(da, −1)ᵀ`, so finite differences in symmetric directions agree
//! with it), then `dL = L·Φ(L⁻¹·S·L⁻ᵀ)`, Φ taking the lower triangle with its diagonal
//! halved (Murray 2016).

use super::{DotDims, LinalgOp};
use crate::emit::add_optional;
use crate::prim::ad::LinearIn;
use crate::prim::elements::{array, bad_dtype};
use crate::prim::expect_arity;
use crate::{Emitter, Prim, Type, Value};
use ferrax_array::{Array, DType, Data};

/// The parameters of a `triangular_solve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TriSolve {
    /// Solve `x·op(a) = b` when false (the default), `op(a)·x = b` when true.
    pub left_side: bool,
    /// Read the lower triangle of `a` (else the upper one).
    pub lower: bool,
    /// `op(a) = aᵀ` (else `a`).
    pub transpose_a: bool,
    /// Take the diagonal of `a` as ones (it is not read).
    pub unit_diagonal: bool,
}

impl TriSolve {
    /// The same solve with `op(a)` transposed (the transpose rule in `b`).
    fn transposed(self) -> TriSolve {
        TriSolve { transpose_a: !self.transpose_a, ..self }
    }
}

// ---- type rules ----

/// The square matrix operand `a` of `op`: f32/f64, rank ≥ 2, the last two axes equal.
pub(super) fn square(op: &str, a: &Type) -> Result<usize, String> {
    if !matches!(a.dtype, DType::F32 | DType::F64) {
        return Err(format!("{op}: expects f32 or f64 matrices (no 16-bit floats, as in JAX), got {a}"));
    }
    let r = a.rank();
    if r < 2 || a.shape[r - 1] != a.shape[r - 2] {
        return Err(format!("{op}: expects square matrices in the last two axes (rank ≥ 2), got {a}"));
    }
    Ok(a.shape[r - 1])
}

/// The type rule of `cholesky`: the operand's type.
pub(crate) fn infer_cholesky(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("cholesky", inputs, 1)?;
    square("cholesky", &inputs[0])?;
    Ok(vec![inputs[0].clone()])
}

/// The type rule of `triangular_solve`: `b`'s type, after checking that `a` is square,
/// that both have one dtype and the same batch axes, and that `b` has `a`'s size in its
/// second-to-last (`left_side`) or last axis.
pub(crate) fn infer_triangular_solve(p: &TriSolve, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "triangular_solve";
    expect_arity(op, inputs, 2)?;
    let (a, b) = (&inputs[0], &inputs[1]);
    let m = square(op, a)?;
    if a.dtype != b.dtype || a.rank() != b.rank() {
        return Err(format!("{op}: a and b must have one dtype and rank, got a: {a} and b: {b}"));
    }
    let r = a.rank();
    if a.shape[..r - 2] != b.shape[..r - 2] {
        return Err(format!("{op}: a and b must have the same batch axes, got a: {a} and b: {b}"));
    }
    let (axis, side) =
        if p.left_side { (r - 2, "rows (left_side=true)") } else { (r - 1, "columns (left_side=false)") };
    if b.shape[axis] != m {
        return Err(format!("{op}: b must have {m} {side} to match a: {a}, got b: {b}"));
    }
    Ok(vec![b.clone()])
}

// ---- evaluation ----

/// The operand's elements in f64 (the dtypes the type rules admit).
fn wide(op: &str, x: &Array) -> Result<Vec<f64>, String> {
    match x.data() {
        Data::F32(v) => Ok(v.iter().map(|&e| f64::from(e)).collect()),
        Data::F64(v) => Ok(v.clone()),
        Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) => Err(bad_dtype(op, x.dtype())),
    }
}

/// `values` as an array of `like`'s dtype and shape (f32 rounded once).
fn narrow(like: &Array, values: Vec<f64>) -> Result<Array, String> {
    let data = match like.dtype() {
        DType::F32 => Data::F32(values.into_iter().map(|v| v as f32).collect()),
        _ => Data::F64(values),
    };
    array(like.shape(), data)
}

/// Evaluates `cholesky` (see the module docs).
pub(crate) fn eval_cholesky(a: &Array) -> Result<Array, String> {
    let n = *a.shape().last().ok_or("cholesky: expects a matrix")?;
    let x = wide("cholesky", a)?;
    let mut out = vec![0.0; x.len()];
    if n > 0 {
        for (src, dst) in x.chunks_exact(n * n).zip(out.chunks_exact_mut(n * n)) {
            factor(src, dst, n);
        }
    }
    narrow(a, out)
}

/// The lower Cholesky factor of the `n`×`n` matrix `a` (its lower triangle) into `l`
/// (zeroed above the diagonal), or NaNs when a pivot is not positive.
fn factor(a: &[f64], l: &mut [f64], n: usize) {
    for j in 0..n {
        let d = a[j * n + j] - (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum::<f64>();
        if d.is_nan() || d <= 0.0 {
            // JAX's factor of such a matrix: NaN on and below the diagonal, zero above.
            for (k, x) in l.iter_mut().enumerate() {
                *x = if k % n <= k / n { f64::NAN } else { 0.0 };
            }
            return;
        }
        let pivot = d.sqrt();
        l[j * n + j] = pivot;
        for i in j + 1..n {
            let s = a[i * n + j] - (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum::<f64>();
            l[i * n + j] = s / pivot;
        }
    }
}

/// Evaluates `triangular_solve` (see the module docs).
pub(crate) fn eval_triangular_solve(p: &TriSolve, a: &Array, b: &Array) -> Result<Array, String> {
    let op = "triangular_solve";
    let r = b.shape().len();
    if r < 2 || a.shape().len() != r {
        return Err(format!("{op}: expects matrices of one rank"));
    }
    let (rows, cols) = (b.shape()[r - 2], b.shape()[r - 1]);
    let m = a.shape()[r - 1];
    let (av, bv) = (wide(op, a)?, wide(op, b)?);
    let mut out = bv.clone();
    if m > 0 && rows * cols > 0 {
        for (ma, mb) in av.chunks_exact(m * m).zip(out.chunks_exact_mut(rows * cols)) {
            solve_one(p, ma, mb, m, rows, cols);
        }
    }
    narrow(b, out)
}

/// Solves one `rows`×`cols` system in place (`a` is `m`×`m`).
fn solve_one(p: &TriSolve, a: &[f64], b: &mut [f64], m: usize, rows: usize, cols: usize) {
    // Element (i, j) of op(a) as the solve reads it.
    let op_a = |i: usize, j: usize| -> f64 {
        let (r, c) = if p.transpose_a { (j, i) } else { (i, j) };
        if r == c {
            return if p.unit_diagonal { 1.0 } else { a[r * m + c] };
        }
        let inside = if p.lower { r > c } else { r < c };
        if inside { a[r * m + c] } else { 0.0 }
    };
    // op(a) is lower triangular when a's triangle and the transpose do not cancel.
    let op_lower = p.lower != p.transpose_a;
    let mut y = vec![0.0; m];
    if p.left_side {
        // op(a)·x = b, one column of b at a time.
        for j in 0..cols {
            let c: Vec<f64> = (0..rows).map(|i| b[i * cols + j]).collect();
            substitute(&op_a, op_lower, &c, &mut y);
            (0..rows).for_each(|i| b[i * cols + j] = y[i]);
        }
    } else {
        // x·op(a) = b is op(a)ᵀ·xᵀ = bᵀ, one row of b at a time.
        let t = |i: usize, j: usize| op_a(j, i);
        for row in b.chunks_exact_mut(cols) {
            let c = row.to_vec();
            substitute(&t, !op_lower, &c, &mut y);
            row.copy_from_slice(&y[..cols]);
        }
    }
}

/// Solves `t·y = c` for the triangular `t` (given by element), forward when `lower`.
fn substitute(t: &impl Fn(usize, usize) -> f64, lower: bool, c: &[f64], y: &mut [f64]) {
    let n = c.len();
    let order: Box<dyn Iterator<Item = usize>> = if lower { Box::new(0..n) } else { Box::new((0..n).rev()) };
    for i in order {
        let known: Box<dyn Iterator<Item = usize>> = if lower { Box::new(0..i) } else { Box::new(i + 1..n) };
        let s = c[i] - known.map(|k| t(i, k) * y[k]).sum::<f64>();
        y[i] = s / t(i, i);
    }
}

// ---- differentiation rules ----

/// The row and column indices of `[..., n, n]` (two `iota`s), from which a jvp rule
/// builds its triangle and diagonal masks.
pub(super) struct Grid {
    rows: Value,
    cols: Value,
}

impl Grid {
    pub(super) fn new(em: &mut Emitter, shape: &[usize]) -> Result<Grid, String> {
        let r = shape.len();
        Ok(Grid { rows: em.iota(shape, r - 2)?, cols: em.iota(shape, r - 1)? })
    }

    /// The boolean mask of a triangle: on and below the diagonal for `lower` (on and
    /// above it otherwise), the diagonal itself only when `diagonal`.
    pub(super) fn triangle(&self, em: &mut Emitter, lower: bool, diagonal: bool) -> Result<Value, String> {
        let (r, c) = (self.rows, self.cols);
        match (lower, diagonal) {
            (true, true) => em.ge(r, c),
            (true, false) => em.gt(r, c),
            (false, true) => em.le(r, c),
            (false, false) => em.lt(r, c),
        }
    }

    /// The boolean mask of the diagonal.
    pub(super) fn diagonal(&self, em: &mut Emitter) -> Result<Value, String> {
        em.eq(self.rows, self.cols)
    }
}

/// `x` where `keep`, zero elsewhere.
pub(super) fn keep(em: &mut Emitter, keep: Value, x: Value) -> Result<Value, String> {
    let zero = em.full_like(x, 0.0)?;
    em.select(keep, x, zero)
}

/// `x` with its last two axes swapped.
pub(super) fn swap_last(em: &mut Emitter, x: Value) -> Result<Value, String> {
    let r = em.ty(x).rank();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    em.transpose(x, &perm)
}

/// The batched matrix product `x·y` over the last two axes.
pub(super) fn matmul(em: &mut Emitter, x: Value, y: Value) -> Result<Value, String> {
    let r = em.ty(x).rank();
    let batch: Vec<usize> = (0..r - 2).collect();
    let dims = DotDims {
        lhs_contract: vec![r - 1],
        rhs_contract: vec![r - 2],
        lhs_batch: batch.clone(),
        rhs_batch: batch,
        preferred: None,
    };
    em.op(Prim::dot_general(dims), &[x, y])
}

/// `triangular_solve[p](a, b)`.
pub(super) fn solve(em: &mut Emitter, p: TriSolve, a: Value, b: Value) -> Result<Value, String> {
    em.op(Prim::Linalg(LinalgOp::TriangularSolve(p)), &[a, b])
}

/// The jvp rule of `cholesky` (module docs).
pub(crate) fn jvp_cholesky(
    em: &mut Emitter,
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[l], &[t]) = (outputs, tangents) else {
        return Err("cholesky: expects 1 operand, 1 tangent and 1 result".into());
    };
    let Some(t) = t else { return Ok(vec![None]) };
    let shape = em.ty(l).shape.to_vec();
    let grid = Grid::new(em, &shape)?;
    let on_or_below = grid.triangle(em, true, true)?;
    let below = grid.triangle(em, true, false)?;
    let diagonal = grid.diagonal(em)?;
    let lower = keep(em, on_or_below, t)?;
    let strict = keep(em, below, t)?;
    let upper = swap_last(em, strict)?;
    let sym = em.add(lower, upper)?;
    let lower_solve = TriSolve { left_side: false, lower: true, transpose_a: true, unit_diagonal: false };
    let right = solve(em, lower_solve, l, sym)?;
    let inner = solve(em, TriSolve { left_side: true, transpose_a: false, ..lower_solve }, l, right)?;
    let tril = keep(em, on_or_below, inner)?;
    let half = em.full_like(tril, 0.5)?;
    let one = em.full_like(tril, 1.0)?;
    let weights = em.select(diagonal, half, one)?;
    let phi = em.mul(tril, weights)?;
    Ok(vec![Some(matmul(em, l, phi)?)])
}

/// The jvp rule of `triangular_solve` (module docs).
pub(crate) fn jvp_triangular_solve(
    em: &mut Emitter,
    p: &TriSolve,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[a, _], &[x], &[t_a, t_b]) = (primals, outputs, tangents) else {
        return Err("triangular_solve: expects 2 operands, 2 tangents and 1 result".into());
    };
    let from_b = t_b.map(|t| solve(em, *p, a, t)).transpose()?;
    let from_a = match t_a {
        None => None,
        Some(t) => {
            let shape = em.ty(a).shape.to_vec();
            let read = Grid::new(em, &shape)?.triangle(em, p.lower, !p.unit_diagonal)?;
            let da = keep(em, read, t)?;
            let op_da = if p.transpose_a { swap_last(em, da)? } else { da };
            let product = if p.left_side { matmul(em, op_da, x)? } else { matmul(em, x, op_da)? };
            let solved = solve(em, *p, a, product)?;
            Some(em.neg(solved)?)
        }
    };
    Ok(vec![add_optional(em, from_b, from_a)?])
}

/// The transpose rule of `triangular_solve`, linear in `b` with `a` a residual.
pub(crate) fn transpose_triangular_solve(
    em: &mut Emitter,
    p: &TriSolve,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let ([a, b], [ct]) = (inputs, cts) else {
        return Err("triangular_solve: transpose expects 2 inputs and 1 cotangent".into());
    };
    match (a, b) {
        (LinearIn::Residual(a), LinearIn::Linear(_)) => {
            let ct_b = ct.map(|c| solve(em, p.transposed(), *a, c)).transpose()?;
            Ok(vec![None, ct_b])
        }
        (LinearIn::Residual(_), LinearIn::Residual(_)) => Ok(vec![None, None]),
        (LinearIn::Linear(_), LinearIn::Residual(_) | LinearIn::Linear(_)) => {
            Err("triangular_solve is linear in b only: its matrix a must be a residual".into())
        }
    }
}

/// The batching rule of `triangular_solve`: both operands batched at axis 0 (an
/// unbatched one broadcast), one more leading batch axis.
pub(crate) fn batch_triangular_solve(
    em: &mut Emitter,
    p: &TriSolve,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<crate::prim::batch::Batched, String> {
    let (&[a, b], &[da, db]) = (inputs, dims) else {
        return Err("triangular_solve: expects 2 operands and 2 batch axes".into());
    };
    let a = em.batch_at(a, da, size, 0)?;
    let b = em.batch_at(b, db, size, 0)?;
    let out = solve(em, *p, a, b)?;
    Ok((vec![out], vec![Some(0)]))
}
