//! Running programs: one call walks the entry program's steps over one workspace.
//! Control flow runs natively here: `cond` picks a branch program, `while` and `scan`
//! run their body programs with carries double-buffered, `scan` passes each xs slice and
//! each ys slice as a pointer into the stacked buffers (no copies).

use super::{Loc, Plan, Program, ScanStep, Step, StepAt};
use ferrax_ir::spill::SpillFile;
use ferrax_ir::{Error, EvalOptions, Place};

/// The state of one call.
pub(crate) struct Run<'a> {
    pub plan: &'a Plan,
    /// Base of the workspace (all programs' arenas).
    pub ws: *mut u8,
    /// Loop iterations left, if bounded.
    pub fuel: Option<u64>,
    /// Which programs are running (a re-entered program would clobber its arena).
    pub active: Vec<bool>,
    pub options: EvalOptions,
    /// The call's spill file, created by the first offload step (removed with the run).
    pub spill: Option<SpillFile>,
    /// Where each spill slot's place starts in the spill file, once written.
    pub spilled: Vec<Option<u64>>,
    /// The workers' communicator, for collective steps (none: a plain call).
    pub comm: Option<&'a dyn crate::comm::Communicator>,
    /// The started reduction buckets, by ticket (`Plan::tickets` of them).
    pub tickets: Vec<Option<crate::comm::Ticket>>,
    /// How many of `tickets` are started.
    pub in_flight: usize,
    /// Where each step's time goes, when profiling (`profile.rs`).
    pub profile: Option<&'a super::profile::Profile>,
}

fn at(p: &Program, s: &StepAt, msg: impl Into<String>) -> Error {
    Error::eval(Place { func: p.name.clone(), eqn: Some(s.eqn), prim: Some(s.prim.to_string()) }, msg)
}

/// Copies `n` bytes (possibly the same buffer).
unsafe fn copy(src: *const u8, dst: *mut u8, n: usize) {
    if !std::ptr::eq(src, dst) {
        // SAFETY: by the caller's contract, both are buffers of `n` bytes.
        unsafe { std::ptr::copy(src, dst, n) };
    }
}

/// Copies each carry: `bytes[k]` bytes from `srcs[k]` to `dsts[k]`.
///
/// # Safety
/// As [`copy`], for each carry.
unsafe fn copy_all(srcs: &[*mut u8], dsts: &[*mut u8], bytes: &[usize]) {
    for ((&src, &dst), &n) in srcs.iter().zip(dsts).zip(bytes) {
        // SAFETY: by the caller's contract.
        unsafe { copy(src, dst, n) };
    }
}

/// Where the buffers of one running program are: its parameters, its results and its
/// arena.
struct Frame<'a> {
    params: &'a [*mut u8],
    outs: &'a [*mut u8],
    base: *mut u8,
}

impl Frame<'_> {
    /// The buffer at `l`.
    fn ptr(&self, l: Loc) -> *mut u8 {
        match l {
            Loc::Param(i) => self.params[i],
            // SAFETY: arena offsets are inside the program's arena.
            Loc::Arena(off) => unsafe { self.base.add(off) },
            Loc::Out(i) => self.outs[i],
            // SAFETY: lent offsets are inside the result buffer (`place.rs`).
            Loc::Lent(i, off) => unsafe { self.outs[i].add(off) },
            Loc::Unwritten => std::ptr::null_mut(),
        }
    }

    /// The buffers at `ls`.
    fn ptrs(&self, ls: &[Loc]) -> Vec<*mut u8> {
        ls.iter().map(|&l| self.ptr(l)).collect()
    }
}

