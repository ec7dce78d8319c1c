//! Loop-carried vectors: a value that the vector body reads both at the loop's own index
//! and shifted back by `d` elements (`0 < d < lanes`: a slice or pad of a stencil such as
//! `x[1:] - x[:-1]²`) is computed once an iteration, at the loop's index, and its shifted
//! read is assembled from this iteration's vector and the previous one's (one lane shuffle)
//! instead of being computed a second time from shifted inputs.
//!
//! The first iteration is peeled and computes everything as the plain vector loop does;
//! the loop then starts one vector later with the carried vectors as loop variables. Every
//! lane of a shuffled read is the very vector lane the plain loop computes for that index
//! (same operations, lane by lane), so carrying changes no bit. Only values computed by an
//! elementwise equation are carried (a parameter's shifted read is a load, as cheap as the
//! shuffle), only in loops without staged tiles (`tile.rs`), and only where the host has
//! SSE4.1 (the shift is one `palignr`); `vector::lanes` finds them with the rest of the
//! vector analysis.

use super::lower::{Index, Lower};
use super::ops::reinterpret;
use super::vector::vec_type;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{ConstantData, InstBuilder, Value as Cv, types};
use cranelift_frontend::Variable;
use ferrax_ir::{Error, Value};
use std::collections::HashMap;

/// The carried values of the vector loop being emitted.
pub(super) struct Carry {
    /// The loop's innermost index.
    iv: Cv,
    /// The outer indices of the loop's rows.
    outer: Index,
    lanes: i64,
    /// Each carried value's loop variable and its vector from the previous iteration.
    values: HashMap<Value, (Variable, Cv)>,
}

impl Lower<'_, '_> {
    /// Records that innermost index `shifted` is `base + shift`.
    pub(super) fn note_shift(&mut self, shifted: Cv, base: Cv, shift: i64) {
        let (root, off) = self.shifted.get(&base).copied().unwrap_or((base, 0));
        self.shifted.insert(shifted, (root, off + shift));
    }

    /// `v` at `idx` from the carried vectors, when `idx` is the loop's index shifted back by
    /// fewer than a vector's lanes and `v` is carried; `None` otherwise.
    pub(super) fn carried_read(
        &mut self,
        v: Value,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Option<Cv>, Error> {
        let Some(c) = &self.carry else { return Ok(None) };
        let (Some(&(_, prev)), Some((&last, outer))) = (c.values.get(&v), idx.split_last()) else { return Ok(None) };
        let Some(&(root, off)) = self.shifted.get(&last) else { return Ok(None) };
        if root != c.iv || off >= 0 || -off >= c.lanes || outer != &c.outer[..] {
            return Ok(None);
        }
        let (lanes, mut at) = (c.lanes, Index::from_slice(outer));
        at.push(c.iv);
        let cur = self.vec_at(v, &at, vmemo)?;
        Ok(Some(self.lane_shift(prev, cur, -off, lanes)))
    }

    /// The vector whose lane `j` is lane `lanes - d + j` of `prev ++ cur`: `cur` moved up by
    /// `d` lanes, its first `d` lanes being the last `d` of `prev`.
    fn lane_shift(&mut self, prev: Cv, cur: Cv, d: i64, lanes: i64) -> Cv {
        let ty = self.fb.func.dfg.value_type(cur);
        let width = (16 / lanes) as u8;
        let first = ((lanes - d) as u8) * width;
        let mask: Vec<u8> = (first..first + 16).collect();
        let p8 = reinterpret(&mut self.fb, types::I8X16, prev);
        let c8 = reinterpret(&mut self.fb, types::I8X16, cur);
        let imm = self.fb.func.dfg.immediates.push(ConstantData::from(mask));
        let r = self.fb.ins().shuffle(p8, c8, imm);
        reinterpret(&mut self.fb, ty, r)
    }

    /// The vector loop over `[va, vb)` in steps of `w` at `idx[last]`, carrying `carried`:
    /// the first iteration peeled (plain), then the loop with the carried vectors.
    pub(super) fn emit_carried_loop(
        &mut self,
        (va, vb, w): (Cv, Cv, i64),
        idx: &mut Index,
        last: usize,
        carried: &[Value],
    ) -> Result<(), Error> {
        let mut vars = Vec::new();
        for &v in carried {
            let dtype = self.func.ty(v).dtype;
            let vt = vec_type(dtype).ok_or_else(|| self.err(None, format!("{v} has no vector type")))?;
            let var = self.fb.declare_var(vt);
            let zero = super::ops::constant(&mut self.fb, dtype, 0.0);
            let zero = self.fb.ins().splat(vt, zero);
            self.fb.def_var(var, zero);
            vars.push(var);
        }
        let (peel, after) = (self.fb.create_block(), self.fb.create_block());
        let any = self.fb.ins().icmp(IntCC::SignedLessThan, va, vb);
        self.fb.ins().brif(any, peel, &[], after, &[]);
        self.fb.switch_to_block(peel);
        self.fb.seal_block(peel);
        idx[last] = va;
        self.vector_body(idx, HashMap::new(), carried, &vars)?;
        self.fb.ins().jump(after, &[]);
        self.fb.switch_to_block(after);
        self.fb.seal_block(after);
        let start = self.fb.ins().iadd_imm_s(va, w);
        let l = self.open_loop(start, vb, w);
        idx[last] = l.iv;
        let values = carried.iter().zip(&vars).map(|(&v, &var)| (v, (var, self.fb.use_var(var)))).collect();
        self.carry = Some(Carry { iv: l.iv, outer: Index::from_slice(&idx[..last]), lanes: w, values });
        let body = self.vector_body(idx, HashMap::new(), carried, &vars);
        self.carry = None;
        body?;
        self.close_loop(l);
        Ok(())
    }

    /// One vector iteration at `idx` (with the vectors already in `vmemo`): every result
    /// stored, then each carried value's vector at the loop's index assigned to its
    /// variable for the next iteration.
    pub(super) fn vector_body(
        &mut self,
        idx: &Index,
        mut vmemo: HashMap<(Value, Index), Cv>,
        carried: &[Value],
        vars: &[Variable],
    ) -> Result<(), Error> {
        self.memo.clear();
        for k in 0..self.func.results.len() {
            self.store_vector(k, idx, &mut vmemo)?;
        }
        for (&v, &var) in carried.iter().zip(vars) {
            let cur = self.vec_at(v, idx, &mut vmemo)?;
            self.fb.def_var(var, cur);
        }
        Ok(())
    }
}
