//! Opaque primitives (those the schedule leaves as single equations: `scatter_add`,
//! `dynamic_update_slice`, `cumsum`, `random_bits`, `cholesky`, `triangular_solve`,
//! `eigh`, `lu`, `qr`, `svd`, `conv_general_dilated`, and anything else fuse leaves; the linear
//! algebra runs faer's routines, `crate::factor`; convolutions are im2col blocks and faer's
//! GEMM, `crate::conv`).
//!
//! `reduce_window`, `select_and_gather_add` and `select_and_scatter_add` run the
//! interpreter's window loops on the buffers (bit-identical results, no copy through
//! the interpreter's arrays).
//! `random_bits` (the public Threefry helpers of `ferrax_ir`), `cumsum` (the
//! interpreter's summation order: each running sum starts from 0 and adds one element
//! at a time, i32 wrapping) and `dynamic_update_slice` (clamped starts) are native;
//! `scatter_add` likewise (rows added in the interpreter's order); `sort`, `top_k`
//! and anything else (ill-typed leftovers, which fuse's contract excludes) run the
//! interpreter's own rule
//! on a one-equation module, which gives its exact semantics at the cost of copying
//! operands in and out.

use super::buf::{read_array, write_array};
use crate::factor::{Eig, Factor, Lu, Qr, Solve, Svd};
use ferrax_ir::prim::Prim;
use ferrax_ir::prim::elements::Num;
use ferrax_ir::prim::random::{key_words, random_words};
use ferrax_ir::prim::{IndexOp, LinalgOp, RandomOp, ReductionOp};
use ferrax_ir::{Error, EvalOptions, Func, Module, Type};

/// One opaque equation, ready to run.
pub(crate) enum Opaque {
    /// `random_bits[shape](key)`.
    RandomBits { count: usize },
    /// `cumsum`, `cummax` or `cummin` over the middle axis of `[outer, n, inner]`.
    Cumulative { op: Running, dtype: ferrax_ir::DType, outer: usize, n: usize, inner: usize, reverse: bool },
    /// `dynamic_update_slice(x, update, starts...)`.
    Dus { elem: usize, x: Vec<usize>, update: Vec<usize> },
    /// `scatter_add[axis, batch_dims](x, idx, updates)`: rows of `inner` elements added
    /// in the interpreter's order (batch, pre, index row), indices clamped.
    ScatterAdd { dtype: ferrax_ir::DType, batch: usize, pre: usize, dim: usize, inner: usize, idx: usize },
    /// `cholesky` with faer (`crate::factor`).
    Cholesky(crate::factor::Factor),
    /// `triangular_solve` with faer (`crate::factor`).
    TriangularSolve(crate::factor::Solve),
    /// `eigh` with faer (`crate::factor`).
    Eigh(crate::factor::Eig),
    /// `lu` with faer (`crate::factor`).
    Lu(crate::factor::Lu),
    /// `qr` with faer (`crate::factor`).
    Qr(crate::factor::Qr),
    /// `svd` with faer (`crate::factor`).
    Svd(crate::factor::Svd),
    /// `conv_general_dilated`: im2col blocks and faer (`crate::conv`), or the
    /// interpreter's rule (this one-equation module) when the kernel is not finite.
    Conv { plan: crate::conv::ConvPlan, module: Module, ins: Vec<Type>, outs: Vec<Type> },
    /// `reduce_window` and the two selections: the interpreter's loops
    /// (`ferrax_ir::prim::window`) on the buffers.
    Window { op: ferrax_ir::prim::WindowOp, geometry: ferrax_ir::prim::window::Geometry, dtype: ferrax_ir::DType },
    /// Any other primitive, through the interpreter.
    Interp { module: Module, ins: Vec<Type>, outs: Vec<Type> },
}

