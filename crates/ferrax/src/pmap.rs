//! [`pmap`]: one compiled function run on several workers, each on its own slice of
//! the inputs, whose collectives over the named axis exchange data between them.
//!
//! `pmap(f, "i")` traces `f` once on one worker's argument types with the axis `i` in
//! scope (its size is the number of workers), compiles it with `jit`, and runs it:
//! [`Pmap::call`] on a group of threads of this process (`ferrax_dist::ThreadGroup`),
//! worker `k` taking slice `k` of every argument leaf's leading axis and the results
//! stacked along a new leading axis, which equals `vmap(f).axis_name("i")` on the same
//! stacked inputs; [`Pmap::call_on`] as one worker of a communicator the caller holds
//! (a thread of a group it runs, or a process of an MPI job), on that worker's own
//! arguments. A worker that fails fails the group: every worker's call returns an
//! error instead of waiting for it.

use crate::Tensor;
use crate::api::{Error, arguments_at, trace_flat};
use crate::traceable::Traceable;
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, Type};
use ferrax_jit::{Communicator, Executable};
use std::panic::Location;
use std::time::Duration;

/// `pmap(f, axis_name)`: see the module docs.
pub struct Pmap<F> {
    f: F,
    axis_name: String,
    timeout: Duration,
    options: ferrax_jit::JitOptions,
}

/// Runs `f` on several workers with the axis `axis_name` bound to them.
///
/// ```
/// use ferrax::{Array, Tensor, lax, pmap};
/// // Three workers, each with one row; psum adds the rows.
/// let f = pmap(|x: Tensor| lax::psum(&x, &["i"]), "i");
/// let x = Array::from_f64(&[3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
/// let out: Array = f.call(&x).unwrap();
/// assert_eq!(out.to_f64_vec(), [9.0, 12.0, 9.0, 12.0, 9.0, 12.0]);
/// ```
pub fn pmap<F>(f: F, axis_name: &str) -> Pmap<F> {
    Pmap { f, axis_name: axis_name.to_string(), timeout: Duration::from_secs(60), options: Default::default() }
}

impl<F> Pmap<F> {
    /// How long a worker waits at a collective for the others before the call fails
    /// (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Pmap<F> {
        self.timeout = timeout;
        self
    }

    /// Compile options of each worker's program (`threads: 1` gives each worker one
    /// core, as a data-parallel job on a machine of N cores and N workers wants).
    pub fn jit_options(mut self, options: ferrax_jit::JitOptions) -> Pmap<F> {
        self.options = options;
        self
    }

    /// Traces and compiles `f` for one worker's argument `types`, `workers` members.
    fn compile<In, O>(
        &self,
        args: &In,
        types: &[Type],
        workers: usize,
        location: &'static Location<'static>,
    ) -> Result<(Executable, Vec<Array>, O, ferrax_ir::Module), Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let rebuild = |params| unflatten(args, params);
        let (traced, out) = crate::ops::collective::with_axis(&self.axis_name, workers, || {
            trace_flat(|a| self.f.trace_apply(a), rebuild, types, location)
        })?;
        let exe = ferrax_jit::compile(&traced.module, &self.options)?;
        Ok((exe, traced.consts, out, traced.module))
    }

    /// Runs on `n` worker threads: every argument leaf has a leading axis of size `n`
    /// (worker `k` gets slice `k`); every result is stacked along a new leading axis.
    #[track_caller]
    pub fn call<In, O>(&self, args: &In) -> Result<O::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let inputs: Vec<&Array> = args.leaves();
        let Some(first) = inputs.first() else {
            return Err(arguments_at(location, "pmap: no argument to take the number of workers from"));
        };
        let Some(&workers) = first.shape().first() else {
            return Err(arguments_at(location, "pmap: argument 0 has no leading axis of workers"));
        };
        if workers == 0 {
            return Err(arguments_at(location, "pmap: a leading axis of size 0 gives no workers"));
        }
        let mut types = Vec::with_capacity(inputs.len());
        for (i, a) in inputs.iter().enumerate() {
            if a.shape().first() != Some(&workers) {
                let message = format!("pmap: argument {i} has shape {:?}, not a leading axis of {workers}", a.shape());
                return Err(arguments_at(location, message));
            }
            types.push(Type::new(a.dtype(), &a.shape()[1..]));
        }
        let (exe, consts, out, _) = self.compile::<In, O>(args, &types, workers, location)?;
        let stacked = ferrax_dist::run_on_threads(&exe, &inputs, &consts, workers, self.timeout)
            .map_err(|m| Error::Arguments(format!("pmap: {m}")))?;
        unflatten(&out, stacked).ok_or_else(|| Error::Arguments("pmap: output structure".into()))
    }

    /// Runs as one worker of `comm` on this worker's own `args` (no leading axis); the
    /// other workers make the same call with theirs at the same time. Traces and
    /// compiles on every call: a loop of steps uses [`Pmap::lower`] once instead.
    #[track_caller]
    pub fn call_on<In, O>(&self, comm: &dyn Communicator, args: &In) -> Result<O::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        O::With<Type>: Tree<Type, With<Array> = O::With<Array>>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        self.lower::<In, O>(args, comm.size())?.call_on(comm, args)
    }

    /// Traces and compiles `f` once for one worker's arguments shaped as `args` (no
    /// leading axis) on `workers` workers: a [`PmapStep`] that each worker then calls
    /// with [`PmapStep::call_on`], as often as it likes, from any thread.
    #[track_caller]
    pub fn lower<In, O>(&self, args: &In, workers: usize) -> Result<PmapStep<O::With<Type>>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        O::With<Type>: Tree<Type, With<Array> = O::With<Array>>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let types: Vec<Type> = args.leaves().iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        let (exe, consts, out, module) = self.compile::<In, O>(args, &types, workers, location)?;
        let template: O::With<Type> = out.map_leaves(&mut |t: &Tensor| t.ty().clone());
        Ok(PmapStep { exe, consts, types, template, workers, module })
    }
}

