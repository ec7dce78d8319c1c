//! The order in which a float `reduce_sum` (and `reduce_prod`) combines its terms: one
//! blocked, pairwise order that the interpreter evaluates here and the JIT's reduction
//! loops reproduce instruction for instruction, so both give the same bits.
//!
//! The terms of one result element form the sub-array of the reduced axes, of extents
//! `(e_1, …, e_k)` (increasing axis order, extent-1 axes included), read in C order. With
//! `∘` the reduction's operation and `id` its identity:
//!
//! - `S(e_1, …, e_k)` for `k >= 2` is the pairwise combination `P` of the `e_1` values
//!   `S(e_2, …, e_k)` of its slices along the first axis;
//! - a row (`k = 1`, length `L`) is cut into blocks of [`BLOCK`] elements (the last one
//!   shorter), and `S` is `P` of the blocks' values `T`;
//! - `T` of a block of `m` elements, with `w` = [`lanes`] of the dtype (4 for f32, 2 for
//!   f64): `4·w` slots `a[j][l]` start at `id`; element `i < ⌊m/4w⌋·4w` goes into slot
//!   `a[(i/w) mod 4][i mod w]`, element `i < ⌊m/w⌋·w` after those into `a[0][i mod w]`,
//!   each slot folding its elements left to right (`a = a ∘ x`); the remaining `m mod w`
//!   elements fold left to right from `id` into `t`. Then
//!   `c_l = (a[0][l] ∘ a[1][l]) ∘ (a[2][l] ∘ a[3][l])` and
//!   `T = ((…(c_0 ∘ c_1) ∘ …) ∘ c_{w-1}) ∘ t`. (This is the JIT's loop of four
//!   `w`-lane vector accumulators, the lanes reduced left to right, then the scalar tail.)
//! - `P(x_0, …, x_{c-1})` is `x_0` for `c = 1`, and for `c >= 2`
//!   `P(x_0, …, x_{h-1}) ∘ P(x_h, …, x_{c-1})` with `h` the largest power of two below
//!   `c` ([`pairwise_split`]): a balanced tree, complete when `c` is a power of two, which
//!   a streaming loop builds with a binary counter. No terms at all give `id`.
//!
//! The order depends only on the extents and the dtype: never on the thread count, the
//! split of a launch or the alignment of a buffer.
//!
//! Error bound (sums): the path from a term to the result has at most
//! `d = B/(4w) + w + 4 + Σ_j ⌈log2 n_j⌉` additions, with `B` the block length and `n_j`
//! the number of items each pairwise level combines (blocks for the last axis, slices for
//! the others): `B/(4w) + 2` in its slot (a short block's leftover vectors join slot row
//! 0), 2 for the slot tree, `w - 1` for the lanes, 1 for the tail (a tail term sees at
//! most `w` additions there), and `⌈log2 n_j⌉` per pairwise level. So
//! `|Ŝ - S| <= γ_d·Σ|x_i|` with `γ_d = d·u/(1 - d·u)` and `u = 2^-24` (f32) or `2^-53`
//! (f64), against `γ_{n-1}·Σ|x_i|` for a left fold. For one f32 row of `n` elements
//! `d <= 72 + ⌈log2⌈n/1024⌉⌉` (f64: 134 + the same): 2×10^7 f32 ones sum to 2×10^7
//! exactly (every partial is an integer below 2^24), where a left fold stops at 2^24.

use ferrax_array::DType;

/// The elements of one block of a row (a multiple of `4·w` for every dtype).
pub const BLOCK: usize = 1024;

/// The lanes `w` of the order for `dtype`: the elements of one 128-bit vector (4 for f32
/// and i32, 2 for f64; at most 4, bool has no sum).
pub fn lanes(dtype: DType) -> usize {
    (16 / dtype.size_bytes().max(1)).clamp(1, 4)
}

/// Where [`P`](self) cuts `count >= 2` items: the largest power of two below `count`.
pub fn pairwise_split(count: usize) -> usize {
    debug_assert!(count >= 2);
    1 << (usize::BITS - 1 - (count - 1).leading_zeros())
}

