//! Where the values of one program live while it is lowered ([`Buffers`]): parameters
//! in the caller's buffers, results in the caller's result buffers, everything else
//! placed in the program's arena by liveness (`arena.rs`), a dead value's bytes reused
//! at once, and a kernel's result written over an input that dies there when the
//! kernel reads that input only at its loop index ([`in_place_inputs`]).
//!
//! The entry's result buffers are also lent out before their results are written
//! ([`Buffers::lend_results`]): a value that dies before the step that writes a result
//! may live in that result's buffer. Reverse mode writes its large gradients last (the
//! first layer's weight gradient is the final product), so the activations and the
//! backward pass's temporaries of the layers after it fit in memory the call must
//! provide anyway, and the arena holds only what outlives every lent buffer.

use super::arena::Arena;
use super::{At, Loc, bytes, err};
use ferrax_ir::prim::{MemoryOp, Prim};
use ferrax_ir::{Error, Func, LastUse, Module, Value};

/// The buffer plan of one Func while it is lowered: where each value lives, the last
/// equation that reads it, and the arena that places the values that are neither
/// parameters nor results.
pub(super) struct Buffers<'f> {
    func: &'f Func,
    loc: Vec<Option<Loc>>,
    /// When each value is last read ([`Func::last_uses`]).
    last: &'f [LastUse],
    /// The first result position of each value returned (written in place there).
    result_pos: Vec<Option<usize>>,
    /// Values read only by `reload`s and not returned: an `offload` of one spills it.
    pub(super) reload_only: Vec<bool>,
    /// The spill slot of each value an offload step wrote to the spill file.
    pub(super) spilled: Vec<Option<usize>>,
    pub(super) arena: Arena,
    /// The result buffers lent as scratch, by result position (`lend_results`).
    lent: Vec<Option<Lent>>,
}

/// A result buffer of the entry lent to values that die before the result is written.
struct Lent {
    /// The position (in the program's order) of the step that writes the result; a
    /// value placed here is last read before it.
    written_at: usize,
    /// The alignment the buffer's start guarantees (its element size): a value of a
    /// wider element is not placed here.
    align: usize,
    /// The buffer's bytes.
    bytes: usize,
    /// Placement inside the buffer.
    arena: Arena,
}

