//! Raw buffers: conversion between host [`Array`]s and the executor's untyped
//! buffers (C order; bool one byte 0/1; i32, f32 4 bytes; f64 8 bytes), and the
//! 64-byte-aligned memory a workspace is made of.

use ferrax_array::Data;
use ferrax_ir::{Array, DType, Error, Place, Type};

/// Reads a buffer of type `ty` at `ptr` into an owned [`Array`].
///
/// # Safety
/// `ptr` must point to `ty.byte_size()` readable bytes holding a value of type `ty`.
pub(crate) unsafe fn read_array(ptr: *const u8, ty: &Type) -> Result<Array, Error> {
    let n = ty.element_count().unwrap_or(0);
    // SAFETY: the caller guarantees `n` elements of the dtype at `ptr`; reads are unaligned-safe.
    let data = unsafe {
        match ty.dtype {
            DType::F32 => Data::F32((0..n).map(|i| (ptr as *const f32).add(i).read_unaligned()).collect()),
            DType::F64 => Data::F64((0..n).map(|i| (ptr as *const f64).add(i).read_unaligned()).collect()),
            DType::I32 => Data::I32((0..n).map(|i| (ptr as *const i32).add(i).read_unaligned()).collect()),
            DType::Bool => Data::Bool((0..n).map(|i| *ptr.add(i) != 0).collect()),
            DType::BF16 => {
                Data::BF16((0..n).map(|i| (ptr as *const ferrax_ir::array::bf16).add(i).read_unaligned()).collect())
            }
            DType::F16 => {
                Data::F16((0..n).map(|i| (ptr as *const ferrax_ir::array::f16).add(i).read_unaligned()).collect())
            }
        }
    };
    Array::new(ty.shape.clone(), data).map_err(|e| Error::eval(Place::default(), format!("jit: {e}")))
}

/// The address of an array's elements (for reading only).
pub(crate) fn array_ptr(a: &Array) -> *mut u8 {
    match a.data() {
        Data::F32(v) => v.as_ptr() as *mut u8,
        Data::F64(v) => v.as_ptr() as *mut u8,
        Data::I32(v) => v.as_ptr() as *mut u8,
        Data::Bool(v) => v.as_ptr() as *mut u8,
        Data::BF16(v) => v.as_ptr() as *mut u8,
        Data::F16(v) => v.as_ptr() as *mut u8,
    }
}

/// Copies an array's elements to `ptr`.
///
/// # Safety
/// `ptr` must point to `a.byte_len()` writable bytes not overlapping `a`.
pub(crate) unsafe fn write_array(a: &Array, ptr: *mut u8) {
    let bytes = a.len() * a.dtype().size_bytes();
    // SAFETY: by the caller's contract; bool is one byte 0/1 in Rust as in the ABI.
    unsafe { std::ptr::copy_nonoverlapping(array_ptr(a) as *const u8, ptr, bytes) };
}

/// One cache line, the unit of a workspace's memory (so every buffer is 64-byte aligned).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Line(pub [u8; 64]);

/// Memory for `bytes` bytes, 64-byte aligned and zeroed; never empty, so its address is
/// valid even for zero-byte buffers.
pub(crate) fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64).max(1)]
}

/// The memory of one call's workspace: from the heap, or, when large on Linux, its own
/// anonymous mapping advised into transparent huge pages (below; x86-64 and aarch64,
/// whose `mmap` flag values `sys` spells out).
pub(crate) enum Workspace {
    /// Heap memory.
    Heap(Vec<Line>),
    /// A private anonymous mapping of `len` bytes (unmapped on drop).
    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    Mapped { ptr: *mut u8, len: usize },
}

