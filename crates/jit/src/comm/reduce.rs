//! The arithmetic of reductions over the workers: [`reduce_in_rank_order`] combines
//! one buffer per worker as the interpreter reduces a batch axis after `vmap` binds
//! the axis, so every engine that holds the parts gets the vmap semantics' bits.
//!
//! Sums follow the interpreter's blocked pairwise order over the members
//! (`ferrax_ir::prim::sum_order`), turned once into a tree of whole-buffer additions
//! ([`SumTree`]) and evaluated a cache-sized chunk at a time straight from the
//! members' buffers; 16-bit floats are summed in f32 and rounded once; `max`/`min` go
//! member by member; `mean` is the sum divided by the members once (pmean's rounding).

use super::Reduce;
use ferrax_ir::DType;

/// Elements reduced per pass (a few tens of KiB per member, so a tree's passes over
/// one chunk stay in the cache).
const CHUNK: usize = 2048;

/// Reduces `parts` (one buffer of `dtype` elements per worker, in rank order) into
/// `out` as the interpreter reduces a batch axis of `parts.len()` members (module
/// docs). `out` may be any byte range that starts at an element boundary of the
/// parts' ranges, so engines can split a buffer between workers.
pub fn reduce_in_rank_order(op: Reduce, dtype: DType, parts: &[&[u8]], out: &mut [u8]) -> Result<(), String> {
    if parts.is_empty() {
        return Err("all_reduce: no workers".into());
    }
    if parts.iter().any(|p| p.len() != out.len()) {
        return Err("all_reduce: workers' buffers differ in length".into());
    }
    if !out.len().is_multiple_of(dtype.size_bytes().max(1)) {
        return Err(format!("all_reduce: {} bytes are not whole {dtype} elements", out.len()));
    }
    let n = parts.len();
    // 16-bit floats are summed in f32 (the interpreter widens them), so in f32's lanes.
    let summed_as = if matches!(dtype, DType::BF16 | DType::F16) { DType::F32 } else { dtype };
    let tree = SumTree::new(n, ferrax_ir::prim::sum_order::lanes(summed_as));
    match dtype {
        DType::F32 if native::<f32>(op, &tree, parts, out, n as f32) => {}
        DType::F64 if native::<f64>(op, &tree, parts, out, n as f64) => {}
        DType::F32 => typed::<f32, 4>(op, &tree, parts, out, f32::from_ne_bytes, f32::to_ne_bytes, n as f32, |v| v),
        DType::F64 => typed::<f64, 8>(op, &tree, parts, out, f64::from_ne_bytes, f64::to_ne_bytes, n as f64, |v| v),
        DType::I32 => {
            if op == Reduce::Mean {
                return Err("pmean: not a float".into());
            }
            let read = |b: [u8; 4]| Wrapping(i32::from_ne_bytes(b));
            typed::<Wrapping, 4>(op, &tree, parts, out, read, |v| v.0.to_ne_bytes(), Wrapping(n as i32), |v| v)
        }
        DType::BF16 | DType::F16 => {
            let (widen, narrow) = (widen(dtype), narrow(dtype));
            // pmean of 16-bit floats divides the psum as rounded to its dtype.
            let round = |v: f32| widen(narrow(v));
            typed::<f32, 2>(op, &tree, parts, out, widen, narrow, n as f32, round)
        }
        DType::Bool => return Err("all_reduce: bool data".into()),
    }
    Ok(())
}

/// An element type the reductions combine (after decoding 16-bit floats to f32).
trait Elem: Copy + Default + PartialOrd + std::ops::Add<Output = Self> + std::ops::Div<Output = Self> {
    fn is_nan(self) -> bool;
    fn is_negative(self) -> bool;
}

impl Elem for f32 {
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn is_negative(self) -> bool {
        self.is_sign_negative()
    }
}

impl Elem for f64 {
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn is_negative(self) -> bool {
        self.is_sign_negative()
    }
}

/// i32 with wrapping addition, for the sum tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
struct Wrapping(i32);

impl std::ops::Add for Wrapping {
    type Output = Wrapping;
    fn add(self, other: Wrapping) -> Wrapping {
        Wrapping(self.0.wrapping_add(other.0))
    }
}

