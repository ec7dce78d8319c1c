//! Collectives in compiled programs: the [`Communicator`] trait that a multi-worker
//! engine implements (`ferrax_dist`: threads in one process, MPI across processes),
//! and the schedule's collective steps, which call it.
//!
//! A collective is a step between kernels, like a GEMM call: it reads its operand's
//! buffer, lets the communicator move bytes between the workers, and writes its
//! result's buffer, rearranging blocks on the host where the collective's axis is not
//! the outermost (`all_gather` along an inner axis, `psum_scatter` and `all_to_all` of
//! inner blocks). Before each collective the workers agree on it ([`Communicator::
//! agree`], a hash of the primitive and its operand type), so two workers at different
//! collectives fail with an error naming both instead of exchanging garbage. Run
//! without a communicator (a plain call), a collective is an error naming its axis:
//! nothing has bound it.
//!
//! Every reduction combines the members as the interpreter reduces the batch axis after
//! `vmap` binds the axis (sums in its blocked pairwise order over the ranks, 16-bit
//! floats summed in f32 and rounded once); the results are therefore bit-identical to
//! the vmap semantics on the stacked inputs.

use ferrax_ir::prim::CollectiveOp;
use ferrax_ir::{DType, Type};

/// How a reduction combines the members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// The sum.
    Sum,
    /// The maximum (NaN wins, as `max`).
    Max,
    /// The minimum (NaN wins, as `min`).
    Min,
}

/// The workers of one named axis, as one worker sees them: what a collective step
/// calls. Every method is collective: all workers call it, in the same order, with
/// buffers of the same lengths; an engine returns an error (never hangs) when a worker
/// fails or does not arrive within its timeout.
pub trait Communicator: Send + Sync {
    /// This worker's index, `0..size`.
    fn rank(&self) -> usize;

    /// The number of workers.
    fn size(&self) -> usize;

    /// Checks that every worker is at the same collective: `hash` identifies it and
    /// `what` describes it for the error, which names both ranks of a mismatch.
    fn agree(&self, what: &str, hash: u64) -> Result<(), String>;

    /// Every worker's `send` (all of one length), in rank order, into `recv`.
    fn all_gather(&self, send: &[u8], recv: &mut [u8]) -> Result<(), String>;

    /// `data` becomes the elementwise reduction of every worker's `data`, combined over
    /// the ranks in the interpreter's order ([`reduce_in_rank_order`] does it for
    /// engines that hold every part).
    fn all_reduce(&self, op: Reduce, dtype: DType, data: &mut [u8]) -> Result<(), String>;

    /// [`Communicator::all_reduce`] of `send` into `recv` (of the same length); engines
    /// that copy what they send anyway override it to skip the copy into `recv` first.
    fn all_reduce_into(&self, op: Reduce, dtype: DType, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        recv.copy_from_slice(send);
        self.all_reduce(op, dtype, recv)
    }

    /// Block `j` of `send` (`size` blocks of equal length) goes to worker `j`; block `m`
    /// of `recv` comes from worker `m`.
    fn all_to_all(&self, send: &[u8], recv: &mut [u8]) -> Result<(), String>;

    /// Sends `send` to worker `to` and receives `recv` from worker `from` (each if any;
    /// `recv` is left alone when nothing arrives).
    fn permute(&self, send: &[u8], to: Option<usize>, from: Option<usize>, recv: &mut [u8]) -> Result<(), String>;
}

