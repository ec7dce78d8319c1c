//! Batching: the vmap pass.
//!
//! `vmap(f, in_axes, out_axes, axis_size)` returns a Func taking each parameter with a
//! batch axis of size `axis_size` inserted where `in_axes` says (`None`: the parameter
//! is shared by every example), and returning each output with the batch axis at its
//! `out_axes` position. Every value of the batched program is either batched along
//! one axis or unbatched; the primitives' batching rules (`Prim::batch`) take it from
//! there, and bodies of structured primitives are batched on demand with batched
//! parameters and outputs at axis 0 (memoised per mask).

use ferrax_ir::prim::batch::{BatchContext, BatchFunc};
use ferrax_ir::{Emitter, Error, Func, MAX_NESTING, Module, Type, Value};
use std::collections::HashMap;

/// Resolves a possibly negative axis for a value of `rank` (the batch axis may go at
/// any of `rank + 1` positions).
fn resolve_axis(axis: isize, rank: usize, what: &str) -> Result<usize, String> {
    let positions = rank as isize + 1;
    let resolved = if axis < 0 { axis + positions } else { axis };
    if (0..positions).contains(&resolved) {
        Ok(resolved as usize)
    } else {
        Err(format!("{what}: axis {axis} is out of range for a batched value of rank {}", rank + 1))
    }
}

/// Batches `module`'s entry: `in_axes` has one entry per parameter (an axis, negative
/// counting from the end, or `None`); `out_axes` one entry for every output or one per
/// output; `axis_size` is the batch size.
pub fn vmap(module: &Module, in_axes: &[Option<isize>], out_axes: &[isize], axis_size: usize) -> Result<Module, Error> {
    vmap_inner(module, in_axes, out_axes, axis_size, None)
}

/// [`vmap`] that also binds the entry's declared axis `axis_name`: the members of
/// that axis are the examples of the batch, so every collective over it becomes an
/// operation along the batch axis (`psum` a sum over it, `axis_index` an iota, ...;
/// `ferrax_ir::prim::collective`), which is what the collectives mean. The result
/// declares the entry's other axis names only. The entry must declare `axis_name`,
/// and collectives that carry an `axis_size` must agree with `axis_size`.
pub fn vmap_named(
    module: &Module,
    in_axes: &[Option<isize>],
    out_axes: &[isize],
    axis_size: usize,
    axis_name: &str,
) -> Result<Module, Error> {
    vmap_inner(module, in_axes, out_axes, axis_size, Some(axis_name))
}

