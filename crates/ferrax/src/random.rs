//! Random numbers with explicit keys, as in `jax.random`.
//!
//! There is no hidden generator state. A *key* is an `i32[2]` (two 32-bit words, read
//! as unsigned); every function draws from the key it is given and returns the same
//! values for the same key, on every machine and in every run. To get independent
//! streams, [`split`] a key into new keys and use each once:
//!
//! ```
//! use ferrax::{DType, random};
//! let key = random::key(0);
//! let [init, noise] = random::split_into(&key).unwrap();
//! let w = random::normal(&init, &[3, 2], DType::F32).unwrap();
//! let u = random::uniform(&noise, &[4], DType::F64, -1.0, 1.0).unwrap();
//! assert_eq!(w.shape(), [3, 2]);
//! assert!(u.as_f64().unwrap().iter().all(|&x| (-1.0..1.0).contains(&x)));
//! ```
//!
//! Every function works on both kinds of key (the [`Key`] trait): on a host [`Array`]
//! it returns host arrays (`Result<Array, Error>`, evaluated at once), and on a traced
//! [`Tensor`] it emits IR into the current trace and returns tensors, so initialisation
//! and dropout inside a traced function need nothing else. Both run the same IR, so a
//! host call and a traced call with the same key give identical values.
//!
//! # How values are made
//!
//! All randomness comes from the `random_bits[shape](key)` primitive: element `i` is
//! word `i mod 2` of Threefry-2x32-20 (Salmon et al. 2011) enciphering the counter
//! `i div 2` under the key (see `ferrax_ir::prim::random`). From those words:
//!
//! - [`split`]`(key, n)`: key `j` is block `j`, that is row `j` of
//!   `random_bits[shape=[n, 2]](key)`. A key's split is a prefix of a longer split.
//! - [`uniform`] in `[0, 1)`: for f32, the low 24 bits of one word times 2^-24 (every
//!   multiple of 2^-24 in `[0, 1)`, equally likely); for f64, 53 bits taken from the two
//!   words of one block (21 bits of the first, all 32 of the second) times 2^-53. The IR
//!   has no shift or bit-cast primitive, so the bits are masked with `and` and turned
//!   into floats with `convert` and exact scaling; the result is the same lattice the
//!   "mantissa bits under the exponent of 1.0" trick gives (one bit finer for f32).
//!   `[lo, hi)` is then `lo + u * (hi - lo)`, clamped so rounding never reaches `hi`.
//! - [`normal`]: Box-Muller, `sqrt(-2 ln(1 - u1)) * cos(2π u2)` with `u1`, `u2` the two
//!   uniforms of one block (f32) or of two blocks (f64). The tails are cut where `u1`'s
//!   resolution ends: |z| ≤ 5.77 for f32 and ≤ 8.58 for f64.
//! - [`bernoulli`]`(key, p, shape)`: an f32 uniform below `p` (so `p` has a resolution
//!   of 2^-24; `p = 0` is never true and `p = 1` always).
//!
//! Element `i` of a draw depends only on the key and `i`, never on the shape, so a
//! draw of `n` elements is the first `n` elements of any larger draw from that key.
//! Do not draw twice from one key expecting different values: split it.

use crate::ops::lax;
use crate::tracer::{emit1, fail};
use crate::tree::Tree;
use crate::{Error, Tensor};
use ferrax_ir::prim::{CompareOp, UnaryOp};
use ferrax_ir::{Array, DType, Prim, Shape, Type};
use std::panic::Location;

use ferrax_ir::prim::RandomOp;
pub use ferrax_ir::prim::random::threefry2x32;

/// A key from a seed: the high 32 bits of `seed` are the first word, the low 32 bits
/// the second (as `jax.random.PRNGKey` does). Distinct seeds give unrelated streams.
pub fn key(seed: u64) -> Array {
    let words = vec![(seed >> 32) as u32 as i32, seed as u32 as i32];
    Array::from_i32(&[2], words).expect("two words make an i32[2]")
}

/// The type of a key: `i32[2]`.
pub fn key_type() -> Type {
    ferrax_ir::prim::random::key_type()
}

mod sealed {
    /// Only [`Array`](ferrax_ir::Array) and [`Tensor`](crate::Tensor) are keys.
    pub trait Sealed {}
    impl Sealed for ferrax_ir::Array {}
    impl Sealed for crate::Tensor {}
}

/// A key the functions of this module accept: a host [`Array`] or a traced [`Tensor`]
/// of type `i32[2]`.
pub trait Key: sealed::Sealed {
    /// What a function returning the tensors `T` returns for this kind of key: `T`
    /// itself for a traced key, the same structure of host arrays (or the error) for a
    /// host key.
    type Output<T: Tree<Tensor>>;

