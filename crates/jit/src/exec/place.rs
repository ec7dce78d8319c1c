//! Where the values of one program live while it is lowered ([`Buffers`]): parameters
//! in the caller's buffers, results in the caller's result buffers, everything else
//! placed in the program's arena by liveness (`arena.rs`), a dead value's bytes reused
//! at once, and a kernel's result written over an input that dies there when the
//! kernel reads that input only at its loop index ([`in_place_inputs`]).

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
        Buffers { func, loc, last, result_pos, reload_only, spilled: vec![None; n], arena: Arena::default() }
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
    /// The input donated and its arena offset, if any.
    pub(super) fn donation(&self, module: &Module, at: &At) -> Result<Option<(Value, usize)>, Error> {
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
                && let Loc::Arena(off) = at.ins[k]
                && self.last[v.index()] == LastUse::Eqn(at.i)
                && bytes(func.ty(v), fname)? == size
            {
                return Ok(Some((v, off)));
            }
        }
        Ok(None)
    }

    /// The buffers of the equation's results: a result of the Func is written in the
    /// caller's buffer, a kernel's result over the donated input, anything else in new
    /// arena space.
    pub(super) fn place_outputs(&mut self, at: &At, donated: Option<(Value, usize)>) -> Result<Vec<Loc>, Error> {
        let mut outs = Vec::new();
        for o in &at.eqn.outputs {
            let l = match (self.result_pos[o.index()], donated) {
                (Some(k), _) => Loc::Out(k),
                (None, Some((_, off))) => Loc::Arena(off),
                (None, None) => Loc::Arena(self.arena.alloc(bytes(self.func.ty(*o), &self.func.name)?)),
            };
            self.loc[o.index()] = Some(l);
            outs.push(l);
        }
        Ok(outs)
    }

    /// Frees the arena space of the equation's inputs whose last use is here and of its
    /// outputs that nobody uses.
    pub(super) fn release_dead(&mut self, at: &At, donated: Option<(Value, usize)>) -> Result<(), Error> {
        let mut dead: Vec<Value> = Vec::new();
        for &v in at.eqn.inputs.iter().chain(&at.eqn.outputs) {
            if donated.is_some_and(|(d, _)| d == v) {
                continue; // its buffer now holds the kernel's result
            }
            if let Some(Loc::Arena(off)) = self.loc[v.index()]
                && (self.last[v.index()] == LastUse::Unused || self.last[v.index()] == LastUse::Eqn(at.i))
                && !dead.contains(&v)
            {
                dead.push(v);
                self.arena.release(off, bytes(self.func.ty(v), &self.func.name)?);
            }
        }
        Ok(())
    }

    /// Frees the arena space of `v` (an operand of a reduction bucket, at its finish).
    pub(super) fn release(&mut self, v: Value) -> Result<(), Error> {
        if let Some(Loc::Arena(off)) = self.loc[v.index()] {
            self.arena.release(off, bytes(self.func.ty(v), &self.func.name)?);
        }
        Ok(())
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
