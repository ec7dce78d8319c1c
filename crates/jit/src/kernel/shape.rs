//! The structural family (`ShapeOp`) in kernels: each view computes its operand's index
//! from the result's (broadcast, reshape, transpose, rev, slice, pad, concatenate), and
//! literals (`constant`, `iota`) are generated in place; the vector forms of the views
//! that only shift the innermost index, and what the vector analysis asks of them.

use super::lower::{Index, Lower, mem};
use super::ops;
use super::vector::{Analysis, VecEqn};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{ConstantData, InstBuilder, Value as Cv, types};
use cranelift_module::{DataDescription, Module as _};
use ferrax_ir::array::Data;
use ferrax_ir::prim::ShapeOp;
use ferrax_ir::{Array, DType, Error, Func, Prim, Type, Value};
use std::collections::HashMap;

impl Analysis<'_> {
    /// Whether the structural op of equation `e`, read at `i + off`, vectorises: a splat
    /// constant; a broadcast that drops the innermost axis, or keeps it over an operand
    /// that does; a slice or pad shifting only the innermost index over one that does.
    pub(super) fn shape_vectorises(&mut self, e: usize, op: &ShapeOp, off: i64) -> bool {
        let func = self.func;
        let eqn = &func.eqns[e];
        match op {
            ShapeOp::Constant { value, .. } => value.len() == 1,
            ShapeOp::BroadcastInDim { shape, dims } => {
                let x = eqn.inputs[0];
                let xs = &func.ty(x).shape;
                let last = shape.len() - 1;
                let keeps = dims.last() == Some(&last) && xs[xs.len() - 1] == shape[last];
                !keeps || self.contiguous(x, off)
            }
            ShapeOp::Slice { .. } | ShapeOp::Pad { .. } => {
                let x = eqn.inputs[0];
                let Some((shift, interior)) = last_axis_shift(func, &eqn.prim, x) else { return false };
                if let Some(n) = interior {
                    self.interior(off, shift, n);
                }
                self.contiguous(x, off + shift)
            }
            // Counted in i32 lanes (f32 converts from them): the extent must fit.
            ShapeOp::Iota { shape, dim, .. } => shape.get(*dim).is_some_and(|&n| n <= i32::MAX as usize),
            ShapeOp::Reshape { .. } | ShapeOp::Transpose { .. } | ShapeOp::Rev { .. } | ShapeOp::Concatenate { .. } => {
                false
            }
        }
    }

    /// The bool value of the structural op of equation `e` at `i + off` inside the vector
    /// range, when it is a constant there: a uniform constant, a broadcast constant, or a
    /// shifted read of one.
    pub(super) fn shape_predicate(&mut self, e: usize, op: &ShapeOp, off: i64) -> Option<bool> {
        let func = self.func;
        let eqn = &func.eqns[e];
        match op {
            ShapeOp::Constant { value, .. } => match value.data() {
                ferrax_array::Data::Bool(b) => {
                    let first = *b.first()?;
                    b.iter().all(|&x| x == first).then_some(first)
                }
                _ => None,
            },
            ShapeOp::BroadcastInDim { .. } => {
                // A broadcast constant is that constant wherever it is read.
                let x = eqn.inputs[0];
                let constant = self.plan.defs[x.index()]
                    .is_some_and(|(d, _)| matches!(func.eqns[d].prim, Prim::Shape(ShapeOp::Constant { .. })));
                if constant { self.predicate(x, 0) } else { None }
            }
            ShapeOp::Pad { .. } | ShapeOp::Slice { .. } => {
                let x = eqn.inputs[0];
                let (shift, interior) = last_axis_shift(func, &eqn.prim, x)?;
                let c = self.predicate(x, off + shift)?;
                if let Some(n) = interior {
                    self.interior(off, shift, n);
                }
                Some(c)
            }
            ShapeOp::Reshape { .. }
            | ShapeOp::Transpose { .. }
            | ShapeOp::Rev { .. }
            | ShapeOp::Concatenate { .. }
            | ShapeOp::Iota { .. } => None,
        }
    }
}

