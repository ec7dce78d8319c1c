//! The host routine of `lu`: faer's recursive blocked LU with partial pivoting on each
//! `m`×`n` matrix of the batch (square, tall or wide), in the operand's dtype, factored
//! in place in the result buffer.
//!
//! faer chooses the same pivots as the interpreter's rule (the largest magnitude in the
//! column, the first on ties, no swap past a zero column), and returns the final row
//! order; the pivots (LAPACK's transpositions) are recovered from it, since step `j`
//! swaps row `j` with the row then holding `permutation[j]`. faer scales a column by the
//! reciprocal of its pivot even when that pivot is zero, where the interpreter (and
//! LAPACK) leave the column alone: a matrix whose `U` has a zero or non-finite diagonal
//! entry (rank-deficient, or with NaN or infinite elements) is factored again by the
//! interpreter's own rule (`ferrax_ir::prim::lu_factor`, in f64), which gives the
//! reference's semantics there.

use faer::Par;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::mat::MatMut;
use faer::traits::RealField;
use ferrax_ir::DType;

/// One `lu`: `batch` matrices of `m`×`n`.
#[derive(Clone, Debug)]
pub(crate) struct Lu {
    pub dtype: DType,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
}

impl Lu {
    /// Factors `a` into `lu`, `pivots` and `perm` (i32).
    ///
    /// # Safety
    /// `a` and `lu` hold `batch·m·n` elements of the dtype, `pivots` `batch·min(m, n)`
    /// i32 and `perm` `batch·m` i32; none overlap.
    pub(crate) unsafe fn run(&self, a: *const u8, lu: *mut u8, pivots: *mut u8, perm: *mut u8) -> Result<(), String> {
        // SAFETY: by the caller's contract.
        unsafe {
            match self.dtype {
                DType::F32 => self.float::<f32>(a.cast(), lu.cast(), pivots.cast(), perm.cast()),
                DType::F64 => self.float::<f64>(a.cast(), lu.cast(), pivots.cast(), perm.cast()),
                DType::Bool | DType::I32 | DType::BF16 | DType::F16 => {
                    return Err(format!("lu: {} operand", self.dtype));
                }
            }
        }
        Ok(())
    }

