//! Batching and Jacobians of closures: [`vmap`], [`jacfwd`], [`jacrev`], [`hessian`].
//!
//! `vmap(f)` turns a function of one example into a function of a batch: the closure
//! is traced on one example's types (each argument leaf without its batch axis), the
//! `vmap` pass batches the IR, and the batch size is read off the arguments. Inside a
//! trace, [`Vmap::apply`] emits the batched function into it (outer tensors the closure
//! uses are shared by every example), so `vmap(grad(f))` gives per-example gradients.

use crate::Tensor;
use crate::api::{Error, argnum_leaves, arguments_at, trace_flat, transform_at};
use crate::traceable::Traceable;
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, DType, EvalOptions, Module, Type};
use ferrax_transform as transform;
use std::panic::Location;

/// `vmap(f)`: see the module docs. Every argument leaf is batched at axis 0 and every
/// output at axis 0 unless set otherwise.
pub struct Vmap<F> {
    f: F,
    in_axes: Option<Vec<Option<isize>>>,
    out_axes: isize,
    axis_name: Option<String>,
}

/// Batches `f` over axis 0 of every argument leaf.
///
/// ```
/// use ferrax::{Array, Tensor, vmap};
/// let norms = vmap(|x: Tensor| x.powi(2).sum_all().sqrt());
/// let rows = Array::from_f64(&[2, 2], vec![3.0, 4.0, 6.0, 8.0]).unwrap();
/// let out: Array = norms.call(&rows).unwrap();
/// assert_eq!(out.to_f64_vec(), [5.0, 10.0]);
/// ```
pub fn vmap<F>(f: F) -> Vmap<F> {
    Vmap { f, in_axes: None, out_axes: 0, axis_name: None }
}

/// The type of one example of `ty` batched at `axis` (`None`: not batched).
fn example_type(ty: &Type, axis: Option<isize>) -> Result<(Type, Option<(usize, usize)>), String> {
    let Some(axis) = axis else { return Ok((ty.clone(), None)) };
    let rank = ty.rank() as isize;
    let at = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&at) {
        return Err(format!("in_axes: axis {axis} is out of range for {ty}"));
    }
    let at = at as usize;
    let mut shape = ty.shape.clone();
    let size = shape.remove(at);
    Ok((Type { dtype: ty.dtype, shape }, Some((at, size))))
}

impl<F> Vmap<F> {
    /// The batch axis of each argument leaf, in leaf order (`None`: shared by all
    /// examples; negative counts from the end).
    pub fn in_axes(mut self, axes: &[Option<isize>]) -> Vmap<F> {
        self.in_axes = Some(axes.to_vec());
        self
    }

    /// Where the batch axis goes in every output.
    pub fn out_axes(mut self, axis: isize) -> Vmap<F> {
        self.out_axes = axis;
        self
    }

    /// Names the batch axis: inside `f`, the collectives of `ferrax::lax` over `name`
    /// (`psum(x, &["i"])`, `axis_index("i")`, ...) operate across the examples, which
    /// are the axis' members, as `jax.vmap(f, axis_name="i")`.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, lax, vmap};
    /// let centred = vmap(|x: Tensor| &x - &lax::pmean(&x, &["i"])).axis_name("i");
    /// let out: Array = centred.call(&Array::from(vec![1.0f64, 2.0, 6.0])).unwrap();
    /// assert_eq!(out.to_f64_vec(), [-2.0, -1.0, 3.0]);
    /// ```
    pub fn axis_name(mut self, name: &str) -> Vmap<F> {
        self.axis_name = Some(name.to_string());
        self
    }

    /// The vmap pass, binding the axis name when there is one.
    fn batch_module(
        &self,
        module: &Module,
        in_axes: &[Option<isize>],
        size: usize,
    ) -> Result<Module, ferrax_ir::Error> {
        match &self.axis_name {
            Some(name) => transform::vmap_named(module, in_axes, &[self.out_axes], size, name),
            None => transform::vmap(module, in_axes, &[self.out_axes], size),
        }
    }

    /// Runs `trace` with the axis name (if any) in scope for the collectives.
    fn in_scope<R>(&self, size: Option<usize>, trace: impl FnOnce() -> R) -> R {
        match (&self.axis_name, size) {
            (Some(name), Some(size)) => crate::ops::collective::with_axis(name, size, trace),
            _ => trace(),
        }
    }

