//! The structured primitives that choose or repeat: `cond`, `while` and `scan`.
//! (`call`, `custom_jvp`, `custom_vjp` and `remat` simply call their `func`.)
//!
//! These functions, and the driver's leaf evaluation, are `#[inline(never)]`: inlined
//! into the equation dispatcher they would enlarge its stack frame, which every level
//! of nested calls pays (about 1.3 KiB per call level and 2.5 KiB per scan-in-cond level
//! in release, so 256 levels fit easily in a 2 MiB thread stack).

use super::run::{At, Interp};
use super::value::{Buf, Val, Vals};
use crate::prim::ScanParams;
use crate::prim::layout::map_data;
use crate::{Error, Type};
use ferrax_array::{Array, Data, Shape};

impl Interp<'_> {
    /// `cond`: an i32 index, clamped to the branches, or a bool (true → branch 1).
    #[inline(never)]
    pub(super) fn cond<'a>(&mut self, at: At<'_>, branches: &[String], xs: Vec<Val<'a>>) -> Result<Vals<'a>, Error> {
        let mut xs = xs.into_iter();
        let selector = xs.next().ok_or_else(|| at.err("expects a predicate or index operand"))?;
        let last = branches.len().checked_sub(1).ok_or_else(|| at.err("has no branches"))?;
        let k = match selector.array().data() {
            Data::I32(v) if v.len() == 1 => usize::try_from(v[0]).unwrap_or(0).min(last),
            Data::Bool(v) if v.len() == 1 => usize::from(v[0]).min(last),
            _ => {
                let ty = Type::new(selector.array().dtype(), selector.array().shape());
                return Err(at.err(format!("the selector must be i32[] or bool[], got {ty}")));
            }
        };
        drop(selector);
        self.call(at, &branches[k], xs.collect())
    }

    /// `while`: runs `body` while `cond` holds, at most `max_iters` times when given.
    #[inline(never)]
    pub(super) fn while_loop<'a>(
        &mut self,
        at: At<'_>,
        cond: &str,
        body: &str,
        max_iters: Option<usize>,
        mut carry: Vec<Val<'a>>,
    ) -> Result<Vals<'a>, Error> {
        let mut done = 0usize;
        while max_iters.is_none_or(|max| done < max) {
            let go = self.call(at, cond, carry.clone())?;
            let go = match go.as_slice() {
                [p] => p.array().as_bool().and_then(|b| b.first().copied()),
                _ => None,
            };
            match go {
                Some(true) => {}
                Some(false) => break,
                None => return Err(at.err(format!("the predicate @{cond} must return one bool[]"))),
            }
            self.tick(at)?;
            carry = self.call(at, body, carry)?.into_vec();
            done += 1;
        }
        Ok(carry.into())
    }

    /// `scan`: threads the carry through `length` calls of the body, each given the
    /// consts, the carry and slice t of every `xs`; slice t of every `ys` is the body's
    /// output at step t (also when `reverse` runs t from `length - 1` down to 0).
    #[inline(never)]
    pub(super) fn scan<'a>(&mut self, at: At<'_>, s: &ScanParams, xs: Vec<Val<'a>>) -> Result<Vals<'a>, Error> {
        let fixed = s.num_consts.checked_add(s.num_carry).filter(|&n| n <= xs.len());
        let fixed = fixed.ok_or_else(|| at.err("num_consts + num_carry exceeds the operands"))?;
        let mut xs = xs;
        let seqs = xs.split_off(fixed);
        let mut carry = xs.split_off(s.num_consts);
        let consts = xs;
        for (i, x) in seqs.iter().enumerate() {
            if x.array().shape().first() != Some(&s.length) {
                return Err(at.err(format!("xs operand {i} does not have leading size length={}", s.length)));
            }
        }
        let mut ys = self.stacked_outputs(at, s)?;
        for step in 0..s.length {
            let t = if s.reverse { s.length - 1 - step } else { step };
            self.tick(at)?;
            let mut args = consts.clone();
            args.append(&mut carry);
            for x in &seqs {
                args.push(self.row(at, x.array(), t, s.length)?);
            }
            let outs = self.call(at, &s.body, args)?;
            if outs.len() != s.num_carry + ys.len() {
                return Err(at.err(format!("the body @{} returned {} values", s.body, outs.len())));
            }
            let mut outs = outs.into_iter();
            carry = outs.by_ref().take(s.num_carry).collect();
            for (y, out) in ys.iter_mut().zip(outs) {
                y.write_row(t, out.array()).map_err(|m| at.err(format!("output of @{}: {m}", s.body)))?;
            }
        }
        let mut results: Vals<'a> = carry.into();
        for y in ys {
            let array = Array::new(y.ty.shape, y.data).map_err(|e| at.err(e.to_string()))?;
            results.push(Val::new(Buf::with_ticket(array, y.ticket)));
        }
        Ok(results)
    }

    /// Zero-filled buffers for the stacked `ys`, after checking the budget for them.
    fn stacked_outputs(&self, at: At<'_>, s: &ScanParams) -> Result<Vec<Stacked>, Error> {
        let body =
            self.module.func(&s.body).ok_or_else(|| at.err(format!("@{} is not a Func of the module", s.body)))?;
        let per_step = body.result_types.get(s.num_carry..).unwrap_or_default();
        let mut types = Vec::with_capacity(per_step.len());
        let mut bytes = 0u64;
        for y in per_step {
            let mut shape: Shape = y.shape.clone();
            shape.insert(0, s.length);
            let ty = Type { dtype: y.dtype, shape };
            let size = ty.byte_size().map_err(|e| at.err(e.to_string()))?;
            bytes = bytes.checked_add(size).ok_or_else(|| at.err("the stacked outputs' sizes overflow"))?;
            types.push(ty);
        }
        self.reserve(at, bytes, || format!("the stacked outputs of @{}", s.body))?;
        let stacked = types.into_iter().map(|ty| {
            let len = ty.element_count().unwrap_or(0);
            let ticket = self.ledger.ticket(len as u64 * ty.dtype.size_bytes() as u64);
            let row = len.checked_div(s.length).unwrap_or(0);
            Stacked { data: Data::zeros(ty.dtype, len), row, ty, ticket }
        });
        Ok(stacked.collect())
    }

    /// Slice `t` along the leading axis (of size `length`) of `x`, as a new buffer.
    fn row<'a>(&self, at: At<'_>, x: &Array, t: usize, length: usize) -> Result<Val<'a>, Error> {
        let n = x.len() / length;
        self.reserve(at, (n * x.dtype().size_bytes()) as u64, || "a slice of a scanned operand".into())?;
        let data = map_data!(x.data(), |v| v[t * n..(t + 1) * n].to_vec());
        let array = Array::new(&x.shape()[1..], data).map_err(|e| at.err(e.to_string()))?;
        Ok(Val::new(self.ledger.buf(array)))
    }
}