impl Lower<'_, '_> {
    /// A structural primitive of equation `e` at `idx`, of type `ty`: a literal, or its
    /// operand read at a moved index.
    pub(super) fn shape_at(&mut self, e: usize, op: &ShapeOp, ty: &Type, idx: &[Cv]) -> Result<Cv, Error> {
        let func = self.func;
        match op {
            ShapeOp::Constant { value, .. } => self.constant_at(e, value, ty.dtype, idx),
            ShapeOp::Iota { dim, .. } => {
                let i = *idx.get(*dim).ok_or_else(|| self.err(Some(e), "iota dim out of range"))?;
                Ok(ops::from_index(&mut self.fb, ty.dtype, i))
            }
            ShapeOp::BroadcastInDim { shape, dims } => {
                let x = self.operand(e, 0)?;
                let xs = func.ty(x).shape.clone();
                let mut at = Index::new();
                for (i, &d) in dims.iter().enumerate() {
                    at.push(if xs[i] == shape[d] { idx[d] } else { self.i64c(0) });
                }
                self.value_at(x, &at)
            }
            ShapeOp::Reshape { .. } => {
                let x = self.operand(e, 0)?;
                let xs = func.ty(x).shape.clone();
                if xs == ty.shape {
                    return self.value_at(x, idx);
                }
                let lin = self.linear(idx, &ty.shape);
                let at = self.delinear(lin, &xs);
                self.value_at(x, &at)
            }
            ShapeOp::Transpose { perm } => {
                let mut at: Index = Index::from_slice(idx);
                for (i, &p) in perm.iter().enumerate() {
                    at[p] = idx[i];
                }
                self.value_at(self.operand(e, 0)?, &at)
            }
            ShapeOp::Rev { axes } => {
                let mut at: Index = Index::from_slice(idx);
                for &a in axes {
                    let n = self.i64c(ty.shape[a] as i64 - 1);
                    at[a] = self.fb.ins().isub(n, idx[a]);
                }
                self.value_at(self.operand(e, 0)?, &at)
            }
            ShapeOp::Slice { start, strides, .. } => self.slice_at(e, start, strides, idx),
            ShapeOp::Pad { low, interior, .. } => {
                self.pad_at(self.operand(e, 0)?, self.operand(e, 1)?, low, interior, idx)
            }
            ShapeOp::Concatenate { axis } => self.concat_at(&func.eqns[e].inputs, *axis, idx),
        }
    }

    /// `slice` of equation `e` at `idx`: its operand at `start + idx * strides`.
    fn slice_at(&mut self, e: usize, start: &[usize], strides: &[usize], idx: &[Cv]) -> Result<Cv, Error> {
        let mut at = Index::new();
        for k in 0..idx.len() {
            let scaled = if strides[k] == 1 { idx[k] } else { self.fb.ins().imul_imm_s(idx[k], strides[k] as i64) };
            at.push(if start[k] == 0 { scaled } else { self.fb.ins().iadd_imm_s(scaled, start[k] as i64) });
        }
        self.value_at(self.operand(e, 0)?, &at)
    }