fn vmap_inner(
    module: &Module,
    in_axes: &[Option<isize>],
    out_axes: &[isize],
    axis_size: usize,
    axis_name: Option<&str>,
) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let name = f.name.clone();
    let err = |e: String| crate::error(&name, format!("vmap: {e}"));
    if let Some(a) = axis_name
        && !f.axis_names().contains(&a)
    {
        let declared = f.axis_names();
        return Err(err(format!("@{name} declares no axis `{a}` (it declares {declared:?}); nothing to bind")));
    }
    if in_axes.len() != f.params.len() {
        return Err(err(format!(
            "in_axes has {} entries but @{name} has {} parameters",
            in_axes.len(),
            f.params.len()
        )));
    }
    if out_axes.len() != 1 && out_axes.len() != f.results.len() {
        return Err(err(format!(
            "out_axes has {} entries; give one, or one per output ({})",
            out_axes.len(),
            f.results.len()
        )));
    }
    let mut pass = VmapPass {
        out: module.clone(),
        size: axis_size,
        axis: axis_name.map(str::to_string),
        cache: HashMap::new(),
        depth: 0,
    };
    let mut em = Emitter::new(format!("{name}_vmap"));
    let mut in_dims = Vec::with_capacity(f.params.len());
    let mut params = Vec::with_capacity(f.params.len());
    for (i, (&p, axis)) in f.params.iter().zip(in_axes).enumerate() {
        let ty = f.ty(p).clone();
        match axis {
            None => {
                params.push(em.param(ty));
                in_dims.push(None);
            }
            Some(a) => {
                let at = resolve_axis(*a, ty.rank(), &format!("in_axes[{i}]")).map_err(err)?;
                let mut shape = ty.shape.clone();
                shape.insert(at, axis_size);
                params.push(em.param(Type { dtype: ty.dtype, shape }));
                in_dims.push(Some(at));
            }
        }
    }
    let (outs, dims) = pass.emit_body(&mut em, f, &params, &in_dims).map_err(err)?;
    let mut results = Vec::with_capacity(outs.len());
    for (k, (&o, &d)) in outs.iter().zip(&dims).enumerate() {
        let axis = if out_axes.len() == 1 { out_axes[0] } else { out_axes[k] };
        let rank = em.ty(o).rank() - usize::from(d.is_some());
        let at = resolve_axis(axis, rank, &format!("out_axes for output {k}")).map_err(err)?;
        results.push(em.batch_at(o, d, axis_size, at).map_err(err)?);
    }
    let mut module = crate::assemble(em.finish(&results), &pass.out);
    if axis_name.is_some()
        && let Some((_, entry)) = module.funcs.get_index_mut(0)
    {
        // `assemble` gives the new entry the original declaration; the bound axis goes.
        let kept: Vec<&str> = f.axis_names().into_iter().filter(|a| Some(*a) != axis_name).collect();
        entry.set_axis_names(&kept);
    }
    Ok(module)
}

/// The state of one vmap pass.
struct VmapPass {
    out: Module,
    size: usize,
    /// The axis name this pass binds.
    axis: Option<String>,
    cache: HashMap<(String, Vec<bool>, Vec<bool>), BatchFunc>,
    depth: usize,
}

impl VmapPass {
    /// Declares on the Func being emitted the axes of `func` that this pass leaves
    /// unbound.
    fn declare_axes(&self, em: &mut Emitter, func: &Func) {
        let kept: Vec<ferrax_ir::AttrValue> = func
            .axis_names()
            .into_iter()
            .filter(|a| Some(*a) != self.axis.as_deref())
            .map(|a| ferrax_ir::AttrValue::Str(a.to_string()))
            .collect();
        if !kept.is_empty() {
            em.set_attr("axis_names", ferrax_ir::AttrValue::List(kept));
        }
    }

    /// Whether `prim` must go through its batching rule even with no batched input:
    /// a collective over the bound axis, or a structured primitive whose bodies
    /// declare it (their collectives produce per-member values).
    fn binds(&self, prim: &ferrax_ir::Prim) -> bool {
        let Some(axis) = self.axis.as_deref() else { return false };
        if let ferrax_ir::Prim::Collective(op) = prim {
            return op.axis_names().contains(&axis);
        }
        prim.callees().iter().any(|c| self.out.func(c).is_some_and(|f| f.axis_names().contains(&axis)))
    }

