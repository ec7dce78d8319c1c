//! Initialisers of parameters, as `jax.nn.initializers` (what flax and equinox use).
//!
//! An [`Init`] draws an array of a given shape and dtype from a traced key. The
//! variance-scaling family takes its scale from the *fans* of the shape, computed as
//! JAX does: for a kernel whose last axis is the output and second-to-last the input
//! (`Linear`'s `(in, out)`; a convolution's `(..spatial, in, out)`), `fan_in` and
//! `fan_out` are those sizes times the product of the remaining (receptive-field)
//! axes; a vector's fans are its length, a scalar's 1.
//!
//! | initialiser | variance | distribution |
//! |---|---|---|
//! | `LecunNormal` (flax's default kernel init) | `1 / fan_in` | truncated normal |
//! | `LecunUniform` | `1 / fan_in` | uniform |
//! | `HeNormal` | `2 / fan_in` | truncated normal |
//! | `HeUniform` | `2 / fan_in` | uniform |
//! | `GlorotNormal` | `2 / (fan_in + fan_out)` | truncated normal |
//! | `GlorotUniform` | `2 / (fan_in + fan_out)` | uniform |
//!
//! As in `jax.nn.initializers.variance_scaling`, the "normal" members are *truncated*
//! normals: a standard normal cut to `[-2, 2]`, divided by that truncated
//! distribution's standard deviation (0.8796...) and scaled, so that the variance is
//! the one in the table; the uniform members draw from `[-√(3·variance), √(3·variance))`.
//! The truncated normal is made as JAX makes it, by the inverse CDF:
//! `√2·erfinv(u)` with `u` uniform between `erf(-√2)` and `erf(√2)`. The IR has no
//! `erfinv`, so it is written here with Giles' polynomial approximation (the one XLA
//! uses for f32), evaluated in f32: initial values are f32-accurate whatever their
//! dtype. ferrax's PRNG is not JAX's, so the values differ from JAX's for the same
//! seed; their distributions are the same.

use crate::random;
use crate::tracer::fail;
use crate::{Tensor, where_};
use ferrax_ir::{DType, Type};
use std::panic::Location;

/// How a parameter array is initialised (see the module documentation for the
/// variance-scaling rules).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init {
    /// All zeros (flax's default for biases).
    Zeros,
    /// All ones (flax's default for normalisation scales).
    Ones,
    /// Every entry the given value.
    Constant(f64),
    /// Normal with the given standard deviation (`jax.nn.initializers.normal`).
    Normal(f64),
    /// Uniform in `[0, scale)` (`jax.nn.initializers.uniform`).
    Uniform(f64),
    /// Normal with the given standard deviation, cut at two standard deviations
    /// (`jax.nn.initializers.truncated_normal`).
    TruncatedNormal(f64),
    /// Variance `1 / fan_in`, truncated normal.
    LecunNormal,
    /// Variance `1 / fan_in`, uniform.
    LecunUniform,
    /// Variance `2 / fan_in`, truncated normal.
    HeNormal,
    /// Variance `2 / fan_in`, uniform.
    HeUniform,
    /// Variance `2 / (fan_in + fan_out)`, truncated normal.
    GlorotNormal,
    /// Variance `2 / (fan_in + fan_out)`, uniform.
    GlorotUniform,
}

/// The standard deviation of a standard normal truncated to `[-2, 2]` (JAX's constant).
const TRUNCATED_STD: f64 = 0.879_625_661_034_239_8;

/// `(fan_in, fan_out)` of `shape`, as `jax.nn.initializers` computes them with the
/// default axes (input -2, output -1, the rest a receptive field).
pub fn fans(shape: &[usize]) -> (f64, f64) {
    match shape {
        [] => (1.0, 1.0),
        [n] => (*n as f64, *n as f64),
        [rest @ .., fan_in, fan_out] => {
            let receptive: f64 = rest.iter().map(|&d| d as f64).product();
            (*fan_in as f64 * receptive, *fan_out as f64 * receptive)
        }
    }
}

