//! Random numbers: `random_bits[shape](key)`, a counter-based generator.
//!
//! A key is an `i32[2]`: two 32-bit words, read as unsigned. `random_bits[shape=S](key)`
//! returns an `i32[S]` whose elements are the bits of a keyed hash of their flat C-order
//! index, so the result is a pure function of the key and the shape, the same on every
//! machine and in every run, and element `i` does not depend on how many elements are
//! drawn (a longer draw extends a shorter one).
//!
//! The hash is Threefry-2x32 with 20 rounds (Salmon, Moraes, Dror and Shaw, "Parallel
//! random numbers: as easy as 1, 2, 3", SC 2011): a 64-bit block cipher keyed by the
//! two key words. Element `i` is word `i mod 2` of the block enciphered from the
//! 64-bit counter `i div 2` (high word first, then low word), so each block gives two
//! elements. Consequently `random_bits[shape=[n, 2]]` gives `n` pairs, each a whole
//! block: the library's `split` uses them as `n` new keys.
//!
//! Rules still to write when their passes exist:
//! - jvp: the result is `i32`, so it carries no tangent (the tangent of the key is
//!   never needed either: keys are integers). The rule emits nothing.
//! - batching: with a batched key (`i32[B, 2]`), the result is `i32[B, shape...]`, row
//!   `b` being `random_bits[shape]` of key `b` (a loop over the batch in the
//!   interpreter, or a broadcast of the counters against the key rows). With an
//!   unbatched key the result is unbatched.
//! - transpose: none (not linear).

use super::expect_arity;
use crate::Type;
use crate::attr::AttrVisitor;
use ferrax_array::{Array, DType, Data, Shape};

/// The type of a key: two 32-bit words.
pub fn key_type() -> Type {
    Type::new(DType::I32, &[2])
}

/// The rotation distances of Threefry-2x32, one per round, repeating every 8 rounds.
const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];

/// The constant the key schedule's third word is xored with (from Threefish).
const KEY_PARITY: u32 = 0x1BD1_1BDA;

/// Number of rounds: 20, the count Salmon et al. recommend for Threefry-2x32.
const ROUNDS: u32 = 20;

/// Threefry-2x32 with 20 rounds: enciphers the 64-bit block `counter` under `key`.
///
/// Every 4 rounds (and before the first) a subkey is injected: with the key words
/// extended by `k0 ^ k1 ^ 0x1BD11BDA`, injection `s` adds words `s mod 3` and
/// `(s + 1) mod 3` to the two lanes, plus `s` to the second. A round adds the second
/// lane into the first, rotates the second left by the round's distance, and xors the
/// first into it. Checked against the published known-answer vectors.
pub fn threefry2x32(key: [u32; 2], counter: [u32; 2]) -> [u32; 2] {
    let schedule = [key[0], key[1], key[0] ^ key[1] ^ KEY_PARITY];
    let inject = |x: [u32; 2], s: u32| {
        let k = |j: u32| schedule[((s + j) % 3) as usize];
        [x[0].wrapping_add(k(0)), x[1].wrapping_add(k(1)).wrapping_add(s)]
    };
    let mut x = inject(counter, 0);
    for round in 0..ROUNDS {
        x[0] = x[0].wrapping_add(x[1]);
        x[1] = x[1].rotate_left(ROTATIONS[(round % 8) as usize]) ^ x[0];
        if round % 4 == 3 {
            x = inject(x, round / 4 + 1);
        }
    }
    x
}

/// The key words of an `i32[2]` array, read as unsigned.
pub fn key_words(key: &Array) -> Result<[u32; 2], String> {
    match key.as_i32() {
        Some(&[k0, k1]) if key.shape() == [2] => Ok([k0 as u32, k1 as u32]),
        _ => Err(format!("random_bits: the key must be i32[2], got {}", Type::new(key.dtype(), key.shape()))),
    }
}

