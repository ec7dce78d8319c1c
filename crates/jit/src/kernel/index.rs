//! Compute-at-index: the value of an IR value at a multi-index of its shape, generated
//! through the views down to the loads of the kernel's buffers, and memoised per
//! (value, index) in the current loop body.

use super::lower::{Index, Lower, mem};
use super::{kernel_error, ops};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value as Cv, types};
use cranelift_module::{DataDescription, Module as _};
use ferrax_ir::array::Data;
use ferrax_ir::prim::{IndexOp, ReductionOp, ShapeOp, TernaryOp};
use ferrax_ir::{Array, DType, Error, Prim, Value};

impl Lower<'_, '_> {
    /// The value of `v` at `idx` (one i64 per axis of `v`'s shape).
    pub fn value_at(&mut self, v: Value, idx: &[Cv]) -> Result<Cv, Error> {
        if let Some(&c) = self.fixed.get(&v) {
            return Ok(c);
        }
        let key = (v, Index::from_slice(idx));
        if let Some(&c) = self.memo.get(&key) {
            return Ok(c);
        }
        let c = self.compute_at(v, idx)?;
        self.memo.insert(key, c);
        Ok(c)
    }

    /// Generates `v` at `idx` (no memo lookup).
    fn compute_at(&mut self, v: Value, idx: &[Cv]) -> Result<Cv, Error> {
        let func = self.func;
        let ty = func.ty(v).clone();
        if ty.shape.contains(&0) {
            // An empty value is never read at run time; any constant does.
            return Ok(ops::constant(&mut self.fb, ty.dtype, 0.0));
        }
        if let Some(p) = self.plan.params[v.index()] {
            let off = self.linear(idx, &ty.shape);
            let addr = self.addr(self.bufs[p], off, ty.dtype);
            return Ok(self.fb.ins().load(ops::cl_type(ty.dtype), mem(), addr, 0));
        }
        let Some((e, _)) = self.plan.defs[v.index()] else {
            return Err(self.err(None, format!("{v} is not defined")));
        };
        let eqn = &func.eqns[e];
        let ins = &eqn.inputs[..];
        let fail = |lw: &Self, m: String| lw.err(Some(e), m);
        let arg = |k: usize| ins.get(k).copied().ok_or_else(|| kernel_error(func, Some(e), "too few operands"));
        match &eqn.prim {
            Prim::Name { .. } => self.value_at(arg(0)?, idx),
            Prim::Unary(op) => {
                let dtype = func.ty(arg(0)?).dtype;
                let x = self.value_at(arg(0)?, idx)?;
                self.unary(*op, dtype, x).map_err(|m| fail(self, m))
            }
            Prim::Binary(op) => self.binary_at(e, *op, ty.dtype, idx),
            Prim::Compare(op) => {
                let dtype = func.ty(arg(0)?).dtype;
                let a = self.value_at(arg(0)?, idx)?;
                let b = self.value_at(arg(1)?, idx)?;
                Ok(ops::compare(&mut self.fb, *op, dtype, a, b))
            }
            Prim::Ternary(TernaryOp::Select) => {
                let p = self.value_at(arg(0)?, idx)?;
                let t = self.value_at(arg(1)?, idx)?;
                let f = self.value_at(arg(2)?, idx)?;
                Ok(self.fb.ins().select(p, t, f))
            }
            Prim::Ternary(TernaryOp::Clamp) => {
                let lo = self.value_at(arg(0)?, idx)?;
                let x = self.value_at(arg(1)?, idx)?;
                let hi = self.value_at(arg(2)?, idx)?;
                Ok(ops::clamp(&mut self.fb, ty.dtype, lo, x, hi))
            }
            Prim::Shape(ShapeOp::Constant { value, .. }) => self.constant_at(e, value, ty.dtype, idx),
            Prim::Shape(ShapeOp::Iota { dim, .. }) => {
                let i = *idx.get(*dim).ok_or_else(|| fail(self, "iota dim out of range".into()))?;
                Ok(ops::from_index(&mut self.fb, ty.dtype, i))
            }
            Prim::Shape(ShapeOp::BroadcastInDim { shape, dims }) => {
                let x = arg(0)?;
                let xs = func.ty(x).shape.clone();
                let mut at = Index::new();
                for (i, &d) in dims.iter().enumerate() {
                    at.push(if xs[i] == shape[d] { idx[d] } else { self.i64c(0) });
                }
                self.value_at(x, &at)
            }
            Prim::Shape(ShapeOp::Reshape { .. }) => {
                let x = arg(0)?;
                let xs = func.ty(x).shape.clone();
                if xs == ty.shape {
                    return self.value_at(x, idx);
                }
                let lin = self.linear(idx, &ty.shape);
                let at = self.delinear(lin, &xs);
                self.value_at(x, &at)
            }
            Prim::Shape(ShapeOp::Transpose { perm }) => {
                let mut at: Index = Index::from_slice(idx);
                for (i, &p) in perm.iter().enumerate() {
                    at[p] = idx[i];
                }
                self.value_at(arg(0)?, &at)
            }
            Prim::Shape(ShapeOp::Rev { axes }) => {
                let mut at: Index = Index::from_slice(idx);
                for &a in axes {
                    let n = self.i64c(ty.shape[a] as i64 - 1);
                    at[a] = self.fb.ins().isub(n, idx[a]);
                }
                self.value_at(arg(0)?, &at)
            }
            Prim::Shape(ShapeOp::Slice { start, strides, .. }) => {
                let mut at = Index::new();
                for k in 0..idx.len() {
                    let scaled =
                        if strides[k] == 1 { idx[k] } else { self.fb.ins().imul_imm_s(idx[k], strides[k] as i64) };
                    at.push(if start[k] == 0 { scaled } else { self.fb.ins().iadd_imm_s(scaled, start[k] as i64) });
                }
                self.value_at(arg(0)?, &at)
            }
            Prim::Shape(ShapeOp::Pad { low, interior, .. }) => self.pad_at(arg(0)?, arg(1)?, low, interior, idx),
            Prim::Shape(ShapeOp::Concatenate { axis }) => self.concat_at(ins, *axis, idx),
            Prim::Index(IndexOp::DynamicSlice { sizes }) => {
                let x = arg(0)?;
                let xs = func.ty(x).shape.clone();
                let mut at = Index::new();
                for k in 0..idx.len() {
                    let s = self.value_at(arg(k + 1)?, &[])?;
                    let s = self.fb.ins().sextend(types::I64, s);
                    let s = self.clamp_i64(s, 0, xs[k] as i64 - sizes[k] as i64);
                    at.push(self.fb.ins().iadd(s, idx[k]));
                }
                self.value_at(x, &at)
            }
            Prim::Index(IndexOp::Gather { axis, batch_dims }) => {
                let (x, ind) = (arg(0)?, arg(1)?);
                let xs = func.ty(x).shape.clone();
                let ni = func.ty(ind).rank() - batch_dims;
                if xs[*axis] == 0 {
                    return Ok(ops::constant(&mut self.fb, ty.dtype, 0.0));
                }
                let mut at_ind: Index = Index::from_slice(&idx[..*batch_dims]);
                at_ind.extend_from_slice(&idx[*axis..axis + ni]);
                let k = self.value_at(ind, &at_ind)?;
                let k = self.fb.ins().sextend(types::I64, k);
                let k = self.clamp_i64(k, 0, xs[*axis] as i64 - 1);
                let mut at: Index = Index::from_slice(&idx[..*axis]);
                at.push(k);
                at.extend_from_slice(&idx[axis + ni..]);
                self.value_at(x, &at)
            }
            Prim::Reduction(ReductionOp::Reduce { .. }) | Prim::Reduction(ReductionOp::ArgReduce { .. }) => {
                Err(fail(self, "a reduction's result is used where it is not yet complete".into()))
            }
            other => Err(fail(self, format!("{} may not appear in a kernel", other.name()))),
        }
    }

    /// `x` clamped to `[lo, hi]` (i64).
    pub fn clamp_i64(&mut self, x: Cv, lo: i64, hi: i64) -> Cv {
        let l = self.i64c(lo);
        let h = self.i64c(hi);
        let x = self.fb.ins().smax(x, l);
        self.fb.ins().smin(x, h)
    }

    /// The multi-index of flat offset `lin` in a C-order array of `shape`.
    fn delinear(&mut self, lin: Cv, shape: &[usize]) -> Index {
        let mut out: Index = Index::new();
        let zero = self.i64c(0);
        out.resize(shape.len(), zero);
        let mut rem = lin;
        for k in (0..shape.len()).rev() {
            let d = shape[k] as i64;
            if k == 0 {
                out[0] = rem;
            } else if d != 1 {
                out[k] = self.fb.ins().urem_imm_u(rem, d);
                rem = self.fb.ins().udiv_imm_u(rem, d);
            }
        }
        out
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
}