impl Opaque {
    pub(crate) fn new(prim: &Prim, ins: Vec<Type>, outs: Vec<Type>) -> Result<Opaque, String> {
        if let Prim::Random(RandomOp::RandomBits { shape }) = prim {
            let count = ferrax_array::element_count(shape).map_err(|e| format!("random_bits: {e}"))?;
            return Ok(Opaque::RandomBits { count });
        }
        if let Prim::Window(op) = prim
            && let [a, b] = &ins[..]
            && matches!(a.dtype, ferrax_ir::DType::F32 | ferrax_ir::DType::F64 | ferrax_ir::DType::I32)
            && prim.infer(&ins, &Module::new()).is_ok()
        {
            // The operand whose windows are taken: `x` first for reduce_window, second
            // for the selections.
            let x = if matches!(op, ferrax_ir::prim::WindowOp::ReduceWindow { .. }) { a } else { b };
            let geometry = ferrax_ir::prim::window::Geometry::new(op.name(), op.window(), &x.shape)?;
            return Ok(Opaque::Window { op: op.clone(), geometry, dtype: a.dtype });
        }
        match prim {
            Prim::Reduction(
                scan @ (ReductionOp::Cumsum { axis, reverse }
                | ReductionOp::Cummax { axis, reverse }
                | ReductionOp::Cummin { axis, reverse }),
            ) if *axis < ins[0].rank() && ins[0].dtype != ferrax_ir::DType::Bool => {
                let sh = &ins[0].shape;
                let op = match scan {
                    ReductionOp::Cummax { .. } => Running::Max,
                    ReductionOp::Cummin { .. } => Running::Min,
                    _ => Running::Sum,
                };
                return Ok(Opaque::Cumulative {
                    op,
                    dtype: ins[0].dtype,
                    outer: sh[..*axis].iter().product(),
                    n: sh[*axis],
                    inner: sh[axis + 1..].iter().product(),
                    reverse: *reverse,
                });
            }
            Prim::Index(IndexOp::ScatterAdd { axis, batch_dims })
                if ins.len() == 3 && *batch_dims <= *axis && *axis < ins[0].rank() && *batch_dims <= ins[1].rank() =>
            {
                let (x, idx) = (&ins[0].shape, &ins[1].shape);
                return Ok(Opaque::ScatterAdd {
                    dtype: ins[0].dtype,
                    batch: x[..*batch_dims].iter().product(),
                    pre: x[*batch_dims..*axis].iter().product(),
                    dim: x[*axis],
                    inner: x[axis + 1..].iter().product(),
                    idx: idx[*batch_dims..].iter().product(),
                });
            }
            Prim::Linalg(op) => {
                if let Some(native) = Opaque::linalg(op, &ins) {
                    return Ok(native);
                }
            }
            Prim::Index(IndexOp::DynamicUpdateSlice)
                if ins.len() == 2 + ins[0].rank() && ins[0].rank() == ins[1].rank() =>
            {
                return Ok(Opaque::Dus {
                    elem: ins[0].dtype.size_bytes(),
                    x: ins[0].shape.to_vec(),
                    update: ins[1].shape.to_vec(),
                });
            }
            Prim::Conv(ferrax_ir::prim::ConvOp::ConvGeneralDilated(c)) if ins.len() == 2 && outs.len() == 1 => {
                if let Ok(plan) = crate::conv::ConvPlan::new(c, &ins[0], &ins[1], &outs[0]) {
                    // The interpreter's rule for kernels with infinities or NaNs (see
                    // `crate::conv`).
                    let Opaque::Interp { module, ins, outs } = Opaque::interp(prim, ins, outs) else {
                        return Err("conv: no interpreter fallback".into());
                    };
                    return Ok(Opaque::Conv { plan, module, ins, outs });
                }
            }
            _ => {}
        }
        Ok(Opaque::interp(prim, ins, outs))
    }

    /// A linear-algebra equation on faer's routines (`crate::factor`), or `None`
    /// for operands of the wrong arity or rank (left to the interpreter's rule and
    /// its error).
    fn linalg(op: &LinalgOp, ins: &[Type]) -> Option<Opaque> {
        // Leading batch axes and the two matrix axes of an operand of rank >= 2.
        let split = |t: &Type| {
            let r = t.rank();
            (r >= 2).then(|| (t.shape[..r - 2].iter().product::<usize>(), t.shape[r - 2], t.shape[r - 1]))
        };
        let one = match ins {
            [a] => split(a).map(|(batch, m, n)| (a.dtype, batch, m, n)),
            _ => None,
        };
        Some(match op {
            LinalgOp::Cholesky => {
                let (dtype, batch, _, n) = one?;
                Opaque::Cholesky(Factor { dtype, batch, n })
            }
            LinalgOp::Eigh(p) => {
                let (dtype, batch, _, n) = one?;
                Opaque::Eigh(Eig { dtype, lower: p.lower, batch, n })
            }
            LinalgOp::Lu => {
                let (dtype, batch, m, n) = one?;
                Opaque::Lu(Lu { dtype, batch, m, n })
            }
            LinalgOp::Qr(p) => {
                let (dtype, batch, m, n) = one?;
                Opaque::Qr(Qr { dtype, batch, m, n, full: p.full_matrices })
            }
            LinalgOp::Svd(p) => {
                let (dtype, batch, m, n) = one?;
                Opaque::Svd(Svd { dtype, batch, m, n, p: *p })
            }
            LinalgOp::TriangularSolve(p) => {
                let [a, b] = ins else { return None };
                let (batch, rows, cols) = split(b)?;
                let m = *a.shape.last()?;
                Opaque::TriangularSolve(Solve { dtype: b.dtype, p: *p, batch, m, rows, cols })
            }
            LinalgOp::DotGeneral(_) => return None,
        })
    }

