//! The executor: lowers a fused module (the schedule of the kernel contract) to
//! *programs* and runs them.
//!
//! For the entry and for every body Func reached by `cond`/`while`/`scan`, [`build`]
//! makes a [`Program`]: a list of steps (kernel launch, GEMM, cond, while, scan,
//! opaque op) over buffers that are either the program's parameters (the caller's
//! memory) or places in the program's arena, chosen by the placement of `arena.rs`.
//! Every program owns a disjoint region of one workspace, so a call needs exactly one
//! workspace; `run.rs` interprets the steps (the steps are fixed at compile time; no
//! IR is looked at while running).

pub(crate) mod arena;
pub(crate) mod buf;
pub(crate) mod code;
mod opaque;
mod overlap;
mod pair;
mod place;
pub(crate) mod profile;
pub(crate) mod run;
pub(crate) mod split;

use crate::gemm::Gemm;
use crate::kernel::{KernelCompiler, KernelFn, KernelOptions, define_kernel};
use arena::Arena;
use cranelift_module::FuncId;
use ferrax_ir::prim::Prim;
use ferrax_ir::prim::{ControlOp, DotDims, LinalgOp, MemoryOp, ScanParams};
use ferrax_ir::{Eqn, Error, Func, LastUse, Module, Place, Type};
use opaque::Opaque;
use place::{Buffers, module_func, through_carries};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::Arc;

/// Where a buffer lives while a program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// The program's i-th parameter (caller's memory; never written).
    Param(usize),
    /// At this byte offset of the program's arena.
    Arena(usize),
    /// The program's i-th result buffer (the caller's memory): a step computing a
    /// result writes it there directly, so no copy is needed at the end.
    Out(usize),
    /// At this byte offset of the entry's i-th result buffer, lent to values that die
    /// before the step that writes the result (`place.rs`).
    Lent(usize, usize),
    /// No buffer: a result its step never writes and nothing reads (a `while` carry the
    /// body returns unchanged, whose loop result is unused).
    Unwritten,
}

/// One step of a program.
pub(crate) enum Step {
    /// A collective: the communicator of the call moves the bytes (`crate::comm`).
    Collective { op: Box<crate::comm::Collective>, ins: Vec<Loc>, out: Loc },
    /// Starts a bucket of reductions (`overlap.rs`): each part's operand, result and
    /// bytes; the call's ticket `ticket` holds it until its finish.
    ReduceStart { bucket: Box<overlap::Bucket>, parts: Vec<(Loc, Loc, usize)>, ticket: usize },
    /// Waits for the bucket started under `ticket`.
    ReduceFinish { ticket: usize },
    /// A kernel launch: `bufs` = kernel params then results.
    Kernel { kernel: usize, bufs: Vec<Loc>, outer: i64 },
    /// `dot_general` by the GEMM library.
    Gemm(Box<pair::GemmCall>),
    /// Two independent `dot_general`s run side by side (`pair.rs`).
    GemmPair(Box<[pair::GemmCall; 2]>),
    /// Runs the branch chosen by an i32 index (clamped) or a bool.
    Cond { index: Loc, is_bool: bool, branches: Vec<usize>, ins: Vec<Loc>, outs: Vec<Loc> },
    /// `while`: carries double-buffered between `outs` and `spare`, except those the
    /// body returns unchanged (`through`), which the loop reads from their `init` buffer
    /// and copies to `outs` afterwards only when the result is `used`.
    While {
        cond: usize,
        body: usize,
        max_iters: Option<usize>,
        init: Vec<Loc>,
        outs: Vec<Loc>,
        spare: Vec<Loc>,
        through: Vec<bool>,
        used: Vec<bool>,
        flag: Loc,
        bytes: Vec<usize>,
    },
    /// `scan`: xs slices and ys slices addressed in place (no copies).
    Scan(Box<ScanStep>),
    /// An opaque primitive run natively.
    Opaque { op: Box<Opaque>, ins: Vec<Loc>, outs: Vec<Loc> },
    /// `offload`: `bytes` at `src` appended to the call's spill file, remembered as `slot`.
    Offload { src: Loc, slot: usize, bytes: usize },
    /// `reload`: the value of `slot` read back from the spill file into `dst`.
    Reload { slot: usize, dst: Loc, bytes: usize },
    /// An `offload` or `reload` that keeps its value in memory (see `memory_step`).
    Copy { src: Loc, dst: Loc, bytes: usize },
}

