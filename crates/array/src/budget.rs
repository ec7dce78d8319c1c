//! Overflow-checked sizes and the allocation budget.
//!
//! Every allocation whose size comes from user input (a type in IR text, a `.npy`
//! header) is sized here first, with checked arithmetic, and compared with the
//! budget before any memory is requested. Linux overcommits, so "cannot be
//! allocated" means "over budget": the check is ours, never the allocator's abort.

use crate::{DType, Error, format_dims};

/// Number of elements of a shape, or an error if it overflows.
pub fn element_count(shape: &[usize]) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::Overflow { dims: format_dims(shape) })
}

/// Bytes of a buffer of `dtype` with `shape`, or an error if it overflows.
pub fn byte_size(dtype: DType, shape: &[usize]) -> Result<u64, Error> {
    let count = element_count(shape)?;
    (count as u64).checked_mul(dtype.size_bytes() as u64).ok_or_else(|| Error::Overflow { dims: format_dims(shape) })
}

/// A limit on the bytes of all live buffers of one computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most bytes that may be live at once.
    pub max_bytes: u64,
}

impl Default for Budget {
    /// What this process may allocate: the least of half of physical memory (8 GiB
    /// where it cannot be read), the address-space and data-segment limits
    /// (`RLIMIT_AS`, `RLIMIT_DATA`, as `ulimit -v` and `ulimit -d` set them) and the
    /// memory limit of its cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`), each
    /// limit less what the process already uses against it and a margin
    /// ([`FOOTPRINT_MARGIN`]). Past a limit the allocator aborts the process, so the
    /// budget must refuse first.
    fn default() -> Self {
        Budget { max_bytes: default_limits().budget() }
    }
}

/// Room left under a process limit for what the budget does not count: thread
/// stacks, per-thread allocator arenas, JIT code and the program's own small
/// allocations.
pub const FOOTPRINT_MARGIN: u64 = 256 << 20;

/// The memory limits the default budget is the least of (bytes; `None`: unlimited or
/// unknown), and what the process already uses against each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Physical memory (`MemTotal` of `/proc/meminfo`).
    pub physical: Option<u64>,
    /// `RLIMIT_AS`, and the process's virtual size (`VmSize`).
    pub address_space: Option<(u64, u64)>,
    /// `RLIMIT_DATA`, and the process's data segment (`VmData`).
    pub data: Option<(u64, u64)>,
    /// The cgroup's memory limit, and the process's resident size (`VmRSS`).
    pub cgroup: Option<(u64, u64)>,
}

impl Limits {
    /// The budget these limits allow: half of physical memory (8 GiB where unknown),
    /// and for each process limit, the limit less the use and [`FOOTPRINT_MARGIN`].
    pub fn budget(&self) -> u64 {
        let mut budget = self.physical.unwrap_or(16 << 30) / 2;
        for (limit, used) in [self.address_space, self.data, self.cgroup].into_iter().flatten() {
            budget = budget.min(limit.saturating_sub(used).saturating_sub(FOOTPRINT_MARGIN));
        }
        budget
    }
}

/// The limits of this process, read now.
pub fn default_limits() -> Limits {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let used = |key: &str| status_bytes(&status, key).unwrap_or(0);
    let physical = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| meminfo_total(&t));
    Limits {
        physical,
        address_space: rlimit::address_space().map(|l| (l, used("VmSize:"))),
        data: rlimit::data().map(|l| (l, used("VmData:"))),
        cgroup: cgroup_limit().map(|l| (l, used("VmRSS:"))),
    }
}

/// `MemTotal` of `/proc/meminfo` text, in bytes.
pub(crate) fn meminfo_total(meminfo: &str) -> Option<u64> {
    status_bytes(meminfo, "MemTotal:")
}

/// The value of a `key: <n> kB` line of `/proc/self/status` or `/proc/meminfo` text,
/// in bytes.
pub(crate) fn status_bytes(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A cgroup memory limit file's text (v2 `memory.max`, v1 `memory.limit_in_bytes`):
/// the limit in bytes, `None` for none (`max` in v2; v1 writes "unlimited" as a
/// number near 2^63, so anything from 2^62 up counts as none).
pub(crate) fn cgroup_limit_value(text: &str) -> Option<u64> {
    let n: u64 = text.trim().parse().ok()?;
    (n < 1 << 62).then_some(n)
}

/// The files that may hold this process's cgroup memory limit, from the text of
/// `/proc/self/cgroup`: for v2 (the `0::<path>` line) `<root>/<path>/memory.max`, for
/// v1 (the line whose controllers include `memory`)
/// `<root>/memory/<path>/memory.limit_in_bytes`, each also at the hierarchy's top (a
/// container sees its own cgroup there).
pub(crate) fn cgroup_limit_files(proc_cgroup: &str, root: &str) -> Vec<String> {
    let mut files = Vec::new();
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let path = path.trim_end_matches('/');
        if id == "0" && controllers.is_empty() {
            files.push(format!("{root}{path}/memory.max"));
            files.push(format!("{root}/memory.max"));
        } else if controllers.split(',').any(|c| c == "memory") {
            files.push(format!("{root}/memory{path}/memory.limit_in_bytes"));
            files.push(format!("{root}/memory/memory.limit_in_bytes"));
        }
    }
    files
}

/// The least memory limit among this process's cgroup files.
fn cgroup_limit() -> Option<u64> {
    let proc_cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cgroup_limit_files(&proc_cgroup, "/sys/fs/cgroup")
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter_map(|t| cgroup_limit_value(&t))
        .min()
}