impl std::ops::Div for Wrapping {
    type Output = Wrapping;
    fn div(self, other: Wrapping) -> Wrapping {
        Wrapping(self.0.wrapping_div(other.0.max(1)))
    }
}

impl Elem for Wrapping {
    fn is_nan(self) -> bool {
        false
    }
    fn is_negative(self) -> bool {
        false
    }
}

/// The reduction over elements of `N` bytes decoded by `read` into `T` and encoded by
/// `write`, a chunk at a time; `count` is the members as a `T` (pmean's divisor) and
/// `round` what a sum goes through before pmean divides it (its dtype's rounding).
#[allow(clippy::too_many_arguments)]
fn typed<T: Elem, const N: usize>(
    op: Reduce,
    tree: &SumTree,
    parts: &[&[u8]],
    out: &mut [u8],
    read: impl Fn([u8; N]) -> T + Copy,
    write: impl Fn(T) -> [u8; N],
    count: T,
    round: impl Fn(T) -> T,
) {
    let bytes = CHUNK * N;
    let mut xs: Vec<Vec<T>> = vec![Vec::with_capacity(CHUNK); parts.len()];
    let mut acc: Vec<T> = Vec::with_capacity(CHUNK);
    let mut work = Work::new();
    for (k, out) in out.chunks_mut(bytes).enumerate() {
        for (x, p) in xs.iter_mut().zip(parts) {
            x.clear();
            x.extend(p[k * bytes..k * bytes + out.len()].chunks_exact(N).map(|c| read(c.try_into().unwrap_or([0; N]))));
        }
        acc.clear();
        acc.resize(out.len() / N, T::default());
        let views: Vec<&[T]> = xs.iter().map(Vec::as_slice).collect();
        work.chunk(op, tree, &views, &mut acc, count, &round);
        for (c, &v) in out.chunks_exact_mut(N).zip(&acc) {
            c.copy_from_slice(&write(v));
        }
    }
}

/// The reduction straight over the buffers as `T`s, when every buffer is aligned for
/// `T` (as the JIT's and the engines' buffers are); false, having done nothing, when
/// one is not.
fn native<T: Elem + Plain>(op: Reduce, tree: &SumTree, parts: &[&[u8]], out: &mut [u8], count: T) -> bool {
    // SAFETY: `T` is a plain number type (`Plain`): every bit pattern is a valid `T`.
    let views: Option<Vec<&[T]>> = parts.iter().map(|p| whole(unsafe { p.align_to::<T>() })).collect();
    // SAFETY: as above, and any `T` written is valid bytes.
    let (Some(views), Some(out)) = (views, whole_mut(unsafe { out.align_to_mut::<T>() })) else { return false };
    let mut work = Work::new();
    for (k, acc) in out.chunks_mut(CHUNK).enumerate() {
        let xs: Vec<&[T]> = views.iter().map(|v| &v[k * CHUNK..k * CHUNK + acc.len()]).collect();
        work.chunk(op, tree, &xs, acc, count, &|v| v);
    }
    true
}

/// Number types whose every bit pattern is a value, read in place from bytes.
trait Plain {}
impl Plain for f32 {}
impl Plain for f64 {}

/// The middle of an `align_to` split when nothing is left over.
fn whole<'a, T>((head, mid, tail): (&[u8], &'a [T], &[u8])) -> Option<&'a [T]> {
    (head.is_empty() && tail.is_empty()).then_some(mid)
}

/// [`whole`] of a mutable split.
fn whole_mut<'a, T>((head, mid, tail): (&mut [u8], &'a mut [T], &mut [u8])) -> Option<&'a mut [T]> {
    (head.is_empty() && tail.is_empty()).then_some(mid)
}

/// A reduction's reusable temporaries.
struct Work<T> {
    zeros: Vec<T>,
    scratch: Scratch<T>,
}

impl<T: Elem> Work<T> {
    fn new() -> Work<T> {
        Work { zeros: vec![T::default(); CHUNK], scratch: Scratch::default() }
    }