/// The operands of a `scan` step.
pub(crate) struct ScanStep {
    pub body: usize,
    pub length: usize,
    pub reverse: bool,
    pub consts: Vec<Loc>,
    pub init: Vec<Loc>,
    /// Each xs buffer and the bytes of one slice.
    pub xs: Vec<(Loc, usize)>,
    pub carry_out: Vec<Loc>,
    pub spare: Vec<Loc>,
    /// Each stacked ys buffer and the bytes of one slice.
    pub ys: Vec<(Loc, usize)>,
    /// Bytes of each carry.
    pub bytes: Vec<usize>,
}

/// A step and the equation it comes from (for error messages).
pub(crate) struct StepAt {
    pub eqn: usize,
    pub prim: &'static str,
    pub step: Step,
}

/// The compiled form of one Func.
pub(crate) struct Program {
    pub name: String,
    /// Offset of this program's arena in the workspace.
    pub base: usize,
    /// Bytes of its arena.
    pub size: usize,
    pub steps: Vec<StepAt>,
    /// Where each result is, with its byte size.
    pub outs: Vec<(Loc, usize)>,
}

/// Everything a call needs: the programs (0 is the entry) and the kernels.
pub(crate) struct Plan {
    pub programs: Vec<Program>,
    pub kernels: Vec<Kernel>,
    /// Kernel dumps (CLIF and disassembly), in definition order.
    pub dumps: Vec<String>,
    /// The Func each kernel was compiled from, by kernel index (for the profile).
    pub kernel_names: Vec<String>,
    /// Bytes of one workspace (all programs' arenas).
    pub workspace_bytes: usize,
    /// Threads a large kernel launch is split across.
    pub threads: usize,
    /// Spill slots of the offload steps of all programs.
    pub spill_slots: usize,
    /// Tickets of the reduction buckets of all programs (`Step::ReduceStart`).
    pub tickets: usize,
    /// The native code of the kernels (dropped after them).
    pub _code: code::Code,
}

fn err(func: &str, eqn: Option<usize>, prim: Option<&str>, msg: impl Into<String>) -> Error {
    Error::eval(Place { func: func.to_string(), eqn, prim: prim.map(str::to_string) }, msg)
}

fn bytes(ty: &Type, func: &str) -> Result<usize, Error> {
    ty.byte_size()
        .ok()
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| err(func, None, None, format!("jit: a buffer of type {ty} is too large")))
}

/// A compiled kernel: native code behind the kernel ABI.
pub(crate) struct Kernel {
    f: KernelFn,
    /// Estimated work of one outer iteration.
    work_per_outer: f64,
    /// Partial results of a two-stage full reduction (`KernelInfo::partials`), 0 if none.
    partials: usize,
}

/// Buffer pointers handed to the threads of a split launch.
struct Bufs<'a>(&'a [*mut u8]);

// SAFETY: the threads of one launch write disjoint outer slices of the result buffers and
// only read the parameter buffers; the launching call waits for all of them.
unsafe impl Send for Bufs<'_> {}
unsafe impl Sync for Bufs<'_> {}

impl Bufs<'_> {
    fn ptr(&self) -> *const *mut u8 {
        self.0.as_ptr()
    }
}

/// Clears the upper halves of the AVX registers (`vzeroupper`) before a kernel runs.
///
/// Kernels are 128-bit code that Cranelift partly encodes as legacy SSE; after 256-bit
/// code that left the upper halves dirty (the GEMM library's micro-kernels), every such
/// instruction paid a state-merge penalty: a `tanh` kernel right after a GEMM ran 10x
/// slower than alone (measured on W1, 2.2 ms instead of 0.2 ms for 65,536 elements).
#[inline]
fn clear_upper_vector_state() {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: `vzeroupper` only zeroes bits 128 and up of the vector registers, which
        // no live Rust value keeps across this point (it is a call boundary), and is
        // available whenever AVX is.
        unsafe { std::arch::asm!("vzeroupper", options(nomem, nostack, preserves_flags)) };
    }
}