/// The process's resource limits, through `getrlimit` (no file shows one's own limits
/// as numbers that portably: `/proc/self/limits` is Linux-only prose).
#[cfg(unix)]
mod rlimit {
    fn soft(resource: libc::c_int) -> Option<u64> {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: `getrlimit` writes one `rlimit` through the pointer, which is valid
        // and exclusively borrowed for the call.
        let status = unsafe { libc::getrlimit(resource as _, &mut limit) };
        (status == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then(|| widen(limit.rlim_cur))
    }

    /// `rlim_t` as bytes (its width differs between platforms).
    fn widen<T: TryInto<u64>>(n: T) -> u64 {
        n.try_into().unwrap_or(u64::MAX)
    }

    pub(super) fn address_space() -> Option<u64> {
        soft(libc::RLIMIT_AS as libc::c_int)
    }

    pub(super) fn data() -> Option<u64> {
        soft(libc::RLIMIT_DATA as libc::c_int)
    }
}

#[cfg(not(unix))]
mod rlimit {
    pub(super) fn address_space() -> Option<u64> {
        None
    }

    pub(super) fn data() -> Option<u64> {
        None
    }
}

impl Budget {
    /// A budget of `max_bytes`.
    pub fn new(max_bytes: u64) -> Budget {
        Budget { max_bytes }
    }

    /// Checks that `live_bytes + new_bytes` fits, naming `what` otherwise.
    pub fn check(&self, live_bytes: u64, new_bytes: u64, what: &str) -> Result<(), Error> {
        match live_bytes.checked_add(new_bytes) {
            Some(total) if total <= self.max_bytes => Ok(()),
            total => Err(Error::OverBudget {
                what: what.to_string(),
                bytes: total.unwrap_or(u64::MAX),
                max_bytes: self.max_bytes,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_overflow_cleanly() {
        assert_eq!(byte_size(DType::F64, &[3, 4]), Ok(96));
        assert_eq!(byte_size(DType::Bool, &[]), Ok(1));
        assert_eq!(byte_size(DType::F32, &[0, usize::MAX]), Ok(0));
        let err = byte_size(DType::F32, &[usize::MAX / 2, 3]).unwrap_err();
        assert!(matches!(err, Error::Overflow { .. }), "{err}");
        let err = byte_size(DType::F64, &[1 << 62]).unwrap_err();
        assert!(err.to_string().contains("overflows"), "{err}");
    }

    #[test]
    fn budget_rejects_past_limit() {
        let budget = Budget::new(100);
        assert!(budget.check(40, 60, "x").is_ok());
        let err = budget.check(41, 60, "buffer %3").unwrap_err();
        assert_eq!(err.to_string(), "buffer %3 needs 101 live bytes, over the allocation budget of 100 bytes");
        assert!(budget.check(u64::MAX, 1, "y").is_err());
        assert!(Budget::default().max_bytes > 0);
    }

    #[test]
    fn proc_files_parse() {
        let meminfo = "MemTotal:       24576000 kB\nMemFree:         1000 kB\n";
        assert_eq!(meminfo_total(meminfo), Some(24_576_000 * 1024));
        assert_eq!(meminfo_total("MemFree: 3 kB\n"), None);
        let status = "Name:\tferrax\nVmPeak:\t  300 kB\nVmSize:\t  250000 kB\nVmData:\t 12 kB\n";
        assert_eq!(status_bytes(status, "VmSize:"), Some(250_000 * 1024));
        assert_eq!(status_bytes(status, "VmData:"), Some(12 * 1024));
        assert_eq!(status_bytes(status, "VmRSS:"), None);
        assert_eq!(status_bytes("VmSize:\tlots kB\n", "VmSize:"), None);
    }

    #[test]
    fn cgroup_files_parse() {
        assert_eq!(cgroup_limit_value("max\n"), None);
        assert_eq!(cgroup_limit_value("1073741824\n"), Some(1 << 30));
        assert_eq!(cgroup_limit_value("9223372036854771712\n"), None);
        assert_eq!(cgroup_limit_value(""), None);
        let v2 = "0::/user.slice/session-3.scope\n";
        assert_eq!(cgroup_limit_files(v2, "/cg"), ["/cg/user.slice/session-3.scope/memory.max", "/cg/memory.max"]);
        let v1 = "5:devices:/\n4:memory:/job/42\n3:cpu,cpuacct:/\n0::/\n";
        assert_eq!(
            cgroup_limit_files(v1, "/cg"),
            [
                "/cg/memory/job/42/memory.limit_in_bytes",
                "/cg/memory/memory.limit_in_bytes",
                "/cg/memory.max",
                "/cg/memory.max"
            ]
        );
        assert_eq!(cgroup_limit_files("garbage\n\n", "/cg"), Vec::<String>::new());
    }

    #[test]
    fn the_default_is_the_least_limit_less_the_footprint() {
        let physical = Some(16 << 30);
        assert_eq!(Limits { physical, ..Limits::default() }.budget(), 8 << 30);
        assert_eq!(Limits::default().budget(), 8 << 30);
        let address_space = Some((8_000_000 * 1024, 100 << 20));
        let limited = Limits { physical, address_space, ..Limits::default() };
        assert_eq!(limited.budget(), 8_000_000 * 1024 - (100 << 20) - FOOTPRINT_MARGIN);
        let cgroup = Some((1 << 30, 50 << 20));
        let both = Limits { cgroup, ..limited };
        assert_eq!(both.budget(), (1 << 30) - (50 << 20) - FOOTPRINT_MARGIN);
        let data = Some((100 << 20, 0));
        assert_eq!(Limits { data, ..both }.budget(), 0, "a limit under the margin leaves nothing");
    }
}