/// Workspaces from this size on are mapped in 2 MiB pages where the kernel allows it
/// (Linux with transparent huge pages on `always` or `madvise`; the environment variable
/// `FERRAX_HUGE_PAGES=0` keeps them on the heap).
///
/// A workspace is read and written all over by every call (W9's is 36 MB): in 4 KiB
/// pages its kernels and GEMM operands span more pages than the TLB holds. Measured in
/// 3 alternations on this 2-vCPU host: W9 31.5 -> 29 ms, W8 47 -> 42 ms; W1's 3 MB
/// workspace stays below the threshold.
pub(crate) const HUGE_FROM: usize = 4 << 20;

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod sys {
    use std::ffi::c_void;
    pub const PROT_READ: i32 = 1;
    pub const PROT_WRITE: i32 = 2;
    pub const MAP_PRIVATE: i32 = 2;
    pub const MAP_ANONYMOUS: i32 = 0x20;
    pub const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        pub fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut c_void;
        pub fn munmap(addr: *mut c_void, len: usize) -> i32;
        pub fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
    }
}

/// Whether `FERRAX_HUGE_PAGES` leaves huge-page workspaces on (anything but `0`).
fn huge_pages_allowed() -> bool {
    !std::env::var("FERRAX_HUGE_PAGES").is_ok_and(|v| v == "0")
}

impl Workspace {
    /// Zeroed memory for `bytes` bytes, 64-byte aligned, never empty.
    pub(crate) fn new(bytes: usize) -> Workspace {
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        if bytes >= HUGE_FROM && huge_pages_allowed() {
            // mmap aligns to 4 KiB only; a whole number of 2 MiB pages plus one more lets
            // the kernel back every aligned 2 MiB span inside with a huge page.
            const HUGE: usize = 2 << 20;
            let len = bytes.checked_next_multiple_of(HUGE).and_then(|b| b.checked_add(HUGE)).unwrap_or(0);
            // SAFETY: a fresh private anonymous mapping (a zero length fails with
            // MAP_FAILED); checked for failure below.
            let p = unsafe {
                sys::mmap(
                    std::ptr::null_mut(),
                    len,
                    sys::PROT_READ | sys::PROT_WRITE,
                    sys::MAP_PRIVATE | sys::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if len > 0 && p as isize != -1 && !p.is_null() {
                // SAFETY: the range lies inside the mapping just made; the advice only
                // changes how its pages are backed (ignored where huge pages are off).
                unsafe { sys::madvise(p, len, sys::MADV_HUGEPAGE) };
                return Workspace::Mapped { ptr: p.cast(), len };
            }
        }
        Workspace::Heap(lines(bytes))
    }

    /// The first byte.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            Workspace::Heap(v) => v.as_mut_ptr().cast(),
            #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
            Workspace::Mapped { ptr, .. } => *ptr,
        }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        if let Workspace::Mapped { ptr, len } = *self {
            // SAFETY: the mapping made in `new`, unmapped once.
            unsafe { sys::munmap(ptr.cast(), len) };
        }
    }
}

// SAFETY: a workspace is plain memory owned by one pool slot or one call at a time.
unsafe impl Send for Workspace {}

/// An empty data vector of `dtype` with room for `n` elements, for a call to write its
/// result into (no zeroing: the program writes every element of every result).
pub(crate) fn data_with_capacity(dtype: DType, n: usize) -> Data {
    match dtype {
        DType::F32 => Data::F32(Vec::with_capacity(n)),
        DType::F64 => Data::F64(Vec::with_capacity(n)),
        DType::I32 => Data::I32(Vec::with_capacity(n)),
        DType::Bool => Data::Bool(Vec::with_capacity(n)),
        DType::BF16 => Data::BF16(Vec::with_capacity(n)),
        DType::F16 => Data::F16(Vec::with_capacity(n)),
    }
}