impl Kernel {
    /// Runs the kernel's outer loop `[0, outer)` on `bufs` (params, then results), split
    /// into slices run on the pool when the launch is large enough (`split`).
    ///
    /// # Safety
    /// `bufs` holds one valid buffer per parameter and result of the kernel, of their
    /// types; result buffers do not overlap parameter buffers.
    pub(crate) unsafe fn run(&self, bufs: &[*mut u8], outer: i64, threads: usize) {
        clear_upper_vector_state();
        if self.partials > 0 {
            // A chunked full reduction: the chunks (possibly split), then the combination.
            let mut scratch = [0u64; crate::kernel::MAX_PARTIALS];
            let mut all: SmallVec<[*mut u8; 16]> = SmallVec::from_slice(bufs);
            all.push(scratch.as_mut_ptr().cast());
            // SAFETY: by the caller's contract, plus the scratch buffer of partials; the
            // chunks' partials and S_in results are disjoint.
            unsafe {
                self.launch(&all, outer, threads);
                (self.f)(all.as_ptr(), -1, -1);
            }
            return;
        }
        // SAFETY: by the caller's contract.
        unsafe { self.launch(bufs, outer, threads) }
    }

    /// The outer loop `[0, outer)`, split across threads when large enough.
    ///
    /// # Safety
    /// As [`Kernel::run`], with the scratch buffer of a chunked kernel in `bufs`.
    unsafe fn launch(&self, bufs: &[*mut u8], outer: i64, threads: usize) {
        let Some((tasks, chunk)) = split::tasks(self.work_per_outer, outer, threads) else {
            // SAFETY: by the caller's contract; the kernel reads and writes only inside its
            // buffers (every index is clamped) and never unwinds.
            unsafe { (self.f)(bufs.as_ptr(), 0, outer) };
            return;
        };
        let (shared, f) = (Bufs(bufs), self.f);
        crate::pool::Pool::global().run(tasks, &|t| {
            let (start, end) = (t as i64 * chunk, ((t as i64 + 1) * chunk).min(outer));
            clear_upper_vector_state();
            // SAFETY: as above; the slices `[start, end)` of different tasks are disjoint.
            unsafe { f(shared.ptr(), start, end) };
        });
    }
}

/// Builds the programs of a fused module (entry first), compiling every kernel into one
/// JITModule finalized once.
/// With `overlap`, reductions over the workers start early and finish late
/// (`overlap.rs`).
pub(crate) fn build(
    fused: &Arc<Module>,
    options: &KernelOptions,
    threads: usize,
    overlap: bool,
) -> Result<Plan, Error> {
    let entry = fused.entry().ok_or_else(|| err("", None, None, "jit: the module has no Funcs"))?;
    let mut b = Builder {
        module: fused,
        ids: HashMap::new(),
        programs: Vec::new(),
        kernels: Vec::new(),
        dumps: Vec::new(),
        kernel_ids: HashMap::new(),
        code: code::Code::new()?,
        compiler: KernelCompiler::new(),
        options,
        spill_slots: 0,
        overlap,
        tickets: 0,
    };
    b.program(&entry.name)?;
    let mut base = 0;
    let mut programs: Vec<Program> = b
        .programs
        .into_iter()
        .map(|p| p.ok_or_else(|| err("", None, None, "jit: recursive Funcs")))
        .collect::<Result<_, _>>()?;
    for p in &mut programs {
        p.base = base;
        base += p.size;
    }
    let mut code = b.code;
    code.finalize()?;
    let jit = code.module().ok_or_else(|| err("", None, None, "jit: no code module"))?;
    let kernels = b
        .kernels
        .iter()
        // SAFETY: each id was defined with the kernel ABI's signature and is finalized.
        .map(|&(id, work_per_outer, partials)| Kernel {
            f: unsafe { std::mem::transmute::<*const u8, KernelFn>(jit.get_finalized_function(id)) },
            work_per_outer,
            partials,
        })
        .collect();
    let mut kernel_names = vec![String::new(); b.kernels.len()];
    for (name, &(k, _)) in &b.kernel_ids {
        if let Some(slot) = kernel_names.get_mut(k) {
            slot.clone_from(name);
        }
    }
    Ok(Plan {
        programs,
        kernels,
        dumps: b.dumps,
        kernel_names,
        workspace_bytes: base,
        threads,
        spill_slots: b.spill_slots,
        tickets: b.tickets,
        _code: code,
    })
}

