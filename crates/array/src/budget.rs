//! Overflow-checked sizes and the allocation budget (DESIGN section 7).
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
    /// Half of physical memory (8 GiB where it cannot be read).
    fn default() -> Self {
        let physical = physical_memory_bytes().unwrap_or(16 << 30);
        Budget { max_bytes: physical / 2 }
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

fn physical_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
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
}
