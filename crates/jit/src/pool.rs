//! A small persistent thread pool for splitting one kernel launch or one GEMM across
//! cores, or running two independent GEMMs side by side (`exec/pair.rs`). Measured on
//! 2-core hosts: rayon's wake-up costs 4–11 µs per `join` and made split launches slower
//! than one thread; these workers spin briefly after each job, so a launch that follows
//! another within [`SPIN`] starts in well under a microsecond, then park.
//!
//! [`Pool::run`]`(tasks, f)` calls `f(0)`, ..., `f(tasks - 1)` once each and returns when
//! all have finished. The calling thread and the workers claim task indices from one
//! shared counter, so on a busy host where a worker is not scheduled the caller simply
//! does more of the tasks; once the caller runs out of tasks it takes back the job from
//! every worker that has not picked it up yet, and waits only for workers that did (each
//! of them finishes at most the task it is running). Callers should cut work into a few
//! more tasks than threads. One job runs at a time: a caller that finds the pool busy
//! (another thread's call, or `f` itself calling `run`) runs all its tasks itself, in
//! order, so concurrent calls never wait on each other and nesting cannot deadlock.
//! A panicking task never unwinds through a worker: it is caught there, the worker
//! survives, and the panic resumes on the caller once every task has finished (the other
//! tasks still run).
//!
//! The process-wide pool ([`Pool::global`]) has `available_parallelism() - 1` workers
//! (at most [`MAX_WORKERS`]), started at its first use.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// How long an idle worker spins for the next job before parking.
pub(crate) const SPIN: Duration = Duration::from_micros(100);

/// The most workers of the global pool.
pub(crate) const MAX_WORKERS: usize = 15;

/// A panic payload caught on a task.
type Payload = Box<dyn Any + Send + 'static>;

/// One job; lives on the caller's stack until every worker that took it has finished.
struct Job {
    /// The task function, lifetime-erased (valid while the job is).
    f: *const (dyn Fn(usize) + Sync),
    tasks: usize,
    /// The next unclaimed task.
    next: AtomicUsize,
    /// Workers done with this job (the last thing a worker does with it).
    finished: AtomicUsize,
    /// The first panic of a task.
    panic: Mutex<Option<Payload>>,
}

impl Job {
    /// Claims and runs tasks until none is left.
    fn work(&self) {
        // SAFETY: the job (and so the function) is alive while anyone works on it.
        let f = unsafe { &*self.f };
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.tasks {
                return;
            }
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(i))) {
                self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(p);
            }
        }
    }
}

/// The mailbox of one worker.
struct Slot {
    job: AtomicPtr<Job>,
    sleeping: AtomicBool,
}

/// A fixed set of worker threads.
pub(crate) struct Pool {
    slots: Vec<Arc<Slot>>,
    threads: Vec<Thread>,
    /// Held while a job runs; a caller that cannot take it runs its tasks inline.
    busy: Mutex<()>,
}

impl Pool {
    /// A pool of `workers` threads (named `ferrax-pool-i`). A worker that cannot be
    /// started is left out (the pool then has fewer workers).
    pub(crate) fn new(workers: usize) -> Pool {
        let mut slots = Vec::with_capacity(workers);
        let mut threads = Vec::with_capacity(workers);
        for i in 0..workers {
            let slot = Arc::new(Slot { job: AtomicPtr::new(ptr::null_mut()), sleeping: AtomicBool::new(false) });
            let mine = slot.clone();
            match thread::Builder::new().name(format!("ferrax-pool-{i}")).spawn(move || worker(&mine)) {
                Ok(handle) => {
                    threads.push(handle.thread().clone());
                    slots.push(slot);
                }
                Err(_) => break,
            }
        }
        Pool { slots, threads, busy: Mutex::new(()) }
    }