    /// Runs `f` on this key as a tensor: directly for a traced key; for a host key,
    /// traces `f` and evaluates it with the reference interpreter. Every function of
    /// this module is written once, on tensors, and served to both kinds of key this
    /// way; a sampler of your own can do the same.
    fn with_key<T: Tree<Tensor>>(&self, f: impl FnOnce(&Tensor) -> T) -> Self::Output<T>;
}

impl Key for Tensor {
    type Output<T: Tree<Tensor>> = T;

    fn with_key<T: Tree<Tensor>>(&self, f: impl FnOnce(&Tensor) -> T) -> T {
        f(self)
    }
}

impl Key for Array {
    type Output<T: Tree<Tensor>> = Result<T::With<Array>, Error>;

    #[track_caller]
    fn with_key<T: Tree<Tensor>>(&self, f: impl FnOnce(&Tensor) -> T) -> Result<T::With<Array>, Error> {
        crate::api::eval_once(|key: Tensor| f(&key), self, std::panic::Location::caller())
    }
}

/// Random 32-bit words (`i32`, the bits of an unsigned word) of `shape`
/// (`jax.random.bits`).
#[track_caller]
pub fn bits<K: Key>(key: &K, shape: &[usize]) -> K::Output<Tensor> {
    let location = Location::caller();
    key.with_key(|k| {
        let out = Type::new(DType::I32, shape);
        match check_key("bits", k, location, &out) {
            Ok(()) => random_bits(k, shape, location),
            Err(poisoned) => poisoned,
        }
    })
}

/// `n` new keys made from `key` (`jax.random.split`); use each once, and not `key`.
#[track_caller]
pub fn split<K: Key>(key: &K, n: usize) -> K::Output<Vec<Tensor>> {
    let location = Location::caller();
    key.with_key(|k| split_at(k, n, location))
}

/// [`split`] into a fixed number of keys, for destructuring:
/// `let [a, b] = random::split_into(&key)?;`.
#[track_caller]
pub fn split_into<K: Key, const N: usize>(key: &K) -> K::Output<[Tensor; N]> {
    let location = Location::caller();
    key.with_key(|k| {
        let keys = split_at(k, N, location);
        std::array::from_fn(|j| keys[j].clone())
    })
}

/// Uniform floats in `[lo, hi)` of `shape` and float `dtype` (`jax.random.uniform`).
/// `lo` and `hi` (rounded to `dtype`) must be finite with `lo < hi` and a finite `hi - lo`.
#[track_caller]
pub fn uniform<K: Key>(key: &K, shape: &[usize], dtype: DType, lo: f64, hi: f64) -> K::Output<Tensor> {
    let location = Location::caller();
    key.with_key(|k| uniform_at(k, shape, dtype, lo, hi, location))
}

/// Standard normal floats of `shape` and float `dtype` (`jax.random.normal`), by
/// Box-Muller (see the module documentation for the tails).
#[track_caller]
pub fn normal<K: Key>(key: &K, shape: &[usize], dtype: DType) -> K::Output<Tensor> {
    let location = Location::caller();
    key.with_key(|k| {
        let out = Type::new(dtype, shape);
        if let Err(poisoned) =
            check_key("normal", k, location, &out).and_then(|()| check_float("normal", &out, location))
        {
            return poisoned;
        }
        if dtype.is_half() {
            // Drawn in f32 and rounded once.
            let wide = normal(k, shape, DType::F32);
            return lax::convert(&wide, dtype, location);
        }
        let [u1, u2] = unit_uniforms(k, shape, dtype, location);
        let one = splat(1.0, &out, location);
        let radius = lax::unary(UnaryOp::Log, &lax::sub(&one, &u1, location), location);
        let radius = lax::unary(UnaryOp::Sqrt, &lax::mul(&splat(-2.0, &out, location), &radius, location), location);
        let angle = lax::mul(&splat(std::f64::consts::TAU, &out, location), &u2, location);
        lax::mul(&radius, &lax::unary(UnaryOp::Cos, &angle, location), location)
    })
}

/// Booleans of `shape`, each true with probability `p` in `[0, 1]`
/// (`jax.random.bernoulli`).
#[track_caller]
pub fn bernoulli<K: Key>(key: &K, p: f64, shape: &[usize]) -> K::Output<Tensor> {
    let location = Location::caller();
    key.with_key(|k| bernoulli_at(k, p, shape, location))
}