    /// Runs on host arrays batched as `in_axes` says; the batch size is read off them.
    #[track_caller]
    pub fn call<In, O>(&self, args: &In) -> Result<O::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
        let axes = self.in_axes.clone().unwrap_or_else(|| vec![Some(0); inputs.len()]);
        if axes.len() != inputs.len() {
            let message = format!("vmap: {} in_axes for {} argument leaves", axes.len(), inputs.len());
            return Err(arguments_at(location, message));
        }
        let mut types = Vec::with_capacity(inputs.len());
        let mut size = None;
        for (a, &axis) in inputs.iter().zip(&axes) {
            let (ty, batch) = example_type(&Type::new(a.dtype(), a.shape()), axis)
                .map_err(|m| arguments_at(location, format!("vmap: {m}")))?;
            if let Some((_, n)) = batch {
                if size.is_some_and(|s| s != n) {
                    let message = format!("vmap: batch sizes differ: {} vs {n}", size.unwrap_or(0));
                    return Err(arguments_at(location, message));
                }
                size = Some(n);
            }
            types.push(ty);
        }
        let size = size.ok_or_else(|| arguments_at(location, "vmap: no argument is batched"))?;
        let rebuild = |params| unflatten(args, params);
        let (traced, out) =
            self.in_scope(Some(size), || trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location))?;
        let mut all_axes = axes;
        all_axes.extend(traced.consts.iter().map(|_| None));
        let module = self.batch_module(&traced.module, &all_axes, size);
        let module = transform::dce(&module.map_err(|e| transform_at(location, e))?);
        let mut all = inputs;
        all.extend(traced.consts);
        let outputs = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
        unflatten(&out, outputs).ok_or_else(|| Error::Arguments("vmap: output structure".into()))
    }
}

impl<F> Vmap<F> {
    /// Emits the batched function into the open trace, applied to `args` (batched as
    /// `in_axes` says); tensors of the outer trace the closure uses are shared by every
    /// example. Returns the outputs, batched at `out_axes`.
    #[track_caller]
    pub fn apply<T, O>(&self, args: &T) -> O::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let axes = self.in_axes.clone().unwrap_or_else(|| vec![Some(0); leaves.len()]);
        let mut examples = Vec::with_capacity(leaves.len());
        let mut size: Option<usize> = None;
        let mut problem = None;
        if axes.len() != leaves.len() {
            problem = Some(format!("vmap: {} in_axes for {} argument leaves", axes.len(), leaves.len()));
        }
        for (t, &axis) in leaves.iter().zip(axes.iter().chain(std::iter::repeat(&None))) {
            match example_type(t.ty(), axis) {
                Ok((ty, batch)) => {
                    if let Some((_, n)) = batch {
                        if size.is_some_and(|s| s != n) {
                            problem.get_or_insert(format!("vmap: batch sizes differ: {} vs {n}", size.unwrap_or(0)));
                        }
                        size = Some(n);
                    }
                    examples.push(ty);
                }
                Err(e) => {
                    problem.get_or_insert(e);
                    examples.push(t.ty().clone());
                }
            }
        }
        let (outputs, template) = self.in_scope(size, || {
            crate::autodiff::apply_transform(
                // Traced on one example: parameters of the example types.
                |params: Vec<Tensor>| self.f.trace_apply(unflatten(args, params).expect("Tree walks agree")),
                &leaves,
                &[],
                |module| {
                    if let Some(e) = &problem {
                        return Err(ferrax_ir::Error::transform(Default::default(), e.clone()));
                    }
                    let Some(size) = size else {
                        return Err(ferrax_ir::Error::transform(Default::default(), "vmap: no argument is batched"));
                    };
                    let n_params = module.entry().map_or(0, |f| f.params.len());
                    let mut all = axes.clone();
                    all.resize(n_params, None);
                    self.batch_module(module, &all, size)
                },
                location,
                Some(&examples),
            )
        });
        let mut outputs = outputs.into_iter();
        let leaves: Vec<Tensor> =
            template.leaves().into_iter().map(|t| outputs.next().unwrap_or_else(|| t.clone())).collect();
        unflatten(&template, leaves).expect("Tree walks agree")
    }
}

