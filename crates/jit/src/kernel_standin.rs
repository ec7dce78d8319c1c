//! STAND-IN for `kernel::define_kernel`, private to this branch until the kernel
//! helper's `src/kernel/` is merged. It "runs" a kernel Func by reading its parameter
//! buffers into arrays, calling the reference interpreter and writing the results to
//! the result buffers, behind the kernel ABI (`bufs` = params then results). It ignores
//! `[start, end)`: the executor always calls it with the whole outer extent. The merge
//! replaces this file by a `KernelFn` from `define_kernel` (native code).

use crate::exec::buf::{read_array, write_array};
use ferrax_ir::{Error, EvalOptions, Module, Place, Type};
use std::sync::Arc;

/// A kernel ready to run.
pub(crate) struct Kernel {
    module: Arc<Module>,
    name: String,
    params: Vec<Type>,
    results: Vec<Type>,
}

/// What the executor learns about a kernel when it is defined.
pub(crate) struct KernelInfo {
    /// Extent of the outermost loop (`end` of a whole run).
    pub outer: i64,
    /// CLIF and disassembly (the stand-in has none; it says so).
    pub dump: Option<String>,
}

/// "Compiles" the kernel Func `name` of `module`.
pub(crate) fn define_kernel(module: &Arc<Module>, name: &str, dump: bool) -> Result<(Kernel, KernelInfo), Error> {
    let func = module
        .func(name)
        .ok_or_else(|| Error::eval(Place::default(), format!("jit: kernel @{name} is not in the fused module")))?;
    let kernel = Kernel {
        module: module.clone(),
        name: name.to_string(),
        params: func.param_types(),
        results: func.result_types.clone(),
    };
    let outer = func.result_types.first().and_then(|t| t.shape.first().copied()).unwrap_or(1) as i64;
    let dump = dump.then(|| format!("; @{name}: interpreter stand-in, no native code yet\n"));
    Ok((kernel, KernelInfo { outer, dump }))
}

impl Kernel {
    /// Runs the kernel on `bufs` (params, then results).
    ///
    /// # Safety
    /// `bufs` holds one valid buffer per parameter and result, of their types; result
    /// buffers do not overlap parameter buffers.
    pub(crate) unsafe fn run(&self, bufs: &[*mut u8], _start: i64, _end: i64) -> Result<(), Error> {
        let n = self.params.len();
        // SAFETY: by the caller's contract.
        let args =
            self.params.iter().zip(bufs).map(|(t, &p)| unsafe { read_array(p, t) }).collect::<Result<Vec<_>, _>>()?;
        let outs = ferrax_ir::eval(&self.module, &self.name, &args, &EvalOptions::default())?;
        for (o, &p) in outs.iter().zip(&bufs[n..n + self.results.len()]) {
            // SAFETY: by the caller's contract.
            unsafe { write_array(o, p) };
        }
        Ok(())
    }
}