/// Reduces `parts` (one buffer of `dtype` elements per worker, in rank order) into
/// `out` as the interpreter reduces a batch axis of `parts.len()` members: sums in
/// its blocked pairwise order (`ferrax_ir::prim::sum_order`), 16-bit floats summed in
/// f32 and rounded once, `max`/`min` member by member.
pub fn reduce_in_rank_order(op: Reduce, dtype: DType, parts: &[&[u8]], out: &mut [u8]) -> Result<(), String> {
    if parts.is_empty() {
        return Err("all_reduce: no workers".into());
    }
    if parts.iter().any(|p| p.len() != out.len()) {
        return Err("all_reduce: workers' buffers differ in length".into());
    }
    // 16-bit floats are summed in f32 (the interpreter widens them), so in f32's lanes.
    let summed_as = if matches!(dtype, DType::BF16 | DType::F16) { DType::F32 } else { dtype };
    let tree = SumTree::new(parts.len(), ferrax_ir::prim::sum_order::lanes(summed_as));
    // A chunk at a time, so that the tree's passes run over data in the cache: the
    // buffers themselves are read once and the result written once.
    let bytes = REDUCE_CHUNK * dtype.size_bytes();
    for (k, out) in out.chunks_mut(bytes).enumerate() {
        let chunk: Vec<&[u8]> = parts.iter().map(|p| &p[k * bytes..k * bytes + out.len()]).collect();
        reduce_chunk(op, dtype, &tree, &chunk, out)?;
    }
    Ok(())
}

/// Elements reduced per pass of [`reduce_in_rank_order`] (a few tens of KiB per member).
const REDUCE_CHUNK: usize = 4096;

/// [`reduce_in_rank_order`] of one chunk.
fn reduce_chunk(op: Reduce, dtype: DType, tree: &SumTree, parts: &[&[u8]], out: &mut [u8]) -> Result<(), String> {
    match dtype {
        DType::F32 => {
            let xs: Vec<Vec<f32>> = parts.iter().map(|p| decode(p, f32::from_ne_bytes)).collect();
            encode(&combine_all(op, tree, &xs, 0.0, f32::is_nan, f32::is_sign_negative), out, f32::to_ne_bytes);
        }
        DType::F64 => {
            let xs: Vec<Vec<f64>> = parts.iter().map(|p| decode(p, f64::from_ne_bytes)).collect();
            encode(&combine_all(op, tree, &xs, 0.0, f64::is_nan, f64::is_sign_negative), out, f64::to_ne_bytes);
        }
        DType::I32 => {
            let xs: Vec<Vec<Wrapping>> = parts.iter().map(|p| decode(p, |b| Wrapping(i32::from_ne_bytes(b)))).collect();
            let r = combine_all(op, tree, &xs, Wrapping(0), |_| false, |_| false);
            encode(&r, out, |v: Wrapping| v.0.to_ne_bytes());
        }
        DType::BF16 | DType::F16 => {
            let xs: Vec<Vec<f32>> = parts.iter().map(|p| decode(p, widen(dtype))).collect();
            let r = combine_all(op, tree, &xs, 0.0, f32::is_nan, f32::is_sign_negative);
            encode(&r, out, narrow(dtype));
        }
        DType::Bool => return Err("all_reduce: bool data".into()),
    }
    Ok(())
}

/// A 16-bit float element of `dtype` (bf16 or f16) as f32.
fn widen(dtype: DType) -> impl Fn([u8; 2]) -> f32 {
    let bf = dtype == DType::BF16;
    move |b| {
        let bits = u16::from_ne_bytes(b);
        if bf { half::bf16::from_bits(bits).to_f32() } else { half::f16::from_bits(bits).to_f32() }
    }
}

/// An f32 rounded to the 16-bit float `dtype` (to nearest even).
fn narrow(dtype: DType) -> impl Fn(f32) -> [u8; 2] {
    let bf = dtype == DType::BF16;
    move |v| {
        let bits = if bf { half::bf16::from_f32(v).to_bits() } else { half::f16::from_f32(v).to_bits() };
        bits.to_ne_bytes()
    }
}

/// i32 with wrapping addition, for the sum tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
struct Wrapping(i32);

impl std::ops::Add for Wrapping {
    type Output = Wrapping;
    fn add(self, other: Wrapping) -> Wrapping {
        Wrapping(self.0.wrapping_add(other.0))
    }
}

/// The interpreter's summation order over `n` members as a tree of additions, built
/// once by running `sum_order::ordered` on symbols, then applied to whole buffers at a
/// time (one vectorisable loop per addition instead of a tree walk per element).
#[derive(Clone, Debug)]
enum SumTree {
    /// The identity (`+0`).
    Zero,
    /// Member `k`'s value.
    Member(usize),
    /// The sum of two subtrees, in this order.
    Add(Box<SumTree>, Box<SumTree>),
}