/// A Jacobian of a closure ([`jacfwd`], [`jacrev`]), evaluated on host arrays.
pub struct Jacobian<F> {
    f: F,
    kind: JacKind,
    /// The top-level arguments differentiated (`None`: all of them).
    argnums: Option<Vec<usize>>,
}

/// The Hessian of a scalar closure ([`hessian`]): `jacfwd(jacrev(f))`.
pub struct Hessian<F> {
    /// `jacfwd(jacrev(f))`, which is what it is inside a trace (and under `jit`).
    nested: Jacobian<Jacobian<F>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JacKind {
    Fwd,
    Rev,
    Hessian,
}

/// The forward-mode Jacobian of `f` with respect to every float leaf of its argument.
///
/// ```
/// use ferrax::{Array, Tensor, jacfwd};
/// let j: Array = jacfwd(|x: Tensor| &x * &x).call(&Array::from(vec![1.0f64, 3.0])).unwrap();
/// assert_eq!(j.to_f64_vec(), [2.0, 0.0, 0.0, 6.0]); // diag(2 x), of shape [2, 2]
/// ```
pub fn jacfwd<F>(f: F) -> Jacobian<F> {
    Jacobian { f, kind: JacKind::Fwd, argnums: None }
}

/// The reverse-mode Jacobian of `f` with respect to every float leaf of its argument.
///
/// ```
/// use ferrax::{Array, Tensor, jacrev};
/// // Two outputs over two arguments: a tree [output][argument] of blocks.
/// let f = |[x, y]: [Tensor; 2]| [&x * &y, x.sin()];
/// let [[dxy_dx, dxy_dy], [dsin_dx, dsin_dy]] =
///     jacrev(f).call(&[Array::scalar(2.0f64), Array::scalar(3.0f64)]).unwrap();
/// assert_eq!((dxy_dx.to_f64_vec(), dxy_dy.to_f64_vec()), (vec![3.0], vec![2.0]));
/// assert_eq!((dsin_dx.to_f64_vec(), dsin_dy.to_f64_vec()), (vec![2f64.cos()], vec![0.0]));
/// ```
pub fn jacrev<F>(f: F) -> Jacobian<F> {
    Jacobian { f, kind: JacKind::Rev, argnums: None }
}

/// The Hessian of `f` (`jacfwd(jacrev(f))`) with respect to every float leaf.
///
/// ```
/// use ferrax::{Array, Tensor, hessian};
/// let h = hessian(|[x, y]: [Tensor; 2]| (&x * &y).sum_all());
/// let [[dxx, dxy], [dyx, dyy]] = h.call(&[Array::scalar(1.0f64), Array::scalar(2.0f64)]).unwrap();
/// let flat: Vec<f64> = [dxx, dxy, dyx, dyy].iter().flat_map(|b| b.to_f64_vec()).collect();
/// assert_eq!(flat, [0.0, 1.0, 1.0, 0.0]);
/// ```
pub fn hessian<F>(f: F) -> Hessian<F> {
    Hessian {
        nested: Jacobian { f: Jacobian { f, kind: JacKind::Rev, argnums: None }, kind: JacKind::Fwd, argnums: None },
    }
}

/// The flat blocks of a Jacobian pass of `f` at `args` (float output leaves outer, float
/// argument leaves inner), the traced output structure and the argument leaves' types.
fn jacobian_blocks<In, O, F>(
    f: &F,
    kind: JacKind,
    argnums: Option<&[usize]>,
    args: &In,
    location: &'static Location<'static>,
) -> Result<(Vec<Array>, O, Vec<Type>, Vec<usize>), Error>
where
    In: Tree<Array> + ?Sized,
    O: Tree<Tensor>,
    F: Traceable<In::With<Tensor>, Out = O>,
{
    let inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
    let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
    let rebuild = |params| unflatten(args, params);
    let wrt = argnum_leaves(argnums, args.child_leaf_counts(), &types).map_err(|m| arguments_at(location, m))?;
    let (traced, out) = trace_flat(|a| f.trace_apply(a), rebuild, &types, location)?;
    let w = transform::Wrt::Params(wrt.clone());
    let module: Module = match kind {
        JacKind::Fwd => transform::jacfwd(&traced.module, &w),
        JacKind::Rev => transform::jacrev(&traced.module, &w),
        JacKind::Hessian => transform::hessian(&traced.module, &w),
    }
    .map_err(|e| transform_at(location, e))?;
    let mut all = inputs;
    all.extend(traced.consts);
    let flat = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
    Ok((flat, out, types, wrt))
}

/// One tree of `args`' structure per row (an output leaf of type `rows[r].0`): the
/// block of row `r` and argument leaf `c` has shape `rows[r].0.shape + cols[c].0.shape`;
/// the pass computed those whose row and column are both marked (in `flat`, rows
/// outer), the others are zeros of the row's float dtype, else the column's, else f32.
fn rows_of_blocks<In: Tree<Array> + ?Sized>(
    args: &In,
    rows: &[(Type, bool)],
    cols: &[(Type, bool)],
    flat: Vec<Array>,
) -> Result<Vec<In::With<Array>>, Error> {
    let mut flat = flat.into_iter();
    let mut out = Vec::with_capacity(rows.len());
    for (row, row_computed) in rows {
        let mut blocks = Vec::with_capacity(cols.len());
        for (col, col_computed) in cols {
            let computed = if *row_computed && *col_computed { flat.next() } else { None };
            let block = match computed {
                Some(block) => block,
                None => {
                    let dtype = [row.dtype, col.dtype].into_iter().find(|d| d.is_float()).unwrap_or(DType::F32);
                    let shape: Vec<usize> = row.shape.iter().chain(&col.shape).copied().collect();
                    Array::zeros(dtype, &shape, &Default::default())?
                }
            };
            blocks.push(block);
        }
        out.push(unflatten(args, blocks).ok_or_else(|| Error::Arguments("jacobian: argument structure".into()))?);
    }
    Ok(out)
}

/// Each type with whether its leaf is in `wrt`.
fn marked(types: &[Type], wrt: &[usize]) -> Vec<(Type, bool)> {
    types.iter().enumerate().map(|(i, t)| (t.clone(), wrt.contains(&i))).collect()
}

impl<F> Jacobian<F> {
    /// JAX's `argnums`: the Jacobian with respect to these top-level arguments only
    /// (elements of the tuple, array or `Vec` the function takes); the blocks of the
    /// others are zeros, not computed.
    pub fn argnums(self, argnums: &[usize]) -> Jacobian<F> {
        Jacobian { argnums: Some(argnums.to_vec()), ..self }
    }

