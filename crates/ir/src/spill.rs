//! Spill files: where offloaded values wait between the forward and the backward pass.
//!
//! A run (of the interpreter or of a JIT executable) that reaches an `offload` creates
//! one spill file in its spill directory, writes each offloaded value's bytes to it and
//! reads them back at `reload`. Each `offload` equation has one place in the file, taken
//! at its first write and overwritten when it runs again (a loop body offloading at every
//! step reuses it: its previous value is dead by then, since an offloaded value never
//! leaves the run of the Func that made it). The file belongs to the run: on Unix it is
//! unlinked as soon as it is created (mode 0600), so no other process sees it and it
//! disappears with the run even if the process is killed; elsewhere [`SpillFile`]
//! removes it when dropped. Values are written as their elements' native bytes and read
//! back unchanged, so an offloaded value is bit-identical after its round trip.
//!
//! The directory is the caller's choice (`EvalOptions::spill_dir`, the JIT's
//! `JitOptions::spill_dir`); without one, `FERRAX_SPILL_DIR` if set, else the system's
//! temporary directory. A directory that does not exist is created; one that cannot be
//! created is an error naming it.

use crate::Type;
use ferrax_array::{Array, Data, bf16, f16};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable naming the default spill directory.
pub const SPILL_DIR_VAR: &str = "FERRAX_SPILL_DIR";

/// Bytes converted per write or read of an interpreter array (bounds the staging buffer).
const CHUNK: usize = 1 << 20;

/// The spill directory of a run: `chosen`, else `$FERRAX_SPILL_DIR`, else the system's
/// temporary directory.
pub fn spill_dir(chosen: Option<&Path>) -> PathBuf {
    match chosen {
        Some(dir) => dir.to_path_buf(),
        None => std::env::var_os(SPILL_DIR_VAR).map(PathBuf::from).unwrap_or_else(std::env::temp_dir),
    }
}

/// One run's spill file: appended to by `offload`, read by `reload`, removed on drop.
#[derive(Debug)]
pub struct SpillFile {
    path: PathBuf,
    file: File,
    len: u64,
}

