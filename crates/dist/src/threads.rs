//! The threads engine: the workers of one axis are threads of one process.
//!
//! Every collective is one numbered *round*: each worker deposits what it sends (with
//! the collective's hash and description) in its slot of the round, and the last to
//! arrive publishes the full set of slots. Each worker then takes what it needs from
//! the published set, so a copying collective (`all_gather`, `all_to_all`, `permute`)
//! needs no second rendezvous. [`Communicator::agree`] only records the hash, which
//! travels with the collective's own deposit and is checked there.
//!
//! Reductions move no bytes through the round: a worker deposits the addresses of its
//! buffers, and once all have arrived each worker reduces its share of the elements
//! (1/N of the bucket) from every worker's send buffer and writes it into every
//! worker's receive buffer; the bucket is finished when every share is written. A
//! worker that starts a bucket ([`Communicator::start_all_reduce`]) goes on with its
//! program: it writes its share when the round is complete at a later
//! [`Communicator::progress`] or at [`Communicator::finish`], so a worker that arrives
//! early does not wait for the others.
//!
//! Faults: a worker whose call fails reports it with [`ThreadWorker::fail`] (and a
//! panicking worker does so from a drop guard in [`ThreadGroup::run`]); a worker
//! waiting longer than the group's timeout fails the group itself. Once the group has
//! failed, every pending and later collective returns an error naming the first
//! failure, so all workers end, and no share of a reduction starts: a worker that
//! abandons a bucket waits only for the shares being written into its buffers.

use ferrax_ir::DType;
use ferrax_jit::{Communicator, Reduce, ReducePart, Ticket, reduce_in_rank_order};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a waiting worker spins before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// Elements of a reduction share written at a time: reduced into this worker's
/// receive buffer, then copied from there (still in the cache) into the others'.
const SHARE_CHUNK: usize = 8192;

/// A buffer of a reduction, by address (valid until its owner's bucket is finished).
#[derive(Clone, Copy, Debug, Default)]
struct Part {
    send: usize,
    recv: usize,
    len: usize,
}

/// What one worker put in a round.
#[derive(Clone, Debug, Default)]
struct Slot {
    hash: u64,
    what: String,
    data: Vec<u8>,
    /// The worker a `permute` sends to.
    to: Option<usize>,
    /// A reduction's buffers.
    parts: Vec<Part>,
}

/// One collective's round.
#[derive(Debug, Default)]
struct Round {
    slots: Vec<Option<Slot>>,
    arrived: usize,
    /// Every slot, once all workers have arrived.
    published: Option<Arc<Vec<Slot>>>,
    /// The workers whose share of a reduction is written.
    done: Vec<bool>,
    /// Shares being written now.
    writing: usize,
    /// Workers done with the round (it is dropped when all are).
    released: usize,
}

#[derive(Debug, Default)]
struct State {
    rounds: HashMap<u64, Round>,
    /// The first failure, which ends every collective.
    failed: Option<String>,
}

#[derive(Debug)]
struct Shared {
    size: usize,
    timeout: Duration,
    state: Mutex<State>,
    changed: Condvar,
    /// Bumped at every change of the state, readable without the lock: a waiting
    /// worker spins on it for a few microseconds before sleeping on `changed` (a step's
    /// collectives follow each other closely, and a condvar wake-up costs tens of
    /// microseconds).
    epoch: AtomicU64,
    /// Set with `State::failed`, for the same spin.
    failed: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked while holding the lock leaves the state usable: every
        // field is updated before anything that can panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes the waiting workers after a change of the state.
    fn changed(&self) {
        self.epoch.fetch_add(1, Ordering::Release);
        self.changed.notify_all();
    }

    fn fail(&self, message: String) {
        let mut state = self.lock();
        state.failed.get_or_insert(message);
        self.failed.store(true, Ordering::Release);
        self.changed();
    }

