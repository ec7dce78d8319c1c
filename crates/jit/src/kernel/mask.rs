//! Bool values in the SIMD loops, as lane masks: a comparison inside a fused kernel (the
//! one-hot pattern `convert(eq(broadcast(labels), iota))` of a cross-entropy, a ReLU's
//! `select(gt(x, 0), x, 0)`, a clamp written by hand) stays in the kernel's vector loop
//! instead of sending the whole kernel to the scalar one.
//!
//! In memory a bool is a byte, so 16 of them fill a vector while the kernel's data has 4
//! (or 2) lanes: bools are never loaded or stored in vectors (a bool parameter or result
//! keeps the scalar loop). Between a comparison and its consumers they live instead as a
//! mask of the data's lane width (`I32X4` beside 4-lane data, `I64X2` beside f64): all
//! ones where true, zero where false, which is what a vector `fcmp`/`icmp` yields. The
//! vector forms are `compare`, `not`/`and`/`or` on bools, a bool constant, a broadcast of
//! a bool (a splat when it drops the innermost axis), `select` on a mask (a `bitselect`),
//! and `convert` of a bool to a number (the mask and-ed with the bits of one). Each is the
//! scalar operation lane by lane, so results stay bit-identical to the scalar loop.

use super::lower::{Index, Lower};
use super::ops;
use super::shape::{MaskForm, mask_form};
use super::vector::{Analysis, VecEqn};
use cranelift_codegen::ir::{InstBuilder, Type, Value as Cv, types};
use ferrax_ir::prim::{BinaryOp, UnaryOp};
use ferrax_ir::{DType, Error, Prim, Value};
use std::collections::HashMap;

impl Analysis<'_> {
    /// Whether bool `v`, read at `i + off`, can be generated as a lane mask.
    pub(super) fn mask_vectorises(&mut self, v: Value, off: i64) -> bool {
        let func = self.func;
        // A bool parameter is bytes in memory: no vector load of it.
        let Some((e, _)) = self.plan.defs[v.index()] else { return false };
        let eqn = &func.eqns[e];
        match &eqn.prim {
            Prim::Name { .. } => self.contiguous(eqn.inputs[0], off),
            Prim::Unary(op) => (*op == UnaryOp::Not || ops::passes_through(*op)) && self.contiguous(eqn.inputs[0], off),
            Prim::Binary(op) => {
                matches!(op, BinaryOp::And | BinaryOp::Or) && eqn.inputs.iter().all(|&i| self.contiguous(i, off))
            }
            Prim::Compare(_) => {
                let dtype = func.ty(eqn.inputs[0]).dtype;
                let numeric = (dtype.is_float() && !dtype.is_half()) || dtype == DType::I32;
                numeric && eqn.inputs.iter().all(|&i| self.contiguous(i, off))
            }
            Prim::Shape(op) => match mask_form(op) {
                MaskForm::Splat(_) => true,
                MaskForm::Broadcast { .. } => self.shape_vectorises(e, op, off),
                MaskForm::Scalar => false,
            },
            Prim::Ternary(_)
            | Prim::Index(_)
            | Prim::Reduction(_)
            | Prim::Linalg(_)
            | Prim::Random(_)
            | Prim::Memory(_)
            | Prim::Sort(_)
            | Prim::Conv(_)
            | Prim::Window(_)
            | Prim::Collective(_)
            | Prim::Control(_) => false,
        }
    }
}

/// The mask type beside data of vector type `vt`: integer lanes of the same width.
pub(super) fn mask_type(vt: Type) -> Type {
    vt.as_int()
}