impl Init {
    /// An array of `shape` and float `dtype` drawn from the traced `key`.
    ///
    /// ```
    /// use ferrax::{DType, Tensor, nn::Init, random};
    /// let w = ferrax::eval(|k: Tensor| Init::LecunNormal.sample(&k, &[400, 300], DType::F32), &random::key(0)).unwrap();
    /// let v = w.to_f64_vec();
    /// let var = v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64;
    /// assert!((var * 400.0 - 1.0).abs() < 0.02); // variance 1 / fan_in
    /// assert!(v.iter().all(|x| x.abs() <= 2.0 / 0.8796 / 20.0)); // cut at 2 std
    /// ```
    #[track_caller]
    pub fn sample(&self, key: &Tensor, shape: &[usize], dtype: DType) -> Tensor {
        let location = Location::caller();
        if !dtype.is_float() {
            return fail(
                location,
                format!("nn::Init::{self:?}: dtype {dtype} is not a float"),
                Type::new(dtype, shape),
            );
        }
        let (fan_in, fan_out) = fans(shape);
        let (variance, truncated) = match *self {
            Init::Zeros => return Tensor::zeros(dtype, shape),
            Init::Ones => return Tensor::ones(dtype, shape),
            Init::Constant(v) => return Tensor::full(dtype, shape, v),
            Init::Normal(std) => return random::normal(key, shape, dtype) * std,
            Init::Uniform(scale) => return random::uniform(key, shape, dtype, 0.0, 1.0) * scale,
            Init::TruncatedNormal(std) => return truncated_normal(key, shape, dtype) * std,
            Init::LecunNormal => (1.0 / fan_in, true),
            Init::LecunUniform => (1.0 / fan_in, false),
            Init::HeNormal => (2.0 / fan_in, true),
            Init::HeUniform => (2.0 / fan_in, false),
            Init::GlorotNormal => (2.0 / (fan_in + fan_out), true),
            Init::GlorotUniform => (2.0 / (fan_in + fan_out), false),
        };
        if truncated {
            truncated_normal(key, shape, dtype) * (variance.sqrt() / TRUNCATED_STD)
        } else {
            let limit = (3.0 * variance).sqrt();
            random::uniform(key, shape, dtype, -1.0, 1.0) * limit
        }
    }
}

/// A standard normal truncated to `[-2, 2]` (not rescaled), by the inverse CDF as
/// `jax.random.truncated_normal` draws it; in f32, then converted to `dtype`.
#[track_caller]
pub fn truncated_normal(key: &Tensor, shape: &[usize], dtype: DType) -> Tensor {
    let sqrt2 = std::f64::consts::SQRT_2;
    // erf(±2/√2), the CDF's image of the cut, in f64 (erf(√2) = 0.9544997361036416).
    let bound = 0.954_499_736_103_641_6;
    let u = random::uniform(key, shape, DType::F32, -bound, bound);
    let z = erfinv_f32(&u) * sqrt2;
    z.clamp(-2.0, 2.0).cast(dtype)
}

/// `erfinv(x)` for f32 `x` in `(-1, 1)`: Giles' single-precision approximation
/// ("Approximating the erfinv function", GPU Computing Gems, 2011), two polynomials
/// in `w = -ln((1 - x)(1 + x))` split at `w = 5`.
fn erfinv_f32(x: &Tensor) -> Tensor {
    const CENTRAL: [f64; 9] = [
        2.810_226_36e-08,
        3.432_739_39e-07,
        -3.523_387_7e-06,
        -4.391_506_54e-06,
        0.000_218_580_87,
        -0.001_253_725_03,
        -0.004_177_681_64,
        0.246_640_727,
        1.501_409_41,
    ];
    const TAIL: [f64; 9] = [
        -0.000_200_214_257,
        0.000_100_950_558,
        0.001_343_493_22,
        -0.003_673_428_44,
        0.005_739_507_73,
        -0.007_622_461_3,
        0.009_438_870_47,
        1.001_674_06,
        2.832_976_82,
    ];
    let w = -((-x + 1.0) * (x + 1.0)).log();
    let horner = |coefficients: &[f64], t: &Tensor| {
        coefficients[1..].iter().fold(t.zeros_like() + coefficients[0], |p, &c| p * t + c)
    };
    let central = horner(&CENTRAL, &(&w - 2.5));
    // The tail polynomial's argument, with w kept at 5 or above so that the branch
    // not taken stays finite.
    let tail = horner(&TAIL, &(w.maximum(5.0).sqrt() - 3.0));
    where_(&w.lt(5.0), central, tail) * x
}

#[cfg(test)]
mod tests {
    use super::fans;

    #[test]
    fn fans_follow_jax() {
        assert_eq!(fans(&[]), (1.0, 1.0));
        assert_eq!(fans(&[7]), (7.0, 7.0));
        assert_eq!(fans(&[3, 5]), (3.0, 5.0));
        // A 3x3 convolution kernel, HWIO: the receptive field multiplies both fans.
        assert_eq!(fans(&[3, 3, 4, 8]), (36.0, 72.0));
    }
}