    /// One chunk of the reduction of `xs` into `acc` (see [`typed`] for `count` and
    /// `round`).
    fn chunk(&mut self, op: Reduce, tree: &SumTree, xs: &[&[T]], acc: &mut [T], count: T, round: &impl Fn(T) -> T) {
        match op {
            Reduce::Sum => tree.eval_into(xs, &self.zeros, acc, &mut self.scratch),
            Reduce::Mean => {
                tree.eval_into(xs, &self.zeros, acc, &mut self.scratch);
                acc.iter_mut().for_each(|v| *v = round(*v) / count);
            }
            Reduce::Max => extreme(xs, acc, true),
            Reduce::Min => extreme(xs, acc, false),
        }
    }
}

/// `max` (or `min`) member by member as the interpreter's: NaN wins, and of two zeros
/// `max` gives `+0` and `min` gives `-0`.
fn extreme<T: Elem>(xs: &[&[T]], acc: &mut [T], max: bool) {
    acc.copy_from_slice(xs[0]);
    for x in &xs[1..] {
        for (a, &b) in acc.iter_mut().zip(x.iter()) {
            if a.is_nan() {
                continue;
            }
            let take = b.is_nan()
                || if max { b > *a || (b == *a && a.is_negative()) } else { b < *a || (b == *a && b.is_negative()) };
            if take {
                *a = b;
            }
        }
    }
}

/// A 16-bit float element of `dtype` (bf16 or f16) as f32.
fn widen(dtype: DType) -> impl Fn([u8; 2]) -> f32 + Copy {
    let bf = dtype == DType::BF16;
    move |b| {
        let bits = u16::from_ne_bytes(b);
        if bf { half::bf16::from_bits(bits).to_f32() } else { half::f16::from_bits(bits).to_f32() }
    }
}

/// An f32 rounded to the 16-bit float `dtype` (to nearest even).
fn narrow(dtype: DType) -> impl Fn(f32) -> [u8; 2] + Copy {
    let bf = dtype == DType::BF16;
    move |v| {
        let bits = if bf { half::bf16::from_f32(v).to_bits() } else { half::f16::from_f32(v).to_bits() };
        bits.to_ne_bytes()
    }
}

/// Temporaries of a tree's evaluation, reused from chunk to chunk.
#[derive(Default)]
struct Scratch<T> {
    /// Buffers for right operands that are sums.
    free: Vec<Vec<T>>,
}

/// The interpreter's summation order over `n` members as a tree of additions, built
/// once by running `sum_order::ordered` on symbols, then applied to whole chunks at a
/// time (one vectorisable loop per addition instead of a tree walk per element).
#[derive(Clone, Debug, PartialEq)]
enum SumTree {
    /// The identity (`+0`).
    Zero,
    /// Member `k`'s value, with `+0` added first when `plus_zero` (which turns `-0`
    /// into `+0`, as the interpreter's first addition into a zeroed slot does).
    Member { k: usize, plus_zero: bool },
    /// The sum of two subtrees, in this order.
    Add(Box<SumTree>, Box<SumTree>),
}

impl SumTree {
    fn new(n: usize, lanes: usize) -> SumTree {
        let members: Vec<SumTree> = (0..n).map(|k| SumTree::Member { k, plus_zero: false }).collect();
        // `+0 + +0` is `+0`: those additions (the order's empty slots and lanes) fold
        // away, while `+0 + x` stays (it turns `-0` into `+0`, as the interpreter does);
        // a member's becomes its flag, so a leaf reads its buffer once.
        let add = |a: SumTree, b: SumTree| match (a, b) {
            (SumTree::Zero, SumTree::Zero) => SumTree::Zero,
            (SumTree::Zero, SumTree::Member { k, .. }) | (SumTree::Member { k, .. }, SumTree::Zero) => {
                SumTree::Member { k, plus_zero: true }
            }
            (a, b) => SumTree::Add(Box::new(a), Box::new(b)),
        };
        ferrax_ir::prim::sum_order::ordered(&members, &[n], lanes, SumTree::Zero, &add)
    }

