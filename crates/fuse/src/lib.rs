//! The fusion pass: rewrites a module into the execution schedule the JIT builds.
//!
//! [`fuse`] partitions every scheduled Func (the entry, and the branches and bodies of
//! its control flow) into *kernels*, Funcs marked `[kind="fusion"]` called with `call`,
//! and fixes their order. `ferrax fuse f.fx` prints the result, which still parses,
//! verifies and runs on the interpreter with the same results, bit for bit.
//!
//! # The contract (shared with the JIT)
//!
//! - Before partitioning, `custom_jvp`, `custom_vjp` and `remat` become `call` of their
//!   primal Func (the annotations mean nothing for evaluation), every `call` is inlined
//!   and dead equations are dropped.
//! - The fused entry keeps its name. Each of its equations, in execution order, is one
//!   *launch*: a `call[func=@<entry>_k<i>]` of a kernel; a `dot_general` (a GEMM library
//!   call); a `cond`/`while`/`scan` whose branch/body Funcs are fused the same way
//!   (their kernels are named `@<body>_k<i>`); or an opaque primitive left alone
//!   (`scatter_add`, `dynamic_update_slice`, `cumsum`, `random_bits`).
//! - A kernel holds only kernel-able primitives ([`is_kernel_prim`]): elementwise ops,
//!   `constant`, `iota`, views (`broadcast_in_dim`, `reshape`, `transpose`, `rev`,
//!   `slice`, `pad`, `concatenate`, `dynamic_slice`, `gather`) and reductions.
//! - Shape rule: a kernel holds at most one reduction. Without one, every result has
//!   the same shape (the loop shape) and every value is computed at an index derived
//!   from the loop index through the views. With one (input shape S_in, output S_out),
//!   every result has shape S_out or S_in; S_in results do not depend on the reduction
//!   (they are written during the reduction loop); values depending on the reduction
//!   (the epilogue) are elementwise on S_out.
//! - Parameters are C-order buffers of any shape; results go to buffers of their own
//!   (the JIT writes a Func's results straight into the caller's).
//!
//! [`check_schedule`] checks a module against this contract.
//!
//! # Fusion rules
//!
//! Equations are classified (`classify`) as elementwise (cheap, or *expensive*: `exp`,
//! `log`, `log1p`, `expm1`, `tanh`, `logistic`, `sin`, `cos`, `tan`, `erf`, `sqrt`,
//! `rsqrt`, `div`, `rem`, `pow`, `atan2`), sources (`constant`, `iota`), views,
//! reductions and launches. Groups grow consumer-first: equations are visited in
//! reverse order, an unplaced one that is still needed roots a group, and the group
//! considers its producers from the highest index down:
//!
//! 1. **Chains.** An elementwise or view producer all of whose readers are in the group
//!    joins it (elementwise chains, broadcasts, and shape-changing views become index
//!    arithmetic inside the kernel, never copies).
//! 2. **Sources** (`constant`, `iota`) are copied into every kernel that reads them.
//! 3. **Cheap producers read elsewhere** are copied into the group (recomputed) when
//!    only kernels read them (a copy saves nothing if a launch or a Func result needs
//!    the buffer anyway) and the value does not feed a max/min reduction within a few
//!    cheap steps; a cheap elementwise equation goes into at most [`MAX_COPIES`]
//!    kernels and a kernel holds at most [`MAX_COPIES_PER_KERNEL`] such copies, while
//!    a view (index arithmetic over a buffer, no arithmetic) may be copied freely, and
//!    so may an *index constant*: integers or bools computed from sources alone through
//!    cheap ops and views (a causal mask `le(iota, iota)` broadcast over the batch),
//!    exact in every copy, so neither the copy budget nor the max/min rule below
//!    applies to it. A kernel then never loads such a mask as bytes.
//! 4. **Reductions.** One reduction per kernel. A reduction joins a group whose members
//!    depending on it are all elementwise (a cheap or expensive epilogue on the reduced
//!    shape, such as `sum / n` or `rsqrt(var + eps)`); its producers then fuse into its
//!    loop by rules 1–3.
//! 5. **Multi-output.** A producer also read elsewhere (and not copied by rule 3)
//!    joins the group as an extra result, computed once, when it is computed at the
//!    loop index: in a kernel with a reduction, it has the reduction's input shape and
//!    reaches the reduction through elementwise ops only (written out during the
//!    reduction loop); in a kernel without one, it has the loop shape and reaches the
//!    root through elementwise ops only.
//! 6. **Size caps.** A kernel holds at most [`MAX_KERNEL_EQNS`] equations (sources not
//!    counted) and [`MAX_KERNEL_PARAMS`] buffer parameters (Cranelift's compile time grows
//!    faster than linearly with a function's size, and registers run out); a producer that would exceed them roots its own
//!    kernel.
//! 7. **Static update slices.** A `dynamic_update_slice` at constant start indices (how
//!    reverse mode writes a slice's cotangent) is rewritten, exactly, into
//!    `select(mask, pad(update, 0), x)` before partitioning, so it fuses (see `lower`);
//!    one at run-time indices stays an opaque launch.
//! 8. **Reshapes sink** below elementwise ops that read only reshapes of one shape
//!    (exact; see `lower`), so an epilogue read through a unit-axis reshape
//!    (`log(reshape(sum))`) stays elementwise on the reduced shape and fuses.
//! 9. **Consecutive kernels of one loop shape merge** (after scheduling, `merge`): two
//!    kernels launched one after the other, the first without a reduction, the second
//!    with at most one over the first's shape, where the second reads the first's results
//!    only at the loop index (in elementwise equations, or as its reduction's input),
//!    become one kernel within the size caps; results of the first that only
//!    the second read are no longer written (a producer shared by two gradients is kept
//!    in registers instead of a round trip through memory), and a producer both had
//!    copied (rule 3) is computed once in the merged loop (`ferrax_transform::cse_func`).
//!
//! And the fusions deliberately not made:
//!
//! - **No duplicated expensive work.** An expensive producer read elsewhere is never
//!   copied, and it joins a group only when it is evaluated once per element there:
//!   never read through an expanding `broadcast_in_dim` or a `gather`, never through
//!   two different index paths, never both in a reduction's loop and in its epilogue.
//! - **Softmax's shared value is not recomputed.** A value feeding a max/min reduction
//!   is never copied: `x` of `max(x)` and `exp(x - max)` is computed once (the copies
//!   could round differently once a backend contracts to FMA, turning `x - max` into
//!   a tiny positive number and `exp` into inf).
//! - **`dot_general` is a launch**, never inside a kernel: its operands are
//!   materialised buffers and its epilogue (bias, activation) is the next kernel. A
//!   `transpose` of an operand folds into the dimension numbers, and a `transpose` of a
//!   result that swaps the lhs-free and rhs-free groups swaps the operands (both exact;
//!   see `prepare`; a transpose first moves above single-use converts, which is where
//!   a 16-bit program rounds the product), so no copy kernel is made for them.
//! - **No cycles.** A join that would make two kernels depend on each other is refused.
//!
//! # The schedule
//!
//! Kernels and launches are ordered depth-first from the Func's results, producers in
//! operand order: one branch of the graph is finished before the next starts (a lower
//! peak of live buffers). Kernels are numbered in that order.

