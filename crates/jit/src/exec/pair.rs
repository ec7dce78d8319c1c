//! Two independent GEMMs run side by side, one per thread, instead of each split
//! across both threads in turn.
//!
//! The backward pass of a linear layer `y = x·W` has two products of the same work that
//! read the same cotangent and nothing of each other, `dx = dy·Wᵀ` and `dW = xᵀ·dy`, and
//! the schedule puts them next to each other. Split across two threads, each product is
//! cut into blocks that repack the shared operand and wait for the slower half; run
//! whole, one per thread, each is the sequential library kernel over its full problem.
//! Measured with faer on this project's 2-vCPU AVX-512 host (f32): two sequential
//! 1024×256×512 products at once ran at 180 GFLOP/s each, one split across both threads
//! at 270-320 GFLOP/s in all; W1's step (whose `dW₂`/`dh₁` pair this makes) took 0.93x
//! of its time, interleaved A/B, the other workloads within their noise.
//!
//! [`pair_gemms`] merges two adjacent GEMM steps into one [`Step::GemmPair`] when
//! neither writes a byte the other reads or writes, and when their work (`b·m·n·k`) is
//! within [`PAIR_RATIO`] of each other, at least [`PAIR_MIN`] (a tiny pair costs more to
//! hand over than it saves) and at most [`PAIR_MAX`] (larger products run faster split).
//! The placement reuses a buffer once its last reader has run, so the second product's
//! result may sit where the first one's operand was: such a pair stays two steps. Equal
//! work need not be equal time: faer runs a product whose lhs is a transposed view (`xᵀ`,
//! of `dW`) up to half as fast as the other (90 against 170 GFLOP/s at 1024×1024×256,
//! 174 against 188 at 256×1024×256).
//!
//! At run time, when the call may use exactly two threads (its `threads` capped by the
//! pool's workers plus the caller), the pair's products run as two pool tasks of one
//! thread each; with one thread, or more than two (where splitting each product over all
//! of them keeps every core busy), one after the other as two GEMM steps would. Side by
//! side, each product is the sequential kernel's, i.e. the one-thread result (a split run
//! equals it up to the library's blocking, see `crate::gemm`). A pair is one step, so a
//! program with reductions in flight (`overlap.rs`) advances them before and after it, not
//! between its two products.

use super::{Loc, Step, StepAt};
use crate::gemm::Gemm;

/// Smallest work `b·m·n·k` of each product of a pair.
pub(crate) const PAIR_MIN: usize = 1 << 18;

/// Largest work `b·m·n·k` of each product of a pair. Larger products run faster split
/// across both threads than side by side (measured: W9's MLP pairs, 1024×1024×256 with
/// 1024×256×1024, 7.2 ms split and 7.9 ms side by side; its attention pairs, 256×1024×256
/// with 1024×256×256, 1.86 ms split and 1.45 ms side by side): two such problems at once
/// no longer keep their packed blocks in the caches they share.
pub(crate) const PAIR_MAX: usize = 1 << 26;

/// Largest ratio of the larger product's work to the smaller's in a pair, as a
/// fraction (3/2): past it the thread with the smaller product waits longer than the
/// pair saves.
pub(crate) const PAIR_RATIO: (usize, usize) = (3, 2);

/// One `dot_general` by the GEMM library: its plan, its buffers (`scratch` holds
/// operand copies when the plan needs them) and their byte sizes (lhs, rhs, out,
/// scratch).
pub(crate) struct GemmCall {
    pub gemm: Gemm,
    pub lhs: Loc,
    pub rhs: Loc,
    pub out: Loc,
    pub scratch: Loc,
    pub bytes: [usize; 4],
}

/// Which memory a [`Loc`] lies in: regions of different memories never overlap.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    Param(usize),
    Arena,
    /// A result buffer of the call (`Loc::Out`, and `Loc::Lent` inside it).
    Out(usize),
}

/// The bytes `[start, end)` of `bytes` at `loc`, in its memory; `None` for no memory.
fn region(loc: Loc, bytes: usize) -> Option<(Memory, usize, usize)> {
    let (memory, start) = match loc {
        Loc::Param(i) => (Memory::Param(i), 0),
        Loc::Arena(off) => (Memory::Arena, off),
        Loc::Out(i) => (Memory::Out(i), 0),
        Loc::Lent(i, off) => (Memory::Out(i), off),
        Loc::Unwritten => return None,
    };
    (bytes > 0).then_some((memory, start, start + bytes))
}

