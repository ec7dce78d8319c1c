//! The MPI engine (cargo feature `mpi`): the workers are the processes of an MPI job
//! (`mpirun -np N`, on one machine or on the hosts of a hostfile), over the system's
//! MPI library through the `mpi` crate.
//!
//! OpenMPI cannot recover from a dead rank: a rank that returns or panics before a
//! collective leaves the others waiting forever, and `mpirun` never ends the job,
//! while a rank that calls `MPI_Abort` ends the whole job within about a second. So
//! [`MpiWorker::init`] installs a panic hook that prints the panic and aborts the job,
//! every collective is a non-blocking MPI call polled against the worker's timeout
//! (aborting with a message naming the rank and the collective when it passes), and a
//! worker whose own call fails reports it with [`MpiWorker::fail`], which aborts too.
//! Jobs end non-zero instead of hanging; scripts still run under `mpirun --timeout`.
//!
//! Reductions gather every rank's buffer and combine them in rank order
//! (`ferrax_jit::reduce_in_rank_order`), so the results are the threads engine's and
//! the vmap semantics' bits, whatever the MPI library's own reduction order. A started
//! bucket of reductions ([`Communicator::start_all_reduce`]) posts one non-blocking
//! gather per buffer and returns; `progress` (between the program's steps) tests them,
//! which is when OpenMPI moves their bytes, and `finish` waits for them and reduces.

use ferrax_ir::DType;
use ferrax_jit::{Communicator, Reduce, ReducePart, Ticket, reduce_in_rank_order};
use mpi::request::{Request, Scope, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator as _, CommunicatorCollectives, Destination, Source};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Bytes each rank sends to agree on a collective: its hash and the start of its
/// description.
const AGREE_BYTES: usize = 128;

/// This process's end of the MPI job's world communicator.
pub struct MpiWorker {
    /// Finalizes MPI when dropped (at the end of `main`).
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
    timeout: Duration,
    /// Serializes this process's MPI calls (MPI is initialised `Serialized`).
    in_flight: Mutex<()>,
    /// One call of a compiled program at a time ([`Communicator::lock_call`]).
    calls: Mutex<()>,
    /// The started buckets of reductions, oldest first.
    pending: Mutex<Vec<Bucket>>,
    /// The next bucket's ticket.
    tickets: AtomicU64,
}

/// A started bucket: one gather in flight per buffer.
struct Bucket {
    ticket: u64,
    op: Reduce,
    dtype: DType,
    parts: Vec<ReducePart>,
    /// Every rank's copy of each part, filled by its gather (leaked boxes, taken back
    /// once the gather has completed).
    gathered: Vec<*mut [u8]>,
    /// Each part's gather, `None` once it completed.
    requests: Vec<Option<Request<'static, [u8], StaticScope>>>,
}

impl Bucket {
    /// Tests every gather still in flight.
    fn test(&mut self) {
        for slot in &mut self.requests {
            if let Some(request) = slot.take() {
                *slot = request.test().err();
            }
        }
    }
}

// SAFETY: MPI is initialised with `Threading::Serialized`, which allows MPI calls from
// any thread as long as no two run at once; every call through this worker holds
// `in_flight`, and the world communicator is a process-wide handle, not thread-bound.
unsafe impl Send for MpiWorker {}
// SAFETY: as for `Send`: shared use goes through `in_flight`.
unsafe impl Sync for MpiWorker {}

impl MpiWorker {
    /// Initialises MPI (once per process) and installs the panic hook that aborts the
    /// job; `None` when MPI was initialised already. Collectives wait at most
    /// `timeout` for the other ranks.
    pub fn init(timeout: Duration) -> Option<MpiWorker> {
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
        let world = universe.world();
        let rank = world.rank();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            eprintln!("ferrax-dist: rank {rank} panicked; aborting the MPI job");
            SimpleCommunicator::world().abort(101);
        }));
        Some(MpiWorker {
            _universe: universe,
            world,
            timeout,
            in_flight: Mutex::new(()),
            calls: Mutex::new(()),
            pending: Mutex::new(Vec::new()),
            tickets: AtomicU64::new(0),
        })
    }

    /// Ends the whole job with `message` (printed with this rank), as a failed worker
    /// must: the other ranks cannot be told otherwise.
    pub fn fail(&self, message: &str) -> ! {
        eprintln!("ferrax-dist: rank {}: {message}; aborting the MPI job", self.world.rank());
        self.world.abort(1)
    }

    /// Polls `request` until it completes, or aborts the job when the timeout passes.
    fn wait<'a, B: ?Sized, S: Scope<'a>>(&self, what: &str, mut request: Request<'a, B, S>) {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            match request.test() {
                Ok(_) => return,
                Err(pending) => request = pending,
            }
            if start.elapsed() > self.timeout {
                self.fail(&format!(
                    "waited {:.1} s at {what} for the other ranks, which did not arrive",
                    self.timeout.as_secs_f64()
                ));
            }
            // Spin briefly (collectives of a step are short), then yield the core.
            spins = spins.saturating_add(1);
            if spins > 1000 {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    fn gather(&self, what: &str, send: &[u8], recv: &mut [u8]) {
        mpi::request::scope(|scope| {
            let request = self.world.immediate_all_gather_into(scope, send, recv);
            self.wait(what, request);
        });
    }
}

