//! When and how a kernel launch is split across threads: only above [`SPLIT_WORK`] of
//! estimated work, into [`TASKS_PER_THREAD`] contiguous slices of the outer loop per
//! thread, run on the JIT's pool (`crate::pool`). Every element is computed by the same
//! code whatever the split (slices of 1-D kernels are cut on multiples of 16 iterations,
//! between whole vectors), so a split launch is bit-identical to one call. A full
//! reduction has an outer extent of 1, except a large vectorised one, whose outer loop
//! runs fixed chunks of the reduced range (`kernel/chunked.rs`): those launches split too,
//! still bit-identical to one call since the chunks do not depend on the thread count.

/// Estimated work (loop elements times weighed equations, `Kernel::work_per_outer · outer`)
/// above which a launch is split: at the ~0.1–0.5 ns per element-operation of the
/// vector kernels, 0.2–1 ms of one core's work, so the pool's hand-off (about a
/// microsecond when the workers are spinning, tens when they must be woken) stays small
/// and memory-bound kernels, which gain little from a second core (measured:
/// 0.92–0.96x of one core's time at 1–4M elements split under rayon), are split only when large.
pub(crate) const SPLIT_WORK: f64 = 2.0e6;

/// Tasks per thread, so that a thread the host does not schedule delays little.
const TASKS_PER_THREAD: i64 = 4;

/// The split of a launch of `outer` outer iterations of `work_per_outer` each on up to
/// `threads` threads, as (tasks, outer iterations per task); `None` to run it in one call.
pub(crate) fn tasks(work_per_outer: f64, outer: i64, threads: usize) -> Option<(usize, i64)> {
    let threads = threads.clamp(1, outer.max(1) as usize) as i64;
    if threads < 2 || work_per_outer * outer as f64 <= SPLIT_WORK {
        return None;
    }
    let want = threads * TASKS_PER_THREAD;
    let mut chunk = (outer + want - 1) / want;
    if outer >= 64 * want {
        chunk = (chunk + 15) / 16 * 16;
    }
    let chunk = chunk.max(1);
    Some((((outer + chunk - 1) / chunk) as usize, chunk))
}

#[cfg(test)]
mod tests {
    use super::{SPLIT_WORK, tasks};

    #[test]
    fn small_launches_and_one_thread_are_not_split() {
        assert_eq!(tasks(1.0, 1_000_000, 2), None); // 1M element-operations
        assert_eq!(tasks(1000.0, 2000, 2), None); // exactly the threshold: 2e6
        assert_eq!(tasks(1e9, 1000, 1), None);
        assert_eq!(tasks(1e9, 1, 8), None); // one outer iteration cannot be cut
    }

    #[test]
    fn large_launches_cover_the_outer_range_once() {
        for (work, outer, threads) in [(4.0, 4_000_000i64, 2usize), (1e5, 128, 2), (1e6, 7, 4), (3e3, 999_999, 3)] {
            assert!(work * outer as f64 > SPLIT_WORK);
            let (n, chunk) = tasks(work, outer, threads).unwrap();
            assert!(n >= 2 && n as i64 <= 4 * threads as i64, "{n} tasks");
            // The tasks' slices [t·chunk, min((t+1)·chunk, outer)) tile [0, outer).
            assert!((n as i64 - 1) * chunk < outer && n as i64 * chunk >= outer);
            if outer >= 64 * 4 * threads as i64 {
                assert_eq!(chunk % 16, 0);
            }
        }
    }
}