/// A function compiled once for the workers of a named axis ([`Pmap::lower`]).
pub struct PmapStep<T> {
    exe: Executable,
    consts: Vec<Array>,
    types: Vec<Type>,
    template: T,
    workers: usize,
    /// The traced program of one worker (for its cost report).
    module: ferrax_ir::Module,
}

impl<T: Tree<Type>> PmapStep<T> {
    /// The cost report of one worker's program (`ferrax cost`'s text): its flops,
    /// its argument bytes (the parameters and the optimiser state a worker keeps), its
    /// peak live bytes, and the bytes its collectives hand to the other workers.
    pub fn cost_report(&self) -> Result<String, Error> {
        let cost = ferrax_transform::cost(&self.module)?;
        Ok(cost.entry().map(ToString::to_string).unwrap_or_default())
    }

    /// Runs as one worker of `comm` (of the size it was compiled for) on this worker's
    /// arguments, of the types it was compiled for.
    #[track_caller]
    pub fn call_on<In>(&self, comm: &dyn Communicator, args: &In) -> Result<T::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
    {
        let location = Location::caller();
        if comm.size() != self.workers {
            let message = format!("pmap: compiled for {} workers, called on {}", self.workers, comm.size());
            return Err(arguments_at(location, message));
        }
        let leaves: Vec<&Array> = args.leaves();
        let same = leaves.len() == self.types.len()
            && leaves.iter().zip(&self.types).all(|(a, t)| a.dtype() == t.dtype && a.shape() == t.shape.as_slice());
        if !same {
            let got: Vec<Type> = leaves.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
            let message = format!(
                "pmap: compiled for {}, called with {}",
                ferrax_ir::format_types(&self.types),
                ferrax_ir::format_types(&got)
            );
            return Err(arguments_at(location, message));
        }
        // Borrowed: a step copies neither the arguments nor the captured constants.
        let all: Vec<&Array> = leaves.into_iter().chain(&self.consts).collect();
        let results = self.exe.call_refs_with(&all, comm)?;
        unflatten(&self.template, results).ok_or_else(|| Error::Arguments("pmap: output structure".into()))
    }
}