fn overlap(a: Option<(Memory, usize, usize)>, b: Option<(Memory, usize, usize)>) -> bool {
    matches!((a, b), (Some((ma, a0, a1)), Some((mb, b0, b1))) if ma == mb && a0 < b1 && b0 < a1)
}

impl GemmCall {
    /// Every region the product touches, the written ones (result, scratch) first.
    fn regions(&self) -> [Option<(Memory, usize, usize)>; 4] {
        let [l, r, o, s] = self.bytes;
        [region(self.out, o), region(self.scratch, s), region(self.lhs, l), region(self.rhs, r)]
    }

    /// Whether running `self` and `other` at the same time gives what running them in
    /// order does: neither writes what the other reads or writes.
    fn independent(&self, other: &GemmCall) -> bool {
        let (a, b) = (self.regions(), other.regions());
        let writes_into = |w: &[Option<(Memory, usize, usize)>; 4], all: &[Option<(Memory, usize, usize)>; 4]| {
            w[..2].iter().any(|&x| all.iter().any(|&y| overlap(x, y)))
        };
        !writes_into(&a, &b) && !writes_into(&b, &a)
    }
}

/// Whether two products of work `x` and `y` are large enough to pay for the handover,
/// small enough to share the caches, and close enough in size to share the threads
/// evenly.
fn balanced(x: usize, y: usize) -> bool {
    let (small, large) = (x.min(y), x.max(y));
    small >= PAIR_MIN && large <= PAIR_MAX && large.saturating_mul(PAIR_RATIO.1) <= small.saturating_mul(PAIR_RATIO.0)
}

/// `steps` with every two adjacent GEMM steps that may run side by side (see the module
/// docs) merged into one [`Step::GemmPair`], left to right.
pub(crate) fn pair_gemms(steps: Vec<StepAt>) -> Vec<StepAt> {
    let mut out: Vec<StepAt> = Vec::with_capacity(steps.len());
    for s in steps {
        match (out.pop(), s) {
            (Some(StepAt { eqn, prim, step: Step::Gemm(a) }), StepAt { step: Step::Gemm(b), .. })
                if a.independent(&b) && balanced(a.gemm.work(), b.gemm.work()) =>
            {
                out.push(StepAt { eqn, prim, step: Step::GemmPair(Box::new([*a, *b])) })
            }
            (prev, s) => {
                out.extend(prev);
                out.push(s);
            }
        }
    }
    out
}

/// The buffers of a pair's two products, handed to the pool's threads.
struct Ptrs([[*mut u8; 4]; 2]);

// SAFETY: the two products write disjoint memory that the other does not read
// (`GemmCall::independent`), and the run waits for both before it returns.
unsafe impl Send for Ptrs {}
unsafe impl Sync for Ptrs {}

impl Ptrs {
    /// The buffers of product `i` (a method, so that closures capture the whole `Ptrs`).
    fn get(&self, i: usize) -> [*mut u8; 4] {
        self.0[i]
    }
}