    fn round<'s>(&self, state: &'s mut State, id: u64) -> &'s mut Round {
        state.rounds.entry(id).or_insert_with(|| Round {
            slots: vec![None; self.size],
            done: vec![false; self.size],
            ..Round::default()
        })
    }

    /// Deposits `slot` for `rank` in round `id`, publishing the round when it is the last.
    fn deposit(&self, rank: usize, id: u64, slot: Slot) -> Result<(), String> {
        let mut state = self.lock();
        if let Some(f) = &state.failed {
            return Err(f.clone());
        }
        let size = self.size;
        let round = self.round(&mut state, id);
        round.slots[rank] = Some(slot);
        round.arrived += 1;
        if round.arrived == size {
            let slots: Vec<Slot> = round.slots.iter_mut().map(|s| s.take().unwrap_or_default()).collect();
            round.published = Some(Arc::new(slots));
            self.changed();
        }
        Ok(())
    }

    /// Round `id`'s slots if every worker has arrived (else an error once the group
    /// failed).
    fn published(&self, id: u64) -> Result<Option<Arc<Vec<Slot>>>, String> {
        let state = self.lock();
        match (state.rounds.get(&id).and_then(|r| r.published.clone()), &state.failed) {
            (Some(slots), _) => Ok(Some(slots)),
            (None, Some(f)) => Err(f.clone()),
            (None, None) => Ok(None),
        }
    }

    /// Waits until `ready` holds of round `id`, or fails the group when the timeout
    /// passes, naming the workers `missing` lists. `poll` runs whenever the state has
    /// changed (the waiting worker writes its shares of other buckets meanwhile, which
    /// the workers it waits for may be waiting on).
    fn wait(
        &self,
        rank: usize,
        id: u64,
        what: &str,
        ready: impl Fn(&Round) -> bool,
        missing: impl Fn(&Round) -> Vec<usize>,
        poll: &dyn Fn() -> Result<(), String>,
    ) -> Result<(), String> {
        // Ready first: a round every worker reached is reported as it is (two workers
        // at different collectives find that, whatever failed since).
        let check = |state: &mut State| -> Result<bool, String> {
            if ready(self.round(state, id)) {
                return Ok(true);
            }
            match &state.failed {
                Some(f) => Err(f.clone()),
                None => Ok(false),
            }
        };
        let mut epoch = self.epoch.load(Ordering::Acquire);
        poll()?;
        if check(&mut self.lock())? {
            return Ok(());
        }
        let spin = Instant::now();
        // The clock is read once every 64 turns (a read costs more than a turn).
        let mut turns = 0u32;
        while !turns.is_multiple_of(64) || spin.elapsed() < SPIN {
            turns = turns.wrapping_add(1);
            let now = self.epoch.load(Ordering::Acquire);
            if now != epoch {
                epoch = now;
                poll()?;
                if check(&mut self.lock())? {
                    return Ok(());
                }
            }
            std::hint::spin_loop();
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            poll()?;
            let mut state = self.lock();
            if check(&mut state)? {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                let missing = missing(self.round(&mut state, id));
                let message = format!(
                    "worker {rank} waited {:.1} s at {what} for worker(s) {missing:?}, which did not arrive",
                    self.timeout.as_secs_f64()
                );
                state.failed.get_or_insert(message.clone());
                self.failed.store(true, Ordering::Release);
                self.changed();
                return Err(message);
            }
            // Sleeps until the next change (a notification), then polls again.
            drop(self.changed.wait_timeout(state, deadline - now).unwrap_or_else(|p| p.into_inner()));
        }
    }

    /// Waits until every worker has arrived at round `id` and returns the slots.
    fn wait_published(
        &self,
        rank: usize,
        id: u64,
        what: &str,
        poll: &dyn Fn() -> Result<(), String>,
    ) -> Result<Arc<Vec<Slot>>, String> {
        let arrived = |r: &Round| r.published.is_some();
        let absent = |r: &Round| (0..self.size).filter(|&k| r.published.is_none() && r.slots[k].is_none()).collect();
        self.wait(rank, id, what, arrived, absent, poll)?;
        self.published(id)?.ok_or_else(|| format!("worker {rank}: round of {what} vanished"))
    }

    /// Marks the start of a share of round `id` (none starts once the group failed).
    fn begin_share(&self, id: u64) -> Result<(), String> {
        let mut state = self.lock();
        if let Some(f) = &state.failed {
            return Err(f.clone());
        }
        self.round(&mut state, id).writing += 1;
        Ok(())
    }

    /// Marks `rank`'s share of round `id` written.
    fn end_share(&self, rank: usize, id: u64) {
        let mut state = self.lock();
        let round = self.round(&mut state, id);
        round.writing -= 1;
        round.done[rank] = true;
        self.changed();
    }

    /// Waits until no share of round `id` is being written (after a failure).
    fn wait_quiet(&self, id: u64) {
        let mut state = self.lock();
        while state.rounds.get(&id).is_some_and(|r| r.writing > 0) {
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// `rank` is done with round `id`; the last one drops it.
    fn release(&self, id: u64) {
        let mut state = self.lock();
        let size = self.size;
        let round = self.round(&mut state, id);
        round.released += 1;
        if round.released == size {
            state.rounds.remove(&id);
        }
    }
}

/// A group of workers that are threads of this process.
#[derive(Clone, Debug)]
pub struct ThreadGroup {
    shared: Arc<Shared>,
}

impl ThreadGroup {
    /// A group of `size` workers whose collectives give up after `timeout` waiting for
    /// the others.
    pub fn new(size: usize, timeout: Duration) -> ThreadGroup {
        let shared = Shared {
            size,
            timeout,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            epoch: AtomicU64::new(0),
            failed: AtomicBool::new(false),
        };
        ThreadGroup { shared: Arc::new(shared) }
    }

    /// The number of workers.
    pub fn size(&self) -> usize {
        self.shared.size
    }

    /// Worker `rank`'s communicator.
    pub fn worker(&self, rank: usize) -> ThreadWorker {
        ThreadWorker {
            shared: self.shared.clone(),
            rank,
            in_flight: Mutex::new(()),
            agreed: Mutex::new(None),
            busy: AtomicU64::new(0),
            next: AtomicU64::new(0),
            pending: Mutex::new(Vec::new()),
        }
    }

    /// Runs `body(worker)` on one thread per worker and returns their results in rank
    /// order. A worker whose body returns an error or panics fails the group first,
    /// so the others' collectives return instead of waiting for it.
    pub fn run<T: Send, E: Send + std::fmt::Display>(
        &self,
        body: impl Fn(&ThreadWorker) -> Result<T, E> + Sync,
    ) -> Vec<Result<T, String>> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..self.size())
                .map(|rank| {
                    let worker = self.worker(rank);
                    let body = &body;
                    scope.spawn(move || {
                        /// Fails the group if the body panics.
                        struct Guard<'w>(&'w ThreadWorker, bool);
                        impl Drop for Guard<'_> {
                            fn drop(&mut self) {
                                if !self.1 {
                                    self.0.fail(format!("worker {} panicked", self.0.rank));
                                }
                            }
                        }
                        let mut guard = Guard(&worker, false);
                        let result = body(&worker).map_err(|e| {
                            let message = format!("worker {rank} failed: {e}");
                            worker.fail(message.clone());
                            message
                        });
                        guard.1 = true;
                        result
                    })
                })
                .collect();
            handles
                .into_iter()
                .enumerate()
                .map(|(rank, h)| h.join().unwrap_or_else(|_| Err(format!("worker {rank} panicked"))))
                .collect()
        })
    }
}