/// `count` random words from `key`: element `i` is word `i mod 2` of the block
/// `threefry2x32(key, [hi(i / 2), lo(i / 2)])`.
pub fn random_words(key: [u32; 2], count: usize) -> Vec<u32> {
    let mut words = Vec::with_capacity(count);
    let blocks = count.div_ceil(2) as u64;
    for block in 0..blocks {
        let pair = threefry2x32(key, [(block >> 32) as u32, block as u32]);
        words.extend_from_slice(&pair);
    }
    words.truncate(count);
    words
}

// ---- type rule ----

pub(crate) fn infer_random_bits(shape: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("random_bits", inputs, 1)?;
    if inputs[0] != key_type() {
        return Err(format!("random_bits: the key must be i32[2], got {}", inputs[0]));
    }
    Ok(vec![Type::new(DType::I32, shape)])
}

/// The type rule of a random op.
pub(crate) fn infer(op: &RandomOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        RandomOp::RandomBits { shape } => infer_random_bits(shape, inputs),
    }
}

// ---- evaluation (the reference interpreter's rule) ----

/// Evaluates `random_bits[shape](key)`: the words of [`random_words`], reinterpreted
/// as i32, in C order.
pub(crate) fn eval_random_bits(shape: &[usize], key: &Array) -> Result<Array, String> {
    let key = key_words(key)?;
    let count = ferrax_array::element_count(shape).map_err(|e| format!("random_bits: {e}"))?;
    let data = random_words(key, count).into_iter().map(|w| w as i32).collect();
    Array::new(shape, Data::I32(data)).map_err(|e| e.to_string())
}

// ---- batching rule ----

