//! A small persistent thread pool for splitting one kernel launch or one GEMM across
//! cores (notes §10: rayon's wake-up costs 4–11 µs per `join` and made split launches
//! slower than one thread; these workers spin briefly after each job, so a launch that
//! follows another within [`SPIN`] starts in well under a microsecond, then park).
//!
//! [`Pool::run`]`(tasks, f)` calls `f(0)` on the calling thread and `f(1..tasks)` on
//! workers (task `i` always on worker `i - 1`: static assignment, no work stealing), and
//! returns when all are done. One job runs at a time: a caller that finds the pool busy
//! (another thread's call, or `f` itself calling `run`) runs all its tasks itself, in
//! order, so concurrent calls never wait on each other and nesting cannot deadlock.
//! A panicking task never unwinds through a worker: it is caught there, the worker
//! survives, and the panic resumes on the caller once every task has finished.
//!
//! The process-wide pool ([`Pool::global`]) has `available_parallelism() - 1` workers
//! (at most [`MAX_WORKERS`]), started at its first use.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// How long an idle worker spins for the next job before parking.
pub(crate) const SPIN: Duration = Duration::from_micros(100);

/// The most workers of the global pool.
pub(crate) const MAX_WORKERS: usize = 15;

/// A panic payload caught on a worker.
type Payload = Box<dyn Any + Send + 'static>;

/// One task handed to one worker; lives on the caller's stack until `done` is set.
struct Job {
    /// The task function, lifetime-erased (valid until the caller sees `done`).
    f: *const (dyn Fn(usize) + Sync),
    index: usize,
    panic: Mutex<Option<Payload>>,
    done: AtomicBool,
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

    /// Runs `f(0)`, ..., `f(tasks - 1)`, `f(0)` on the calling thread and the others on
    /// workers, and returns when all have finished. Tasks beyond `workers() + 1`, or
    /// all of them when the pool is busy, run on the calling thread in order. A panic of
    /// any task resumes on the caller after all tasks have finished.
    pub(crate) fn run(&self, tasks: usize, f: &(dyn Fn(usize) + Sync)) {
        if tasks <= 1 {
            if tasks == 1 {
                f(0);
            }
            return;
        }
        let Ok(guard) = self.busy.try_lock() else {
            (0..tasks).for_each(f);
            return;
        };
        let remote = (tasks - 1).min(self.slots.len());
        // SAFETY: only the lifetime is erased; the jobs are finished before `f` can go.
        let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(f) };
        let jobs: Vec<Job> = (0..remote)
            .map(|w| Job { f: erased, index: w + 1, panic: Mutex::new(None), done: AtomicBool::new(false) })
            .collect();
        for (slot, (job, t)) in self.slots.iter().zip(jobs.iter().zip(&self.threads)) {
            slot.job.store(job as *const Job as *mut Job, Ordering::SeqCst);
            if slot.sleeping.load(Ordering::SeqCst) {
                t.unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| {
            f(0);
            (remote + 1..tasks).for_each(f);
        }));
        let start = Instant::now();
        for job in &jobs {
            let mut spins = 0u32;
            while !job.done.load(Ordering::Acquire) {
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(64) && start.elapsed() > SPIN {
                    thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
        drop(guard);
        if let Err(p) = mine {
            resume_unwind(p);
        }
        for job in jobs {
            if let Some(p) = job.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
                resume_unwind(p);
            }
        }
    }
}

/// The cores this process may use (1 when unknown).
pub(crate) fn cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// A worker: take a job from the slot (spinning up to [`SPIN`] after the last one, then
/// parking), run it with panics caught, mark it done.
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
        // SAFETY: the caller keeps the job (and the function it points to) alive until
        // it sees `done`, which is the last thing done with it here.
        let job = unsafe { &*job };
        let f = unsafe { &*job.f };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(job.index))) {
            *job.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
        }
        job.done.store(true, Ordering::Release);
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
    fn tasks_run_on_workers_when_free() {
        let pool = Pool::new(1);
        let caller = thread::current().id();
        let ids = std::sync::Mutex::new(Vec::new());
        pool.run(2, &|i| ids.lock().unwrap().push((i, thread::current().id())));
        let ids = ids.into_inner().unwrap();
        let other = ids.iter().find(|(i, _)| *i == 1).unwrap().1;
        assert_ne!(other, caller);
        assert_eq!(ids.iter().find(|(i, _)| *i == 0).unwrap().1, caller);
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