/// One worker's end of a [`ThreadGroup`]: a [`Communicator`].
#[derive(Debug)]
pub struct ThreadWorker {
    shared: Arc<Shared>,
    rank: usize,
    /// One call of a compiled program at a time on this worker
    /// ([`Communicator::lock_call`]).
    in_flight: Mutex<()>,
    /// The collective this worker agreed to last (description and hash), sent with
    /// its next deposit and checked against the others' there: one rendezvous per
    /// collective instead of two.
    agreed: Mutex<Option<(String, u64)>>,
    /// Nanoseconds spent in collectives (waiting for the others included).
    busy: AtomicU64,
    /// The number of this worker's next round (every worker numbers its collectives
    /// in the same order).
    next: AtomicU64,
    /// This worker's started buckets of reductions, oldest first.
    pending: Mutex<Vec<Pending>>,
}

/// A bucket of reductions this worker has started.
#[derive(Debug)]
struct Pending {
    round: u64,
    op: Reduce,
    dtype: DType,
    what: String,
    /// This worker's share is written.
    share_done: bool,
}

impl ThreadWorker {
    /// Fails the whole group with `message` (every worker's next or pending collective
    /// returns it).
    pub fn fail(&self, message: String) {
        self.shared.fail(message);
    }

    /// The time this worker has spent in collectives so far, waiting for the others
    /// and writing its shares of reductions included (what a data-parallel step pays
    /// for its all-reduce).
    pub fn collective_time(&self) -> Duration {
        Duration::from_nanos(self.busy.load(Ordering::Relaxed))
    }