    /// `pad(x, value)` at `idx`: the element of `x` where the index lands on one, else the
    /// pad value (negative edges crop).
    fn pad_at(&mut self, x: Value, pv: Value, low: &[i64], interior: &[usize], idx: &[Cv]) -> Result<Cv, Error> {
        let xs = self.func.ty(x).shape.clone();
        let value = self.value_at(pv, &[])?;
        if xs.contains(&0) {
            return Ok(value);
        }
        let mut ok: Option<Cv> = None;
        let mut at = Index::new();
        for k in 0..idx.len() {
            let (d, step) = (xs[k] as i64, interior[k] as i64 + 1);
            let t = if low[k] == 0 { idx[k] } else { self.fb.ins().iadd_imm_s(idx[k], -low[k]) };
            let mut conds = vec![self.fb.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, t, 0)];
            let zero = self.i64c(0);
            let tc = self.fb.ins().smax(t, zero);
            let q = if step > 1 {
                let r = self.fb.ins().urem_imm_u(tc, step);
                conds.push(self.fb.ins().icmp_imm_s(IntCC::Equal, r, 0));
                self.fb.ins().udiv_imm_u(tc, step)
            } else {
                tc
            };
            conds.push(self.fb.ins().icmp_imm_s(IntCC::SignedLessThan, q, d));
            let dm = self.i64c(d - 1);
            at.push(self.fb.ins().smin(q, dm));
            for c in conds {
                ok = Some(match ok {
                    Some(o) => self.fb.ins().band(o, c),
                    None => c,
                });
            }
        }
        let inner = self.value_at(x, &at)?;
        Ok(match ok {
            Some(c) => self.fb.ins().select(c, inner, value),
            None => inner,
        })
    }

    /// `concatenate(xs...)` along `axis` at `idx`: every operand at its clamped local index,
    /// then a chain of selects by index range.
    fn concat_at(&mut self, xs: &[Value], axis: usize, idx: &[Cv]) -> Result<Cv, Error> {
        let p = idx[axis];
        let mut res: Option<Cv> = None;
        let mut off = 0i64;
        for &x in xs {
            let n = self.func.ty(x).shape[axis] as i64;
            if n == 0 {
                continue;
            }
            let local = if off == 0 { p } else { self.fb.ins().iadd_imm_s(p, -off) };
            let local = self.clamp_i64(local, 0, n - 1);
            let mut at = Index::from_slice(idx);
            at[axis] = local;
            let v = self.value_at(x, &at)?;
            res = Some(match res {
                None => v,
                Some(r) => {
                    let c = self.fb.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, p, off);
                    self.fb.ins().select(c, v, r)
                }
            });
            off += n;
        }
        res.ok_or_else(|| self.err(None, "concatenate of empty operands read"))
    }

    /// A constant at `idx`: a splat scalar, or a load from a read-only table.
    fn constant_at(&mut self, e: usize, value: &Array, dtype: DType, idx: &[Cv]) -> Result<Cv, Error> {
        if value.rank() == 0 || value.len() == 1 {
            return Ok(ops::constant_of(&mut self.fb, value, 0));
        }
        let id = match self.tables.get(&e) {
            Some(&id) => id,
            None => {
                let bytes: Vec<u8> = match value.data() {
                    Data::Bool(v) => v.iter().map(|&b| u8::from(b)).collect(),
                    Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    Data::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    Data::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
                    Data::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
                };
                let id = self.jit.declare_anonymous_data(false, false).map_err(|m| self.err(Some(e), m.to_string()))?;
                let mut desc = DataDescription::new();
                desc.define(bytes.into_boxed_slice());
                desc.set_align(16);
                self.jit.define_data(id, &desc).map_err(|m| self.err(Some(e), m.to_string()))?;
                self.tables.insert(e, id);
                id
            }
        };
        let gv = self.jit.declare_data_in_func(id, self.fb.func);
        let base = self.fb.ins().symbol_value(types::I64, gv);
        let off = self.linear(idx, value.shape());
        let addr = self.addr(base, off, dtype);
        Ok(self.fb.ins().load(ops::cl_type(dtype), mem(), addr, 0))
    }

    /// A structural op in vectors: a splat constant, a broadcast (a vector when it keeps
    /// the innermost axis, else a splat scalar), or a slice or pad that shifts the
    /// innermost index by a constant. The other views move elements across lanes and
    /// have no vector form.
    pub(super) fn vec_shape(
        &mut self,
        q: &VecEqn,
        op: &ShapeOp,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        match op {
            ShapeOp::Constant { value, .. } => {
                let c = ops::constant_of(&mut self.fb, value, 0);
                Ok(self.fb.ins().splat(q.vt, c))
            }
            ShapeOp::BroadcastInDim { shape, dims } => {
                let x = q.ins[0];
                let (at, keeps) = self.broadcast_read(x, shape, dims, idx);
                if keeps {
                    self.vec_at(x, &at, vmemo)
                } else {
                    let s = self.value_at(x, &at)?;
                    Ok(self.fb.ins().splat(q.vt, s))
                }
            }
            ShapeOp::Slice { .. } | ShapeOp::Pad { .. } => {
                let Some((shift, _)) = last_axis_shift(self.func, q.prim, q.ins[0]) else {
                    return Err(self.err(Some(q.e), "a strided or multi-axis view in a vector loop"));
                };
                let mut at = Index::from_slice(idx);
                if let Some(last) = at.last_mut()
                    && shift != 0
                {
                    let base = *last;
                    *last = self.fb.ins().iadd_imm_s(base, shift);
                    self.note_shift(*last, base, shift);
                }
                self.vec_at(q.ins[0], &at, vmemo)
            }
            ShapeOp::Iota { shape, dim, .. } => self.vec_iota(q, *dim, shape.len(), idx),
            ShapeOp::Reshape { .. } | ShapeOp::Transpose { .. } | ShapeOp::Rev { .. } | ShapeOp::Concatenate { .. } => {
                Err(self.no_vector_form(q))
            }
        }
    }

    /// Where a vector loop reads operand `x` of a `broadcast_in_dim` to `shape` at `idx`,
    /// and whether the broadcast keeps the innermost axis (then `x` is read in vectors
    /// there; else one scalar of it is splat).
    pub(super) fn broadcast_read(&mut self, x: Value, shape: &[usize], dims: &[usize], idx: &[Cv]) -> (Index, bool) {
        let xs = self.func.ty(x).shape.clone();
        let last = shape.len() - 1;
        let mut at = Index::new();
        for (i, &d) in dims.iter().enumerate() {
            at.push(if xs[i] == shape[d] { idx[d] } else { self.i64c(0) });
        }
        (at, dims.last() == Some(&last) && xs[xs.len() - 1] == shape[last])
    }

    /// `iota` counting along axis `dim` of a rank-`rank` result, at lanes `idx[last] ..`:
    /// the lane offsets added to the first lane's count when it counts along the innermost
    /// axis (in i32 lanes, converted as the scalar code converts each count), else one
    /// count splat.
    fn vec_iota(&mut self, q: &VecEqn, dim: usize, rank: usize, idx: &[Cv]) -> Result<Cv, Error> {
        let i = *idx.get(dim).ok_or_else(|| self.err(Some(q.e), "iota dim out of range"))?;
        if dim + 1 != rank {
            let s = ops::from_index(&mut self.fb, q.dtype, i);
            return Ok(self.fb.ins().splat(q.vt, s));
        }
        let lanes = q.vt.lane_count();
        let (first, step) = match q.dtype {
            DType::I32 | DType::F32 => {
                let b = self.fb.ins().ireduce(types::I32, i);
                let step: Vec<u8> = (0..lanes as i32).flat_map(i32::to_le_bytes).collect();
                (self.fb.ins().splat(types::I32X4, b), step)
            }
            DType::F64 => {
                let f = self.fb.ins().fcvt_from_sint(types::F64, i);
                let step: Vec<u8> = (0..lanes).map(f64::from).flat_map(f64::to_le_bytes).collect();
                (self.fb.ins().splat(types::F64X2, f), step)
            }
            DType::Bool | DType::BF16 | DType::F16 => return Err(self.no_vector_form(q)),
        };
        let ty = self.fb.func.dfg.value_type(first);
        let handle = self.fb.func.dfg.constants.insert(ConstantData::from(step));
        let step = self.fb.ins().vconst(ty, handle);
        Ok(match q.dtype {
            DType::F64 => self.fb.ins().fadd(first, step),
            DType::F32 => {
                let counts = self.fb.ins().iadd(first, step);
                self.fb.ins().fcvt_from_sint(q.vt, counts)
            }
            _ => self.fb.ins().iadd(first, step),
        })
    }
}