struct Builder<'a> {
    module: &'a Arc<Module>,
    ids: HashMap<String, usize>,
    programs: Vec<Option<Program>>,
    kernels: Vec<(FuncId, f64, usize)>,
    kernel_ids: HashMap<String, (usize, i64)>,
    dumps: Vec<String>,
    code: code::Code,
    compiler: KernelCompiler,
    options: &'a KernelOptions,
    /// Spill slots handed out so far.
    spill_slots: usize,
    /// Overlap reductions with the rest of each program (`overlap.rs`).
    overlap: bool,
    /// Reduction tickets handed out so far.
    tickets: usize,
}

impl Builder<'_> {
    /// The program of Func `name`, built on first use.
    fn program(&mut self, name: &str) -> Result<usize, Error> {
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        let module = self.module.clone();
        let func = module.func(name).ok_or_else(|| err(name, None, None, format!("jit: no Func @{name}")))?;
        let id = self.programs.len();
        self.ids.insert(name.to_string(), id);
        self.programs.push(None);
        let program = self.lower(func)?;
        self.programs[id] = Some(program);
        Ok(id)
    }

    fn kernel(&mut self, name: &str) -> Result<(usize, i64), Error> {
        if let Some(&known) = self.kernel_ids.get(name) {
            return Ok(known);
        }
        let module = self.module.clone();
        let func = module.func(name).ok_or_else(|| err(name, None, None, format!("jit: no kernel @{name}")))?;
        let symbol = format!("ferrax_kernel_{}", self.kernels.len());
        let jit = self.code.module().ok_or_else(|| err(name, None, None, "jit: no code module"))?;
        let (id, info) = define_kernel(jit, &mut self.compiler, &module, func, &symbol, self.options)?;
        if let Some(d) = info.dump {
            self.dumps.push(format!("; kernel @{name}\n{d}"));
        }
        self.kernels.push((id, info.work_per_outer, info.partials));
        let known = (self.kernels.len() - 1, info.outer);
        self.kernel_ids.insert(name.to_string(), known);
        Ok(known)
    }

    /// The program of `func`: each equation in order becomes one step over buffers that
    /// [`Buffers`] places by liveness, so an arena byte is reused as soon as the value in
    /// it is dead.
    fn lower(&mut self, func: &Func) -> Result<Program, Error> {
        let mut plan = overlap::Overlap::new(func, self.overlap);
        let last = std::mem::take(&mut plan.last);
        let mut bufs = Buffers::new(func, &last);
        // The caller's result buffers are the entry's alone (they never alias its
        // arguments); a body's results may be its own loop carries. Started reductions
        // keep operands past their last read, which the lending does not follow.
        if self.ids.get(&func.name) == Some(&0) && plan.buckets.is_empty() {
            bufs.lend_results(self.module, &plan.order)?;
        }
        let mut steps = Vec::with_capacity(func.eqns.len());
        // Each bucket's ticket and parts (operand, result, bytes), filled by its members.
        let first_ticket = self.tickets;
        self.tickets += plan.buckets.len();
        let mut parts: Vec<Vec<(Loc, Loc, usize)>> = vec![Vec::new(); plan.buckets.len()];
        for pos in 0..=plan.order.len() {
            for &b in &plan.starts[pos] {
                steps.push(plan.start_step(func, b, first_ticket + b, std::mem::take(&mut parts[b]))?);
            }
            for &b in &plan.finishes[pos] {
                let eqn = plan.order[*plan.buckets[b].1.last().unwrap_or(&0)];
                let prim = func.eqns[eqn].prim.name();
                steps.push(StepAt { eqn, prim, step: Step::ReduceFinish { ticket: first_ticket + b } });
                for &v in &plan.pinned[b] {
                    bufs.release(v)?;
                }
            }
            let Some(&id) = plan.order.get(pos) else { break };
            let eqn = &func.eqns[id];
            let mut at = At { func, last: &last, i: pos, id, eqn, ins: Vec::new(), outs: Vec::new() };
            if let Some(b) = plan.member[pos] {
                // A started reduction: its buffers now, its step with its bucket's start.
                at.ins = bufs.inputs(&at)?;
                at.outs = bufs.place_outputs(&at, None)?;
                parts[b].push((at.ins[0], at.outs[0], at.out_bytes(0)?));
                bufs.release_dead(&at, None)?;
                continue;
            }
            if let Prim::Memory(op) = &eqn.prim {
                let step = self.memory_step(&mut bufs, &mut at, *op)?;
                steps.push(StepAt { eqn: id, prim: eqn.prim.name(), step });
                continue;
            }
            at.ins = bufs.inputs(&at)?;
            bufs.leave_unwritten(self.module, &at);
            let donated = bufs.donation(self.module, &at)?;
            at.outs = bufs.place_outputs(&at, donated)?;
            let mut scratch = Scratch { arena: &mut bufs.arena, taken: Vec::new() };
            let step = self.step(&at, &mut scratch)?;
            scratch.release();
            bufs.release_dead(&at, donated)?;
            steps.push(StepAt { eqn: id, prim: eqn.prim.name(), step });
        }
        let outs = bufs.results()?;
        let steps = pair::pair_gemms(steps);
        Ok(Program { name: func.name.clone(), base: 0, size: bufs.arena.top, steps, outs })
    }

    /// The step of one equation: fusion kernels, GEMMs and the loops and branches that
    /// run other programs have their own steps; every other primitive (what fuse leaves
    /// as a single equation) runs as an [`Opaque`] op.
    fn step(&mut self, at: &At, scratch: &mut Scratch) -> Result<Step, Error> {
        match &at.eqn.prim {
            Prim::Control(op) => self.control_step(at, op, scratch),
            // An operand without elements gives an empty or all-zero product, which the
            // interpreter's rule computes; the GEMM plan would list the index sets of the
            // other axes, which may be huge even though no element exists.
            Prim::Linalg(LinalgOp::DotGeneral(_))
                if (0..2).any(|k| at.in_ty(k).element_count().is_none_or(|n| n == 0)) =>
            {
                opaque_step(at, &at.eqn.prim)
            }
            Prim::Linalg(LinalgOp::DotGeneral(dims)) => gemm_step(at, dims, scratch),
            Prim::Linalg(
                LinalgOp::Cholesky
                | LinalgOp::TriangularSolve(_)
                | LinalgOp::Eigh(_)
                | LinalgOp::Lu
                | LinalgOp::Qr(_)
                | LinalgOp::Svd(_),
            )
            | Prim::Unary(_)
            | Prim::Name { .. }
            | Prim::Binary(_)
            | Prim::Compare(_)
            | Prim::Ternary(_)
            | Prim::Shape(_)
            | Prim::Index(_)
            | Prim::Reduction(_)
            | Prim::Random(_)
            | Prim::Sort(_)
            | Prim::Conv(_)
            | Prim::Window(_) => opaque_step(at, &at.eqn.prim),
            Prim::Memory(_) => Err(at.fail("jit: offload and reload have steps of their own".into())),
            Prim::Collective(op) => {
                let ins: Vec<Type> = (0..at.ins.len()).map(|k| at.in_ty(k)).collect();
                let step = crate::comm::Collective::new(op, &ins, &[at.out_ty(0)]).map_err(|m| at.fail(m))?;
                Ok(Step::Collective { op: Box::new(step), ins: at.ins.clone(), out: at.outs[0] })
            }
        }
    }

    /// The step of `offload` or `reload`. An offloaded value that only `reload`s of this
    /// Func read (and that is not a result) lives in the spill file: its `offload` writes
    /// it there and frees its buffer where it dies, and each `reload` reads it back into
    /// a new buffer. Any other `offload`, and a `reload` of a value in memory, is a copy
    /// (both are the identity on values).
    fn memory_step(&mut self, bufs: &mut Buffers, at: &mut At, op: MemoryOp) -> Result<Step, Error> {
        let ([x], [out]) = (&at.eqn.inputs[..], &at.eqn.outputs[..]) else {
            return Err(at.fail(format!("jit: {} expects one operand and one result", op.name())));
        };
        let size = at.out_bytes(0)?;
        match (op, bufs.spilled[x.index()]) {
            (MemoryOp::Offload, _) if bufs.reload_only[out.index()] => {
                at.ins = bufs.inputs(at)?;
                let slot = self.spill_slots;
                self.spill_slots += 1;
                bufs.spilled[out.index()] = Some(slot);
                bufs.release_dead(at, None)?;
                Ok(Step::Offload { src: at.ins[0], slot, bytes: size })
            }
            (MemoryOp::Reload, Some(slot)) => {
                at.outs = bufs.place_outputs(at, None)?;
                bufs.release_dead(at, None)?;
                Ok(Step::Reload { slot, dst: at.outs[0], bytes: size })
            }
            (MemoryOp::Offload | MemoryOp::Reload, _) => {
                at.ins = bufs.inputs(at)?;
                at.outs = bufs.place_outputs(at, None)?;
                bufs.release_dead(at, None)?;
                Ok(Step::Copy { src: at.ins[0], dst: at.outs[0], bytes: size })
            }
        }
    }

    /// The step of a structured primitive: kernel calls, branches and loops run programs;
    /// custom rules, implicit solves and remat regions (fuse turns them into calls before
    /// this point) run
    /// as [`Opaque`] ops like any other primitive.
    fn control_step(&mut self, at: &At, op: &ControlOp, scratch: &mut Scratch) -> Result<Step, Error> {
        match op {
            ControlOp::Call { func: callee } => self.call_step(at, callee),
            ControlOp::Cond { branches } => self.cond_step(at, branches),
            ControlOp::While { cond, body, max_iters } => self.while_step(at, cond, body, *max_iters, scratch),
            ControlOp::Scan(s) => self.scan_step(at, s, scratch),
            // The custom rules and remat regions: fusion replaces each by a call of the
            // Func that computes its value (`ControlOp::primal`, which every structured
            // op answers); one met unfused runs as an opaque step (the interpreter).
            other => match other.primal() {
                Some(_) => opaque_step(at, &at.eqn.prim),
                None => Err(at.fail(format!("{} has no lowering", other.name()))),
            },
        }
    }

    /// A launch of the fusion kernel `callee`; any other callee is an error, since fuse
    /// inlines every call that is not a kernel.
    fn call_step(&mut self, at: &At, callee: &str) -> Result<Step, Error> {
        let is_kernel = module_func(self.module, callee)
            .is_some_and(|f| matches!(f.attr("kind"), Some(ferrax_ir::AttrValue::Str(s)) if s == "fusion"));
        if !is_kernel {
            return Err(
                at.fail(format!("jit: @{callee} is called but is not a [kind=\"fusion\"] kernel (fuse inlines calls)"))
            );
        }
        let (kernel, outer) = self.kernel(callee)?;
        let mut bufs = at.ins.clone();
        bufs.extend(&at.outs);
        Ok(Step::Kernel { kernel, bufs, outer })
    }

    /// A `cond`: each branch is its own program.
    fn cond_step(&mut self, at: &At, branches: &[String]) -> Result<Step, Error> {
        let ids = branches.iter().map(|b| self.program(b)).collect::<Result<_, _>>()?;
        Ok(Step::Cond {
            index: at.ins[0],
            is_bool: at.in_ty(0).dtype == ferrax_ir::DType::Bool,
            branches: ids,
            ins: at.ins[1..].to_vec(),
            outs: at.outs.clone(),
        })
    }

    /// A `while`: the carries alternate between the results and spare scratch buffers,
    /// and the condition writes a one-byte flag.
    fn while_step(
        &mut self,
        at: &At,
        cond: &str,
        body: &str,
        max_iters: Option<usize>,
        scratch: &mut Scratch,
    ) -> Result<Step, Error> {
        let through = through_carries(self.module, body, at.outs.len());
        // Programs never write their parameters' buffers, so the loop can read such a
        // carry where its initial value already is: a solver's 8 MB matrix is then not
        // copied in, nor out when nothing reads the loop's copy of it.
        let used = at.eqn.outputs.iter().map(|o| at.last[o.index()] != LastUse::Unused).collect();
        let (cond, body) = (self.program(cond)?, self.program(body)?);
        let sizes: Vec<usize> = (0..at.outs.len()).map(|k| at.out_bytes(k)).collect::<Result<_, _>>()?;
        let spare = sizes.iter().zip(&through).map(|(&b, &t)| scratch.take(if t { 0 } else { b })).collect();
        let flag = scratch.take(1);
        Ok(Step::While {
            cond,
            body,
            max_iters,
            init: at.ins.clone(),
            outs: at.outs.clone(),
            spare,
            through,
            used,
            flag,
            bytes: sizes,
        })
    }

    /// A `scan`: the carries alternate like a `while`'s, and each iteration addresses its
    /// slice of `xs` and `ys` in place by its byte size.
    fn scan_step(&mut self, at: &At, s: &ScanParams, scratch: &mut Scratch) -> Result<Step, Error> {
        let body = self.program(&s.body)?;
        let fixed = s.num_consts + s.num_carry;
        let sizes: Vec<usize> = at.eqn.outputs[..s.num_carry]
            .iter()
            .map(|o| bytes(at.func.ty(*o), &at.func.name))
            .collect::<Result<_, _>>()?;
        let spare = sizes.iter().map(|&b| scratch.take(b)).collect();
        let fname = at.func.name.as_str();
        let slice = |ty: &Type| bytes(ty, fname).map(|b| b.checked_div(s.length).unwrap_or(0));
        let xs = (fixed..at.ins.len()).map(|k| Ok((at.ins[k], slice(&at.in_ty(k))?))).collect::<Result<_, Error>>()?;
        let ys = (s.num_carry..at.outs.len())
            .map(|k| Ok((at.outs[k], slice(&at.out_ty(k))?)))
            .collect::<Result<_, Error>>()?;
        Ok(Step::Scan(Box::new(ScanStep {
            body,
            length: s.length,
            reverse: s.reverse,
            consts: at.ins[..s.num_consts].to_vec(),
            init: at.ins[s.num_consts..fixed].to_vec(),
            xs,
            carry_out: at.outs[..s.num_carry].to_vec(),
            spare,
            ys,
            bytes: sizes,
        })))
    }
}