impl SumTree {
    fn new(n: usize, lanes: usize) -> SumTree {
        let members: Vec<SumTree> = (0..n).map(SumTree::Member).collect();
        // `+0 + +0` is `+0`: those additions (the order's empty slots and lanes) fold
        // away, while `+0 + x` stays (it turns `-0` into `+0`, as the interpreter does).
        let add = |a: SumTree, b: SumTree| match (a, b) {
            (SumTree::Zero, SumTree::Zero) => SumTree::Zero,
            (a, b) => SumTree::Add(Box::new(a), Box::new(b)),
        };
        ferrax_ir::prim::sum_order::ordered(&members, &[n], lanes, SumTree::Zero, &add)
    }

    /// The tree's sum over `xs` (one buffer per member), element by element.
    fn eval<T: Copy + std::ops::Add<Output = T>>(&self, xs: &[Vec<T>], zero: T, len: usize) -> Vec<T> {
        match self {
            SumTree::Zero => vec![zero; len],
            SumTree::Member(k) => xs[*k].clone(),
            // The identity on either side: one pass over the other operand.
            SumTree::Add(a, b) if matches!(**a, SumTree::Zero) => {
                let mut b = b.eval(xs, zero, len);
                b.iter_mut().for_each(|y| *y = zero + *y);
                b
            }
            SumTree::Add(a, b) if matches!(**b, SumTree::Zero) => {
                let mut a = a.eval(xs, zero, len);
                a.iter_mut().for_each(|x| *x = *x + zero);
                a
            }
            SumTree::Add(a, b) => {
                let mut a = a.eval(xs, zero, len);
                match &**b {
                    // A member on the right: added straight from its buffer.
                    SumTree::Member(k) => a.iter_mut().zip(&xs[*k]).for_each(|(x, y)| *x = *x + *y),
                    b => {
                        let b = b.eval(xs, zero, len);
                        a.iter_mut().zip(&b).for_each(|(x, y)| *x = *x + *y);
                    }
                }
                a
            }
        }
    }
}

/// Buffers of `N`-byte elements decoded by `read`.
fn decode<T, const N: usize>(bytes: &[u8], read: impl Fn([u8; N]) -> T) -> Vec<T> {
    bytes.chunks_exact(N).map(|c| read(c.try_into().unwrap_or([0; N]))).collect()
}

/// `values` encoded into `out` by `write`.
fn encode<T: Copy, const N: usize>(values: &[T], out: &mut [u8], write: impl Fn(T) -> [u8; N]) {
    for (c, &v) in out.chunks_exact_mut(N).zip(values) {
        c.copy_from_slice(&write(v));
    }
}

/// The members' reduction: the sum by `tree`, or `max`/`min` as the interpreter's (NaN
/// wins, and of two zeros `max` gives `+0` and `min` gives `-0`), member by member.
fn combine_all<T: Copy + PartialOrd + std::ops::Add<Output = T>>(
    op: Reduce,
    tree: &SumTree,
    xs: &[Vec<T>],
    zero: T,
    nan: impl Fn(T) -> bool,
    neg: impl Fn(T) -> bool,
) -> Vec<T> {
    let max = match op {
        Reduce::Sum => return tree.eval(xs, zero, xs[0].len()),
        Reduce::Max => true,
        Reduce::Min => false,
    };
    let mut acc = xs[0].clone();
    for x in &xs[1..] {
        for (a, &b) in acc.iter_mut().zip(x) {
            if nan(*a) {
                continue;
            }
            let take = nan(b) || if max { b > *a || (b == *a && neg(*a)) } else { b < *a || (b == *a && neg(b)) };
            if take {
                *a = b;
            }
        }
    }
    acc
}

/// One collective equation, ready to run.
pub(crate) struct Collective {
    op: CollectiveOp,
    dtype: DType,
    /// The operand's shape (empty for `axis_index`).
    shape: Vec<usize>,
    in_bytes: usize,
    out_bytes: usize,
    /// `op(type)`, for errors and the workers' agreement.
    what: String,
    hash: u64,
    /// Why workers cannot run it, found once here and reported when it runs: the
    /// workers bind one axis, and the op names several.
    several_axes: Option<String>,
}