/// Inverted dropout of a traced float `x`: each element is zeroed with probability
/// `rate` in `[0, 1]` and the rest are scaled by `1 / (1 - rate)`, so the expectation is
/// `x`. `rate = 0` returns `x` itself; `rate = 1` gives zeros.
#[track_caller]
pub fn dropout(key: &Tensor, x: &Tensor, rate: f64) -> Tensor {
    let location = Location::caller();
    if !x.dtype().is_float() {
        return fail(location, format!("random.dropout: x must be a float tensor, got {}", x.ty()), x.ty().clone());
    }
    if !(0.0..=1.0).contains(&rate) {
        return fail(location, format!("random.dropout: rate must be in [0, 1], got {rate}"), x.ty().clone());
    }
    if rate == 0.0 {
        return x.clone();
    }
    let keep = bernoulli_at(key, 1.0 - rate, x.shape(), location);
    let zeros = splat(0.0, x.ty(), location);
    let scaled =
        if rate < 1.0 { lax::mul(x, &splat(1.0 / (1.0 - rate), x.ty(), location), location) } else { zeros.clone() };
    lax::select(&keep, &scaled, &zeros, location)
}

// ---- the traced implementations ----

/// Checks that `key` is an `i32[2]`; otherwise records the error and returns a poisoned
/// result of type `out`.
fn check_key(op: &str, key: &Tensor, location: &'static Location<'static>, out: &Type) -> Result<(), Tensor> {
    if key.error().is_some() || *key.ty() == key_type() {
        Ok(())
    } else {
        Err(fail(location, format!("random.{op}: the key must be i32[2], got {}", key.ty()), out.clone()))
    }
}

/// Checks that `out` has a float dtype.
fn check_float(op: &str, out: &Type, location: &'static Location<'static>) -> Result<(), Tensor> {
    if out.dtype.is_float() {
        Ok(())
    } else {
        Err(fail(
            location,
            format!("random.{op}: the dtype must be a float (bf16, f16, f32 or f64), got {}", out.dtype),
            out.clone(),
        ))
    }
}

fn random_bits(key: &Tensor, shape: &[usize], location: &'static Location<'static>) -> Tensor {
    emit1(Prim::Random(RandomOp::RandomBits { shape: shape.into() }), &[key], location, Type::new(DType::I32, shape))
}

fn split_at(key: &Tensor, n: usize, location: &'static Location<'static>) -> Vec<Tensor> {
    if let Err(poisoned) = check_key("split", key, location, &key_type()) {
        return vec![poisoned; n];
    }
    let words = random_bits(key, &[n, 2], location);
    (0..n)
        .map(|j| {
            let row = lax::slice(&words, vec![j, 0], vec![j + 1, 2], vec![1, 1], location);
            lax::reshape(&row, &[2], location)
        })
        .collect()
}

fn uniform_at(
    key: &Tensor,
    shape: &[usize],
    dtype: DType,
    lo: f64,
    hi: f64,
    location: &'static Location<'static>,
) -> Tensor {
    let out = Type::new(dtype, shape);
    if let Err(poisoned) =
        check_key("uniform", key, location, &out).and_then(|()| check_float("uniform", &out, location))
    {
        return poisoned;
    }
    let (lo, hi, below_hi, span) = rounded_bounds(dtype, lo, hi);
    if !(lo < hi && span.is_finite()) {
        let message =
            format!("random.uniform: needs finite lo < hi with a finite hi - lo in {dtype}, got [{lo}, {hi})");
        return fail(location, message, out);
    }
    if dtype.is_half() {
        // Drawn in f32 between the 16-bit bounds (exact in f32), rounded once, and kept
        // below `hi` (the rounding may reach it); not JAX's bits, which it draws from 16
        // random bits per value.
        let wide = uniform_at(key, shape, DType::F32, lo, hi, location);
        let narrow = lax::convert(&wide, dtype, location);
        return lax::clamp(&splat(lo, &out, location), &narrow, &splat(below_hi, &out, location), location);
    }
    let [u] = unit_uniforms(key, shape, dtype, location);
    if lo == 0.0 && hi == 1.0 {
        return u;
    }
    let scaled = lax::mul(&u, &splat(span, &out, location), location);
    let shifted = lax::add(&scaled, &splat(lo, &out, location), location);
    let (lo, below_hi) = (splat(lo, &out, location), splat(below_hi, &out, location));
    lax::clamp(&lo, &shifted, &below_hi, location)
}