impl<'f> Buffers<'f> {
    /// The parameters in the caller's buffers and the liveness of every value.
    pub(super) fn new(func: &'f Func, last: &'f [LastUse]) -> Buffers<'f> {
        let n = func.value_types.len();
        let mut loc: Vec<Option<Loc>> = vec![None; n];
        for (i, p) in func.params.iter().enumerate() {
            loc[p.index()] = Some(Loc::Param(i));
        }
        let mut result_pos: Vec<Option<usize>> = vec![None; n];
        for (k, r) in func.results.iter().enumerate() {
            result_pos[r.index()].get_or_insert(k);
        }
        let mut reload_only = vec![true; n];
        for e in &func.eqns {
            if e.prim != Prim::Memory(MemoryOp::Reload) {
                e.inputs.iter().for_each(|v| reload_only[v.index()] = false);
            }
        }
        func.results.iter().for_each(|r| reload_only[r.index()] = false);
        Buffers {
            func,
            loc,
            last,
            result_pos,
            reload_only,
            spilled: vec![None; n],
            arena: Arena::default(),
            lent: Vec::new(),
        }
    }

    /// Lends each result buffer of the entry to values that die before it is written
    /// (`order`: the equations in the order the program runs them). A result computed
    /// by a step is written at that step; one that is a parameter, or a second position
    /// of a value returned twice, is copied in after the last step.
    pub(super) fn lend_results(&mut self, order: &[usize]) -> Result<(), Error> {
        let func = self.func;
        let mut written_at = vec![order.len(); func.value_types.len()];
        for (pos, &e) in order.iter().enumerate() {
            func.eqns[e].outputs.iter().for_each(|o| written_at[o.index()] = pos);
        }
        self.lent = Vec::with_capacity(func.results.len());
        for (k, r) in func.results.iter().enumerate() {
            let ty = func.ty(*r);
            let bytes = bytes(ty, &func.name)?;
            let at = if self.result_pos[r.index()] == Some(k) { written_at[r.index()] } else { order.len() };
            let align = ty.dtype.size_bytes();
            self.lent.push((bytes >= 64).then(|| Lent { written_at: at, align, bytes, arena: Arena::default() }));
        }
        Ok(())
    }

    /// Space for `v` (first written at position `pos`) in a lent result buffer: the one
    /// written soonest after `v` dies that has room, if any.
    fn borrow(&mut self, v: Value, pos: usize) -> Result<Option<Loc>, Error> {
        let dies = match self.last[v.index()] {
            LastUse::Eqn(u) => u,
            LastUse::Unused => pos,
            LastUse::Returned => return Ok(None),
        };
        let ty = self.func.ty(v);
        let (size, align) = (bytes(ty, &self.func.name)?, ty.dtype.size_bytes());
        let mut candidates: Vec<usize> = (0..self.lent.len())
            .filter(|&k| self.lent[k].as_ref().is_some_and(|l| l.written_at > dies && l.align >= align))
            .collect();
        candidates.sort_by_key(|&k| self.lent[k].as_ref().map(|l| l.written_at));
        for k in candidates {
            if let Some(l) = self.lent[k].as_mut()
                && let Some(off) = l.arena.alloc_within(size, l.bytes / 64 * 64)
            {
                return Ok(Some(Loc::Lent(k, off)));
            }
        }
        Ok(None)
    }

    /// Whether a value written at `pos` and living in `loc` is dead before `loc`'s
    /// buffer is written (always, outside lent buffers).
    fn dies_before_lender(&self, v: Value, pos: usize, loc: Loc) -> bool {
        let Loc::Lent(k, _) = loc else { return true };
        let Some(l) = self.lent.get(k).and_then(Option::as_ref) else { return false };
        match self.last[v.index()] {
            LastUse::Eqn(u) => u < l.written_at,
            LastUse::Unused => pos < l.written_at,
            LastUse::Returned => false,
        }
    }

    /// Marks the outputs of `at` flagged in `through` that nothing reads as
    /// [`Loc::Unwritten`]: `through` carries of a `while`, which its step writes only
    /// when the result is read.
    pub(super) fn leave_unwritten(&mut self, at: &At, through: &[bool]) {
        for (o, _) in at.eqn.outputs.iter().zip(through).filter(|(_, t)| **t) {
            if self.last[o.index()] == LastUse::Unused && self.result_pos[o.index()].is_none() {
                self.loc[o.index()] = Some(Loc::Unwritten);
            }
        }
    }

    /// Gives the bytes of `v` at `loc` back to where they came from.
    fn free(&mut self, v: Value, loc: Loc) -> Result<(), Error> {
        let size = bytes(self.func.ty(v), &self.func.name)?;
        match loc {
            Loc::Arena(off) => self.arena.release(off, size),
            Loc::Lent(k, off) => {
                if let Some(l) = self.lent.get_mut(k).and_then(Option::as_mut) {
                    l.arena.release(off, size);
                }
            }
            Loc::Param(_) | Loc::Out(_) | Loc::Unwritten => {}
        }
        Ok(())
    }

    /// The buffers of the equation's operands, all defined by now.
    pub(super) fn inputs(&self, at: &At) -> Result<Vec<Loc>, Error> {
        at.eqn
            .inputs
            .iter()
            .map(|v| {
                self.loc
                    .get(v.index())
                    .copied()
                    .flatten()
                    .ok_or_else(|| at.fail(format!("jit: {v} is used before it is defined")))
            })
            .collect()
    }

    /// In place: a one-result elementwise kernel may write over an input that dies at
    /// this equation, has the result's byte size and is read only at the loop index.
    /// The input donated and its buffer, if any.
    pub(super) fn donation(&self, module: &Module, at: &At) -> Result<Option<(Value, Loc)>, Error> {
        let (func, eqn, fname) = (self.func, at.eqn, self.func.name.as_str());
        let Some(callee) = eqn.prim.callee() else { return Ok(None) };
        if eqn.outputs.len() != 1 || self.result_pos[eqn.outputs[0].index()].is_some() {
            return Ok(None);
        }
        let Some(kernel) = module_func(module, callee) else { return Ok(None) };
        let size = bytes(func.ty(eqn.outputs[0]), fname)?;
        let candidates = in_place_inputs(kernel);
        for &k in &candidates {
            let v = eqn.inputs[k];
            // Every position that passes `v` must read it only at the loop index.
            let only_identity = eqn.inputs.iter().enumerate().all(|(j, &u)| u != v || candidates.contains(&j));
            if only_identity
                && matches!(at.ins[k], Loc::Arena(_) | Loc::Lent(..))
                && self.dies_before_lender(eqn.outputs[0], at.i, at.ins[k])
                && self.last[v.index()] == LastUse::Eqn(at.i)
                && bytes(func.ty(v), fname)? == size
            {
                return Ok(Some((v, at.ins[k])));
            }
        }
        Ok(None)
    }

    /// The buffers of the equation's results: a result of the Func is written in the
    /// caller's buffer, a kernel's result over the donated input, anything else in new
    /// arena space.
    pub(super) fn place_outputs(&mut self, at: &At, donated: Option<(Value, Loc)>) -> Result<Vec<Loc>, Error> {
        let mut outs = Vec::new();
        for o in &at.eqn.outputs {
            if self.loc[o.index()] == Some(Loc::Unwritten) {
                outs.push(Loc::Unwritten);
                continue;
            }
            let l = match (self.result_pos[o.index()], donated) {
                (Some(k), _) => Loc::Out(k),
                (None, Some((_, loc))) => loc,
                (None, None) => match self.borrow(*o, at.i)? {
                    Some(loc) => loc,
                    None => Loc::Arena(self.arena.alloc(bytes(self.func.ty(*o), &self.func.name)?)),
                },
            };
            self.loc[o.index()] = Some(l);
            outs.push(l);
        }
        Ok(outs)
    }

    /// Frees the arena space of the equation's inputs whose last use is here and of its
    /// outputs that nobody uses.
    pub(super) fn release_dead(&mut self, at: &At, donated: Option<(Value, Loc)>) -> Result<(), Error> {
        let mut dead: Vec<Value> = Vec::new();
        for &v in at.eqn.inputs.iter().chain(&at.eqn.outputs) {
            if donated.is_some_and(|(d, _)| d == v) {
                continue; // its buffer now holds the kernel's result
            }
            if let Some(loc @ (Loc::Arena(_) | Loc::Lent(..))) = self.loc[v.index()]
                && (self.last[v.index()] == LastUse::Unused || self.last[v.index()] == LastUse::Eqn(at.i))
                && !dead.contains(&v)
            {
                dead.push(v);
                self.free(v, loc)?;
            }
        }
        Ok(())
    }

    /// Frees the space of `v` (an operand of a reduction bucket, at its finish).
    pub(super) fn release(&mut self, v: Value) -> Result<(), Error> {
        match self.loc[v.index()] {
            Some(loc) => self.free(v, loc),
            None => Ok(()),
        }
    }

    /// Where each result of the Func is, with its byte size.
    pub(super) fn results(&self) -> Result<Vec<(Loc, usize)>, Error> {
        let fname = self.func.name.as_str();
        self.func
            .results
            .iter()
            .map(|r| {
                let l = self
                    .loc
                    .get(r.index())
                    .copied()
                    .flatten()
                    .ok_or_else(|| err(fname, None, None, format!("jit: result {r} is never defined")))?;
                Ok((l, bytes(self.func.ty(*r), fname)?))
            })
            .collect()
    }
}