/// How a structural op with a bool result is generated as a vector of lane masks.
pub(super) enum MaskForm<'a> {
    /// A splat of this one-element constant.
    Splat(&'a Array),
    /// A broadcast of a mask operand.
    Broadcast { shape: &'a [usize], dims: &'a [usize] },
    /// No mask form: the kernel stays scalar.
    Scalar,
}

/// The mask form of `op` (a constant of more than one element, the other views and
/// `iota` have none).
pub(super) fn mask_form(op: &ShapeOp) -> MaskForm<'_> {
    match op {
        ShapeOp::Constant { value, .. } if value.len() == 1 => MaskForm::Splat(value),
        ShapeOp::Constant { .. } => MaskForm::Scalar,
        ShapeOp::BroadcastInDim { shape, dims } => MaskForm::Broadcast { shape, dims },
        ShapeOp::Reshape { .. }
        | ShapeOp::Transpose { .. }
        | ShapeOp::Rev { .. }
        | ShapeOp::Slice { .. }
        | ShapeOp::Pad { .. }
        | ShapeOp::Concatenate { .. }
        | ShapeOp::Iota { .. } => MaskForm::Scalar,
    }
}

/// The view of a pad or slice along the innermost axis, when every other axis is the
/// identity (so only the innermost index shifts): the shift of the operand's index and,
/// for a pad, its operand's extent (the interior).
fn last_axis_shift(func: &Func, prim: &Prim, x: Value) -> Option<(i64, Option<i64>)> {
    let xs = &func.ty(x).shape;
    let last = xs.len().checked_sub(1)?;
    match prim {
        Prim::Shape(ShapeOp::Slice { start, limit, strides }) => {
            let other_ok = (0..last).all(|k| start[k] == 0 && limit[k] == xs[k] && strides[k] == 1);
            (other_ok && strides[last] == 1).then_some((start[last] as i64, None))
        }
        Prim::Shape(ShapeOp::Pad { low, high, interior }) => {
            let other_ok = (0..last).all(|k| low[k] == 0 && high[k] == 0 && interior[k] == 0);
            (other_ok && interior[last] == 0 && xs[last] > 0).then_some((-low[last], Some(xs[last] as i64)))
        }
        _ => None,
    }
}
