//! The public API: [`compile`] a module into an [`Executable`], call it on arrays
//! ([`Executable::call`]) or on typed slices ([`Executable::call_raw`], no copies of
//! arguments or results), and a bounded [`JitCache`] of executables.
//!
//! An `Executable` is `Send + Sync`: a call takes a workspace (the memory of every
//! buffer its programs need) from a mutex-protected pool and puts it back after, so
//! concurrent calls never share buffers.

use crate::exec::{self, Plan, buf};
use crate::kernel::KernelOptions;
use ferrax_array::Budget;
use ferrax_ir::{Array, DType, Error, EvalOptions, Module, Place, Type, format_types};
use std::sync::{Arc, Mutex};

/// Options of [`compile`].
#[derive(Clone, Debug)]
pub struct JitOptions {
    /// Emit fused multiply-adds where the host has them (default true).
    pub fma: bool,
    /// Bound on the bytes of a call's workspace plus its arguments and results;
    /// `None` for the default budget (the least of half of physical memory and the
    /// process's memory limits).
    pub max_bytes: Option<u64>,
    /// Threads a large kernel launch or GEMM may be split across (default: the cores
    /// this process may use, `std::thread::available_parallelism()`, at most 16; 1 on a
    /// single-core host). A kernel launch is split only above `exec::split::SPLIT_WORK`
    /// of estimated work (about 0.2–1 ms on one core) and a GEMM only above
    /// `b·m·n·k = 2^21` (a 128³ product); the work runs on the JIT's own pool of spinning,
    /// then parked, workers, and the calling thread takes every task no worker has started,
    /// so a busy host costs little more than one thread. Elementwise and reduction kernels
    /// give bit-identical results whatever the split (a reduced outer axis is never split);
    /// a split GEMM computes blocks of the result by separate faer calls over the full
    /// contraction, equal to one thread within the policy's GEMM tolerance.
    pub threads: usize,
    /// Keep the CLIF and disassembly of each kernel for [`Executable::dump`].
    pub dump: bool,
    /// The most loop iterations (`while` and `scan` steps) a call may take.
    pub fuel: Option<u64>,
    /// Transcendentals by the interpreter's own functions, one call per element
    /// (bit-identical to it) instead of the vectorised polynomial kernels (default false).
    pub precise_math: bool,
    /// Where `offload` writes a call's spill file (created if missing; the file is
    /// removed when the call returns). `None`: `$FERRAX_SPILL_DIR`, else the system's
    /// temporary directory.
    pub spill_dir: Option<std::path::PathBuf>,
    /// Start each reduction over the workers (`psum`, `pmean`, `pmax`, `pmin` of one
    /// axis) as soon as its operand is computed, gathered into buckets of about 1 MiB,
    /// and wait for it only where its result is first read, so that a data-parallel
    /// step's gradient all-reduce overlaps the rest of its backward pass (default
    /// true). Off, every collective runs where the program has it, waiting for the
    /// other workers. The results are the same bits either way.
    pub overlap_collectives: bool,
    /// Time every step of every call, for [`Executable::profile`] (default: whether the
    /// environment variable `FERRAX_PROFILE` is set to anything but `0`; set, a dropped
    /// executable also prints its table to stderr). Off, a call pays one branch per
    /// step; on, two clock reads.
    pub profile: bool,
}

impl Default for JitOptions {
    fn default() -> JitOptions {
        JitOptions {
            fma: true,
            max_bytes: None,
            threads: crate::pool::cores().min(crate::pool::MAX_WORKERS + 1),
            dump: false,
            fuel: None,
            precise_math: false,
            spill_dir: None,
            overlap_collectives: true,
            profile: exec::profile::from_env(),
        }
    }
}

/// A compiled module: call it with [`Executable::call`] or [`Executable::call_raw`].
pub struct Executable {
    plan: Plan,
    entry: String,
    params: Vec<Type>,
    results: Vec<Type>,
    budget: Budget,
    fuel: Option<u64>,
    spill_dir: Option<std::path::PathBuf>,
    pool: Mutex<Vec<buf::Workspace>>,
    /// Per-step times, when profiling.
    profile: Option<exec::profile::Profile>,
}

