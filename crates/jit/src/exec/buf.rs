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
    }
}

/// The address of a data vector's elements, for writing.
pub(crate) fn data_ptr_mut(d: &mut Data) -> *mut u8 {
    match d {
        Data::F32(v) => v.as_mut_ptr() as *mut u8,
        Data::F64(v) => v.as_mut_ptr() as *mut u8,
        Data::I32(v) => v.as_mut_ptr() as *mut u8,
        Data::Bool(v) => v.as_mut_ptr() as *mut u8,
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