    /// The process-wide pool: one worker per available core but the caller's.
    pub(crate) fn global() -> &'static Pool {
        static POOL: OnceLock<Pool> = OnceLock::new();
        POOL.get_or_init(|| Pool::new(cores().saturating_sub(1).min(MAX_WORKERS)))
    }

    /// Workers (the caller is one more thread).
    pub(crate) fn workers(&self) -> usize {
        self.slots.len()
    }

    /// Runs `f(0)`, ..., `f(tasks - 1)` on the calling thread and the workers (see the
    /// module docs) and returns when all have finished; all on the calling thread, in
    /// order, when the pool is busy. A panic of a task resumes on the caller after all
    /// tasks have finished.
    pub(crate) fn run(&self, tasks: usize, f: &(dyn Fn(usize) + Sync)) {
        let guard = if tasks > 1 && !self.slots.is_empty() { self.busy.try_lock().ok() } else { None };
        let Some(guard) = guard else {
            (0..tasks).for_each(f);
            return;
        };
        // SAFETY: only the lifetime is erased; the job outlives every use of `f` below.
        let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(f) };
        let job =
            Job { f: erased, tasks, next: AtomicUsize::new(0), finished: AtomicUsize::new(0), panic: Mutex::new(None) };
        let jp = &job as *const Job as *mut Job;
        let offered = (tasks - 1).min(self.slots.len());
        for (slot, t) in self.slots.iter().zip(&self.threads).take(offered) {
            slot.job.store(jp, Ordering::SeqCst);
            if slot.sleeping.load(Ordering::SeqCst) {
                t.unpark();
            }
        }
        job.work();
        // Take the job back from workers that have not started it; wait for the others.
        let taken = self.slots[..offered]
            .iter()
            .filter(|s| s.job.compare_exchange(jp, ptr::null_mut(), Ordering::AcqRel, Ordering::Acquire).is_err())
            .count();
        let start = Instant::now();
        let mut spins = 0u32;
        while job.finished.load(Ordering::Acquire) < taken {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && start.elapsed() > SPIN {
                thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        drop(guard);
        if let Some(p) = job.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            resume_unwind(p);
        }
    }
}

/// The cores this process may use (1 when unknown).
pub(crate) fn cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// A worker: take a job from the slot (spinning up to [`SPIN`] after the last one, then
/// parking), work on it, report that it is finished.
fn worker(slot: &Slot) {
    loop {
        let mut idle = Instant::now();
        let mut spins = 0u32;
        let job = loop {
            let p = slot.job.swap(ptr::null_mut(), Ordering::AcqRel);
            if !p.is_null() {
                break p;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(256) || idle.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            slot.sleeping.store(true, Ordering::SeqCst);
            if slot.job.load(Ordering::SeqCst).is_null() {
                thread::park();
            }
            slot.sleeping.store(false, Ordering::SeqCst);
            idle = Instant::now();
        };
        // SAFETY: a job taken from the slot stays alive until this worker has counted
        // itself finished (the caller waits for every worker it could not take it back from).
        let job = unsafe { &*job };
        job.work();
        job.finished.fetch_add(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    #[test]
    fn every_task_runs_once() {
        let pool = Pool::new(3);
        for tasks in [0, 1, 2, 4, 9] {
            let counts: Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
            pool.run(tasks, &|i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1), "{tasks} tasks");
        }
    }

    #[test]
    fn a_waiting_worker_takes_tasks() {
        // The first task waits until another thread has run a task: only a worker can.
        let pool = Pool::new(1);
        let caller = thread::current().id();
        let others = AtomicUsize::new(0);
        pool.run(2, &|_| {
            if thread::current().id() == caller {
                let start = std::time::Instant::now();
                while others.load(Ordering::Acquire) == 0 {
                    assert!(start.elapsed().as_secs() < 20, "no worker ran a task");
                    thread::yield_now();
                }
            } else {
                others.fetch_add(1, Ordering::Release);
            }
        });
        assert_eq!(others.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_parked_worker_wakes_and_unclaimed_jobs_are_taken_back() {
        let pool = Pool::new(1);
        for round in 0..50 {
            if round % 10 == 0 {
                // Long enough for the worker to park.
                thread::sleep(super::SPIN * 5);
            }
            let n = AtomicUsize::new(0);
            pool.run(8, &|_| {
                n.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(n.load(Ordering::Relaxed), 8);
        }
    }

    #[test]
    fn many_callers_from_many_threads() {
        let pool = Pool::new(2);
        let total = AtomicUsize::new(0);
        thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..500 {
                        // Nested use finds the pool busy and runs inline.
                        pool.run(3, &|i| {
                            total.fetch_add(i + 1, Ordering::Relaxed);
                            pool.run(2, &|j| {
                                total.fetch_add(j, Ordering::Relaxed);
                            });
                        });
                    }
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 4 * 500 * (6 + 3));
    }

    #[test]
    fn a_panic_reaches_the_caller_and_the_pool_survives() {
        let pool = Pool::new(2);
        for bad in [0, 1, 2] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.run(3, &|i| assert!(i != bad, "task {i} fails"));
            }));
            let msg = r.unwrap_err().downcast::<String>().unwrap();
            assert_eq!(*msg, format!("task {bad} fails"));
        }
        let n = AtomicUsize::new(0);
        pool.run(3, &|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 3);
    }
}