/// A borrowed argument of [`Executable::call_raw`]: the elements in C order.
#[derive(Clone, Copy, Debug)]
pub enum ArgRef<'a> {
    /// f32 elements.
    F32(&'a [f32]),
    /// f64 elements.
    F64(&'a [f64]),
    /// i32 elements.
    I32(&'a [i32]),
    /// bool elements.
    Bool(&'a [bool]),
    /// bf16 elements.
    BF16(&'a [ferrax_ir::array::bf16]),
    /// f16 elements.
    F16(&'a [ferrax_ir::array::f16]),
}

/// A borrowed result buffer of [`Executable::call_raw`].
#[derive(Debug)]
pub enum OutRef<'a> {
    /// f32 elements.
    F32(&'a mut [f32]),
    /// f64 elements.
    F64(&'a mut [f64]),
    /// i32 elements.
    I32(&'a mut [i32]),
    /// bool elements.
    Bool(&'a mut [bool]),
    /// bf16 elements.
    BF16(&'a mut [ferrax_ir::array::bf16]),
    /// f16 elements.
    F16(&'a mut [ferrax_ir::array::f16]),
}

impl ArgRef<'_> {
    fn parts(&self) -> (DType, usize, *mut u8) {
        match self {
            ArgRef::F32(s) => (DType::F32, s.len(), s.as_ptr() as *mut u8),
            ArgRef::F64(s) => (DType::F64, s.len(), s.as_ptr() as *mut u8),
            ArgRef::I32(s) => (DType::I32, s.len(), s.as_ptr() as *mut u8),
            ArgRef::Bool(s) => (DType::Bool, s.len(), s.as_ptr() as *mut u8),
            ArgRef::BF16(s) => (DType::BF16, s.len(), s.as_ptr() as *mut u8),
            ArgRef::F16(s) => (DType::F16, s.len(), s.as_ptr() as *mut u8),
        }
    }
}

impl OutRef<'_> {
    fn parts(&mut self) -> (DType, usize, *mut u8) {
        match self {
            OutRef::F32(s) => (DType::F32, s.len(), s.as_mut_ptr() as *mut u8),
            OutRef::F64(s) => (DType::F64, s.len(), s.as_mut_ptr() as *mut u8),
            OutRef::I32(s) => (DType::I32, s.len(), s.as_mut_ptr() as *mut u8),
            OutRef::Bool(s) => (DType::Bool, s.len(), s.as_mut_ptr() as *mut u8),
            OutRef::BF16(s) => (DType::BF16, s.len(), s.as_mut_ptr() as *mut u8),
            OutRef::F16(s) => (DType::F16, s.len(), s.as_mut_ptr() as *mut u8),
        }
    }
}

fn entry_err(entry: &str, msg: impl Into<String>) -> Error {
    Error::eval(Place { func: entry.to_string(), eqn: None, prim: None }, msg)
}

/// Compiles the entry of `module` (and everything it reaches) for its declared input
/// types: verify, `ferrax_transform::opt`, fuse, then a program per Func and its
/// kernels. No data is needed (ahead of time).
pub fn compile(module: &Module, options: &JitOptions) -> Result<Executable, Error> {
    ferrax_ir::verify(module)?;
    buf::tune_malloc();
    let entry = module.entry().ok_or_else(|| entry_err("", "jit: the module has no Funcs"))?;
    let (name, params, results) = (entry.name.clone(), entry.param_types(), entry.result_types.clone());
    let optimized = ferrax_transform::opt(&crate::legalize::half_to_f32(module))?;
    // Identical kernels (one per layer of a deep network) become one, compiled once.
    let fused = Arc::new(ferrax_transform::merge_identical_funcs(&ferrax_fuse::fuse(&optimized)?));
    let kernel_options = KernelOptions {
        fma: options.fma,
        simd: true,
        dump: options.dump,
        precise_math: options.precise_math,
        tiles: true,
    };
    let plan = exec::build(&fused, &kernel_options, options.threads, options.overlap_collectives)?;
    let budget = options.max_bytes.map_or_else(Budget::default, Budget::new);
    let profile = options.profile.then(|| exec::profile::Profile::new(&plan));
    Ok(Executable {
        plan,
        entry: name,
        params,
        results,
        budget,
        fuel: options.fuel,
        spill_dir: options.spill_dir.clone(),
        pool: Mutex::new(Vec::new()),
        profile,
    })
}

/// Compiles the Func `name` of `module` as the entry (the other Funcs stay available
/// to it); see [`compile`].
pub fn compile_func(module: &Module, name: &str, options: &JitOptions) -> Result<Executable, Error> {
    let func = module.func(name).ok_or_else(|| entry_err(name, format!("jit: no Func @{name}")))?;
    let mut reordered = Module::new();
    reordered.push(func.clone());
    for f in module.funcs.values().filter(|f| f.name != name) {
        reordered.push(f.clone());
    }
    compile(&reordered, options)
}

#[cfg(test)]
impl Executable {
    /// The compiled plan, for tests of the executor's steps.
    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }
}

impl Executable {
    /// The entry's parameter types.
    pub fn param_types(&self) -> &[Type] {
        &self.params
    }

    /// The entry's result types.
    pub fn result_types(&self) -> &[Type] {
        &self.results
    }

    /// Bytes of one call's workspace (every intermediate buffer, after reuse).
    pub fn workspace_bytes(&self) -> usize {
        self.plan.workspace_bytes
    }

    /// The CLIF text and disassembly of each kernel (compiled with `dump`), else empty.
    pub fn dump(&self) -> String {
        self.plan.dumps.concat()
    }

    /// The per-step time table of the calls so far (compiled with `profile`), else
    /// `None`: one row per step that ran, longest first, with its time per call, its
    /// share of the call, the Func and equation it comes from, and what it does (the
    /// fused kernel's Func, the GEMM's shape).
    pub fn profile(&self) -> Option<String> {
        self.profile.as_ref().map(|p| p.report(&self.plan, &self.entry))
    }

    /// Calls the entry on `args`, checking each argument's dtype and shape.
    pub fn call(&self, args: &[Array]) -> Result<Vec<Array>, Error> {
        self.call_refs(&args.iter().collect::<Vec<&Array>>())
    }

    /// [`Executable::call`] as one worker of `comm`: the collectives of the program
    /// (over the axis the workers form) exchange data with the other workers, which
    /// call the same executable at the same time.
    pub fn call_with(&self, args: &[Array], comm: &dyn crate::comm::Communicator) -> Result<Vec<Array>, Error> {
        self.call_refs_on(&args.iter().collect::<Vec<&Array>>(), Some(comm))
    }

    /// [`Executable::call`] on borrowed arrays (no argument is copied), for callers that
    /// gather their arguments from several places.
    pub fn call_refs(&self, args: &[&Array]) -> Result<Vec<Array>, Error> {
        self.call_refs_on(args, None)
    }

    /// [`Executable::call_with`] on borrowed arrays.
    pub fn call_refs_with(&self, args: &[&Array], comm: &dyn crate::comm::Communicator) -> Result<Vec<Array>, Error> {
        self.call_refs_on(args, Some(comm))
    }

    fn call_refs_on(&self, args: &[&Array], comm: Option<&dyn crate::comm::Communicator>) -> Result<Vec<Array>, Error> {
        self.check_arity(args.len())?;
        for (i, (a, t)) in args.iter().zip(&self.params).enumerate() {
            if a.dtype() != t.dtype || a.shape() != t.shape.as_slice() {
                return Err(entry_err(
                    &self.entry,
                    format!(
                        "argument {i} of @{}: expected {t}, got {}[{}]",
                        self.entry,
                        a.dtype(),
                        ferrax_array::format_dims(a.shape())
                    ),
                ));
            }
        }
        self.check_budget()?;
        let ins: Vec<*mut u8> = args.iter().map(|a| buf::array_ptr(a)).collect();
        let mut datas = Vec::with_capacity(self.results.len());
        let mut counts = Vec::with_capacity(self.results.len());
        for t in &self.results {
            let n =
                t.element_count().ok_or_else(|| entry_err(&self.entry, format!("jit: result type {t} too large")))?;
            datas.push(buf::data_with_capacity(t.dtype, n));
            counts.push(n);
        }
        // Not zeroed: a successful run writes every element of every result.
        let outs: Vec<*mut u8> = datas.iter_mut().map(buf::spare_ptr).collect();
        // SAFETY: argument and result buffers match the entry's types (checked above).
        unsafe { self.run(&ins, &outs, comm)? };
        datas
            .into_iter()
            .zip(&self.results)
            .zip(counts)
            .map(|((mut d, t), n)| {
                // SAFETY: the run succeeded, so it wrote all `n` elements of this result.
                unsafe { buf::assume_written(&mut d, n) };
                Array::new(t.shape.clone(), d).map_err(|e| entry_err(&self.entry, e.to_string()))
            })
            .collect()
    }

    /// Calls the entry on borrowed slices, writing the results into `outs`: no copies
    /// of arguments or results. Dtypes and element counts are checked.
    pub fn call_raw(&self, args: &[ArgRef<'_>], outs: &mut [OutRef<'_>]) -> Result<(), Error> {
        self.check_arity(args.len())?;
        let mut ins = Vec::with_capacity(args.len());
        for (i, (a, t)) in args.iter().zip(&self.params).enumerate() {
            let (dtype, len, p) = a.parts();
            if dtype != t.dtype || Some(len) != t.element_count() {
                return Err(entry_err(
                    &self.entry,
                    format!("argument {i} of @{}: expected {t}, got {len} {dtype} elements", self.entry),
                ));
            }
            ins.push(p);
        }
        if outs.len() != self.results.len() {
            return Err(entry_err(
                &self.entry,
                format!(
                    "@{} returns {} results but {} output buffers were given",
                    self.entry,
                    self.results.len(),
                    outs.len()
                ),
            ));
        }
        let mut out_ptrs = Vec::with_capacity(outs.len());
        for (i, (o, t)) in outs.iter_mut().zip(&self.results).enumerate() {
            let (dtype, len, p) = o.parts();
            if dtype != t.dtype || Some(len) != t.element_count() {
                return Err(entry_err(
                    &self.entry,
                    format!("result {i} of @{}: expected {t}, got a buffer of {len} {dtype} elements", self.entry),
                ));
            }
            out_ptrs.push(p);
        }
        self.check_budget()?;
        // SAFETY: checked above; `&mut` output slices cannot overlap the shared arguments.
        unsafe { self.run(&ins, &out_ptrs, None) }
    }

    /// Checks the call's memory (arguments, results and workspace) against the budget,
    /// before anything is allocated.
    fn check_budget(&self) -> Result<(), Error> {
        let io: u64 = self
            .params
            .iter()
            .chain(&self.results)
            .map(|t| t.byte_size().unwrap_or(u64::MAX))
            .fold(0, u64::saturating_add);
        self.budget
            .check(io, self.plan.workspace_bytes as u64, &format!("the workspace of @{}", self.entry))
            .map_err(|e| entry_err(&self.entry, format!("jit: {e}")))
    }

    fn check_arity(&self, n: usize) -> Result<(), Error> {
        if n != self.params.len() {
            return Err(entry_err(
                &self.entry,
                format!(
                    "@{} takes {} arguments {} but got {n}",
                    self.entry,
                    self.params.len(),
                    format_types(&self.params)
                ),
            ));
        }
        Ok(())
    }

    /// Runs the entry program on one workspace from the pool.
    unsafe fn run(
        &self,
        ins: &[*mut u8],
        outs: &[*mut u8],
        comm: Option<&dyn crate::comm::Communicator>,
    ) -> Result<(), Error> {
        // One call in flight per communicator: the second queues here.
        let _call = comm.and_then(|c| c.lock_call());
        let pooled = self.pool.lock().map_err(|_| entry_err(&self.entry, "jit: poisoned workspace pool"))?.pop();
        let mut ws = pooled.unwrap_or_else(|| buf::Workspace::new(self.plan.workspace_bytes));
        let mut run = exec::run::Run {
            plan: &self.plan,
            ws: ws.as_mut_ptr(),
            fuel: self.fuel,
            active: vec![false; self.plan.programs.len()],
            options: EvalOptions { budget: self.budget, fuel: None, spill_dir: self.spill_dir.clone() },
            spill: None,
            spilled: vec![None; self.plan.spill_slots],
            comm,
            tickets: (0..self.plan.tickets).map(|_| None).collect(),
            in_flight: 0,
            profile: self.profile.as_ref(),
        };
        if let Some(profile) = &self.profile {
            profile.call();
        }
        // SAFETY: by the caller's contract; the workspace is ours alone during the call.
        let result = unsafe { run.program(0, ins, outs) };
        if let Err(e) = &result {
            // The other workers may still write this call's results and workspace.
            run.abandon(&e.to_string());
        }
        if let Ok(mut pool) = self.pool.lock() {
            pool.push(ws);
        }
        result
    }
}

impl Drop for Executable {
    /// Prints the profile to stderr when `FERRAX_PROFILE` asked for it and a call ran.
    fn drop(&mut self) {
        if let Some(profile) = &self.profile
            && profile.calls() > 0
            && exec::profile::from_env()
        {
            eprint!("{}", profile.report(&self.plan, &self.entry));
        }
    }
}

// SAFETY: an Executable holds no interior state shared across calls except the
// mutex-protected workspace pool; kernels and plans are read-only after compile.
unsafe impl Send for Executable {}
// SAFETY: as above.
unsafe impl Sync for Executable {}