    /// Runs `f`, adding its duration to [`ThreadWorker::collective_time`].
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy.fetch_add(nanos, Ordering::Relaxed);
        out
    }

    /// Deposits this worker's slot of its next round, with the collective agreed to
    /// (if any), and returns the round's number.
    fn deposit(&self, what: &str, mut slot: Slot) -> Result<(u64, String), String> {
        let agreed = self.agreed.lock().unwrap_or_else(|p| p.into_inner()).take();
        (slot.what, slot.hash) = agreed.unwrap_or_else(|| (what.to_string(), 0));
        let what = slot.what.clone();
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.shared.deposit(self.rank, id, slot)?;
        Ok((id, what))
    }

    /// An error naming both workers when another worker agreed to a different
    /// collective than this one's slot says.
    fn check_agreed(&self, slots: &[Slot]) -> Result<(), String> {
        let mine = &slots[self.rank];
        match slots.iter().enumerate().find(|(_, s)| s.hash != mine.hash) {
            Some((r, other)) => Err(format!(
                "the workers are at different collectives: worker {} at {}, worker {r} at {}",
                self.rank, mine.what, other.what
            )),
            None => Ok(()),
        }
    }

    /// One round of a copying collective: every worker's slot.
    fn exchange(&self, what: &str, data: Vec<u8>, to: Option<usize>) -> Result<Arc<Vec<Slot>>, String> {
        let (id, what) = self.deposit(what, Slot { data, to, ..Slot::default() })?;
        let slots = self.shared.wait_published(self.rank, id, &what, &|| self.write_ready_shares());
        self.shared.release(id);
        let slots = slots?;
        self.check_agreed(&slots)?;
        Ok(slots)
    }

    /// Every worker's data, after checking that all deposited `len` bytes.
    fn all(&self, what: &str, data: &[u8]) -> Result<Arc<Vec<Slot>>, String> {
        let slots = self.exchange(what, data.to_vec(), None)?;
        if let Some((r, s)) = slots.iter().enumerate().find(|(_, s)| s.data.len() != data.len()) {
            return Err(format!(
                "{what}: worker {} sent {} bytes but worker {r} sent {}",
                self.rank,
                data.len(),
                s.data.len()
            ));
        }
        Ok(slots)
    }

    /// Writes this worker's share of the published bucket `p`: its range of the
    /// bucket's elements, reduced from every worker's send buffers into every worker's
    /// receive buffers. Nothing is written when the workers' buckets differ, which
    /// every worker finds alike.
    fn write_share(&self, p: &mut Pending, slots: &[Slot]) -> Result<(), String> {
        self.check_agreed(slots)?;
        let mine = &slots[self.rank].parts;
        if let Some((r, _)) = slots
            .iter()
            .enumerate()
            .find(|(_, s)| s.parts.len() != mine.len() || s.parts.iter().zip(mine).any(|(a, b)| a.len != b.len))
        {
            return Err(format!("{}: worker {r}'s buffers differ from worker {}'s", p.what, self.rank));
        }
        let size = p.dtype.size_bytes().max(1);
        let total: usize = mine.iter().map(|part| part.len / size).sum();
        let n = slots.len();
        // Share k: elements [total·k/n, total·(k+1)/n), cut at multiples of 16.
        let cut = |k: usize| (total * k / n) / 16 * 16;
        let (lo, hi) = (cut(self.rank), if self.rank + 1 == n { total } else { cut(self.rank + 1) });
        self.shared.begin_share(p.round)?;
        let mut base = 0;
        let mut result = Ok(());
        for (k, part) in mine.iter().enumerate() {
            let count = part.len / size;
            let (from, to) = (lo.max(base) - base, hi.min(base + count).saturating_sub(base));
            base += count;
            let mut at = from;
            while at < to && result.is_ok() {
                let len = SHARE_CHUNK.min(to - at);
                // SAFETY: every worker's part `k` holds `count` elements (checked above)
                // and stays valid until every share is written (the owners wait in
                // `finish` or `abandon`); shares are disjoint element ranges, so no two
                // workers write the same bytes, and nobody reads what another writes.
                result = unsafe { reduce_range(p.op, p.dtype, slots, self.rank, k, at * size, len * size) };
                at += len;
            }
        }
        self.shared.end_share(self.rank, p.round);
        p.share_done = true;
        result
    }

    /// Writes this worker's share of every started bucket whose workers have all
    /// arrived ([`Communicator::progress`], untimed, for the waits of other collectives).
    fn write_ready_shares(&self) -> Result<(), String> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        for p in pending.iter_mut().filter(|p| !p.share_done) {
            if let Some(slots) = self.shared.published(p.round)? {
                self.write_share(p, &slots)?;
            }
        }
        Ok(())
    }

    /// Finishes the started bucket `p`: this worker's share, then everyone's.
    fn complete(&self, p: &mut Pending) -> Result<(), String> {
        let slots = self.shared.wait_published(self.rank, p.round, &p.what, &|| self.write_ready_shares())?;
        if !p.share_done {
            self.write_share(p, &slots)?;
        }
        let n = self.shared.size;
        let all = |r: &Round| r.done.iter().all(|&d| d);
        let missing = |r: &Round| (0..n).filter(|&k| !r.done[k]).collect();
        self.shared.wait(self.rank, p.round, &p.what, all, missing, &|| self.write_ready_shares())
    }
}

