//! The threads engine: the workers of one axis are threads of one process.
//!
//! Every collective is one *exchange*: each worker deposits what it sends (with the
//! collective's hash and description) in its slot, and the last to arrive publishes
//! the full set of slots to everyone and opens the next round. Each worker then takes
//! what it needs from the published set (its reduction in rank order, its blocks), so
//! an exchange needs no second barrier. [`Communicator::agree`] is an exchange of the
//! hashes alone.
//!
//! Faults: a worker whose call fails reports it with [`ThreadWorker::fail`] (and a
//! panicking worker does so from a drop guard in [`ThreadGroup::run`]); a worker
//! waiting longer than the group's timeout fails the group itself. Once the group has
//! failed, every pending and later exchange returns an error naming the first failure,
//! so all workers end.

use ferrax_ir::DType;
use ferrax_jit::{Communicator, Reduce, reduce_in_rank_order};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a waiting worker spins before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// What one worker put in an exchange.
#[derive(Clone, Debug, Default)]
struct Slot {
    hash: u64,
    what: String,
    data: Vec<u8>,
    /// The worker a `permute` sends to.
    to: Option<usize>,
}

#[derive(Debug, Default)]
struct State {
    /// Slots of the round being filled.
    slots: Vec<Option<Slot>>,
    arrived: usize,
    /// Rounds completed; a waiting worker's round is over when this moves.
    round: u64,
    /// The slots of the last completed round.
    published: Arc<Vec<Slot>>,
    /// The first failure, which ends every exchange.
    failed: Option<String>,
}

#[derive(Debug)]
struct Shared {
    size: usize,
    timeout: Duration,
    state: Mutex<State>,
    changed: Condvar,
    /// `State::round`, readable without the lock: a waiting worker spins on it for a
    /// few microseconds before sleeping on `changed` (a step's collectives follow each
    /// other closely, and a condvar wake-up costs tens of microseconds).
    rounds: AtomicU64,
    /// Set with `State::failed`, for the same spin.
    failed: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked while holding the lock leaves the state usable: every
        // field is updated before anything that can panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn fail(&self, message: String) {
        let mut state = self.lock();
        state.failed.get_or_insert(message);
        self.failed.store(true, Ordering::Release);
        self.changed.notify_all();
    }

    /// Deposits `slot` for `rank` and returns every worker's slot of this round.
    fn exchange(&self, rank: usize, slot: Slot) -> Result<Arc<Vec<Slot>>, String> {
        let what = slot.what.clone();
        let mut state = self.lock();
        if let Some(f) = &state.failed {
            return Err(f.clone());
        }
        if state.slots[rank].is_some() {
            return Err(format!("worker {rank}: two collectives in flight on one worker"));
        }
        state.slots[rank] = Some(slot);
        state.arrived += 1;
        if state.arrived == self.size {
            let slots: Vec<Slot> = state.slots.iter_mut().map(|s| s.take().unwrap_or_default()).collect();
            state.published = Arc::new(slots);
            state.arrived = 0;
            state.round += 1;
            self.rounds.store(state.round, Ordering::Release);
            self.changed.notify_all();
            return Ok(state.published.clone());
        }
        let round = state.round;
        drop(state);
        let spin = Instant::now();
        while self.rounds.load(Ordering::Acquire) == round
            && !self.failed.load(Ordering::Acquire)
            && spin.elapsed() < SPIN
        {
            std::hint::spin_loop();
        }
        let mut state = self.lock();
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(f) = &state.failed {
                return Err(f.clone());
            }
            if state.round != round {
                return Ok(state.published.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                let missing: Vec<usize> = (0..self.size).filter(|&r| state.slots[r].is_none()).collect();
                let message = format!(
                    "worker {rank} waited {:.1} s at {what} for worker(s) {missing:?}, which did not arrive",
                    self.timeout.as_secs_f64()
                );
                state.failed.get_or_insert(message.clone());
                self.failed.store(true, Ordering::Release);
                self.changed.notify_all();
                return Err(message);
            }
            state =
                self.changed.wait_timeout(state, deadline - now).map(|(s, _)| s).unwrap_or_else(|p| p.into_inner().0);
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
        let state = State { slots: vec![None; size], ..State::default() };
        let shared = Shared {
            size,
            timeout,
            state: Mutex::new(state),
            changed: Condvar::new(),
            rounds: AtomicU64::new(0),
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
    /// One collective call at a time on this worker (concurrent calls queue here).
    in_flight: Mutex<()>,
    /// The collective this worker agreed to last (description and hash), sent with
    /// its next exchange and checked against the others' there: one rendezvous per
    /// collective instead of two.
    agreed: Mutex<Option<(String, u64)>>,
    /// Nanoseconds spent in collectives (waiting for the others included).
    busy: AtomicU64,
}

impl ThreadWorker {
    /// Fails the whole group with `message` (every worker's next or pending collective
    /// returns it).
    pub fn fail(&self, message: String) {
        self.shared.fail(message);
    }

    /// The time this worker has spent in collectives so far, waiting for the others
    /// included (what a data-parallel step pays for its all-reduce).
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

    /// One exchange, carrying the collective agreed to (if any); an error naming both
    /// workers when another worker agreed to a different one.
    fn exchange(&self, what: &str, data: Vec<u8>, to: Option<usize>) -> Result<Arc<Vec<Slot>>, String> {
        let _one = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let agreed = self.agreed.lock().unwrap_or_else(|p| p.into_inner()).take();
        let (what, hash) = agreed.unwrap_or_else(|| (what.to_string(), 0));
        let slots = self.shared.exchange(self.rank, Slot { hash, what: what.clone(), data, to })?;
        match slots.iter().enumerate().find(|(_, s)| s.hash != hash) {
            Some((r, other)) => Err(format!(
                "the workers are at different collectives: worker {} at {what}, worker {r} at {}",
                self.rank, other.what
            )),
            None => Ok(slots),
        }
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
}

impl Communicator for ThreadWorker {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    /// Recorded here and checked with the collective's own exchange (see
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
        self.timed(|| {
            let slots = self.all("all_reduce", data)?;
            let parts: Vec<&[u8]> = slots.iter().map(|s| s.data.as_slice()).collect();
            reduce_in_rank_order(op, dtype, &parts, data)
        })
    }

    fn all_reduce_into(&self, op: Reduce, dtype: DType, send: &[u8], recv: &mut [u8]) -> Result<(), String> {
        self.timed(|| {
            if send.len() != recv.len() {
                return Err(format!("all_reduce: {} bytes sent, {} to receive", send.len(), recv.len()));
            }
            let slots = self.all("all_reduce", send)?;
            let parts: Vec<&[u8]> = slots.iter().map(|s| s.data.as_slice()).collect();
            reduce_in_rank_order(op, dtype, &parts, recv)
        })
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