/// The address of a data vector's allocation, for writing up to its capacity.
pub(crate) fn spare_ptr(d: &mut Data) -> *mut u8 {
    match d {
        Data::F32(v) => v.spare_capacity_mut().as_mut_ptr() as *mut u8,
        Data::F64(v) => v.spare_capacity_mut().as_mut_ptr() as *mut u8,
        Data::I32(v) => v.spare_capacity_mut().as_mut_ptr() as *mut u8,
        Data::Bool(v) => v.spare_capacity_mut().as_mut_ptr() as *mut u8,
        Data::BF16(v) => v.spare_capacity_mut().as_mut_ptr() as *mut u8,
        Data::F16(v) => v.spare_capacity_mut().as_mut_ptr() as *mut u8,
    }
}

/// Marks the first `n` elements of an empty data vector (made by [`data_with_capacity`]
/// with room for `n`) as written.
///
/// # Safety
/// All `n` elements were written through [`spare_ptr`] with valid values of the dtype
/// (bools as 0 or 1).
pub(crate) unsafe fn assume_written(d: &mut Data, n: usize) {
    // SAFETY: by the caller's contract, the capacity is at least `n` and the elements are
    // initialised.
    unsafe {
        match d {
            Data::F32(v) => v.set_len(n),
            Data::F64(v) => v.set_len(n),
            Data::I32(v) => v.set_len(n),
            Data::Bool(v) => v.set_len(n),
            Data::BF16(v) => v.set_len(n),
            Data::F16(v) => v.set_len(n),
        }
    }
}

/// Keeps large freed blocks in the C heap instead of returning them to the OS (glibc on
/// Linux; elsewhere nothing), once per process.
///
/// Every call returns fresh result arrays; with glibc's default (dynamic) thresholds a
/// multi-megabyte result that the caller drops is unmapped or trimmed, and the next call
/// takes a page fault and a kernel page clear on each of its 4 KiB pages: measured on the
/// Rosenbrock hvp (two f64[1M] results), ~70% of the call was page-fault work (25 → 4.5
/// ms with this). The heap then serves blocks below `MMAP_MAX` (256 MiB) and keeps up to
/// `TRIM` (512 MiB) free at its top, as XLA's and other array runtimes' own pools keep
/// their memory: a result of 80 MB (W2's gradient at n = 10^7) was still mapped afresh
/// on every call with a 64 MiB threshold (an 80 MB allocation and fill: 35 ms mapped,
/// 5.6 ms from the heap). The environment variable `FERRAX_MALLOC_TUNING=0` leaves malloc
/// alone.
pub(crate) fn tune_malloc() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var("FERRAX_MALLOC_TUNING").is_ok_and(|v| v == "0") {
            return;
        }
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            const M_TRIM_THRESHOLD: i32 = -1;
            const M_MMAP_THRESHOLD: i32 = -3;
            const TRIM: i32 = 512 << 20;
            const MMAP_MAX: i32 = 256 << 20;
            unsafe extern "C" {
                fn mallopt(param: i32, value: i32) -> i32;
            }
            // SAFETY: glibc's mallopt takes these parameters at any time; it only changes
            // thresholds (a failure leaves the defaults, which is harmless).
            unsafe {
                mallopt(M_TRIM_THRESHOLD, TRIM);
                mallopt(M_MMAP_THRESHOLD, MMAP_MAX);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{HUGE_FROM, Workspace};

    #[test]
    fn workspaces_are_zeroed_aligned_and_writable_to_the_end() {
        for bytes in [0, 1, 4096, HUGE_FROM - 1, HUGE_FROM, HUGE_FROM + 12345] {
            let mut ws = Workspace::new(bytes);
            let p = ws.as_mut_ptr();
            assert_eq!(p as usize % 64, 0);
            // SAFETY: the workspace holds at least `bytes` bytes (at least one line).
            let all = unsafe { std::slice::from_raw_parts_mut(p, bytes.max(64)) };
            assert!(all.iter().all(|&b| b == 0), "{bytes} bytes not zeroed");
            all.fill(7);
            assert!(all.iter().all(|&b| b == 7));
            #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
            if super::huge_pages_allowed() {
                assert_eq!(matches!(ws, Workspace::Mapped { .. }), bytes >= HUGE_FROM, "{bytes}");
            }
        }
    }
}