/// Reduces bytes `[at, at + len)` of part `k` of every worker's send buffer into the
/// same bytes of worker `rank`'s receive buffer, then copies them into the others'.
///
/// # Safety
/// Every slot's part `k` is valid for `at + len` bytes of send and receive buffer, no
/// one else touches those receive bytes, and nobody writes those send bytes meanwhile.
unsafe fn reduce_range(
    op: Reduce,
    dtype: DType,
    slots: &[Slot],
    rank: usize,
    k: usize,
    at: usize,
    len: usize,
) -> Result<(), String> {
    // SAFETY: by the caller's contract.
    unsafe {
        let sends: Vec<&[u8]> =
            slots.iter().map(|s| std::slice::from_raw_parts((s.parts[k].send as *const u8).add(at), len)).collect();
        let mine = std::slice::from_raw_parts_mut((slots[rank].parts[k].recv as *mut u8).add(at), len);
        reduce_in_rank_order(op, dtype, &sends, mine)?;
        for s in slots.iter().enumerate().filter(|&(w, _)| w != rank).map(|(_, s)| s) {
            std::ptr::copy_nonoverlapping(mine.as_ptr(), (s.parts[k].recv as *mut u8).add(at), len);
        }
    }
    Ok(())
}

impl Communicator for ThreadWorker {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    /// Recorded here and checked with the collective's own deposit (see
    /// [`ThreadWorker`]'s `agreed`), before any worker uses another's data.
    fn agree(&self, what: &str, hash: u64) -> Result<(), String> {
        *self.agreed.lock().unwrap_or_else(|p| p.into_inner()) = Some((what.to_string(), hash));
        Ok(())
    }

