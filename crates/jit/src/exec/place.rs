//! Where the values of one program live while it is lowered ([`Buffers`]): parameters
//! in the caller's buffers, results in the caller's result buffers, everything else
//! placed in the program's arena by liveness (`arena.rs`), a dead value's bytes reused
//! at once, and a kernel's result written over an input that dies there when the
//! kernel reads that input only at its loop index ([`in_place_inputs`]).
//!
//! The entry's result buffers are also lent out before their results are written
//! ([`Buffers::lend_results`]): a value that dies before the step that writes a result
//! may live in that result's buffer, and a value that an elementwise kernel turns into
//! a result in place lives in that result's buffer from the start. Reverse mode writes
//! its large gradients last (the first layer's weight gradient is the final product),
//! so the activations and the backward pass's temporaries of the layers after it fit
//! in memory the call must provide anyway, and the arena holds only what outlives every
//! lent buffer. The lending is planned for the whole program before it is lowered:
//! each run of values that share one buffer (a value and the kernels' results written
//! over it in place) is placed, largest first, in the result buffer written soonest
//! after it dies, at the lowest offset free for its whole lifetime.

use super::arena::Arena;
use super::{At, Loc, bytes, err};
use ferrax_ir::prim::{MemoryOp, Prim};
use ferrax_ir::{Eqn, Error, Func, LastUse, Module, Value};

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
    /// Where `lend_results` placed a value in a result buffer (`Loc::Lent`), by value.
    lent: Vec<Option<Loc>>,
}

/// A result buffer of the entry, lent until its result is written.
struct Lender {
    /// The position (in the program's order) of the step that writes the result.
    written_at: usize,
    /// The alignment the buffer's start guarantees (its element size): a value of a
    /// wider element is not placed here.
    align: usize,
    /// The buffer's bytes, rounded down to whole 64-byte granules.
    bytes: usize,
    /// What is placed here: (first and last position live, offset, bytes).
    placed: Vec<(usize, usize, usize, usize)>,
}

impl Lender {
    /// The lowest 64-byte-aligned offset where `bytes` bytes are free from position
    /// `from` to `until` (both included), if any.
    fn room(&self, from: usize, until: usize, bytes: usize) -> Option<usize> {
        let size = bytes.div_ceil(64) * 64;
        let mut busy: Vec<(usize, usize)> =
            self.placed.iter().filter(|p| p.0 <= until && from <= p.1).map(|p| (p.2, p.2 + p.3)).collect();
        busy.sort_unstable();
        let mut off = 0;
        for (start, end) in busy {
            if off + size <= start {
                break;
            }
            off = off.max(end.div_ceil(64) * 64);
        }
        (off + size <= self.bytes).then_some(off)
    }
}

/// Values that share one buffer: a value and the results of the kernels written over
/// it in place, in order.
struct Run {
    values: Vec<Value>,
    /// First and last position at which the buffer is live.
    from: usize,
    until: usize,
    bytes: usize,
    /// The widest element among the values.
    align: usize,
    /// The result buffer it must live in (at offset 0), when its last value becomes
    /// that result in place.
    into: Option<usize>,
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