impl Collective {
    pub(crate) fn new(op: &CollectiveOp, ins: &[Type], outs: &[Type]) -> Result<Collective, String> {
        let out = outs.first().ok_or("a collective has one result")?;
        let (dtype, shape) = match ins.first() {
            Some(x) => (x.dtype, x.shape.to_vec()),
            None => (out.dtype, Vec::new()),
        };
        let bytes = |t: &Type| t.byte_size().map(|b| b as usize).map_err(|e| e.to_string());
        let in_bytes = ins.first().map(bytes).transpose()?.unwrap_or(0);
        let prim = ferrax_ir::Prim::Collective(op.clone());
        let attrs: Vec<String> = prim.attrs().iter().map(|(k, v)| format!("{k}={v}")).collect();
        let what = format!("{}[{}]{}", op.name(), attrs.join(", "), ferrax_ir::format_types(ins));
        // FNV-1a of the description: the primitive with its attributes and the operand.
        let hash = what.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let names = op.axis_names();
        let several_axes = (names.len() != 1).then(|| {
            format!("{}: the workers bind one axis, but it names {names:?}; bind the others with vmap first", op.name())
        });
        Ok(Collective { op: op.clone(), dtype, shape, in_bytes, out_bytes: bytes(out)?, what, hash, several_axes })
    }

    /// Elements of the operand's axes before `axis`, and bytes from `axis` on.
    fn split(&self, axis: usize) -> (usize, usize) {
        let outer: usize = self.shape[..axis.min(self.shape.len())].iter().product();
        (outer, self.in_bytes / outer.max(1))
    }

    /// `all_gather` along `axis`: every worker's operand, member `m`'s block `o` (of the
    /// axes before `axis`) landing after the blocks `o` of members `0..m`.
    fn all_gather(&self, comm: &dyn Communicator, x: &[u8], out: &mut [u8], axis: usize) -> Result<(), String> {
        let n = comm.size();
        let mut gathered = vec![0u8; self.in_bytes * n];
        comm.all_gather(x, &mut gathered)?;
        let (outer, inner) = self.split(axis);
        for m in 0..n {
            for o in 0..outer {
                let src = &gathered[m * self.in_bytes + o * inner..][..inner];
                out[(o * n + m) * inner..][..inner].copy_from_slice(src);
            }
        }
        Ok(())
    }

    /// `all_to_all`: block `j` along `split` goes to worker `j`; the blocks received
    /// concatenate along `concat` in member order.
    fn all_to_all(
        &self,
        comm: &dyn Communicator,
        x: &[u8],
        out: &mut [u8],
        split: usize,
        concat: usize,
    ) -> Result<(), String> {
        let n = comm.size();
        let (outer, rest) = self.split(split);
        let inner = rest / n;
        let mut send = vec![0u8; self.in_bytes];
        for j in 0..n {
            for o in 0..outer {
                send[(j * outer + o) * inner..][..inner].copy_from_slice(&x[(o * n + j) * inner..][..inner]);
            }
        }
        let mut recv = vec![0u8; self.in_bytes];
        comm.all_to_all(&send, &mut recv)?;
        // Each received block has the operand's shape with the split axis / n.
        let block = self.in_bytes / n;
        let mut block_shape = self.shape.clone();
        block_shape[split] /= n;
        let outer_c: usize = block_shape[..concat].iter().product();
        let inner_c = block / outer_c.max(1);
        for m in 0..n {
            for o in 0..outer_c {
                out[(o * n + m) * inner_c..][..inner_c].copy_from_slice(&recv[m * block + o * inner_c..][..inner_c]);
            }
        }
        Ok(())
    }