/// The bounds, the largest value below `hi` and the span `hi - lo`, each rounded to
/// `dtype` (the span computed in it; in f64 for the 16-bit floats, whose draws are in
/// f32).
fn rounded_bounds(dtype: DType, lo: f64, hi: f64) -> (f64, f64, f64, f64) {
    use ferrax_ir::array::{Data, bf16, f16};
    match dtype {
        DType::F32 => {
            let (lo, hi) = (lo as f32, hi as f32);
            (f64::from(lo), f64::from(hi), f64::from(hi.next_down()), f64::from(hi - lo))
        }
        DType::BF16 | DType::F16 => {
            let rounded = Data::from_f64s(dtype, &[lo, hi]);
            // One step down in the 16-bit pattern: toward zero for a positive `hi`, away
            // from it for a negative one, to the smallest negative subnormal for zero.
            let step = |bits: u16| match rounded.get_f64(1) {
                h if h > 0.0 => bits - 1,
                h if h < 0.0 => bits + 1,
                _ => 0x8001,
            };
            let below = match &rounded {
                Data::BF16(v) => f64::from(bf16::from_bits(step(v[1].to_bits()))),
                Data::F16(v) => f64::from(f16::from_bits(step(v[1].to_bits()))),
                _ => f64::NAN,
            };
            let (lo, hi) = (rounded.get_f64(0), rounded.get_f64(1));
            (lo, hi, below, hi - lo)
        }
        _ => (lo, hi, hi.next_down(), hi - lo),
    }
}

fn bernoulli_at(key: &Tensor, p: f64, shape: &[usize], location: &'static Location<'static>) -> Tensor {
    let out = Type::new(DType::Bool, shape);
    if let Err(poisoned) = check_key("bernoulli", key, location, &out) {
        return poisoned;
    }
    if !(0.0..=1.0).contains(&p) {
        return fail(location, format!("random.bernoulli: p must be in [0, 1], got {p}"), out);
    }
    let [u] = unit_uniforms(key, shape, DType::F32, location);
    let p = splat(p, u.ty(), location);
    lax::compare(CompareOp::Lt, &u, &p, location)
}

/// `N` arrays of uniform floats in `[0, 1)` of `shape` from one draw of `shape + [w]`
/// words, `w = N` for f32 (one word per float) and `2N` for f64 (one block per float):
/// element `i` of array `j` is made from words `w i + j` (f32) or `w i + 2j` and
/// `w i + 2j + 1` (f64). With `w = 1` the draw is just `shape`.
fn unit_uniforms<const N: usize>(
    key: &Tensor,
    shape: &[usize],
    dtype: DType,
    location: &'static Location<'static>,
) -> [Tensor; N] {
    let words_per_float = if dtype == DType::F64 { 2 } else { 1 };
    let width = words_per_float * N;
    let mut drawn: Shape = shape.into();
    drawn.push(width);
    let words = random_bits(key, if width == 1 { shape } else { &drawn }, location);
    let word = |column: usize| -> Tensor {
        if width == 1 {
            return words.clone();
        }
        let rank = shape.len();
        let mut start = vec![0; rank + 1];
        start[rank] = column;
        let mut limit: Vec<usize> = drawn.to_vec();
        limit[rank] = column + 1;
        let column = lax::slice(&words, start, limit, vec![1; rank + 1], location);
        lax::reshape(&column, shape, location)
    };
    let out = Type::new(dtype, shape);
    std::array::from_fn(|j| {
        if dtype == DType::F64 {
            // 21 bits of the first word above the 32 of the second: k * 2^-53 for a
            // uniform integer k in [0, 2^53). Adding 2^31 to the second word (converted
            // as signed) makes it its unsigned value; every step is exact in f64.
            let high = masked_float(&word(2 * j), 0x001F_FFFF, &out, location);
            let high = lax::mul(&high, &splat(4_294_967_296.0, &out, location), location);
            let low = lax::convert(&word(2 * j + 1), DType::F64, location);
            let low = lax::add(&low, &splat(2_147_483_648.0, &out, location), location);
            let k = lax::add(&high, &low, location);
            lax::mul(&k, &splat(2f64.powi(-53), &out, location), location)
        } else {
            // 24 bits: k * 2^-24 for a uniform integer k in [0, 2^24), exact in f32.
            let k = masked_float(&word(j), 0x00FF_FFFF, &out, location);
            lax::mul(&k, &splat(2f64.powi(-24), &out, location), location)
        }
    })
}

/// `convert(and(words, mask))` to the dtype of `out`.
fn masked_float(words: &Tensor, mask: i32, out: &Type, location: &'static Location<'static>) -> Tensor {
    let mask = lax::constant(Array::scalar_i32(mask), words.shape(), location);
    lax::convert(&crate::ops::and_at(words, &mask, location), out.dtype, location)
}

/// A constant of type `ty` (a float dtype) holding `value` everywhere.
fn splat(value: f64, ty: &Type, location: &'static Location<'static>) -> Tensor {
    let scalar = Array::new(&[] as &[usize], ferrax_ir::array::Data::from_f64s(ty.dtype, &[value]))
        .unwrap_or_else(|_| Array::scalar_f64(value));
    lax::constant(scalar, &ty.shape, location)
}