    /// Plans which values live in the entry's result buffers before those are written
    /// (`order`: the equations in the order the program runs them; see the module
    /// docs). A result computed by a step is written at that step; one that is a
    /// parameter, or a second position of a value returned twice, is copied in after
    /// the last step.
    pub(super) fn lend_results(&mut self, module: &Module, order: &[usize]) -> Result<(), Error> {
        let func = self.func;
        let n = func.value_types.len();
        let mut def: Vec<Option<usize>> = vec![None; n];
        let mut unwritten = vec![false; n];
        for (pos, &e) in order.iter().enumerate() {
            let eqn = &func.eqns[e];
            for (o, u) in eqn.outputs.iter().zip(self.unwritten(module, eqn)) {
                def[o.index()] = Some(pos);
                unwritten[o.index()] = u;
            }
        }
        let mut lenders = Vec::with_capacity(func.results.len());
        for (k, r) in func.results.iter().enumerate() {
            let ty = func.ty(*r);
            let written_at = if self.result_pos[r.index()] == Some(k) { def[r.index()] } else { None };
            let bytes = bytes(ty, &func.name)? / 64 * 64;
            let align = ty.dtype.size_bytes();
            lenders.push(Lender { written_at: written_at.unwrap_or(order.len()), align, bytes, placed: Vec::new() });
        }
        let temp = |v: Value| def[v.index()].is_some() && self.result_pos[v.index()].is_none() && !unwritten[v.index()];
        let mut runs = self.runs(module, order, &def, &temp)?;
        // Runs that end as a result in place first (their place is fixed), then the
        // largest and longest-lived first.
        runs.sort_by_key(|r| (r.into.is_none(), std::cmp::Reverse((r.bytes, r.until - r.from))));
        self.lent = vec![None; n];
        for run in &runs {
            let room = |k: usize| lenders[k].room(run.from, run.until, run.bytes).map(|off| (k, off));
            let choice = match run.into {
                // In place: only at the start of that result's buffer.
                Some(k) => room(k).filter(|&(_, off)| off == 0),
                None => {
                    let fits = |l: &Lender| l.align >= run.align && l.written_at > run.until;
                    let mut ks: Vec<usize> = (0..lenders.len()).filter(|&k| fits(&lenders[k])).collect();
                    ks.sort_by_key(|&k| lenders[k].written_at);
                    ks.into_iter().find_map(room)
                }
            };
            if let Some((k, off)) = choice {
                lenders[k].placed.push((run.from, run.until, off, run.bytes));
                run.values.iter().for_each(|v| self.lent[v.index()] = Some(Loc::Lent(k, off)));
            }
        }
        Ok(())
    }

    /// The program's temporaries grouped into runs that share a buffer, with the run
    /// each result buffer may take in place (`def`: each value's defining position;
    /// `temp`: whether a value is a temporary the program places).
    fn runs(
        &self,
        module: &Module,
        order: &[usize],
        def: &[Option<usize>],
        temp: &dyn Fn(Value) -> bool,
    ) -> Result<Vec<Run>, Error> {
        let func = self.func;
        let mut run_of: Vec<Option<usize>> = vec![None; func.value_types.len()];
        let mut runs: Vec<Run> = Vec::new();
        for (pos, &e) in order.iter().enumerate() {
            let eqn = &func.eqns[e];
            let donor = self.donor(module, eqn, pos, temp)?.map(|k| eqn.inputs[k]);
            for &o in &eqn.outputs {
                if !temp(o) {
                    continue;
                }
                let until = match self.last[o.index()] {
                    LastUse::Eqn(u) => u,
                    LastUse::Unused | LastUse::Returned => pos,
                };
                let (bytes, align) = (bytes(func.ty(o), &func.name)?, func.ty(o).dtype.size_bytes());
                match donor.and_then(|v| run_of[v.index()]) {
                    Some(r) => {
                        let run = &mut runs[r];
                        run.values.push(o);
                        run.until = run.until.max(until);
                        run.align = run.align.max(align);
                        run_of[o.index()] = Some(r);
                    }
                    None => {
                        run_of[o.index()] = Some(runs.len());
                        runs.push(Run { values: vec![o], from: pos, until, bytes, align, into: None });
                    }
                }
            }
            // A kernel writing a result over a temporary that dies here: that run lives
            // in the result's buffer.
            if let [r] = eqn.outputs[..]
                && let Some(k) = self.result_pos[r.index()]
                && def[r.index()] == Some(pos)
                && let Some(i) = self.donor(module, eqn, pos, &|v| temp(v) || v == r)?
                && let Some(run) = run_of[eqn.inputs[i].index()]
                && runs[run].until == pos
            {
                runs[run].into = Some(k);
            }
        }
        Ok(runs)
    }