pub(super) fn module_func<'m>(module: &'m Module, name: &str) -> Option<&'m Func> {
    module.func(name)
}

/// The parameters of a kernel whose buffer its result may overwrite: the kernel has one
/// result and no reduction, and everything computed from the parameter is elementwise
/// at the result's shape, so each element of it is read only in the iteration that
/// writes the same element of the result (after reading it: loads of an iteration come
/// before its store, vector iterations included).
pub(crate) fn in_place_inputs(kernel: &Func) -> Vec<usize> {
    let [result] = kernel.results[..] else { return Vec::new() };
    let shape = &kernel.ty(result).shape;
    let mut out = Vec::new();
    for (k, &p) in kernel.params.iter().enumerate() {
        if &kernel.ty(p).shape != shape {
            continue;
        }
        let mut derived = vec![false; kernel.value_types.len()];
        derived[p.index()] = true;
        let mut ok = true;
        for e in &kernel.eqns {
            if e.inputs.iter().any(|v| derived[v.index()]) {
                if !ferrax_fuse::is_elementwise(&e.prim) || e.outputs.iter().any(|o| &kernel.ty(*o).shape != shape) {
                    ok = false;
                    break;
                }
                e.outputs.iter().for_each(|o| derived[o.index()] = true);
            }
        }
        if ok {
            out.push(k);
        }
    }
    out
}