    fn all_gather(&self, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        self.timed(|| {
            let slots = self.all("all_gather", send)?;
            if recv.len() != send.len() * slots.len() {
                return Err(format!(
                    "all_gather: a receive buffer of {} bytes for {} workers",
                    recv.len(),
                    slots.len()
                ));
            }
            for (chunk, s) in recv.chunks_exact_mut(send.len().max(1)).zip(slots.iter()) {
                chunk.copy_from_slice(&s.data);
            }
            Ok(())
        })
    }

    fn all_reduce(&self, op: Reduce, dtype: DType, data: &mut [u8]) -> Result<(), String> {
        let send = data.to_vec();
        self.all_reduce_into(op, dtype, &send, data)
    }

    fn all_reduce_into(&self, op: Reduce, dtype: DType, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        if send.len() != recv.len() {
            return Err(format!("all_reduce: {} bytes sent, {} to receive", send.len(), recv.len()));
        }
        let part = ReducePart { send: send.as_ptr(), recv: recv.as_mut_ptr(), len: send.len() };
        // SAFETY: `send` and `recv` are borrowed for this whole call, which finishes the
        // bucket (or abandons it) before returning.
        let ticket = unsafe { self.start_all_reduce(op, dtype, &[part]) }?;
        self.finish(ticket)
    }

    unsafe fn start_all_reduce(&self, op: Reduce, dtype: DType, parts: &[ReducePart]) -> Result<Ticket, String> {
        self.timed(|| {
            let parts = parts.iter().map(|p| Part { send: p.send as usize, recv: p.recv as usize, len: p.len });
            let slot = Slot { parts: parts.collect(), ..Slot::default() };
            let (id, what) = self.deposit("all_reduce", slot)?;
            let pending = Pending { round: id, op, dtype, what, share_done: false };
            self.pending.lock().unwrap_or_else(|p| p.into_inner()).push(pending);
            Ok(Ticket(id))
        })
    }

    fn progress(&self) -> Result<(), String> {
        self.timed(|| self.write_ready_shares())
    }