    /// Evaluates at `args`: the Jacobian as a tree, as JAX gives it: `f`'s output
    /// structure whose every leaf is a tree of the argument's structure, the block of
    /// output leaf `o` and argument leaf `a` of shape `o.shape + a.shape`. Blocks of an
    /// integer leaf are zeros.
    #[track_caller]
    pub fn call<In, O>(&self, args: &In) -> Result<O::With<In::With<Array>>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let argnums = self.argnums.as_deref();
        let (flat, out, types, wrt) = jacobian_blocks(&self.f, self.kind, argnums, args, Location::caller())?;
        let rows: Vec<(Type, bool)> =
            out.leaves().into_iter().map(|t| (t.ty().clone(), t.dtype().is_float())).collect();
        let cols = marked(&types, &wrt);
        let rows = rows_of_blocks(args, &rows, &cols, flat)?;
        unflatten(&out, rows).ok_or_else(|| Error::Arguments("jacobian: output structure".into()))
    }

    /// The blocks as a flat table: `result[o][i]` is the derivative of float output leaf
    /// `o` with respect to float argument leaf `i` (what `call` returned before it gave
    /// the tree).
    #[track_caller]
    pub fn blocks<In, O>(&self, args: &In) -> Result<Vec<Vec<Array>>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let argnums = self.argnums.as_deref();
        let (flat, _, _, wrt) = jacobian_blocks(&self.f, self.kind, argnums, args, Location::caller())?;
        let n = wrt.len().max(1);
        Ok(flat.chunks(n).map(<[Array]>::to_vec).collect())
    }
}