impl Communicator for MpiWorker {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn agree(&self, what: &str, hash: u64) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        // The hash, then the start of the description, so that a mismatch names both.
        let mut mine = [0u8; AGREE_BYTES];
        mine[..8].copy_from_slice(&hash.to_ne_bytes());
        let text = what.as_bytes();
        let kept = text.len().min(AGREE_BYTES - 8);
        mine[8..8 + kept].copy_from_slice(&text[..kept]);
        let mut all = vec![0u8; AGREE_BYTES * self.size()];
        self.gather(what, &mine, &mut all);
        match all.chunks_exact(AGREE_BYTES).position(|other| other[..8] != mine[..8]) {
            Some(r) => {
                let other = &all[r * AGREE_BYTES + 8..(r + 1) * AGREE_BYTES];
                let other = String::from_utf8_lossy(other).trim_end_matches('\0').to_string();
                Err(format!(
                    "the ranks are at different collectives: rank {} at {what}, rank {r} at {other}",
                    self.rank()
                ))
            }
            None => Ok(()),
        }
    }

    fn all_gather(&self, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        if recv.len() != send.len() * self.size() {
            return Err(format!("all_gather: a receive buffer of {} bytes for {} ranks", recv.len(), self.size()));
        }
        self.gather("all_gather", send, recv);
        Ok(())
    }

    fn all_reduce(&self, op: Reduce, dtype: DType, data: &mut [u8]) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let mut all = vec![0u8; data.len() * self.size()];
        self.gather("all_reduce", data, &mut all);
        let parts: Vec<&[u8]> = all.chunks_exact(data.len().max(1)).collect();
        if data.is_empty() {
            return Ok(());
        }
        reduce_in_rank_order(op, dtype, &parts, data)
    }

    unsafe fn start_all_reduce(&self, op: Reduce, dtype: DType, parts: &[ReducePart]) -> Result<Ticket, String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.size();
        let mut bucket = Bucket {
            ticket: self.tickets.fetch_add(1, Ordering::Relaxed),
            op,
            dtype,
            parts: parts.to_vec(),
            gathered: Vec::with_capacity(parts.len()),
            requests: Vec::with_capacity(parts.len()),
        };
        for p in parts {
            let gathered: &'static mut [u8] = Box::leak(vec![0u8; p.len * n].into_boxed_slice());
            bucket.gathered.push(gathered as *mut [u8]);
            // SAFETY: by the caller's contract the send buffer stays valid and unchanged
            // until `finish`, which completes this gather before returning.
            let send: &'static [u8] = unsafe { std::slice::from_raw_parts(p.send, p.len) };
            bucket.requests.push(Some(self.world.immediate_all_gather_into(StaticScope, send, gathered)));
        }
        let ticket = bucket.ticket;
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).push(bucket);
        Ok(Ticket(ticket))
    }

    fn progress(&self) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).iter_mut().for_each(Bucket::test);
        Ok(())
    }

    fn finish(&self, ticket: Ticket) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let bucket = {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            let k = pending.iter().position(|b| b.ticket == ticket.0);
            k.map(|k| pending.remove(k))
        };
        let Some(mut bucket) = bucket else { return Err(format!("no reduction started as ticket {}", ticket.0)) };
        for request in bucket.requests.iter_mut().filter_map(Option::take) {
            self.wait("all_reduce", request);
        }
        let n = self.size();
        let mut result = Ok(());
        for (p, &gathered) in bucket.parts.iter().zip(&bucket.gathered) {
            // SAFETY: the gather into this box completed above; the box was leaked by
            // `start_all_reduce` and is taken back once, here.
            let gathered = unsafe { Box::from_raw(gathered) };
            if result.is_ok() && p.len > 0 {
                let ranks: Vec<&[u8]> = gathered.chunks_exact(p.len).take(n).collect();
                // SAFETY: by the contract of `start_all_reduce`, `recv` is this part's
                // receive buffer of `len` bytes, untouched by anyone else until now.
                let recv = unsafe { std::slice::from_raw_parts_mut(p.recv, p.len) };
                result = reduce_in_rank_order(bucket.op, bucket.dtype, &ranks, recv);
            }
        }
        result
    }

    /// Under MPI a failed call ends the job (the other ranks cannot be told otherwise).
    fn abandon(&self, ticket: Ticket, why: &str) {
        let _ = ticket;
        self.fail(why)
    }

    fn lock_call(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        Some(self.calls.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn all_to_all(&self, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.size();
        if recv.len() != send.len() || !send.len().is_multiple_of(n) {
            return Err(format!("all_to_all: {} bytes do not split into {n} blocks", send.len()));
        }
        mpi::request::scope(|scope| {
            let request = self.world.immediate_all_to_all_into(scope, send, recv);
            self.wait("all_to_all", request);
        });
        Ok(())
    }

    fn permute(&self, send: &[u8], to: Option<usize>, from: Option<usize>, recv: &mut [u8]) -> Result<(), String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        mpi::request::scope(|scope| {
            let sent = to.map(|t| self.world.process_at_rank(t as i32).immediate_send(scope, send));
            let received = from.map(|f| self.world.process_at_rank(f as i32).immediate_receive_into(scope, recv));
            if let Some(r) = received {
                self.wait("ppermute (receive)", r);
            }
            if let Some(s) = sent {
                self.wait("ppermute (send)", s);
            }
        });
        Ok(())
    }
}