    /// The equation as a one-equation module run by the interpreter.
    fn interp(prim: &Prim, ins: Vec<Type>, outs: Vec<Type>) -> Opaque {
        let mut f = Func::new("opaque");
        let params: Vec<_> = ins.iter().map(|t| f.new_value(t.clone())).collect();
        let results: Vec<_> = outs.iter().map(|t| f.new_value(t.clone())).collect();
        f.params = params.clone();
        f.results = results.clone();
        f.result_types = outs.clone();
        f.eqns.push(ferrax_ir::Eqn {
            prim: prim.clone(),
            inputs: params.into_iter().collect(),
            outputs: results.into_iter().collect(),
            loc: None,
        });
        let mut module = Module::new();
        module.push(f);
        Opaque::Interp { module, ins, outs }
    }

    /// Runs the equation on `ins`, writing `outs`.
    ///
    /// # Safety
    /// Every pointer is a valid buffer of its type; outputs do not overlap inputs.
    /// `threads` bounds the threads a large routine (`conv_general_dilated`) may use.
    pub(crate) unsafe fn run(
        &self,
        ins: &[*mut u8],
        outs: &[*mut u8],
        options: &EvalOptions,
        threads: usize,
    ) -> Result<(), String> {
        match self {
            Opaque::RandomBits { count } => {
                // SAFETY: the key is an i32[2] buffer.
                let key =
                    unsafe { read_array(ins[0], &ferrax_ir::prim::random::key_type()) }.map_err(|e| e.to_string())?;
                let words = random_words(key_words(&key)?, *count);
                let out = outs[0] as *mut i32;
                for (i, w) in words.into_iter().enumerate() {
                    // SAFETY: the result buffer holds `count` i32.
                    unsafe { out.add(i).write_unaligned(w as i32) };
                }
                Ok(())
            }
            Opaque::Cumulative { op, dtype, outer, n, inner, reverse } => {
                // SAFETY: by the caller's contract.
                unsafe { cumulative(*op, *dtype, (*outer, *n, *inner, *reverse), ins[0], outs[0]) }
            }
            Opaque::Dus { elem, x, update } => {
                // SAFETY: by the caller's contract.
                unsafe { dynamic_update_slice(ins, outs[0], *elem, x, update) };
                Ok(())
            }
            Opaque::ScatterAdd { dtype, batch, pre, dim, inner, idx } => {
                let shape = Rows { batch: *batch, pre: *pre, dim: *dim, inner: *inner, idx: *idx };
                // SAFETY: x and the result hold batch*pre*dim*inner elements, the indices
                // batch*idx i32 and the updates batch*pre*idx*inner elements.
                unsafe {
                    match dtype {
                        ferrax_ir::DType::F32 => scatter_add::<f32>(ins, outs[0], &shape, |a, b| a + b),
                        ferrax_ir::DType::F64 => scatter_add::<f64>(ins, outs[0], &shape, |a, b| a + b),
                        ferrax_ir::DType::I32 => scatter_add::<i32>(ins, outs[0], &shape, i32::wrapping_add),
                        ferrax_ir::DType::Bool => return Err("scatter_add: bool operand".into()),
                        // `compile` refuses 16-bit programs before planning.
                        ferrax_ir::DType::BF16 | ferrax_ir::DType::F16 => {
                            return Err(format!("scatter_add: {dtype} operand"));
                        }
                    }
                }
                Ok(())
            }
            // SAFETY: by the caller's contract (the operands have the types `new` saw).
            Opaque::Cholesky(f) => unsafe { f.run(ins[0], outs[0]) },
            // SAFETY: as above.
            Opaque::TriangularSolve(s) => unsafe { s.run(ins[0], ins[1], outs[0]) },
            // SAFETY: as above (two results: v, then w).
            Opaque::Eigh(e) => unsafe { e.run(ins[0], outs[0], outs[1]) },
            // SAFETY: as above (three results: lu, pivots, permutation).
            Opaque::Lu(l) => unsafe { l.run(ins[0], outs[0], outs[1], outs[2]) },
            // SAFETY: as above (two results: q, then r).
            Opaque::Qr(q) => unsafe { q.run(ins[0], outs[0], outs[1]) },
            // SAFETY: as above (u, s, vt, or s alone).
            Opaque::Svd(s) => unsafe { s.run(ins[0], outs) },
            Opaque::Conv { plan, module, ins: tys, outs: out_tys } => {
                // SAFETY: by the caller's contract (the operands have the planned types).
                if unsafe { plan.run(ins[0], ins[1], outs[0], threads) } {
                    Ok(())
                } else {
                    // SAFETY: as above.
                    unsafe { interpret(module, tys, out_tys, ins, outs, options) }
                }
            }
            Opaque::Window { op, geometry, dtype } => {
                // SAFETY: by the caller's contract (the operands have the types `new` saw).
                unsafe {
                    match dtype {
                        ferrax_ir::DType::F32 => window::<f32>(op, geometry, ins, outs[0]),
                        ferrax_ir::DType::F64 => window::<f64>(op, geometry, ins, outs[0]),
                        ferrax_ir::DType::I32 => window::<i32>(op, geometry, ins, outs[0]),
                        other => Err(format!("{}: {other} operand", op.name())),
                    }
                }
            }
            // SAFETY: by the caller's contract.
            Opaque::Interp { module, ins: tys, outs: out_tys } => unsafe {
                interpret(module, tys, out_tys, ins, outs, options)
            },
        }
    }
}