impl<F> Jacobian<F> {
    /// Emits the Jacobian into the open trace, as the tree `call` gives (what makes
    /// `jit(jacrev(f))` one compiled module and `jacfwd(jacrev(f))` compose).
    #[track_caller]
    pub fn apply<T, O>(&self, args: &T) -> O::With<T::With<Tensor>>
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let cols: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
        let selected = argnum_leaves(self.argnums.as_deref(), args.child_leaf_counts(), &cols).unwrap_or_else(|m| {
            crate::tracer::fail_with(crate::TraceError::at(location, m), Type::scalar(DType::F32));
            (0..cols.len()).filter(|&i| cols[i].dtype.is_float()).collect()
        });
        let wrt = transform::Wrt::Params(selected.clone());
        let kind = self.kind;
        let (outputs, template) = crate::autodiff::apply_transform(
            |params| self.f.trace_apply(unflatten(args, params).expect("Tree walks agree")),
            &leaves,
            &[],
            |module| match kind {
                JacKind::Fwd => transform::jacfwd(module, &wrt),
                JacKind::Rev | JacKind::Hessian => transform::jacrev(module, &wrt),
            },
            location,
            None,
        );
        let mut outputs = outputs.into_iter();
        let rows: Vec<T::With<Tensor>> = template
            .leaves()
            .into_iter()
            .map(|row| {
                let blocks: Vec<Tensor> = cols
                    .iter()
                    .enumerate()
                    .map(|(c, col)| {
                        let shape: Vec<usize> = row.shape().iter().chain(&col.shape).copied().collect();
                        let dtype = [row.dtype(), col.dtype].into_iter().find(|d| d.is_float()).unwrap_or(DType::F32);
                        let computed = row.dtype().is_float() && selected.contains(&c);
                        let block = if computed { outputs.next() } else { None };
                        block.unwrap_or_else(|| Tensor::zeros(dtype, &shape))
                    })
                    .collect();
                unflatten(args, blocks).expect("Tree walks agree")
            })
            .collect();
        unflatten(&template, rows).expect("Tree walks agree")
    }
}

/// A Jacobian is traceable: inside a trace it emits the Jacobian tree (as
/// [`Jacobian::apply`]), so `jit(jacrev(f))` compiles it and `jacfwd(jacrev(f))` nests.
impl<G, T> Traceable<T> for Jacobian<G>
where
    T: Tree<Tensor>,
    G: Traceable<T::With<Tensor>>,
    <G::Out as Tree<Tensor>>::With<T::With<Tensor>>: Tree<Tensor>,
{
    type Out = <G::Out as Tree<Tensor>>::With<T::With<Tensor>>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply::<T, G::Out>(&args)
    }
}

impl<F> Hessian<F> {
    /// JAX's `argnums`: the second derivatives with respect to these top-level arguments
    /// only; the other blocks are zeros, not computed.
    pub fn argnums(self, argnums: &[usize]) -> Hessian<F> {
        let Jacobian { f: inner, kind, .. } = self.nested;
        Hessian { nested: Jacobian { f: inner.argnums(argnums), kind, argnums: Some(argnums.to_vec()) } }
    }

    /// Evaluates at `args`: a tree of the argument's structure over the argument's
    /// structure, the block of leaves `a` and `b` of shape `a.shape + b.shape` (zeros
    /// where either is an integer leaf).
    #[track_caller]
    pub fn call<In>(&self, args: &In) -> Result<In::With<In::With<Array>>, Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        let argnums = self.nested.argnums.as_deref();
        let (flat, _, types, wrt) =
            jacobian_blocks(&self.nested.f.f, JacKind::Hessian, argnums, args, Location::caller())?;
        let both = marked(&types, &wrt);
        let rows = rows_of_blocks(args, &both, &both, flat)?;
        unflatten(args, rows).ok_or_else(|| Error::Arguments("hessian: argument structure".into()))
    }

    /// The blocks as a flat table over the float argument leaves: `result[i][j]`.
    #[track_caller]
    pub fn blocks<In>(&self, args: &In) -> Result<Vec<Vec<Array>>, Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        let argnums = self.nested.argnums.as_deref();
        let (flat, _, _, wrt) = jacobian_blocks(&self.nested.f.f, JacKind::Hessian, argnums, args, Location::caller())?;
        let n = wrt.len().max(1);
        Ok(flat.chunks(n).map(<[Array]>::to_vec).collect())
    }
}