    /// A leaf's values (`Zero`'s from `zeros`) and whether `+0` is added to them first;
    /// `None` for a sum.
    fn leaf<'a, T>(&self, xs: &[&'a [T]], zeros: &'a [T]) -> Option<(&'a [T], bool)> {
        match self {
            SumTree::Zero => Some((zeros, false)),
            SumTree::Member { k, plus_zero } => Some((xs[*k], *plus_zero)),
            SumTree::Add(..) => None,
        }
    }

    /// The tree's sum over `xs` (one chunk per member) into `out`, element by element;
    /// an addition of two leaves is one pass, and only a right operand that is itself
    /// a sum needs a temporary.
    fn eval_into<T: Elem>(&self, xs: &[&[T]], zeros: &[T], out: &mut [T], scratch: &mut Scratch<T>) {
        match self {
            SumTree::Add(a, b) => match (a.leaf(xs, zeros), b.leaf(xs, zeros)) {
                (Some((x, zx)), Some((y, zy))) => {
                    for ((o, &x), &y) in out.iter_mut().zip(x).zip(y) {
                        *o = plus_zero(x, zx) + plus_zero(y, zy);
                    }
                }
                (_, Some((y, zy))) => {
                    a.eval_into(xs, zeros, out, scratch);
                    out.iter_mut().zip(y).for_each(|(o, &y)| *o = *o + plus_zero(y, zy));
                }
                (Some((x, zx)), None) => {
                    b.eval_into(xs, zeros, out, scratch);
                    out.iter_mut().zip(x).for_each(|(o, &x)| *o = plus_zero(x, zx) + *o);
                }
                (None, None) => {
                    a.eval_into(xs, zeros, out, scratch);
                    let mut tmp = scratch.free.pop().unwrap_or_default();
                    tmp.clear();
                    tmp.resize(out.len(), T::default());
                    b.eval_into(xs, zeros, &mut tmp, scratch);
                    out.iter_mut().zip(&tmp).for_each(|(o, &y)| *o = *o + y);
                    scratch.free.push(tmp);
                }
            },
            leaf => {
                if let Some((x, zx)) = leaf.leaf(xs, zeros) {
                    out.iter_mut().zip(x).for_each(|(o, &x)| *o = plus_zero(x, zx));
                }
            }
        }
    }
}

/// `+0 + x` when `yes` (`-0` becomes `+0`), else `x`.
#[inline(always)]
fn plus_zero<T: Elem>(x: T, yes: bool) -> T {
    if yes { T::default() + x } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interpreter's order applied element by element, the oracle of the trees.
    fn ordered_sum(xs: &[f32]) -> f32 {
        ferrax_ir::prim::sum_order::ordered(xs, &[xs.len()], 4, 0.0, &|a, b| a + b)
    }

    #[test]
    fn sums_follow_the_interpreters_order_bit_for_bit() {
        for n in 1..=9 {
            // Values whose sum depends on the order, with a -0 that only `+0 + x` fixes.
            let parts: Vec<Vec<f32>> =
                (0..n)
                    .map(|k| {
                        (0..5000)
                            .map(|i| {
                                if i == 7 {
                                    -0.0
                                } else {
                                    ((i * 31 + k * 17) % 97) as f32 * 1e-3 + 1e7 * (k % 2) as f32
                                }
                            })
                            .collect()
                    })
                    .collect();
            let bytes: Vec<Vec<u8>> = parts.iter().map(|p| p.iter().flat_map(|v| v.to_ne_bytes()).collect()).collect();
            let refs: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
            let mut out = vec![0u8; 5000 * 4];
            reduce_in_rank_order(Reduce::Sum, DType::F32, &refs, &mut out).unwrap();
            for i in 0..5000 {
                let column: Vec<f32> = parts.iter().map(|p| p[i]).collect();
                let got = f32::from_ne_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
                assert_eq!(got.to_bits(), ordered_sum(&column).to_bits(), "n {n}, element {i}");
            }
        }
    }

    #[test]
    fn mean_is_the_sum_divided_once() {
        let parts: Vec<[u8; 8]> = [1.0f64, 2.0, 4.0].iter().map(|v| v.to_ne_bytes()).collect();
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        let mut out = [0u8; 8];
        reduce_in_rank_order(Reduce::Mean, DType::F64, &refs, &mut out).unwrap();
        assert_eq!(f64::from_ne_bytes(out), 7.0 / 3.0);
        assert!(reduce_in_rank_order(Reduce::Mean, DType::I32, &refs, &mut out).is_err());
    }
}