impl SpillFile {
    /// Creates a new spill file in `dir` (created first if missing).
    pub fn create(dir: &Path) -> Result<SpillFile, String> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the spill directory {}: {e}", dir.display()))?;
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("ferrax-spill-{}-{n}.bin", std::process::id()));
            let mut options = OpenOptions::new();
            options.read(true).write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&path) {
                Ok(file) => {
                    // The open handle keeps the data; the name is not needed (Unix).
                    #[cfg(unix)]
                    let _ = std::fs::remove_file(&path);
                    return Ok(SpillFile { path, file, len: 0 });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create a spill file in {}: {e}", dir.display())),
            }
        }
    }

    /// The file's path (already unlinked on Unix).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `bytes`; returns the offset they start at.
    pub fn append(&mut self, bytes: &[u8]) -> Result<u64, String> {
        let offset = self.len;
        self.file.seek(SeekFrom::Start(offset)).map_err(|e| self.io_error("seek in", e))?;
        self.file.write_all(bytes).map_err(|e| self.io_error("write", e))?;
        self.len += bytes.len() as u64;
        Ok(offset)
    }

    /// Reads `buf.len()` bytes written at `offset`.
    pub fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        self.file.seek(SeekFrom::Start(offset)).map_err(|e| self.io_error("seek in", e))?;
        self.file.read_exact(buf).map_err(|e| self.io_error("read", e))
    }

    /// Overwrites the bytes at `offset` (inside what was written before).
    pub fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), String> {
        let end = offset.checked_add(bytes.len() as u64).filter(|&e| e <= self.len);
        end.ok_or_else(|| format!("spill file {}: a write past its end", self.path.display()))?;
        self.file.seek(SeekFrom::Start(offset)).map_err(|e| self.io_error("seek in", e))?;
        self.file.write_all(bytes).map_err(|e| self.io_error("write", e))
    }

    /// Appends the elements of `a` (native byte order); returns their offset.
    pub fn append_array(&mut self, a: &Array) -> Result<u64, String> {
        self.write_array(None, a)
    }

    /// Writes the elements of `a` (native byte order) at `offset`, over a value of the
    /// same type written there before, or appended when `offset` is `None`; returns
    /// where they start.
    pub fn write_array(&mut self, offset: Option<u64>, a: &Array) -> Result<u64, String> {
        let start = offset.unwrap_or(self.len);
        let mut at = start;
        let mut staged = Vec::with_capacity(CHUNK.min(a.byte_len() as usize));
        let mut flush = |staged: &mut Vec<u8>, this: &mut SpillFile| -> Result<(), String> {
            match offset {
                Some(_) => this.write_at(at, staged)?,
                None => {
                    this.append(staged)?;
                }
            }
            at += staged.len() as u64;
            staged.clear();
            Ok(())
        };
        macro_rules! each {
            ($v:expr, $bytes:expr) => {
                for x in $v.iter() {
                    staged.extend_from_slice(&$bytes(x));
                    if staged.len() >= CHUNK {
                        flush(&mut staged, self)?;
                    }
                }
            };
        }
        match a.data() {
            Data::Bool(v) => each!(v, |x: &bool| [u8::from(*x)]),
            Data::I32(v) => each!(v, |x: &i32| x.to_ne_bytes()),
            Data::F32(v) => each!(v, |x: &f32| x.to_ne_bytes()),
            Data::F64(v) => each!(v, |x: &f64| x.to_ne_bytes()),
            Data::BF16(v) => each!(v, |x: &bf16| x.to_bits().to_ne_bytes()),
            Data::F16(v) => each!(v, |x: &f16| x.to_bits().to_ne_bytes()),
        }
        flush(&mut staged, self)?;
        Ok(start)
    }

    /// Reads back an array of type `ty` appended at `offset` by [`SpillFile::append_array`].
    pub fn read_array(&mut self, offset: u64, ty: &Type) -> Result<Array, String> {
        let size = ty.byte_size().ok().and_then(|b| usize::try_from(b).ok());
        let size = size.ok_or_else(|| format!("cannot read back a value of type {ty}: too large"))?;
        let mut bytes = vec![0u8; size];
        self.read_at(offset, &mut bytes)?;
        macro_rules! decode {
            ($t:ty, $n:literal, $f:expr) => {
                bytes.chunks_exact($n).map(|c| $f(<[u8; $n]>::try_from(c).unwrap_or([0; $n]))).collect::<Vec<$t>>()
            };
        }
        let data = match ty.dtype {
            ferrax_array::DType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
            ferrax_array::DType::I32 => Data::I32(decode!(i32, 4, i32::from_ne_bytes)),
            ferrax_array::DType::F32 => Data::F32(decode!(f32, 4, f32::from_ne_bytes)),
            ferrax_array::DType::F64 => Data::F64(decode!(f64, 8, f64::from_ne_bytes)),
            ferrax_array::DType::BF16 => Data::BF16(decode!(bf16, 2, |b| bf16::from_bits(u16::from_ne_bytes(b)))),
            ferrax_array::DType::F16 => Data::F16(decode!(f16, 2, |b| f16::from_bits(u16::from_ne_bytes(b)))),
        };
        Array::new(ty.shape.to_vec(), data).map_err(|e| e.to_string())
    }

    fn io_error(&self, what: &str, e: std::io::Error) -> String {
        format!("cannot {what} the spill file {}: {e}", self.path.display())
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        // Nothing to report to: the run is over, and a file that is already gone is fine.
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ferrax-spill-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn arrays_round_trip_bit_for_bit_and_the_file_goes_with_the_run() {
        let dir = scratch_dir("roundtrip");
        let arrays = [
            Array::from_f32(&[3], vec![1.5, f32::NAN, -0.0]).unwrap(),
            Array::new(vec![2], Data::F64(vec![f64::INFINITY, 1e-310])).unwrap(),
            Array::from_i32(&[2, 1], vec![-7, i32::MAX]).unwrap(),
            Array::new(vec![3], Data::Bool(vec![true, false, true])).unwrap(),
            Array::new(vec![2], Data::BF16(vec![bf16::from_bits(0x7fc1), bf16::from_bits(1)])).unwrap(),
            Array::new(vec![1], Data::F16(vec![f16::from_bits(0xfc00)])).unwrap(),
            Array::new(vec![0], Data::F32(vec![])).unwrap(),
        ];
        let path;
        {
            let mut spill = SpillFile::create(&dir).unwrap();
            path = spill.path().to_path_buf();
            let offsets: Vec<u64> = arrays.iter().map(|a| spill.append_array(a).unwrap()).collect();
            // Unlinked at once where the system allows it.
            assert_eq!(path.exists(), !cfg!(unix));
            // Overwriting a value in place leaves the others alone.
            let again = Array::from_f32(&[3], vec![7.0, 8.0, 9.0]).unwrap();
            assert_eq!(spill.write_array(Some(offsets[0]), &again).unwrap(), offsets[0]);
            let back = spill.read_array(offsets[0], &Type::new(again.dtype(), again.shape())).unwrap();
            assert_eq!(back.to_f64_vec(), vec![7.0, 8.0, 9.0]);
            spill.write_array(Some(offsets[0]), &arrays[0]).unwrap();
            for (a, off) in arrays.iter().zip(offsets).rev() {
                let ty = Type::new(a.dtype(), a.shape());
                let back = spill.read_array(off, &ty).unwrap();
                assert_eq!(back.dtype(), a.dtype());
                assert_eq!(back.shape(), a.shape());
                let mut copy = SpillFile::create(&dir).unwrap();
                let (x, y) = (copy.append_array(a).unwrap(), copy.append_array(&back).unwrap());
                let (mut p, mut q) = (vec![0u8; (y - x) as usize], vec![0u8; (y - x) as usize]);
                copy.read_at(x, &mut p).unwrap();
                copy.read_at(y, &mut q).unwrap();
                assert_eq!(p, q, "{ty} changed in the round trip");
            }
        }
        assert!(!path.exists(), "the spill file outlived its run");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "spill files left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_that_cannot_be_created_is_a_clean_error() {
        let file = std::env::temp_dir().join(format!("ferrax-spill-test-plainfile-{}", std::process::id()));
        std::fs::write(&file, b"not a directory").unwrap();
        let err = SpillFile::create(&file.join("sub")).unwrap_err();
        assert!(err.starts_with("cannot create the spill directory"), "{err}");
        assert!(err.contains("ferrax-spill-test-plainfile"), "{err}");
        std::fs::remove_file(&file).unwrap();
    }
}