/// The batching rule of a random op.
pub(crate) fn batch(
    em: &mut crate::Emitter,
    cx: &mut dyn super::batch::BatchContext,
    op: &RandomOp,
    inputs: &[crate::Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    match op {
        RandomOp::RandomBits { shape } => batch_random_bits(em, cx, shape, inputs, dims),
    }
}

/// Batches `random_bits` over a batch of keys: a `scan` over the keys draws each
/// example's bits (one equation, no unrolling); the result is batched at axis 0.
pub(crate) fn batch_random_bits(
    em: &mut crate::Emitter,
    cx: &mut dyn super::batch::BatchContext,
    shape: &[usize],
    inputs: &[crate::Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    let (Some(&key), Some(&Some(d))) = (inputs.first(), dims.first()) else {
        return Err("random_bits: the key is not batched".into());
    };
    let keys = em.move_axis(key, d, 0)?;
    let mut body = crate::Emitter::new("random_bits_batch");
    let k = body.param(key_type());
    let bits = body.op(RandomOp::RandomBits { shape: shape.into() }, &[k])?;
    let name = cx.add_func(body.finish(&[bits]));
    let length = cx.axis_size();
    let scan = super::ScanParams { body: name, length, num_consts: 0, num_carry: 0, reverse: false, checkpoint: None };
    let out = em.eqn(cx.module(), crate::Prim::scan(scan), &[keys])?;
    Ok((out.to_vec(), vec![Some(0)]))
}

/// Evaluates a random op on its operand (the key).
pub(crate) fn eval(op: &RandomOp, a: &[&Array]) -> Result<Array, String> {
    match op {
        RandomOp::RandomBits { shape } => eval_random_bits(shape, super::operands::<1>(a)?[0]),
    }
}

/// Flops charged per element of `random_bits` (20 Threefry-2x32 rounds of an add, a
/// rotate and a xor, shared by two 32-bit outputs, rounded).
pub const RANDOM_BITS_FLOPS: u64 = 20;

/// The property-table row of a random op.
pub(crate) fn props(op: &RandomOp) -> super::props::Props {
    use super::props::{Class, Flops, Props};
    match op {
        RandomOp::RandomBits { .. } => {
            Props { flops: Flops::PerOutput(RANDOM_BITS_FLOPS), ..Props::movement(Class::Launch) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k0: u32, k1: u32) -> Array {
        Array::from_i32(&[2], vec![k0 as i32, k1 as i32]).unwrap()
    }

    #[test]
    fn threefry_matches_the_known_answer_vectors() {
        // The Threefry-2x32-20 vectors published with Random123 (key, counter, result).
        let vectors = [
            ([0, 0], [0, 0], [0x6b20_0159, 0x99ba_4efe]),
            ([0xffff_ffff, 0xffff_ffff], [0xffff_ffff, 0xffff_ffff], [0x1cb9_96fc, 0xbb00_2be7]),
            ([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3], [0xc492_3a9c, 0x483d_f7a0]),
        ];
        for (k, counter, expected) in vectors {
            assert_eq!(threefry2x32(k, counter), expected, "key {k:08x?}, counter {counter:08x?}");
        }
    }

    #[test]
    fn elements_are_words_of_consecutive_blocks() {
        let out = eval_random_bits(&[5], &key(7, 9)).unwrap();
        let words: Vec<u32> = out.as_i32().unwrap().iter().map(|&w| w as u32).collect();
        let blocks: Vec<u32> = (0..3).flat_map(|b| threefry2x32([7, 9], [0, b])).collect();
        assert_eq!(words, blocks[..5]);
        // A shorter draw is a prefix of a longer one, whatever the shape.
        let longer = eval_random_bits(&[2, 4], &key(7, 9)).unwrap();
        assert_eq!(longer.as_i32().unwrap()[..5], out.as_i32().unwrap()[..]);
    }

    #[test]
    fn counters_use_both_words_past_two_to_the_32_blocks() {
        let block: u64 = (1 << 32) + 3;
        let expected = threefry2x32([1, 2], [1, 3]);
        assert_ne!(expected, threefry2x32([1, 2], [0, 3]));
        assert_eq!(threefry2x32([1, 2], [(block >> 32) as u32, block as u32]), expected);
    }

    #[test]
    fn scalar_and_empty_shapes() {
        let scalar = eval_random_bits(&[], &key(0, 0)).unwrap();
        assert_eq!(scalar.shape(), &[] as &[usize]);
        assert_eq!(scalar.as_i32().unwrap(), [0x6b20_0159_u32 as i32]);
        let empty = eval_random_bits(&[3, 0], &key(0, 0)).unwrap();
        assert_eq!(empty.shape(), [3, 0]);
    }

    #[test]
    fn the_type_rule_wants_an_i32_pair() {
        assert_eq!(infer_random_bits(&[4, 2], &[key_type()]).unwrap(), [Type::new(DType::I32, &[4, 2])]);
        let bad = infer_random_bits(&[1], &[Type::new(DType::F32, &[2])]).unwrap_err();
        assert!(bad.contains("key must be i32[2], got f32[2]"), "{bad}");
        let bad = infer_random_bits(&[1], &[Type::new(DType::I32, &[3])]).unwrap_err();
        assert!(bad.contains("got i32[3]"), "{bad}");
        assert!(infer_random_bits(&[1], &[]).unwrap_err().contains("expects 1 operand"));
        assert!(eval_random_bits(&[1], &Array::from_i32(&[1, 2], vec![0, 0]).unwrap()).is_err());
    }
}

/// A random-number primitive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RandomOp {
    /// Counter-based random bits (Threefry-2x32) of an `i32[2]` key.
    RandomBits {
        /// The result shape.
        shape: Shape,
    },
}

impl RandomOp {
    /// The name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            RandomOp::RandomBits { .. } => "random_bits",
        }
    }

    /// The op named `name`, with placeholder parameters that
    /// [`RandomOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<RandomOp> {
        match name {
            "random_bits" => Some(RandomOp::RandomBits { shape: Shape::new() }),
            _ => None,
        }
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            RandomOp::RandomBits { shape } => v.shape("shape", shape),
        }
    }
}