mod classify;
mod contract;
mod merge;
mod partition;
mod prepare;
mod schedule;

pub use classify::{is_elementwise, is_kernel_prim};
pub use contract::{check_kernel, check_schedule, is_kernel};
pub use partition::{MAX_COPIES, MAX_COPIES_PER_KERNEL, MAX_KERNEL_EQNS, MAX_KERNEL_PARAMS};

use ferrax_ir::{Error, Module, Place};

/// The module rewritten into kernels and a schedule (crate docs); verified.
pub fn fuse(module: &Module) -> Result<Module, Error> {
    fuse_counting(module).map(|(fused, _)| fused)
}

/// The work of the partitioner while fusing `module`: candidates judged, plus the
/// nodes and edges the cycle checks visit, summed over every fused Func. It grows with
/// the program, linearly when the planner is linear, so tests can bound the planner's
/// cost without timing it.
pub fn planner_work(module: &Module) -> Result<usize, Error> {
    fuse_counting(module).map(|(_, work)| work)
}

fn fuse_counting(module: &Module) -> Result<(Module, usize), Error> {
    ferrax_ir::verify(module)?;
    let mut work = 0;
    let lowered = prepare::lower_annotations(module)?;
    let entry =
        lowered.entry().ok_or_else(|| Error::transform(Place::default(), "fuse: the module has no Func"))?.name.clone();
    let mut taken: std::collections::HashSet<String> = lowered.funcs.keys().cloned().collect();
    let mut out = Module::new();
    let mut kernels = Vec::new();
    let mut queue = std::collections::VecDeque::from([entry]);
    let mut done = std::collections::HashSet::new();
    while let Some(name) = queue.pop_front() {
        if !done.insert(name.clone()) {
            continue;
        }
        let func = lowered.func(&name).ok_or_else(|| {
            Error::transform(Place { func: name.clone(), eqn: None, prim: None }, "fuse: the Func is missing")
        })?;
        let folded = prepare::sink_reshapes(&prepare::fold_dot_transposes(&prepare::static_update_slices(func)));
        let mut namer = |i: usize| {
            let base = format!("{name}_k{i}");
            let fresh = if taken.contains(&base) {
                (2..).map(|j| format!("{base}_{j}")).find(|n| !taken.contains(n)).unwrap_or(base)
            } else {
                base
            };
            taken.insert(fresh.clone());
            fresh
        };
        let (fused, ks, w) = schedule::schedule(&folded, &mut namer);
        work += w;
        for eqn in &fused.eqns {
            let callees = eqn.prim.callees();
            if eqn.prim.callee().is_none() {
                queue.extend(callees.into_iter().map(String::from));
            }
        }
        out.push(fused);
        kernels.extend(ks);
    }
    for k in kernels {
        out.push(k);
    }
    ferrax_ir::verify(&out)?;
    Ok((out, work))
}

/// The number of launches of a fused module: the equations of its entry.
pub fn kernel_count(module: &Module) -> usize {
    module.entry().map_or(0, |f| f.eqns.len())
}
