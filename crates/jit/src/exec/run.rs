//! Running programs: one call walks the entry program's steps over one workspace.
//! Control flow runs natively here: `cond` picks a branch program, `while` and `scan`
//! run their body programs with carries double-buffered, `scan` passes each xs slice and
//! each ys slice as a pointer into the stacked buffers (no copies).

use super::{Loc, Plan, Program, Step, StepAt};
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
        let base = unsafe { self.ws.add(p.base) };
        let ptr = |l: Loc| match l {
            Loc::Param(i) => params[i],
            // SAFETY: arena offsets are inside the program's arena.
            Loc::Arena(off) => unsafe { base.add(off) },
            Loc::Out(i) => outs[i],
        };
        let ptrs = |ls: &[Loc]| ls.iter().map(|&l| ptr(l)).collect::<Vec<_>>();
        for s in &p.steps {
            // SAFETY: every Loc resolves to a buffer of the planned type.
            unsafe {
                match &s.step {
                    Step::Kernel { kernel, bufs, outer } => {
                        plan.kernels[*kernel].run(&ptrs(bufs), *outer, plan.threads)
                    }
                    Step::Gemm { gemm, lhs, rhs, out, scratch } => {
                        gemm.run(ptr(*lhs), ptr(*rhs), ptr(*out), ptr(*scratch), plan.threads)
                    }
                    Step::Opaque { op, ins, outs } => {
                        op.run(&ptrs(ins), &ptrs(outs), &self.options).map_err(|m| at(p, s, m))?
                    }
                    Step::Cond { index, is_bool, branches, ins, outs } => {
                        let i = if *is_bool {
                            usize::from(*ptr(*index) != 0)
                        } else {
                            (ptr(*index) as *const i32).read_unaligned().clamp(0, branches.len() as i32 - 1) as usize
                        };
                        self.program(branches[i], &ptrs(ins), &ptrs(outs))?;
                    }
                    Step::While { cond, body, max_iters, init, outs, spare, flag, bytes } => {
                        let (mut cur, mut next) = (ptrs(outs), ptrs(spare));
                        for ((&src, &dst), &n) in ptrs(init).iter().zip(&cur).zip(bytes) {
                            copy(src, dst, n);
                        }
                        let mut iters = 0;
                        loop {
                            if max_iters.is_some_and(|m| iters >= m) {
                                break;
                            }
                            self.program(*cond, &cur, &[ptr(*flag)])?;
                            if *ptr(*flag) == 0 {
                                break;
                            }
                            self.burn(p, s)?;
                            self.program(*body, &cur, &next)?;
                            std::mem::swap(&mut cur, &mut next);
                            iters += 1;
                        }
                        for ((&src, &dst), &n) in cur.iter().zip(&ptrs(outs)).zip(bytes) {
                            copy(src, dst, n);
                        }
                    }
                    Step::Scan(sc) => {
                        let (mut cur, mut next) = (ptrs(&sc.carry_out), ptrs(&sc.spare));
                        for ((&src, &dst), &n) in ptrs(&sc.init).iter().zip(&cur).zip(&sc.bytes) {
                            copy(src, dst, n);
                        }
                        let consts = ptrs(&sc.consts);
                        for step in 0..sc.length {
                            self.burn(p, s)?;
                            let t = if sc.reverse { sc.length - 1 - step } else { step };
                            let mut ins = consts.clone();
                            ins.extend(&cur);
                            ins.extend(sc.xs.iter().map(|&(l, b)| ptr(l).add(t * b)));
                            let mut outs = next.clone();
                            outs.extend(sc.ys.iter().map(|&(l, b)| ptr(l).add(t * b)));
                            self.program(sc.body, &ins, &outs)?;
                            std::mem::swap(&mut cur, &mut next);
                        }
                        for ((&src, &dst), &n) in cur.iter().zip(&ptrs(&sc.carry_out)).zip(&sc.bytes) {
                            copy(src, dst, n);
                        }
                    }
                }
            }
        }
        for (&(l, n), &dst) in p.outs.iter().zip(outs) {
            // SAFETY: results are buffers of their types.
            unsafe { copy(ptr(l), dst, n) };
        }
        self.active[id] = false;
        Ok(())
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