    /// Runs the step on `comm` (an error naming the axis without one).
    ///
    /// # Safety
    /// `ins` and `outs` are buffers of the operand's and the result's types.
    pub(crate) unsafe fn run(
        &self,
        ins: &[*mut u8],
        outs: &[*mut u8],
        comm: Option<&dyn Communicator>,
    ) -> Result<(), String> {
        let Some(comm) = comm else { return Err(ferrax_ir::prim::collective::unbound(&self.op)) };
        if let Some(message) = &self.several_axes {
            return Err(message.clone());
        }
        let n = comm.size();
        if let Some(size) = self.op.axis_size()
            && size != n
        {
            return Err(format!("{}: axis_size is {size} but {n} workers run it", self.op.name()));
        }
        comm.agree(&self.what, self.hash)?;
        // SAFETY: by the caller's contract.
        let x: &[u8] = match ins.first() {
            Some(&p) => unsafe { std::slice::from_raw_parts(p, self.in_bytes) },
            None => &[],
        };
        let out: &mut [u8] = unsafe { std::slice::from_raw_parts_mut(outs[0], self.out_bytes) };
        let rank = comm.rank();
        match &self.op {
            CollectiveOp::Psum { .. } => comm.all_reduce_into(Reduce::Sum, self.dtype, x, out)?,
            CollectiveOp::Pmax { .. } => comm.all_reduce_into(Reduce::Max, self.dtype, x, out)?,
            CollectiveOp::Pmin { .. } => comm.all_reduce_into(Reduce::Min, self.dtype, x, out)?,
            CollectiveOp::Pmean { .. } => {
                comm.all_reduce_into(Reduce::Sum, self.dtype, x, out)?;
                divide(self.dtype, out, n)?;
            }
            CollectiveOp::AllGather { axis, .. } => self.all_gather(comm, x, out, *axis)?,
            CollectiveOp::PsumScatter { scatter_dimension, .. } => {
                let mut total = x.to_vec();
                comm.all_reduce(Reduce::Sum, self.dtype, &mut total)?;
                // The operand as [outer, n, inner]: this worker keeps [.., rank, ..].
                let (outer, rest) = self.split(*scatter_dimension);
                let inner = rest / n;
                for o in 0..outer {
                    out[o * inner..][..inner].copy_from_slice(&total[(o * n + rank) * inner..][..inner]);
                }
            }
            CollectiveOp::Ppermute { perm, .. } => {
                if let Some([s, d]) = perm.iter().find(|[s, d]| *s >= n || *d >= n) {
                    return Err(format!("ppermute: pair [{s}, {d}] names a worker beyond the {n} workers"));
                }
                let to = perm.iter().find(|[s, _]| *s == rank).map(|&[_, d]| d);
                let from = perm.iter().find(|[_, d]| *d == rank).map(|&[s, _]| s);
                if from.is_none() {
                    out.fill(0);
                }
                comm.permute(x, to, from, out)?;
            }
            CollectiveOp::AllToAll { split_axis, concat_axis, .. } => {
                self.all_to_all(comm, x, out, *split_axis, *concat_axis)?
            }
            CollectiveOp::AxisIndex { .. } => {
                let k = i32::try_from(rank).map_err(|_| "axis_index: rank beyond i32".to_string())?;
                out.copy_from_slice(&k.to_ne_bytes());
            }
        }
        Ok(())
    }
}

/// `data /= n` elementwise (pmean's division, rounded once like the vmap form's).
fn divide(dtype: DType, data: &mut [u8], n: usize) -> Result<(), String> {
    match dtype {
        DType::F32 => map_in_place(data, f32::from_ne_bytes, f32::to_ne_bytes, |v| v / n as f32),
        DType::F64 => map_in_place(data, f64::from_ne_bytes, f64::to_ne_bytes, |v| v / n as f64),
        DType::BF16 | DType::F16 => map_in_place(data, widen(dtype), narrow(dtype), |v| v / n as f32),
        DType::I32 | DType::Bool => return Err("pmean: not a float".into()),
    }
    Ok(())
}

/// Each `N`-byte element of `data` replaced by `f` of it.
fn map_in_place<T, const N: usize>(
    data: &mut [u8],
    read: impl Fn([u8; N]) -> T,
    write: impl Fn(T) -> [u8; N],
    f: impl Fn(T) -> T,
) {
    for c in data.chunks_exact_mut(N) {
        let v = f(read(c.try_into().unwrap_or([0; N])));
        c.copy_from_slice(&write(v));
    }
}
