//! The workloads' inputs: generated deterministically, written once as `.npy` files
//! (`ferrax-bench gen --data DIR`) and loaded by both sides, ferrax and JAX.
//!
//! The numbers come from a fixed generator ([`Rng`], SplitMix64 with Box-Muller
//! normals) seeded per input group, so that `gen` writes the same bytes on every
//! machine and the data does not depend on ferrax's own PRNG (which another change
//! could alter). Each workload module says its shapes for a [`Scale`] and fills its
//! group; [`Inputs`] loads files lazily by name, or holds arrays made in memory (the
//! smoke test's small scale).

use crate::{Error, Result};
use ferrax::Array;
use ferrax_ir::array::{Budget, npy};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The size of the workloads: the benchmark's shapes, or small ones for tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The benchmark's shapes (what `bench/compare` measures).
    Full,
    /// Shapes small enough for the interpreter in a test (seconds for every workload).
    Small,
}

impl FromStr for Scale {
    type Err = Error;
    fn from_str(s: &str) -> Result<Scale> {
        match s {
            "full" => Ok(Scale::Full),
            "small" => Ok(Scale::Small),
            other => Err(Error::at("--scale", format!("`{other}` is neither `full` nor `small`"))),
        }
    }
}

/// A small deterministic generator: SplitMix64 for bits, Box-Muller for normals.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded from a name (FNV-1a of its bytes), one per input group.
    pub fn for_group(name: &str) -> Rng {
        let seed =
            name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal (Box-Muller; the second value of each pair is dropped, for
    /// simplicity over speed).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]: the log is finite
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// An f32 array of normals with standard deviation `std`.
    pub fn normal_f32(&mut self, shape: &[usize], std: f64) -> Result<Array> {
        let n = shape.iter().product();
        Ok(Array::from_f32(shape, (0..n).map(|_| (self.normal() * std) as f32).collect())?)
    }

    /// An f64 array uniform in [lo, hi).
    pub fn uniform_f64(&mut self, shape: &[usize], lo: f64, hi: f64) -> Result<Array> {
        let n = shape.iter().product();
        Ok(Array::from_f64(shape, (0..n).map(|_| lo + (hi - lo) * self.uniform()).collect())?)
    }

    /// An f64 array of standard normals.
    pub fn normal_f64(&mut self, shape: &[usize]) -> Result<Array> {
        let n = shape.iter().product();
        Ok(Array::from_f64(shape, (0..n).map(|_| self.normal()).collect())?)
    }

    /// `rows` one-hot f32 rows of `classes` entries, the class uniform.
    pub fn one_hot_f32(&mut self, rows: usize, classes: usize) -> Result<Array> {
        let mut values = vec![0.0f32; rows * classes];
        for r in 0..rows {
            let class = (self.next_u64() % classes as u64) as usize;
            values[r * classes + class] = 1.0;
        }
        Ok(Array::from_f32(&[rows, classes], values)?)
    }
}

/// Every input of every workload at `scale`, by file stem (`mlp_x`, `rosen_v`, ...).
pub fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let mut all = Vec::new();
    all.extend(crate::w1_mlp::generate(scale)?);
    all.extend(crate::w2_rosenbrock::generate(scale)?);
    all.extend(crate::w3_elementwise::generate(scale)?);
    all.extend(crate::w4_per_sample::generate(scale)?);
    all.extend(crate::w5_dispatch::generate(scale)?);
    all.extend(crate::w6_chain::generate(scale)?);
    all.extend(crate::w8_cnn::generate(scale)?);
    all.extend(crate::w9_transformer::generate(scale)?);
    all.extend(crate::w10_linalg::generate(scale)?);
    all.extend(crate::w12_kernels::generate(scale)?);
    Ok(all)
}

/// Writes every input as `DIR/<stem>.npy` (creating DIR); returns the stems written.
pub fn write_all(dir: &Path, scale: Scale) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::at(&dir.display().to_string(), e))?;
    let mut stems = Vec::new();
    for (stem, array) in generate(scale)? {
        let path = dir.join(format!("{stem}.npy"));
        npy::write_file(&path, &array).map_err(|e| Error::at(&path.display().to_string(), e))?;
        stems.push(stem);
    }
    Ok(stems)
}

/// Reads `path` as a `.npy` array, with the path in any error.
pub fn read_npy(path: &Path) -> Result<Array> {
    npy::read_file(path, &Budget::default()).map_err(|e| Error::at(&path.display().to_string(), e))
}

/// The inputs by stem: loaded from a directory on first use, or given in memory.
#[derive(Debug, Default)]
pub struct Inputs {
    dir: Option<PathBuf>,
    arrays: HashMap<String, Array>,
}

impl Inputs {
    /// Inputs read from `DIR/<stem>.npy` when first asked for.
    pub fn from_dir(dir: &Path) -> Inputs {
        Inputs { dir: Some(dir.to_path_buf()), arrays: HashMap::new() }
    }

    /// Inputs held in memory (from [`generate`]).
    pub fn from_arrays(arrays: Vec<(String, Array)>) -> Inputs {
        Inputs { dir: None, arrays: arrays.into_iter().collect() }
    }

    /// The input `stem`.
    pub fn get(&mut self, stem: &str) -> Result<Array> {
        if let Some(a) = self.arrays.get(stem) {
            return Ok(a.clone());
        }
        let dir = self.dir.as_ref().ok_or_else(|| Error::at(stem, "no such input"))?;
        let path = dir.join(format!("{stem}.npy"));
        if !path.exists() {
            return Err(Error::at(&path.display().to_string(), "missing; run `ferrax-bench gen --data DIR` first"));
        }
        let a = read_npy(&path)?;
        self.arrays.insert(stem.to_string(), a.clone());
        Ok(a)
    }
}

/// Splits an array along its first axis into that many arrays (W6's stacked weights).
pub fn unstack(a: &Array) -> Result<Vec<Array>> {
    let (&count, rest) = a.shape().split_first().ok_or_else(|| Error::at("unstack", "a scalar has no first axis"))?;
    let size: usize = rest.iter().product();
    let values = a.as_f32().ok_or_else(|| Error::at("unstack", format!("{} is not f32", a.dtype())))?;
    (0..count).map(|i| Ok(Array::from_f32(rest, values[i * size..(i + 1) * size].to_vec())?)).collect()
}