/// Runs a pair's products given their buffers (lhs, rhs, out, scratch each): side by
/// side on two threads when `threads` (capped by the pool) is exactly two, else one
/// after the other with `threads` each.
///
/// # Safety
/// Each product's pointers are buffers of its planned types, as [`Gemm::run`] requires.
pub(crate) unsafe fn run_pair(pair: &[GemmCall; 2], bufs: [[*mut u8; 4]; 2], threads: usize) {
    let pool = crate::pool::Pool::global();
    let ptrs = Ptrs(bufs);
    let run = |i: usize, threads: usize| {
        let [l, r, o, s] = ptrs.get(i);
        // SAFETY: by this function's contract; run side by side, the products are
        // independent (`pair_gemms`).
        unsafe { pair[i].gemm.run(l, r, o, s, threads) }
    };
    if threads.min(pool.workers() + 1) == 2 {
        pool.run(2, &|i| run(i, 1));
    } else {
        run(0, threads);
        run(1, threads);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JitOptions, compile};
    use ferrax_ir::prim::DotDims;
    use ferrax_ir::{Array, DType, EvalOptions, Type};

    /// A linear layer's backward pass in miniature: `dW = xᵀ·dy` and `dx = dy·Wᵀ`, the
    /// same work, reading the same cotangent and nothing of each other.
    const BACKWARD: &str =
        "func @f(%x: f32[128,512], %w: f32[512,512], %dy: f32[128,512]) -> (f32[512,512], f32[128,512]) {
  %dw: f32[512,512] = dot_general[lhs_contract=[0], rhs_contract=[0]](%x, %dy)
  %dx: f32[128,512] = dot_general[lhs_contract=[1], rhs_contract=[1]](%dy, %w)
  return %dw, %dx
}";

    fn f32s(shape: &[usize], seed: u32) -> Array {
        let n: usize = shape.iter().product();
        let v = (0..n).map(|i| ((i as u32 * 7 + seed * 13) % 17) as f32 * 0.25 - 2.0).collect();
        Array::from_f32(shape, v).unwrap()
    }

    fn kinds(text: &str, threads: usize) -> Vec<&'static str> {
        let m = ferrax_ir::parse(text).unwrap();
        let exe = compile(&m, &JitOptions { threads, ..Default::default() }).unwrap();
        let kinds = exe.plan().programs[0].steps.iter().map(|s| match s.step {
            Step::Gemm(_) => "gemm",
            Step::GemmPair(_) => "pair",
            _ => "other",
        });
        kinds.collect()
    }

    #[test]
    fn a_backward_pass_pair_runs_side_by_side_with_the_one_thread_bits() {
        assert_eq!(kinds(BACKWARD, 2), ["pair"]);
        let m = ferrax_ir::parse(BACKWARD).unwrap();
        let args = [f32s(&[128, 512], 1), f32s(&[512, 512], 2), f32s(&[128, 512], 3)];
        let call = |threads| compile(&m, &JitOptions { threads, ..Default::default() }).unwrap().call(&args).unwrap();
        // Side by side, each product is the sequential kernel: the one-thread result.
        if crate::pool::Pool::global().workers() == 0 {
            println!("one core: the pair runs one product after the other here, not side by side");
        }
        let (one, two) = (call(1), call(2));
        assert_eq!(one, two);
        let want = ferrax_ir::eval_entry(&m, &args, &EvalOptions::default()).unwrap();
        crate::policy::agree(&want, &two, false).unwrap();
    }

    #[test]
    fn a_product_of_the_other_ones_result_or_of_another_size_stays_a_step() {
        let chain = "func @f(%a: f32[256,256], %b: f32[256,256]) -> (f32[256,256]) {
  %c: f32[256,256] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %d: f32[256,256] = dot_general[lhs_contract=[1], rhs_contract=[0]](%c, %b)
  return %d
}";
        assert_eq!(kinds(chain, 2), ["gemm", "gemm"]);
        let lopsided = "func @f(%a: f32[256,256], %b: f32[256,256], %v: f32[256,64]) -> (f32[256,256], f32[256,64]) {
  %c: f32[256,256] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %d: f32[256,64] = dot_general[lhs_contract=[1], rhs_contract=[0]](%b, %v)
  return %c, %d
}";
        assert_eq!(kinds(lopsided, 2), ["gemm", "gemm"]);
    }

    fn call(out: Loc, lhs: Loc, rhs: Loc) -> GemmCall {
        let ty = Type::new(DType::F32, &[64, 64]);
        let dims = DotDims { lhs_contract: vec![1], rhs_contract: vec![0], ..Default::default() };
        let gemm = Gemm::new(&dims, &ty, &ty, &ty).unwrap();
        GemmCall { gemm, lhs, rhs, out, scratch: Loc::Arena(0), bytes: [16384, 16384, 16384, 0] }
    }

    #[test]
    fn a_result_over_the_others_operand_or_result_is_a_dependence() {
        let a = call(Loc::Out(0), Loc::Arena(0), Loc::Param(0));
        // Reads nothing `a` writes and writes nothing `a` touches.
        assert!(a.independent(&call(Loc::Arena(16384), Loc::Arena(0), Loc::Param(1))));
        // Placed over `a`'s operand (what the placement does once `a` read it last).
        assert!(!a.independent(&call(Loc::Arena(8192), Loc::Param(1), Loc::Param(2))));
        // Reads `a`'s result, lent or whole.
        assert!(!a.independent(&call(Loc::Arena(16384), Loc::Lent(0, 4096), Loc::Param(1))));
        // Writes into `a`'s result buffer.
        assert!(!a.independent(&call(Loc::Lent(0, 0), Loc::Param(1), Loc::Param(2))));
        // Another result buffer, and an unwritten result, touch nothing of `a`.
        assert!(a.independent(&call(Loc::Out(1), Loc::Param(0), Loc::Param(1))));
        assert!(a.independent(&call(Loc::Unwritten, Loc::Param(0), Loc::Param(1))));
        assert!(balanced(PAIR_MIN, PAIR_MIN * 3 / 2) && !balanced(PAIR_MIN, PAIR_MIN * 2));
        assert!(!balanced(PAIR_MIN - 1, PAIR_MIN - 1) && !balanced(PAIR_MAX + 1, PAIR_MAX));
    }
}