    /// Which outputs of `eqn` get no buffer ([`Loc::Unwritten`]): `while` carries the
    /// body returns unchanged that nothing reads and that are not results of the Func
    /// (the loop writes such a carry only when its result is read).
    fn unwritten(&self, module: &Module, eqn: &Eqn) -> Vec<bool> {
        let Some(body) = eqn.prim.loop_body() else { return vec![false; eqn.outputs.len()] };
        let through = through_carries(module, body, eqn.outputs.len());
        eqn.outputs
            .iter()
            .zip(through)
            .map(|(o, t)| t && self.last[o.index()] == LastUse::Unused && self.result_pos[o.index()].is_none())
            .collect()
    }

    /// Marks the outputs of `at` that get no buffer ([`Buffers::unwritten`]).
    pub(super) fn leave_unwritten(&mut self, module: &Module, at: &At) {
        for (o, u) in at.eqn.outputs.iter().zip(self.unwritten(module, at.eqn)) {
            if u {
                self.loc[o.index()] = Some(Loc::Unwritten);
            }
        }
    }

    /// Gives the bytes of `v` at `loc` back to where they came from.
    fn free(&mut self, v: Value, loc: Loc) -> Result<(), Error> {
        match loc {
            Loc::Arena(off) => self.arena.release(off, bytes(self.func.ty(v), &self.func.name)?),
            // Planned for the program's whole run (`lend_results`).
            Loc::Lent(..) | Loc::Param(_) | Loc::Out(_) | Loc::Unwritten => {}
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
        let placed = |v: Value| matches!(self.loc[v.index()], Some(Loc::Arena(_) | Loc::Lent(..)));
        Ok(self.donor(module, at.eqn, at.i, &placed)?.map(|k| (at.eqn.inputs[k], at.ins[k])))
    }

    /// The operand position of `eqn` (at position `pos`) whose buffer its one result
    /// may overwrite: a kernel reading that operand only at the loop index, the operand
    /// a temporary (`temp`) that dies here, of the result's byte size. The result must
    /// not be a result of the Func, unless `temp` says it may be.
    fn donor(
        &self,
        module: &Module,
        eqn: &Eqn,
        pos: usize,
        temp: &dyn Fn(Value) -> bool,
    ) -> Result<Option<usize>, Error> {
        let (func, fname) = (self.func, self.func.name.as_str());
        let Some(callee) = eqn.prim.callee() else { return Ok(None) };
        let [out] = eqn.outputs[..] else { return Ok(None) };
        if self.result_pos[out.index()].is_some() && !temp(out) {
            return Ok(None);
        }
        let Some(kernel) = module_func(module, callee) else { return Ok(None) };
        let size = bytes(func.ty(out), fname)?;
        let candidates = in_place_inputs(kernel);
        for &k in &candidates {
            let v = eqn.inputs[k];
            // Every position that passes `v` must read it only at the loop index.
            let only_identity = eqn.inputs.iter().enumerate().all(|(j, &u)| u != v || candidates.contains(&j));
            if only_identity
                && v != out
                && temp(v)
                && self.last[v.index()] == LastUse::Eqn(pos)
                && bytes(func.ty(v), fname)? == size
            {
                return Ok(Some(k));
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
                (None, None) => match self.lent.get(o.index()).copied().flatten() {
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

/// Which of a `while`'s `n` carries its body returns as it got it (a matrix a solver's
/// loop reads, a capture): such a carry needs no second buffer, nor a copy per
/// iteration, and no result buffer when nothing reads the loop's result.
pub(super) fn through_carries(module: &Module, body: &str, n: usize) -> Vec<bool> {
    match module_func(module, body) {
        Some(f) => (0..n).map(|k| f.results.get(k).is_some_and(|r| f.params.get(k) == Some(r))).collect(),
        None => vec![false; n],
    }
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