/// A `ys` output of a scan being filled, one row per step.
struct Stacked {
    data: Data,
    row: usize,
    ty: Type,
    ticket: super::value::Ticket,
}

impl Stacked {
    /// Copies `y` into row `t`.
    fn write_row(&mut self, t: usize, y: &Array) -> Result<(), String> {
        if y.dtype() != self.ty.dtype || y.shape() != &self.ty.shape[1..] || y.len() != self.row {
            let expected = Type::new(self.ty.dtype, &self.ty.shape[1..]);
            return Err(format!("expected {expected}, got {}", Type::new(y.dtype(), y.shape())));
        }
        let range = t * self.row..(t + 1) * self.row;
        match (&mut self.data, y.data()) {
            (Data::Bool(d), Data::Bool(v)) => d[range].copy_from_slice(v),
            (Data::I32(d), Data::I32(v)) => d[range].copy_from_slice(v),
            (Data::F32(d), Data::F32(v)) => d[range].copy_from_slice(v),
            (Data::F64(d), Data::F64(v)) => d[range].copy_from_slice(v),
            (Data::BF16(d), Data::BF16(v)) => d[range].copy_from_slice(v),
            (Data::F16(d), Data::F16(v)) => d[range].copy_from_slice(v),
            _ => return Err("dtypes differ".into()),
        }
        Ok(())
    }
}