/// Which running combination an [`Opaque::Cumulative`] computes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Running {
    /// `cumsum`.
    Sum,
    /// `cummax`.
    Max,
    /// `cummin`.
    Min,
}

/// `out = x` with `update` written at the clamped starts (the interpreter's
/// `dynamic_update_slice`), one contiguous row of the update at a time.
///
/// # Safety
/// `ins` = x (of shape `x`, elements of `elem` bytes), the update (of shape `update`)
/// and one i32 scalar start per axis; `out` holds as many bytes as x and does not overlap
/// the inputs.
unsafe fn dynamic_update_slice(ins: &[*mut u8], out: *mut u8, elem: usize, x: &[usize], update: &[usize]) {
    let total: usize = x.iter().product::<usize>() * elem;
    // SAFETY: x and the result have `total` bytes and do not overlap.
    unsafe { std::ptr::copy_nonoverlapping(ins[0], out, total) };
    if update.contains(&0) {
        return;
    }
    let starts: Vec<usize> = (0..x.len())
        .map(|d| {
            // SAFETY: each start is an i32 scalar buffer.
            let s = unsafe { (ins[2 + d] as *const i32).read_unaligned() } as i64;
            s.clamp(0, (x[d] - update[d]) as i64) as usize
        })
        .collect();
    let rank = x.len();
    let row = if rank == 0 { elem } else { update[rank - 1] * elem };
    let rows: usize = update[..rank.saturating_sub(1)].iter().product();
    let mut idx = vec![0usize; rank.saturating_sub(1)];
    for r in 0..rows {
        let mut off = 0;
        for d in 0..rank {
            let i = if d + 1 < rank { idx[d] } else { 0 } + starts[d];
            off = off * x[d] + i;
        }
        // SAFETY: the window lies inside x (clamped starts); rows of the update are contiguous.
        unsafe { std::ptr::copy_nonoverlapping(ins[1].add(r * row), out.add(off * elem), row) };
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < update[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Runs the one-equation `module` on the arrays read from `ins` (of types `tys`) and
/// writes its results to `outs` (of types `out_tys`), giving the interpreter's message
/// on failure.
///
/// # Safety
/// Every pointer is a valid buffer of its type; outputs do not overlap inputs.
unsafe fn interpret(
    module: &Module,
    tys: &[Type],
    out_tys: &[Type],
    ins: &[*mut u8],
    outs: &[*mut u8],
    options: &EvalOptions,
) -> Result<(), String> {
    // SAFETY: by the caller's contract.
    let args = tys
        .iter()
        .zip(ins)
        .map(|(t, &p)| unsafe { read_array(p, t) })
        .collect::<Result<Vec<_>, Error>>()
        .map_err(|e| e.to_string())?;
    let results = ferrax_ir::eval(module, "opaque", &args, options).map_err(|e| match e {
        Error::Eval { message, .. } => message,
        other => other.to_string(),
    })?;
    for ((r, &p), _) in results.iter().zip(outs).zip(out_tys) {
        // SAFETY: by the caller's contract.
        unsafe { write_array(r, p) };
    }
    Ok(())
}

/// Runs a running sum, max or min of `dtype` elements over `rows` = `(outer, n, inner,
/// reverse)` (see [`running`]).
///
/// # Safety
/// `src` and `dst` hold `outer * n * inner` elements of `dtype` and do not overlap.
unsafe fn cumulative(
    op: Running,
    dtype: ferrax_ir::DType,
    rows: (usize, usize, usize, bool),
    src: *mut u8,
    dst: *mut u8,
) -> Result<(), String> {
    // SAFETY: by the caller's contract.
    unsafe {
        match (op, dtype) {
            (Running::Sum, ferrax_ir::DType::F32) => running::<f32>(src, dst, rows, |a| 0.0 + a, |a, b| a + b),
            (Running::Sum, ferrax_ir::DType::F64) => running::<f64>(src, dst, rows, |a| 0.0 + a, |a, b| a + b),
            (Running::Sum, ferrax_ir::DType::I32) => running::<i32>(src, dst, rows, |a| a, i32::wrapping_add),
            (Running::Max, ferrax_ir::DType::F32) => running::<f32>(src, dst, rows, |a| a, <f32 as Num>::max),
            (Running::Max, ferrax_ir::DType::F64) => running::<f64>(src, dst, rows, |a| a, <f64 as Num>::max),
            (Running::Max, ferrax_ir::DType::I32) => running::<i32>(src, dst, rows, |a| a, Ord::max),
            (Running::Min, ferrax_ir::DType::F32) => running::<f32>(src, dst, rows, |a| a, <f32 as Num>::min),
            (Running::Min, ferrax_ir::DType::F64) => running::<f64>(src, dst, rows, |a| a, <f64 as Num>::min),
            (Running::Min, ferrax_ir::DType::I32) => running::<i32>(src, dst, rows, |a| a, Ord::min),
            (_, ferrax_ir::DType::Bool) => return Err("cumulative scan of a bool operand".into()),
            (_, ferrax_ir::DType::BF16 | ferrax_ir::DType::F16) => {
                return Err(format!("cumulative scan of a {dtype} operand"));
            }
        }
    }
    Ok(())
}

/// A running combination over the middle axis of `[outer, n, inner]`, in the order the
/// interpreter uses: the first element of each row through `first` (`0 + x` for a sum,
/// which turns a lone `-0` into `+0`), then `acc = combine(acc, x)` element by element.
///
/// # Safety
/// `src` and `dst` hold `outer * n * inner` elements of `T`.
unsafe fn running<T: Copy>(
    src: *const u8,
    dst: *mut u8,
    (outer, n, inner, reverse): (usize, usize, usize, bool),
    first: impl Fn(T) -> T,
    combine: impl Fn(T, T) -> T,
) {
    let (src, dst) = (src as *const T, dst as *mut T);
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = None;
            for step in 0..n {
                let k = if reverse { n - 1 - step } else { step };
                let at = (o * n + k) * inner + i;
                // SAFETY: `at` < outer*n*inner.
                unsafe {
                    let x = src.add(at).read_unaligned();
                    let next = match acc {
                        None => first(x),
                        Some(acc) => combine(acc, x),
                    };
                    acc = Some(next);
                    dst.add(at).write_unaligned(next);
                }
            }
        }
    }
}

/// The loop nest of `scatter_add`.
struct Rows {
    batch: usize,
    pre: usize,
    dim: usize,
    inner: usize,
    idx: usize,
}

/// `out = x` then, for each (batch, pre, index row), `out[row k] += updates[row]` with
/// `k` the clamped index: the interpreter's order, so results are bit-identical.
///
/// # Safety
/// `ins` = x, indices (i32), updates, and `out` are valid buffers of the sizes `r` implies;
/// `out` does not overlap the inputs.
unsafe fn scatter_add<T: Copy>(ins: &[*mut u8], out: *mut u8, r: &Rows, add: impl Fn(T, T) -> T) {
    let total = r.batch * r.pre * r.dim * r.inner;
    // SAFETY: by the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(ins[0], out, total * std::mem::size_of::<T>()) };
    if r.dim == 0 {
        return;
    }
    let (indices, updates, out) = (ins[1] as *const i32, ins[2] as *const T, out as *mut T);
    let mut from = 0;
    for b in 0..r.batch {
        for p in 0..r.pre {
            let base = (b * r.pre + p) * r.dim;
            for j in 0..r.idx {
                // SAFETY: `b * idx + j` is inside the indices buffer.
                let i = unsafe { indices.add(b * r.idx + j).read_unaligned() };
                let k = usize::try_from(i).unwrap_or(0).min(r.dim - 1);
                let to = (base + k) * r.inner;
                for q in 0..r.inner {
                    // SAFETY: `to + q` < total and `from + q` is inside the updates.
                    unsafe {
                        let d = out.add(to + q);
                        d.write_unaligned(add(d.read_unaligned(), updates.add(from + q).read_unaligned()));
                    }
                }
                from += r.inner;
            }
        }
    }
}

/// `n` elements of `T` at `p`: the buffer itself when it is aligned for `T`, else a copy.
///
/// # Safety
/// `p` holds `n` elements of `T`, alive and unwritten while the result is.
unsafe fn elements<'a, T: Copy>(p: *const u8, n: usize) -> std::borrow::Cow<'a, [T]> {
    if n == 0 {
        return std::borrow::Cow::Borrowed(&[]);
    }
    let p = p as *const T;
    if p.is_aligned() {
        // SAFETY: by the caller's contract, and aligned.
        std::borrow::Cow::Borrowed(unsafe { std::slice::from_raw_parts(p, n) })
    } else {
        // SAFETY: by the caller's contract.
        std::borrow::Cow::Owned((0..n).map(|i| unsafe { p.add(i).read_unaligned() }).collect())
    }
}

/// A window-family op on `T` buffers: the interpreter's loops, so the results are
/// bit-identical to its (the identity check of `reduce_window`'s `init` included).
///
/// # Safety
/// `ins` are the two operands' buffers and `out` the result's, of the types the
/// geometry was made for; `out` does not overlap them.
unsafe fn window<T: Num>(
    op: &ferrax_ir::prim::WindowOp,
    g: &ferrax_ir::prim::window::Geometry,
    ins: &[*mut u8],
    out: *mut u8,
) -> Result<(), String> {
    use ferrax_ir::prim::WindowOp;
    use ferrax_ir::prim::window::{reduce_window_slice, select_and_gather_slice, select_and_scatter_slice};
    let windows = g.windows();
    let (first_len, out_len) = match op {
        WindowOp::ReduceWindow { .. } => (g.in_len, windows),
        WindowOp::SelectAndGatherAdd { .. } => (g.in_len, windows),
        WindowOp::SelectAndScatterAdd { .. } => (windows, g.in_len),
    };
    // SAFETY: by the caller's contract.
    let a = unsafe { elements::<T>(ins[0], first_len) };
    // Straight into the result buffer when it is aligned for `T` (arena and result
    // buffers are), else through a copy.
    let direct = (out as *mut T).is_aligned() && out_len > 0;
    let mut owned = if direct { Vec::new() } else { vec![T::ZERO; out_len] };
    let result: &mut [T] = if direct {
        // SAFETY: the result buffer holds `out_len` elements of `T`, aligned, and does
        // not overlap the operands; every path below writes all of it.
        unsafe { std::slice::from_raw_parts_mut(out as *mut T, out_len) }
    } else {
        &mut owned
    };
    match op {
        WindowOp::ReduceWindow { op: reduce, .. } => {
            // SAFETY: init is a scalar.
            let init = unsafe { elements::<T>(ins[1], 1) }[0];
            ferrax_ir::prim::window::check_init(*reduce, init)?;
            reduce_window_slice(g, *reduce, &a, init, result);
        }
        WindowOp::SelectAndGatherAdd { select, .. } => {
            // SAFETY: x has the operand's elements.
            let x = unsafe { elements::<T>(ins[1], g.in_len) };
            select_and_gather_slice(g, *select, &a, &x, result);
        }
        WindowOp::SelectAndScatterAdd { select, .. } => {
            // SAFETY: as above.
            let x = unsafe { elements::<T>(ins[1], g.in_len) };
            select_and_scatter_slice(g, *select, &a, &x, result);
        }
    }
    if !direct {
        // SAFETY: the result buffer holds `out_len` elements.
        unsafe { std::ptr::copy_nonoverlapping(owned.as_ptr() as *const u8, out, out_len * std::mem::size_of::<T>()) };
    }
    Ok(())
}