impl Lower<'_, '_> {
    /// Bool `v` at lanes `idx[last] ..` as a mask of type `mt` (all ones where true).
    pub(super) fn vec_mask(
        &mut self,
        v: Value,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
        mt: Type,
    ) -> Result<Cv, Error> {
        let key = (v, Index::from_slice(idx));
        if let Some(&c) = vmemo.get(&key) {
            return Ok(c);
        }
        let func = self.func;
        let Some((e, _)) = self.plan.defs[v.index()] else {
            return Err(self.err(None, format!("bool {v} loaded in a vector loop")));
        };
        let eqn = &func.eqns[e];
        let ins = &eqn.inputs;
        let none = |l: &Self| Err(l.err(Some(e), format!("{} has no mask form", eqn.prim.name())));
        // The analysis (`mask_vectorises`) keeps every other bool out of vector loops.
        let m = match &eqn.prim {
            Prim::Name { .. } => self.vec_mask(ins[0], idx, vmemo, mt)?,
            Prim::Unary(op) if ops::passes_through(*op) => self.vec_mask(ins[0], idx, vmemo, mt)?,
            Prim::Unary(UnaryOp::Not) => {
                let x = self.vec_mask(ins[0], idx, vmemo, mt)?;
                self.fb.ins().bnot(x)
            }
            Prim::Binary(op @ (BinaryOp::And | BinaryOp::Or)) => {
                let a = self.vec_mask(ins[0], idx, vmemo, mt)?;
                let b = self.vec_mask(ins[1], idx, vmemo, mt)?;
                if *op == BinaryOp::And { self.fb.ins().band(a, b) } else { self.fb.ins().bor(a, b) }
            }
            Prim::Compare(op) => {
                let dtype = func.ty(ins[0]).dtype;
                let a = self.vec_at(ins[0], idx, vmemo)?;
                let b = self.vec_at(ins[1], idx, vmemo)?;
                ops::compare(&mut self.fb, *op, dtype, a, b)
            }
            Prim::Shape(op) => match mask_form(op) {
                MaskForm::Splat(value) => {
                    let b = ops::constant_of(&mut self.fb, value, 0);
                    self.splat_bool(b, mt)
                }
                MaskForm::Broadcast { shape, dims } => self.broadcast_mask(ins[0], shape, dims, idx, vmemo, mt)?,
                MaskForm::Scalar => return none(self),
            },
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::Ternary(_)
            | Prim::Index(_)
            | Prim::Reduction(_)
            | Prim::Linalg(_)
            | Prim::Random(_)
            | Prim::Memory(_)
            | Prim::Sort(_)
            | Prim::Conv(_)
            | Prim::Window(_)
            | Prim::Collective(_)
            | Prim::Control(_) => return none(self),
        };
        vmemo.insert(key, m);
        Ok(m)
    }

    /// `broadcast_in_dim` of bool `x` to `shape`: its mask when the innermost axis is
    /// kept, else its one scalar splat.
    fn broadcast_mask(
        &mut self,
        x: Value,
        shape: &[usize],
        dims: &[usize],
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
        mt: Type,
    ) -> Result<Cv, Error> {
        let (at, keeps) = self.broadcast_read(x, shape, dims, idx);
        if keeps {
            self.vec_mask(x, &at, vmemo, mt)
        } else {
            let b = self.value_at(x, &at)?;
            Ok(self.splat_bool(b, mt))
        }
    }

    /// A scalar bool (`i8` 0/1) as a mask of type `mt`.
    fn splat_bool(&mut self, b: Cv, mt: Type) -> Cv {
        let wide = self.fb.ins().uextend(mt.lane_type(), b);
        let all = self.fb.ins().ineg(wide);
        self.fb.ins().splat(mt, all)
    }

    /// `select(p, a, b)` on a mask predicate.
    pub(super) fn vec_select_mask(
        &mut self,
        q: &VecEqn,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        let m = self.vec_mask(q.ins[0], idx, vmemo, mask_type(q.vt))?;
        let a = self.vec_at(q.ins[1], idx, vmemo)?;
        let b = self.vec_at(q.ins[2], idx, vmemo)?;
        Ok(ops::sel(&mut self.fb, m, a, b))
    }

    /// `convert` of a bool to `q.dtype`: the mask and-ed with the bits of one.
    pub(super) fn vec_from_bool(
        &mut self,
        q: &VecEqn,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        let mt = mask_type(q.vt);
        let m = self.vec_mask(q.ins[0], idx, vmemo, mt)?;
        let one = match q.dtype {
            DType::I32 => self.fb.ins().iconst(types::I32, 1),
            DType::F32 => self.fb.ins().iconst(types::I32, i64::from(1f32.to_bits())),
            DType::F64 => self.fb.ins().iconst(types::I64, 1f64.to_bits() as i64),
            DType::Bool | DType::BF16 | DType::F16 => {
                return Err(self.err(Some(q.e), format!("no vector convert from bool to {}", q.dtype)));
            }
        };
        let one = self.fb.ins().splat(mt, one);
        let bits = self.fb.ins().band(m, one);
        Ok(ops::reinterpret(&mut self.fb, q.vt, bits))
    }
}