/// `vmap(f)` is itself traceable: applied inside a trace it emits the batched function
/// (as [`Vmap::apply`]), so `jit(vmap(f))` and `grad` of a batched function work.
impl<G, T> Traceable<T> for Vmap<G>
where
    T: Tree<Tensor>,
    G: Traceable<T::With<Tensor>>,
    <G::Out as Tree<Tensor>>::With<Tensor>: Tree<Tensor>,
{
    type Out = <G::Out as Tree<Tensor>>::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply::<T, G::Out>(&args)
    }
}

/// A Hessian is traceable as the `jacfwd(jacrev(f))` it is, so `jit(hessian(f))` is one
/// compiled module.
impl<G, T> Traceable<T> for Hessian<G>
where
    Jacobian<Jacobian<G>>: Traceable<T>,
{
    type Out = <Jacobian<Jacobian<G>> as Traceable<T>>::Out;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.nested.trace_apply(args)
    }
}

/// `jacfwd(f).has_aux()` or `jacrev(f).has_aux()`: `f` returns `(outputs, aux)`; see
/// [`Jacobian::has_aux`].
pub struct JacobianAux<F>(Jacobian<F>);

impl<F> Jacobian<F> {
    /// JAX's `has_aux=True`: `f` returns `(outputs, aux)`, and `call` gives
    /// `(jacobian of outputs, aux)`, the aux tree evaluated, not differentiated.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, jacrev};
    /// let f = |x: Tensor| (x.sin(), x.argmax(0)); // the index of the maximum as aux
    /// let (j, at) = jacrev(f).has_aux().call(&Array::from(vec![0.0f64, 1.0])).unwrap();
    /// assert_eq!(j.to_f64_vec(), [1.0, 0.0, 0.0, 1f64.cos()]);
    /// assert_eq!(at.to_f64_vec(), [1.0]);
    /// ```
    pub fn has_aux(self) -> JacobianAux<F> {
        JacobianAux(self)
    }
}

impl<F> JacobianAux<F> {
    /// Differentiate only with respect to these top-level arguments ([`Jacobian::argnums`]).
    pub fn argnums(self, argnums: &[usize]) -> JacobianAux<F> {
        JacobianAux(self.0.argnums(argnums))
    }

    /// Evaluates at `args`: the Jacobian tree of the outputs (as [`Jacobian::call`]) and
    /// the aux tree.
    #[track_caller]
    pub fn call<In, O, Aux>(&self, args: &In) -> Result<(O::With<In::With<Array>>, Aux::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        Aux: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = (O, Aux)>,
    {
        let location = Location::caller();
        let outputs = |a: In::With<Tensor>| self.0.f.trace_apply(a).0;
        let jacobian = Jacobian { f: outputs, kind: self.0.kind, argnums: self.0.argnums.clone() }.call(args)?;
        let aux = crate::api::eval_once(|a| self.0.f.trace_apply(a).1, args, location)?;
        Ok((jacobian, aux))
    }

    /// Emits the Jacobian of the outputs and the aux tree into the open trace.
    #[track_caller]
    pub fn apply<T, O, Aux>(&self, args: &T) -> (O::With<T::With<Tensor>>, Aux)
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        Aux: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = (O, Aux)>,
    {
        let outputs = |a: T::With<Tensor>| self.0.f.trace_apply(a).0;
        let jacobian = Jacobian { f: outputs, kind: self.0.kind, argnums: self.0.argnums.clone() }.apply(args);
        let copy = unflatten(args, args.leaves().into_iter().cloned().collect()).expect("Tree walks agree");
        (jacobian, self.0.f.trace_apply(copy).1)
    }
}

impl<G, T, O, Aux> Traceable<T> for JacobianAux<G>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    Aux: Tree<Tensor>,
    G: Traceable<T::With<Tensor>, Out = (O, Aux)>,
    (O::With<T::With<Tensor>>, Aux): Tree<Tensor>,
{
    type Out = (O::With<T::With<Tensor>>, Aux);

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply(&args)
    }
}
