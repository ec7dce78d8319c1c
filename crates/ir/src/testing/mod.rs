//! The generator of random well-typed modules that every property test shares
//! (behind the `testing` feature), and the tools around it.
//!
//! - [`random_module`] (in `gen`) builds a module from a seed: random parameters, then
//!   equations drawn from every primitive of the table (nested `call`, `cond`, `while`
//!   (with and without `max_iters`) and `scan` bodies, 2–3 deep) on operands chosen so
//!   that the type rules accept them, with small shapes including sizes 0 and 1 and all
//!   dtypes. The same seed and config give the same module. [`GenConfig::smooth`] asks
//!   for f64-only programs of smooth primitives, for checks against finite differences.
//! - [`random_inputs`] makes arguments for a Func, [`mutate_text`] damages IR text for
//!   robustness tests, and [`shrink`] (in `shrink`) reduces a failing module greedily
//!   while a predicate keeps failing, so a report shows a small program.
//! - [`widen`], [`retype_floats`] and [`perturb`] (in `precision`) rewrite a module's
//!   float precision, for the differential oracle: the f64 version of an f32 program is
//!   its reference, perturbed versions measure how much it amplifies rounding.
//!
//! Environment knobs (read by [`GenConfig::from_env`], [`cases`] and [`first_seed`]):
//! `FERRAX_GEN_SIZE=large` (bigger and deeper programs; `FERRAX_GEN_SCALE=N` scales by
//! N directly), `FERRAX_CASES=N` (how many seeds a generated-case test tries),
//! `FERRAX_SEED=S` (the first seed, logged; CI rotates it daily) and `FERRAX_GEN_BIG=N`
//! (one seed in N gets big arrays, [`GenConfig::big`]; default 8).

mod r#gen;
mod precision;
mod shrink;

pub use r#gen::random_module;
pub use precision::{perturb, retype_array, retype_floats, widen};
pub use shrink::{remove_unused_funcs, shrink};

use crate::{Func, Type};
use ferrax_array::{Array, DType, Data};

/// A small, fast, reproducible random generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One element of a slice, which must not be empty (the generator's own invariant).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A float in [-3, 3), now and then a special value when `special` is set.
    pub fn float(&mut self, special: bool) -> f64 {
        if special && self.chance(3) {
            return self.pick(&[0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-40]);
        }
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 6.0 - 3.0
    }
}

/// Size knobs of the generator.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Equations per Func (upper bound).
    pub max_eqns: usize,
    /// Largest rank of a parameter.
    pub max_rank: usize,
    /// Largest axis size.
    pub max_dim: usize,
    /// Largest element count of any value.
    pub max_elements: usize,
    /// Nesting depth of structured bodies.
    pub max_depth: usize,
    /// Include NaN, inf and signed zeros in constants and inputs.
    pub special_values: bool,
    /// Only f64 values (plus loop counters) and smooth primitives (no comparisons,
    /// integer or bool values, rounding, `rem`, `abs`, `max`, argmax, random bits or
    /// poles), so jvp and vjp can be checked against finite differences.
    pub smooth: bool,
    /// Extents of the innermost axis of a generated type, `lo..=hi` (`None`: drawn like
    /// any other axis, up to `max_dim`). Big mode ([`GenConfig::big`]) uses 64–1100, so
    /// that the JIT's vector tiles and their remainders run.
    pub inner_extent: Option<(usize, usize)>,
    /// Percent of generated types (of rank ≥ 1) that are huge: a leading axis sized for
    /// `huge_elements.0..=huge_elements.1` elements in all, so that reductions over them
    /// take the JIT's chunked path (32,768 elements and up) and launches split across
    /// threads.
    pub huge_percent: usize,
    /// The element counts of a huge type, `lo..=hi` (one in four gets three times as many).
    pub huge_elements: (usize, usize),
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            max_eqns: 12,
            max_rank: 3,
            max_dim: 4,
            max_elements: 256,
            max_depth: 2,
            special_values: true,
            smooth: false,
            inner_extent: None,
            huge_percent: 0,
            huge_elements: (0, 0),
        }
    }
}

impl GenConfig {
    /// The default, scaled for long soak runs: by `FERRAX_GEN_SCALE` (an integer ≥ 1),
    /// or by 4 with `FERRAX_GEN_SIZE=large`.
    pub fn from_env() -> GenConfig {
        let large = std::env::var("FERRAX_GEN_SIZE").is_ok_and(|s| s == "large");
        let scale = std::env::var("FERRAX_GEN_SCALE")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .unwrap_or(if large { 4 } else { 1 })
            .clamp(1, 64);
        let base = GenConfig::default();
        GenConfig {
            max_eqns: base.max_eqns * scale,
            max_dim: base.max_dim + scale - 1,
            max_elements: base.max_elements * scale,
            max_depth: base.max_depth + (scale > 1) as usize,
            ..base
        }
    }

