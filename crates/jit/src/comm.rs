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
//! Reductions of one axis can also run as *buckets* that a program starts early and
//! finishes late ([`Communicator::start_all_reduce`], [`Communicator::finish`]; the
//! schedule is `exec/overlap.rs`'s): an engine that can returns from the start before
//! the other workers arrive, so the reduction overlaps the rest of the program.
//!
//! Every reduction combines the members as the interpreter reduces the batch axis after
//! `vmap` binds the axis (sums in its blocked pairwise order over the ranks, 16-bit
//! floats summed in f32 and rounded once); the results are therefore bit-identical to
//! the vmap semantics on the stacked inputs.

mod reduce;

pub use reduce::reduce_in_rank_order;

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
    /// The sum divided by the number of workers, rounded once after the sum (`pmean`).
    Mean,
}

impl Reduce {
    /// How a reduction collective combines the members, with its axes; `None` for the
    /// collectives that move data.
    pub(crate) fn of(op: &CollectiveOp) -> Option<(Reduce, &[String])> {
        match op {
            CollectiveOp::Psum { axes } => Some((Reduce::Sum, axes)),
            CollectiveOp::Pmean { axes } => Some((Reduce::Mean, axes)),
            CollectiveOp::Pmax { axes } => Some((Reduce::Max, axes)),
            CollectiveOp::Pmin { axes } => Some((Reduce::Min, axes)),
            CollectiveOp::AllGather { .. }
            | CollectiveOp::PsumScatter { .. }
            | CollectiveOp::Ppermute { .. }
            | CollectiveOp::AllToAll { .. }
            | CollectiveOp::AxisIndex { .. } => None,
        }
    }
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

    /// Starts one bucket of reductions: each part's `recv` becomes the reduction of
    /// every worker's `send` of that part, as [`Communicator::all_reduce_into`], all
    /// parts in one rendezvous. An engine that can returns before the others arrive,
    /// and [`Communicator::finish`] completes the bucket; this default reduces every
    /// part now, so that finishing has nothing left to do.
    ///
    /// # Safety
    /// Every part's `send` stays readable and unchanged, and its `recv` writable and
    /// untouched by anyone else, until [`Communicator::finish`] or
    /// [`Communicator::abandon`] of the returned ticket has returned; a part's `send`
    /// and `recv` do not overlap.
    unsafe fn start_all_reduce(&self, op: Reduce, dtype: DType, parts: &[ReducePart]) -> Result<Ticket, String> {
        for p in parts {
            // SAFETY: by the caller's contract.
            let (send, recv) =
                unsafe { (std::slice::from_raw_parts(p.send, p.len), std::slice::from_raw_parts_mut(p.recv, p.len)) };
            self.all_reduce_into(op, dtype, send, recv)?;
        }
        Ok(Ticket(0))
    }

    /// Lets started buckets advance (this worker's share of a bucket whose workers have
    /// all arrived, say); called between the steps of a program while any is pending.
    fn progress(&self) -> Result<(), String> {
        Ok(())
    }

    /// Waits until the bucket of `ticket` is reduced into every part's `recv`, and no
    /// worker touches this worker's buffers any more.
    fn finish(&self, ticket: Ticket) -> Result<(), String> {
        let _ = ticket;
        Ok(())
    }

    /// Gives up a started bucket because the call failed (`why`): returns once no
    /// worker touches this worker's buffers any more, failing the bucket for the others.
    fn abandon(&self, ticket: Ticket, why: &str) {
        let _ = (ticket, why);
    }

    /// The engine's lock that keeps one call of a compiled program in flight on this
    /// worker (a second call's collectives, interleaved with the first's, would pair
    /// with the wrong ones): held for the whole call. `None` when the engine needs none.
    fn lock_call(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        None
    }
}

/// One buffer of a bucket of reductions ([`Communicator::start_all_reduce`]): `len`
/// bytes read from `send`, the reduction over the workers written to `recv`.
#[derive(Clone, Copy, Debug)]
pub struct ReducePart {
    /// This worker's contribution.
    pub send: *const u8,
    /// Where the reduction goes.
    pub recv: *mut u8,
    /// Bytes of each.
    pub len: usize,
}

/// A started bucket of reductions, which [`Communicator::finish`] completes (an
/// engine's own number for it).
#[derive(Debug, PartialEq, Eq)]
pub struct Ticket(pub u64);

/// A collective's description: the primitive with its attributes and the operands'
/// types (what the workers agree on, and what their errors name).
pub(crate) fn describe(op: &CollectiveOp, ins: &[Type]) -> String {
    let prim = ferrax_ir::Prim::Collective(op.clone());
    let attrs: Vec<String> = prim.attrs().iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{}[{}]{}", op.name(), attrs.join(", "), ferrax_ir::format_types(ins))
}

/// The hash the workers compare before a collective: FNV-1a of its description.
pub(crate) fn fingerprint(what: &str) -> u64 {
    what.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
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
        let what = describe(op, ins);
        let hash = fingerprint(&what);
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
            CollectiveOp::Psum { .. }
            | CollectiveOp::Pmax { .. }
            | CollectiveOp::Pmin { .. }
            | CollectiveOp::Pmean { .. } => {
                let (op, _) = Reduce::of(&self.op).ok_or("a reduction without its combination")?;
                comm.all_reduce_into(op, self.dtype, x, out)?
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