impl Run<'_> {
    /// Runs program `id` on `params`, writing its results to `outs`.
    ///
    /// # Safety
    /// `params` and `outs` are valid buffers of the program's parameter and result
    /// types; outs do not overlap params; the workspace holds `plan.workspace_bytes`.
    pub(crate) unsafe fn program(&mut self, id: usize, params: &[*mut u8], outs: &[*mut u8]) -> Result<(), Error> {
        let plan = self.plan;
        let p = &plan.programs[id];
        if std::mem::replace(&mut self.active[id], true) {
            return Err(Error::eval(Place { func: p.name.clone(), eqn: None, prim: None }, "jit: recursive call"));
        }
        // SAFETY: the program's arena is inside the workspace.
        let frame = Frame { params, outs, base: unsafe { self.ws.add(p.base) } };
        for (i, s) in p.steps.iter().enumerate() {
            let started = self.profile.map(|_| std::time::Instant::now());
            // SAFETY: every Loc resolves to a buffer of the planned type.
            unsafe {
                match &s.step {
                    Step::Collective { op, ins, out } => {
                        op.run(&frame.ptrs(ins), &[frame.ptr(*out)], self.comm).map_err(|m| at(p, s, m))?
                    }
                    Step::ReduceStart { bucket, parts, ticket } => {
                        let parts: Vec<_> = parts.iter().map(|&(x, y, n)| (frame.ptr(x), frame.ptr(y), n)).collect();
                        let started = bucket.start(&parts, self.comm).map_err(|m| at(p, s, m))?;
                        self.tickets[*ticket] = Some(started);
                        self.in_flight += 1;
                    }
                    Step::ReduceFinish { ticket } => {
                        if let (Some(t), Some(comm)) = (self.tickets[*ticket].take(), self.comm) {
                            self.in_flight -= 1;
                            comm.finish(t).map_err(|m| at(p, s, m))?;
                        }
                    }
                    Step::Kernel { kernel, bufs, outer } => {
                        plan.kernels[*kernel].run(&frame.ptrs(bufs), *outer, plan.threads)
                    }
                    Step::Gemm(g) => g.gemm.run(
                        frame.ptr(g.lhs),
                        frame.ptr(g.rhs),
                        frame.ptr(g.out),
                        frame.ptr(g.scratch),
                        plan.threads,
                    ),
                    Step::GemmPair(pair) => {
                        let bufs = |g: &super::pair::GemmCall| {
                            [frame.ptr(g.lhs), frame.ptr(g.rhs), frame.ptr(g.out), frame.ptr(g.scratch)]
                        };
                        super::pair::run_pair(pair, [bufs(&pair[0]), bufs(&pair[1])], plan.threads)
                    }
                    Step::Opaque { op, ins, outs } => op
                        .run(&frame.ptrs(ins), &frame.ptrs(outs), &self.options, plan.threads)
                        .map_err(|m| at(p, s, m))?,
                    Step::Cond { index, is_bool, branches, ins, outs } => {
                        let i = if *is_bool {
                            usize::from(*frame.ptr(*index) != 0)
                        } else {
                            (frame.ptr(*index) as *const i32).read_unaligned().clamp(0, branches.len() as i32 - 1)
                                as usize
                        };
                        self.program(branches[i], &frame.ptrs(ins), &frame.ptrs(outs))?;
                    }
                    Step::While { .. } => self.run_while(p, s, &frame)?,
                    Step::Scan(sc) => self.scan(p, s, sc, &frame)?,
                    Step::Offload { src, slot, bytes } => {
                        let data = std::slice::from_raw_parts(frame.ptr(*src), *bytes);
                        let place = self.spilled[*slot];
                        let file = self.spill_file().map_err(|m| at(p, s, m))?;
                        // A step that runs again (in a loop body) overwrites its place.
                        let written = match place {
                            Some(offset) => file.write_at(offset, data).map(|()| offset),
                            None => file.append(data),
                        };
                        self.spilled[*slot] = Some(written.map_err(|m| at(p, s, m))?);
                    }
                    Step::Reload { slot, dst, bytes } => {
                        let data = std::slice::from_raw_parts_mut(frame.ptr(*dst), *bytes);
                        let missing = || at(p, s, "jit: reload of a value never offloaded");
                        let offset = self.spilled[*slot].ok_or_else(missing)?;
                        let file = self.spill.as_mut().ok_or_else(missing)?;
                        file.read_at(offset, data).map_err(|m| at(p, s, m))?;
                    }
                    Step::Copy { src, dst, bytes } => copy(frame.ptr(*src), frame.ptr(*dst), *bytes),
                }
            }
            if let (Some(profile), Some(started)) = (self.profile, started) {
                profile.add(id, i, u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX));
            }
            if self.in_flight > 0
                && let Some(comm) = self.comm
            {
                comm.progress().map_err(|m| at(p, s, m))?;
            }
        }
        for (&(l, n), &dst) in p.outs.iter().zip(outs) {
            // SAFETY: results are buffers of their types.
            unsafe { copy(frame.ptr(l), dst, n) };
        }
        self.active[id] = false;
        Ok(())
    }

    /// Runs a `while` step of program `p`: the condition program, then the body, the
    /// carries alternating between the results and the spare buffers.
    ///
    /// # Safety
    /// As [`Run::program`], for the buffers of `frame`.
    unsafe fn run_while(&mut self, p: &Program, s: &StepAt, frame: &Frame) -> Result<(), Error> {
        let Step::While { cond, body, max_iters, init, outs, spare, through, used, flag, bytes } = &s.step else {
            return Err(at(p, s, "jit: not a while step"));
        };
        let init = frame.ptrs(init);
        let (mut cur, mut next) = (frame.ptrs(outs), frame.ptrs(spare));
        for (k, _) in through.iter().enumerate().filter(|(_, t)| **t) {
            // Read in place; the body's copy of it is then a no-op.
            (cur[k], next[k]) = (init[k], init[k]);
        }
        // SAFETY: by the caller's contract, every Loc resolves to a buffer of its type.
        unsafe {
            copy_all(&init, &cur, bytes);
            let mut iters = 0;
            loop {
                if max_iters.is_some_and(|m| iters >= m) {
                    break;
                }
                self.program(*cond, &cur, &[frame.ptr(*flag)])?;
                if *frame.ptr(*flag) == 0 {
                    break;
                }
                self.burn(p, s)?;
                self.program(*body, &cur, &next)?;
                std::mem::swap(&mut cur, &mut next);
                iters += 1;
            }
            for (k, dst) in frame.ptrs(outs).into_iter().enumerate() {
                if used[k] || !through[k] {
                    copy(cur[k], dst, bytes[k]);
                }
            }
        }
        Ok(())
    }

    /// Gives up every started bucket (the call failed): returns once the other workers
    /// no longer touch this call's buffers.
    pub(crate) fn abandon(&mut self, why: &str) {
        for t in self.tickets.iter_mut().filter_map(Option::take) {
            if let Some(comm) = self.comm {
                comm.abandon(t, why);
            }
        }
        self.in_flight = 0;
    }

    /// Runs a `scan` step of program `p`: the body once per slice, the carries
    /// alternating between the results and the spare buffers, each xs and ys slice
    /// addressed in its stacked buffer.
    ///
    /// # Safety
    /// As [`Run::program`], for the buffers of `frame`.
    unsafe fn scan(&mut self, p: &Program, s: &StepAt, sc: &ScanStep, frame: &Frame) -> Result<(), Error> {
        let (mut cur, mut next) = (frame.ptrs(&sc.carry_out), frame.ptrs(&sc.spare));
        // SAFETY: by the caller's contract, every Loc resolves to a buffer of the planned
        // type, and a slice `t` of `b` bytes lies inside its stacked buffer.
        unsafe {
            copy_all(&frame.ptrs(&sc.init), &cur, &sc.bytes);
            let consts = frame.ptrs(&sc.consts);
            for step in 0..sc.length {
                self.burn(p, s)?;
                let t = if sc.reverse { sc.length - 1 - step } else { step };
                let mut ins = consts.clone();
                ins.extend(&cur);
                ins.extend(sc.xs.iter().map(|&(l, b)| frame.ptr(l).add(t * b)));
                let mut outs = next.clone();
                outs.extend(sc.ys.iter().map(|&(l, b)| frame.ptr(l).add(t * b)));
                self.program(sc.body, &ins, &outs)?;
                std::mem::swap(&mut cur, &mut next);
            }
            copy_all(&cur, &frame.ptrs(&sc.carry_out), &sc.bytes);
        }
        Ok(())
    }

    /// The call's spill file, created on first use in the chosen directory.
    fn spill_file(&mut self) -> Result<&mut SpillFile, String> {
        match &mut self.spill {
            Some(file) => Ok(file),
            slot @ None => {
                let dir = ferrax_ir::spill::spill_dir(self.options.spill_dir.as_deref());
                Ok(slot.insert(SpillFile::create(&dir)?))
            }
        }
    }

    /// Takes one unit of fuel for a loop iteration.
    fn burn(&mut self, p: &Program, s: &StepAt) -> Result<(), Error> {
        match &mut self.fuel {
            Some(0) => Err(at(p, s, "jit: out of fuel (loop iterations)")),
            Some(f) => {
                *f -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }
}