    /// This config with big arrays: innermost extents 64–1100, one type in ten huge
    /// (40,000–120,000 elements; one huge type in four three times that, enough work
    /// for a short elementwise kernel to split its launch), and room for them in `max_elements`. Ranks stay as
    /// they are; other axes keep `max_dim`.
    pub fn big(&self) -> GenConfig {
        GenConfig {
            inner_extent: Some((64, 1100)),
            huge_percent: 10,
            huge_elements: (40_000, 120_000),
            max_elements: 400_000,
            ..self.clone()
        }
    }

    /// The config of generated case `seed`: [`GenConfig::big`] for one seed in
    /// [`big_every`] (those with `seed % big_every() == big_every() - 1`), this one
    /// otherwise.
    pub fn for_seed(&self, seed: u64) -> GenConfig {
        let every = big_every();
        if every > 0 && seed % every == every - 1 { self.big() } else { self.clone() }
    }

    /// [`GenConfig::from_env`] for smooth f64 programs: no special values, and a
    /// smaller element cap so finite differences stay cheap.
    pub fn smooth_from_env() -> GenConfig {
        let base = GenConfig::from_env();
        GenConfig { smooth: true, special_values: false, max_elements: base.max_elements / 4, ..base }
    }
}

/// How many generated cases a test runs: `FERRAX_CASES` when set, else `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("FERRAX_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// The first seed a generated-case test uses: `FERRAX_SEED` when set (CI sets it to the
/// date, so each day explores new programs), else 0. Logged once per process on stderr,
/// so any failure can be replayed with the same seed.
pub fn first_seed() -> u64 {
    let seed = std::env::var("FERRAX_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    static LOGGED: std::sync::Once = std::sync::Once::new();
    LOGGED.call_once(|| eprintln!("generated cases start at seed {seed} (FERRAX_SEED={seed} replays them)"));
    seed
}

/// One generated case in how many uses big arrays ([`GenConfig::for_seed`]):
/// `FERRAX_GEN_BIG` when set (0 for none, 1 for all), else 8.
pub fn big_every() -> u64 {
    std::env::var("FERRAX_GEN_BIG").ok().and_then(|s| s.parse().ok()).unwrap_or(4)
}

/// Random arguments for `func`'s parameters.
pub fn random_inputs(func: &Func, rng: &mut Rng, special: bool) -> Vec<Array> {
    func.param_types().iter().map(|ty| random_array(ty, rng, special)).collect()
}

/// A random array of type `ty` (small integers, floats in [-3, 3)).
pub fn random_array(ty: &Type, rng: &mut Rng, special: bool) -> Array {
    let n = ty.element_count().unwrap_or(0);
    let data = match ty.dtype {
        DType::Bool => Data::Bool((0..n).map(|_| rng.chance(50)).collect()),
        DType::I32 => Data::I32((0..n).map(|_| rng.range(-5, 5) as i32).collect()),
        DType::F32 => Data::F32((0..n).map(|_| rng.float(special) as f32).collect()),
        DType::F64 => Data::F64((0..n).map(|_| rng.float(special)).collect()),
        DType::BF16 | DType::F16 => {
            let wide: Vec<f32> = (0..n).map(|_| rng.float(special) as f32).collect();
            Data::narrow_half(&wide, ty.dtype).unwrap_or(Data::F32(wide))
        }
    };
    Array::new(ty.shape.clone(), data).unwrap_or_else(|_| Array::scalar_f32(0.0))
}

/// Damages IR text: deletes, duplicates or swaps characters, lines and numbers.
pub fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        if chars.is_empty() {
            break;
        }
        let at = rng.below(chars.len());
        match rng.below(6) {
            0 => {
                chars.remove(at);
            }
            1 => chars.insert(at, rng.pick(&['%', '[', ']', '(', ')', ',', '"', '9', '-', '@', ':', '\n', '='])),
            2 => {
                let other = rng.below(chars.len());
                chars.swap(at, other);
            }
            3 => {
                if chars[at].is_ascii_digit() {
                    chars[at] = char::from(b'0' + rng.below(10) as u8);
                }
            }
            4 => {
                let end = (at + rng.below(40)).min(chars.len());
                let piece: Vec<char> = chars[at..end].to_vec();
                let dest = rng.below(chars.len());
                chars.splice(dest..dest, piece);
            }
            _ => {
                let end = (at + rng.below(20)).min(chars.len());
                chars.drain(at..end);
            }
        }
    }
    chars.into_iter().collect()
}