/// A `dot_general` by the GEMM library, with scratch for the operand copies it needs.
fn gemm_step(at: &At, dims: &DotDims, scratch: &mut Scratch) -> Result<Step, Error> {
    let gemm = Gemm::new(dims, &at.in_ty(0), &at.in_ty(1), &at.out_ty(0)).map_err(|m| at.fail(m))?;
    let bytes = [
        bytes(&at.in_ty(0), &at.func.name)?,
        bytes(&at.in_ty(1), &at.func.name)?,
        at.out_bytes(0)?,
        gemm.scratch_bytes(),
    ];
    let scratch = scratch.take(bytes[3]);
    let (lhs, rhs, out) = (at.ins[0], at.ins[1], at.outs[0]);
    Ok(Step::Gemm(Box::new(pair::GemmCall { gemm, lhs, rhs, out, scratch, bytes })))
}

/// Any primitive without a step of its own, run natively or by the interpreter.
fn opaque_step(at: &At, prim: &Prim) -> Result<Step, Error> {
    let ins_ty: Vec<Type> = (0..at.ins.len()).map(|k| at.in_ty(k)).collect();
    let outs_ty: Vec<Type> = (0..at.outs.len()).map(|k| at.out_ty(k)).collect();
    let op = Opaque::new(prim, ins_ty, outs_ty).map_err(|m| at.fail(m))?;
    Ok(Step::Opaque { op: Box::new(op), ins: at.ins.clone(), outs: at.outs.clone() })
}