    unsafe fn float<T: RealField + Copy + Into<f64>>(&self, a: *const T, lu: *mut T, pivots: *mut i32, perm: *mut i32) {
        let (m, n) = (self.m, self.n);
        let k = m.min(n);
        let scratch = lu_in_place_scratch::<usize, T>(m, n, Par::Seq, Default::default());
        let mut mem = MemBuffer::new(scratch);
        let mut order = vec![0usize; m];
        let mut inverse = vec![0usize; m];
        for b in 0..self.batch {
            // SAFETY: matrix b of each buffer is in bounds (the caller's contract); the
            // operand and the result do not overlap.
            let (src, dst, pb, qb) =
                unsafe { (a.add(b * m * n), lu.add(b * m * n), pivots.add(b * k), perm.add(b * m)) };
            // SAFETY: as above, m·n elements each.
            unsafe { std::ptr::copy_nonoverlapping(src, dst, m * n) };
            if k > 0 {
                // SAFETY: dst is a row-major m×n matrix no other view aliases.
                let x = unsafe { MatMut::from_raw_parts_mut(dst, m, n, n as isize, 1) };
                let stack = MemStack::new(&mut mem);
                lu_in_place(x, &mut order, &mut inverse, Par::Seq, stack, Default::default());
            } else {
                order.iter_mut().enumerate().for_each(|(i, o)| *o = i);
            }
            let regular = (0..k).all(|j| {
                // SAFETY: j < min(m, n).
                let d: f64 = unsafe { dst.add(j * n + j).read() }.into();
                d != 0.0 && d.is_finite()
            });
            if !regular {
                // SAFETY: src holds m·n elements.
                let mut wide: Vec<f64> = (0..m * n).map(|i| unsafe { src.add(i).read() }.into()).collect();
                let (p, q) = ferrax_ir::prim::lu_factor(&mut wide, m, n);
                for (i, &v) in wide.iter().enumerate() {
                    // SAFETY: i < m·n.
                    unsafe { dst.add(i).write(T::from_f64_impl(v)) };
                }
                for (j, &v) in p.iter().enumerate() {
                    // SAFETY: j < k.
                    unsafe { pb.add(j).write(v) };
                }
                for (i, &v) in q.iter().enumerate() {
                    // SAFETY: i < m.
                    unsafe { qb.add(i).write(v) };
                }
                continue;
            }
            // The transpositions that produce `order`: at step j, row j and the row then
            // holding the original row order[j].
            let mut at: Vec<usize> = (0..m).collect();
            let mut holds: Vec<usize> = (0..m).collect();
            for j in 0..k {
                let p = at[order[j]];
                let (x, y) = (holds[j], holds[p]);
                holds.swap(j, p);
                (at[x], at[y]) = (p, j);
                // SAFETY: j < k; p < m, which the type rule keeps within i32.
                unsafe { pb.add(j).write(p as i32) };
            }
            for (i, &o) in order.iter().enumerate() {
                // SAFETY: i < m.
                unsafe { qb.add(i).write(o as i32) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lu;
    use ferrax_ir::prim::{LinalgOp, Prim};
    use ferrax_ir::{Array, DType};

    /// The interpreter's `lu` of `a`.
    fn interp(a: &Array) -> Vec<Array> {
        crate::factor::tests::interp_all(Prim::Linalg(LinalgOp::Lu), a)
    }

    /// The host routine's `(lu, pivots, permutation)` of the f64 batch `a`.
    fn host(shape: &[usize], a: &[f64]) -> (Vec<f64>, Vec<i32>, Vec<i32>) {
        let r = shape.len();
        let (m, n) = (shape[r - 2], shape[r - 1]);
        let batch = shape[..r - 2].iter().product();
        let lu = Lu { dtype: DType::F64, batch, m, n };
        let mut out = vec![0.0f64; a.len()];
        let mut pivots = vec![0i32; batch * m.min(n)];
        let mut perm = vec![0i32; batch * m];
        // SAFETY: the buffers have the sizes `run` asks for.
        unsafe {
            lu.run(a.as_ptr().cast(), out.as_mut_ptr().cast(), pivots.as_mut_ptr().cast(), perm.as_mut_ptr().cast())
        }
        .unwrap();
        (out, pivots, perm)
    }

    /// Deterministic values in [-1, 1].
    fn values(count: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..count)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn agrees_with_the_interpreter_on_square_tall_and_wide_batches() {
        // 40 columns or rows reach faer's recursive blocks (past 16).
        for (seed, shape) in
            [[2, 3, 3], [2, 5, 3], [2, 3, 5], [1, 40, 40], [1, 45, 40], [1, 40, 45], [3, 0, 2], [2, 2, 0]]
                .into_iter()
                .enumerate()
        {
            let count = shape.iter().product();
            let a = values(count, seed as u64 + 1);
            let (lu, pivots, perm) = host(&shape, &a);
            let want = interp(&Array::from_f64(&shape, a).unwrap());
            assert_eq!(pivots, want[1].as_i32().unwrap(), "{shape:?}: pivots");
            assert_eq!(perm, want[2].as_i32().unwrap(), "{shape:?}: permutation");
            let reference = want[0].to_f64_vec();
            let scale = reference.iter().fold(1.0f64, |s, v| s.max(v.abs()));
            for (i, (x, y)) in lu.iter().zip(&reference).enumerate() {
                assert!((x - y).abs() <= 1e-12 * scale, "{shape:?}: element {i}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn a_zero_column_falls_back_to_the_reference_rule() {
        // Rank 1: the second step meets a zero column (faer would divide by it).
        let (shape, a) = ([1, 3, 3], vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 0.0, 1.0]);
        let (lu, pivots, perm) = host(&shape, &a);
        let want = interp(&Array::from_f64(&shape, a).unwrap());
        assert_eq!(lu, want[0].to_f64_vec());
        assert!(lu.iter().all(|v| v.is_finite()), "{lu:?}");
        assert_eq!(pivots, want[1].as_i32().unwrap());
        assert_eq!(perm, want[2].as_i32().unwrap());
    }
}