    /// Emits `func`'s equations batched into `em`, its parameters being `params` with
    /// batch axes `dims`; returns the results and their batch axes.
    fn emit_body(
        &mut self,
        em: &mut Emitter,
        func: &Func,
        params: &[Value],
        dims: &[Option<usize>],
    ) -> Result<(Vec<Value>, Vec<Option<usize>>), String> {
        let mut value: Vec<Option<Value>> = vec![None; func.value_types.len()];
        let mut dim: Vec<Option<usize>> = vec![None; func.value_types.len()];
        for ((&p, &v), &d) in func.params.iter().zip(params).zip(dims) {
            value[p.index()] = Some(v);
            dim[p.index()] = d;
        }
        for (index, eqn) in func.eqns.iter().enumerate() {
            em.set_loc(eqn.loc.clone());
            let inputs: Vec<Value> = eqn
                .inputs
                .iter()
                .map(|&v| value[v.index()].ok_or_else(|| format!("equation {index}: undefined value {v}")))
                .collect::<Result<_, _>>()?;
            let in_dims: Vec<Option<usize>> = eqn.inputs.iter().map(|v| dim[v.index()]).collect();
            let at = |e: String| format!("equation {index} ({}) of @{}: {e}", eqn.prim.name(), func.name);
            let (outs, out_dims) = if in_dims.iter().all(Option::is_none) && !self.binds(&eqn.prim) {
                (em.eqn(&self.out, eqn.prim.clone(), &inputs).map_err(at)?.to_vec(), vec![None; eqn.outputs.len()])
            } else {
                eqn.prim.batch(em, self, &inputs, &in_dims).map_err(at)?
            };
            for (k, &o) in eqn.outputs.iter().enumerate() {
                value[o.index()] = outs.get(k).copied();
                dim[o.index()] = out_dims.get(k).copied().flatten();
            }
        }
        let mut outs = Vec::with_capacity(func.results.len());
        let mut out_dims = Vec::with_capacity(func.results.len());
        for &r in &func.results {
            outs.push(value[r.index()].ok_or_else(|| format!("undefined result {r}"))?);
            out_dims.push(dim[r.index()]);
        }
        Ok((outs, out_dims))
    }
}

impl BatchContext for VmapPass {
    fn module(&self) -> &Module {
        &self.out
    }

    fn axis_size(&self) -> usize {
        self.size
    }

    fn bound_axis(&self) -> Option<&str> {
        self.axis.as_deref()
    }

    fn batch_func(&mut self, name: &str, in_batched: &[bool], force_out: &[bool]) -> Result<BatchFunc, String> {
        let key = (name.to_string(), in_batched.to_vec(), force_out.to_vec());
        if let Some(done) = self.cache.get(&key) {
            return Ok(done.clone());
        }
        if self.depth >= MAX_NESTING {
            return Err(format!("bodies nest deeper than {MAX_NESTING}"));
        }
        let func = self.out.func(name).cloned().ok_or_else(|| format!("no Func @{name}"))?;
        let new_name = crate::fresh_name(&self.out, &format!("{name}_vmap"));
        let mut em = Emitter::new(new_name.clone());
        self.declare_axes(&mut em, &func);
        let mut params = Vec::with_capacity(func.params.len());
        let mut dims = Vec::with_capacity(func.params.len());
        for (&p, &b) in func.params.iter().zip(in_batched) {
            let ty = func.ty(p).clone();
            if b {
                let mut shape = ty.shape.clone();
                shape.insert(0, self.size);
                params.push(em.param(Type { dtype: ty.dtype, shape }));
                dims.push(Some(0));
            } else {
                params.push(em.param(ty));
                dims.push(None);
            }
        }
        self.depth += 1;
        let body = self.emit_body(&mut em, &func, &params, &dims);
        self.depth -= 1;
        let (outs, out_dims) = body?;
        let mut results = Vec::with_capacity(outs.len());
        let mut out_batched = Vec::with_capacity(outs.len());
        for (k, (&o, &d)) in outs.iter().zip(&out_dims).enumerate() {
            let force = force_out.get(k).copied().unwrap_or(false);
            match (d, force) {
                (Some(d), _) => results.push(em.move_axis(o, d, 0)?),
                (None, true) => results.push(em.add_batch_axis(o, self.size, 0)?),
                (None, false) => results.push(o),
            }
            out_batched.push(d.is_some() || force);
        }
        self.out.push(em.finish(&results));
        let bf = BatchFunc { name: new_name, out_batched };
        self.cache.insert(key, bf.clone());
        Ok(bf)
    }

    fn add_func(&mut self, mut func: Func) -> String {
        func.name = crate::fresh_name(&self.out, &func.name);
        let name = func.name.clone();
        self.out.push(func);
        name
    }
}