    fn finish(&self, ticket: Ticket) -> Result<(), String> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let Some(k) = pending.iter().position(|p| p.round == ticket.0) else {
            return Err(format!("worker {}: no reduction started as round {}", self.rank, ticket.0));
        };
        let mut p = pending.remove(k);
        drop(pending);
        let result = self.timed(|| self.complete(&mut p));
        if result.is_err() {
            // Others may be writing their shares into this worker's buffers.
            self.shared.wait_quiet(p.round);
        }
        self.shared.release(p.round);
        result
    }

    fn abandon(&self, ticket: Ticket, why: &str) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = pending.iter().position(|p| p.round == ticket.0) {
            let p = pending.remove(k);
            self.shared.fail(format!("worker {} failed with {} in flight: {why}", self.rank, p.what));
            self.shared.wait_quiet(p.round);
            self.shared.release(p.round);
        }
    }

    fn lock_call(&self) -> Option<MutexGuard<'_, ()>> {
        Some(self.in_flight.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn all_to_all(&self, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        self.timed(|| {
            let slots = self.all("all_to_all", send)?;
            let n = slots.len();
            let block = send.len() / n.max(1);
            if recv.len() != send.len() || block * n != send.len() {
                return Err(format!("all_to_all: {} bytes do not split into {n} blocks", send.len()));
            }
            for (m, s) in slots.iter().enumerate() {
                recv[m * block..][..block].copy_from_slice(&s.data[self.rank * block..][..block]);
            }
            Ok(())
        })
    }

    fn permute(&self, send: &[u8], to: Option<usize>, from: Option<usize>, recv: &mut [u8]) -> Result<(), String> {
        self.timed(|| {
            let slots = self.exchange("ppermute", send.to_vec(), to)?;
            if let Some(src) = from {
                let slot = slots.get(src).ok_or_else(|| format!("ppermute: no worker {src}"))?;
                if slot.to != Some(self.rank) || slot.data.len() != recv.len() {
                    return Err(format!(
                        "ppermute: worker {src} did not send {} bytes to worker {}",
                        recv.len(),
                        self.rank
                    ));
                }
                recv.copy_from_slice(&slot.data);
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_worker_ends_the_others_collectives() {
        let group = ThreadGroup::new(3, Duration::from_secs(30));
        let results = group.run(|w| {
            if w.rank() == 1 {
                return Err("no data".to_string());
            }
            w.all_gather(&[1], &mut [0; 3])
        });
        assert!(results[1].as_ref().unwrap_err().contains("worker 1 failed: no data"));
        for r in [0, 2] {
            assert!(results[r].as_ref().unwrap_err().contains("worker 1 failed"), "{results:?}");
        }
    }

    #[test]
    fn a_missing_worker_times_out_naming_it() {
        let group = ThreadGroup::new(2, Duration::from_millis(200));
        let w0 = group.worker(0);
        w0.agree("psum f32[2]", 1).unwrap();
        let e = w0.all_gather(&[1], &mut [0; 2]).unwrap_err();
        assert!(e.contains("worker(s) [1]") && e.contains("psum f32[2]"), "{e}");
    }

    #[test]
    fn workers_at_different_collectives_are_named() {
        let group = ThreadGroup::new(2, Duration::from_secs(30));
        let results = group.run(|w| {
            w.agree(if w.rank() == 0 { "psum f32[2]" } else { "pmax f32[3]" }, w.rank() as u64)?;
            w.all_gather(&[1], &mut [0; 2])
        });
        let e = results[0].as_ref().unwrap_err();
        assert!(e.contains("worker 0 at psum f32[2]") && e.contains("worker 1 at pmax f32[3]"), "{e}");
    }

    #[test]
    fn collectives_move_the_right_bytes() {
        let group = ThreadGroup::new(3, Duration::from_secs(30));
        let results = group.run(|w| -> Result<Vec<u8>, String> {
            let r = w.rank() as u8;
            let mut gathered = vec![0; 6];
            w.all_gather(&[r, r + 10], &mut gathered)?;
            let mut swapped = vec![0; 3];
            w.all_to_all(&[r * 3, r * 3 + 1, r * 3 + 2], &mut swapped)?;
            let mut got = vec![99];
            let to = (w.rank() + 1 < 3).then_some(w.rank() + 1);
            let from = w.rank().checked_sub(1);
            w.permute(&[r], to, from, &mut got)?;
            let mut sum = (f32::from(r) + 0.5).to_ne_bytes().to_vec();
            w.all_reduce(Reduce::Sum, DType::F32, &mut sum)?;
            Ok([gathered, swapped, got, sum].concat())
        });
        let total = (0.5f32 + 1.5 + 2.5).to_ne_bytes();
        for (rank, r) in results.into_iter().enumerate() {
            let r = r.unwrap();
            let k = rank as u8;
            assert_eq!(&r[..6], &[0, 10, 1, 11, 2, 12]);
            assert_eq!(&r[6..9], &[k, 3 + k, 6 + k]);
            assert_eq!(r[9], if rank == 0 { 99 } else { k - 1 });
            assert_eq!(&r[10..], &total);
        }
    }
}