/// The ordered reduction (module docs) of `x`, the C-order terms of one result element
/// with the reduced extents `dims` (`x.len()` is their product), lanes `w`, identity `id`
/// and operation `f`.
pub fn ordered<T: Clone>(x: &[T], dims: &[usize], w: usize, id: T, f: &impl Fn(T, T) -> T) -> T {
    if x.is_empty() {
        return id;
    }
    match dims.split_first() {
        Some((&e, rest @ [_, ..])) => {
            let sub = x.len() / e;
            pairwise(0, e, &|i| ordered(&x[i * sub..(i + 1) * sub], rest, w, id.clone(), f), f)
        }
        Some((_, [])) | None => pairwise(
            0,
            x.len().div_ceil(BLOCK),
            &|b| block(&x[b * BLOCK..((b + 1) * BLOCK).min(x.len())], w, &id, f),
            f,
        ),
    }
}

/// `P` of the items `lo..hi` (at least one), each computed by `item`.
fn pairwise<T>(lo: usize, hi: usize, item: &impl Fn(usize) -> T, f: &impl Fn(T, T) -> T) -> T {
    if hi - lo == 1 {
        return item(lo);
    }
    let mid = lo + pairwise_split(hi - lo);
    f(pairwise(lo, mid, item, f), pairwise(mid, hi, item, f))
}

/// `T` of one block (module docs): `4·w` slots, the lanes left to right, then the tail.
fn block<T: Clone>(b: &[T], w: usize, id: &T, f: &impl Fn(T, T) -> T) -> T {
    let mut a: [[T; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| id.clone()));
    let (m4, m1) = (b.len() / (4 * w) * (4 * w), b.len() / w * w);
    for (i, x) in b[..m4].iter().enumerate() {
        let s = &mut a[(i / w) % 4][i % w];
        *s = f(s.clone(), x.clone());
    }
    for (i, x) in b[m4..m1].iter().enumerate() {
        let s = &mut a[0][i % w];
        *s = f(s.clone(), x.clone());
    }
    let t = b[m1..].iter().fold(id.clone(), |t, x| f(t, x.clone()));
    let c = |l: usize| f(f(a[0][l].clone(), a[1][l].clone()), f(a[2][l].clone(), a[3][l].clone()));
    let r = (1..w).fold(c(0), |r, l| f(r, c(l)));
    f(r, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_the_largest_power_of_two_below() {
        let got: Vec<usize> = (2..=9).map(pairwise_split).collect();
        assert_eq!(got, [1, 2, 2, 4, 4, 4, 4, 8]);
        assert_eq!(pairwise_split(1 << 20), 1 << 19);
        assert_eq!(pairwise_split((1 << 20) + 1), 1 << 20);
    }

    #[test]
    fn lanes_per_dtype() {
        assert_eq!([lanes(DType::F32), lanes(DType::F64), lanes(DType::I32)], [4, 2, 4]);
    }

    /// The tree shape, traced with strings: the slots of a block, then the pairwise levels.
    #[test]
    fn the_order_traced() {
        let f = |a: String, b: String| match (a.as_str(), b.as_str()) {
            ("0", _) => b,
            (_, "0") => a,
            _ => format!("({a}+{b})"),
        };
        let names = |n: usize| (0..n).map(|i| i.to_string()).map(|s| format!("x{s}")).collect::<Vec<_>>();
        // 6 f64 elements (w = 2): one group of 4 vectors is 8 elements, so 6 are whole
        // vectors into slot row 0 (x0,x2,x4 | x1,x3,x5), no tail.
        let got = ordered(&names(6), &[6], 2, "0".to_string(), &f);
        assert_eq!(got, "(((x0+x2)+x4)+((x1+x3)+x5))");
        // 3 rows of 1 element: pairwise (x0 + x1) + x2.
        let got = ordered(&names(3), &[3, 1], 2, "0".to_string(), &f);
        assert_eq!(got, "((x0+x1)+x2)");
        // 5 rows: ((x0+x1)+(x2+x3))+x4.
        let got = ordered(&names(5), &[5, 1], 4, "0".to_string(), &f);
        assert_eq!(got, "(((x0+x1)+(x2+x3))+x4)");
    }

    #[test]
    fn twenty_million_f32_ones_sum_exactly() {
        let x = vec![1.0f32; 20_000_000];
        assert_eq!(ordered(&x, &[x.len()], 4, 0.0, &|a, b| a + b), 2e7);
        assert_eq!(ordered(&x, &[20_000, 1000], 4, 0.0, &|a, b| a + b), 2e7);
    }
}