/// One equation being lowered: where it is (for errors) and the buffers of its operands
/// and results.
struct At<'f> {
    func: &'f Func,
    /// When each value of `func` is last read, by position in the running order.
    last: &'f [LastUse],
    /// The equation's position in the running order (`overlap.rs`).
    i: usize,
    /// The equation's index in `func`, for errors.
    id: usize,
    eqn: &'f Eqn,
    ins: Vec<Loc>,
    outs: Vec<Loc>,
}

impl At<'_> {
    /// An error at this equation.
    fn fail(&self, msg: String) -> Error {
        err(&self.func.name, Some(self.id), Some(self.eqn.prim.name()), msg)
    }

    /// The type of operand `k`.
    fn in_ty(&self, k: usize) -> Type {
        self.func.ty(self.eqn.inputs[k]).clone()
    }

    /// The type of result `k`.
    fn out_ty(&self, k: usize) -> Type {
        self.func.ty(self.eqn.outputs[k]).clone()
    }

    /// The byte size of result `k`.
    fn out_bytes(&self, k: usize) -> Result<usize, Error> {
        bytes(self.func.ty(self.eqn.outputs[k]), &self.func.name)
    }
}

/// Arena space one step holds only while it runs (GEMM operand copies, the spare
/// carries and flag of a loop), released once the step is placed so that the next
/// equations reuse it.
struct Scratch<'a> {
    arena: &'a mut Arena,
    taken: Vec<(usize, usize)>,
}

impl Scratch<'_> {
    /// A scratch buffer of `bytes` bytes.
    fn take(&mut self, bytes: usize) -> Loc {
        let off = self.arena.alloc(bytes);
        self.taken.push((off, bytes));
        Loc::Arena(off)
    }

    /// Gives every scratch buffer back to the arena, in the order taken.
    fn release(self) {
        for (off, b) in self.taken {
            self.arena.release(off, b);
        }
    }
}
