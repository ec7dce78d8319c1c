//! Analysis of a kernel Func before lowering: where each value comes from, how often it is
//! used, the loop shape, and the one reduction (if any) with the results that form its
//! epilogue. Checks the kernel contract and reports a violation as an error naming the
//! kernel (and equation).

use super::{is_kernel_prim, kernel_error};
use ferrax_ir::prim::ReductionOp;
use ferrax_ir::prim::{ArgOp, ReduceOp};
use ferrax_ir::{Error, Func, Prim, Value};

/// The work weight of a `convert` to or from bf16/f16 ([`Plan::work_per_outer`]).
const HALF_CONVERT_WEIGHT: f64 = 4.0;

/// Which reduction a kernel holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RedKind {
    /// `reduce_sum`, `reduce_max`, `reduce_min`, `reduce_prod`.
    Reduce(ReduceOp),
    /// `argmax`, `argmin` (one axis, i32 index).
    Arg(ArgOp),
}

/// The kernel's reduction.
#[derive(Clone, Debug)]
pub(crate) struct Reduction {
    /// The equation index.
    pub eqn: usize,
    /// The reduced value (shape S_in).
    pub input: Value,
    /// The result (shape S_out).
    pub output: Value,
    /// Which reduction.
    pub kind: RedKind,
    /// Reduced axes of S_in, increasing.
    pub axes: Vec<usize>,
    /// S_in.
    pub in_shape: Vec<usize>,
}

impl Reduction {
    /// The axes of S_in that are kept, in order.
    pub fn kept(&self) -> Vec<usize> {
        (0..self.in_shape.len()).filter(|a| !self.axes.contains(a)).collect()
    }

    /// The reduction of equation `e` (of `kind` over `axes`), checked: one operand, one
    /// result, axes in range, and a nonempty axis for an arg-reduction.
    fn new(func: &Func, e: usize, kind: RedKind, mut axes: Vec<usize>) -> Result<Reduction, Error> {
        let eqn = &func.eqns[e];
        let (&[input], &[output]) = (&eqn.inputs[..], &eqn.outputs[..]) else {
            return Err(kernel_error(func, Some(e), "a reduction takes one operand and has one result"));
        };
        let in_shape = func.ty(input).shape.to_vec();
        axes.sort_unstable();
        axes.dedup();
        if axes.iter().any(|&a| a >= in_shape.len()) {
            return Err(kernel_error(func, Some(e), "reduced axis out of range"));
        }
        if matches!(kind, RedKind::Arg(_)) && in_shape[axes[0]] == 0 {
            return Err(kernel_error(func, Some(e), "argmax/argmin over an empty axis has no index"));
        }
        Ok(Reduction { eqn: e, input, output, kind, axes, in_shape })
    }

    /// For each result of `func`: whether it is in the epilogue (computed from the
    /// finished reduction, shape S_out) rather than in the loop over S_in. Checks that
    /// the epilogue is elementwise on S_out and every result has shape S_in or S_out.
    fn epilogue(&self, func: &Func) -> Result<Vec<bool>, Error> {
        let mut dep = vec![false; func.value_types.len()];
        dep[self.output.index()] = true;
        let out_shape = func.ty(self.output).shape.to_vec();
        for (e, eqn) in func.eqns.iter().enumerate() {
            if eqn.inputs.iter().any(|v| dep[v.index()]) {
                // The epilogue runs once per S_out element on the finished
                // reduction: it must be elementwise on S_out.
                let elementwise =
                    is_elementwise(&eqn.prim) && eqn.outputs.iter().all(|v| func.ty(*v).shape[..] == out_shape[..]);
                if !elementwise {
                    return Err(kernel_error(
                        func,
                        Some(e),
                        "the reduction's epilogue must be elementwise on its output shape",
                    ));
                }
                eqn.outputs.iter().for_each(|v| dep[v.index()] = true);
            }
        }
        let mut epilogue = Vec::new();
        for &r in &func.results {
            let shape = &func.ty(r).shape[..];
            let is_epi = dep[r.index()] || (shape == &out_shape[..] && shape != &self.in_shape[..]);
            let want = if is_epi { &out_shape } else { &self.in_shape };
            if shape != &want[..] {
                return Err(kernel_error(func, None, format!("result {r} has neither shape S_in nor S_out")));
            }
            epilogue.push(is_epi);
        }
        Ok(epilogue)
    }
}

/// The facts the lowering needs about a kernel Func.
pub(crate) struct Plan {
    /// For each value: the equation and output position defining it.
    pub defs: Vec<Option<(usize, usize)>>,
    /// For each value: its parameter position.
    pub params: Vec<Option<usize>>,
    /// For each value: how many equation inputs and results use it.
    pub uses: Vec<usize>,
    /// The loop shape: the results' shape without a reduction, S_in with one.
    pub loop_shape: Vec<usize>,
    /// The reduction, if any.
    pub reduction: Option<Reduction>,
    /// For each result: whether it depends on the reduction (epilogue, shape S_out).
    pub epilogue: Vec<bool>,
}

impl Plan {
    /// Analyses `func`, checking the kernel contract.
    pub fn new(func: &Func) -> Result<Plan, Error> {
        let n = func.value_types.len();
        let mut defs = vec![None; n];
        let mut params = vec![None; n];
        let mut uses = vec![0usize; n];
        let check = |v: Value, eqn: Option<usize>| {
            if v.index() < n { Ok(()) } else { Err(kernel_error(func, eqn, format!("value {v} has no type"))) }
        };
        for (i, &p) in func.params.iter().enumerate() {
            check(p, None)?;
            params[p.index()] = Some(i);
        }
        let mut reduction = None;
        for (e, eqn) in func.eqns.iter().enumerate() {
            if !is_kernel_prim(&eqn.prim) {
                return Err(kernel_error(func, Some(e), format!("{} may not appear in a kernel", eqn.prim.name())));
            }
            for &v in &eqn.inputs {
                check(v, Some(e))?;
                if defs[v.index()].is_none() && params[v.index()].is_none() {
                    return Err(kernel_error(func, Some(e), format!("{v} is used before it is defined")));
                }
                uses[v.index()] += 1;
            }
            for (k, &v) in eqn.outputs.iter().enumerate() {
                check(v, Some(e))?;
                defs[v.index()] = Some((e, k));
            }
            if let Some((kind, axes)) = reduction_kind(&eqn.prim) {
                if reduction.is_some() {
                    return Err(kernel_error(func, Some(e), "a kernel holds at most one reduction"));
                }
                reduction = Some(Reduction::new(func, e, kind, axes)?);
            }
        }
        for &r in &func.results {
            check(r, None)?;
            uses[r.index()] += 1;
        }
        let (loop_shape, epilogue) = match &reduction {
            None => (elementwise_loop_shape(func)?, vec![false; func.results.len()]),
            Some(red) => (red.in_shape.clone(), red.epilogue(func)?),
        };
        Ok(Plan { defs, params, uses, loop_shape, reduction, epilogue })
    }

    /// The dims of the loop nest in loop order: the loop shape without a reduction, else the
    /// kept axes then the reduced axes; a leading extent-1 loop is added when the outer loop
    /// would otherwise be missing (rank 0, or every axis reduced).
    pub fn loop_dims(&self) -> (Vec<usize>, bool) {
        let mut dims: Vec<usize> = match &self.reduction {
            None => self.loop_shape.clone(),
            Some(red) => red.kept().iter().chain(&red.axes).map(|&a| red.in_shape[a]).collect(),
        };
        let outer_kept = match &self.reduction {
            None => !dims.is_empty(),
            Some(red) => !red.kept().is_empty(),
        };
        if !outer_kept {
            dims.insert(0, 1);
        }
        (dims, !outer_kept)
    }

    /// The extent of the outermost loop.
    pub fn outer_extent(&self) -> i64 {
        self.loop_dims().0[0] as i64
    }

    /// A cost estimate of one outer iteration: the loop elements under it times the
    /// equations' weights (at least 1). An equation weighs 1, except a `convert` to or
    /// from a 16-bit float, which weighs [`HALF_CONVERT_WEIGHT`]: its rounding is a dozen
    /// integer vector operations, so a kernel that only rounds a weight matrix to bf16
    /// (two equations) costs about what an eight-equation f32 kernel does, and is worth
    /// splitting across threads at the same size.
    pub fn work_per_outer(&self, func: &Func) -> f64 {
        let (dims, _) = self.loop_dims();
        let inner: f64 = dims[1..].iter().map(|&d| d as f64).product();
        let weight = |e: &ferrax_ir::Eqn| {
            let half = e.prim.convert_dtype().is_some()
                && (e.outputs.iter().chain(&e.inputs)).any(|&v| func.ty(v).dtype.is_half());
            if half { HALF_CONVERT_WEIGHT } else { 1.0 }
        };
        inner * func.eqns.iter().map(weight).sum::<f64>().max(1.0)
    }
}

/// Whether `prim` is elementwise (its operands and result share one shape).
fn is_elementwise(prim: &Prim) -> bool {
    prim.is_elementwise()
}

/// The kind and axes of `prim` if it is the reduction of a kernel.
fn reduction_kind(prim: &Prim) -> Option<(RedKind, Vec<usize>)> {
    match prim {
        Prim::Reduction(ReductionOp::Reduce { op, axes }) => Some((RedKind::Reduce(*op), axes.clone())),
        Prim::Reduction(ReductionOp::ArgReduce { op, axis, .. }) => Some((RedKind::Arg(*op), vec![*axis])),
        _ => None,
    }
}

/// The loop shape of a kernel without a reduction: the shape every result has.
fn elementwise_loop_shape(func: &Func) -> Result<Vec<usize>, Error> {
    let shape = match func.results.first() {
        Some(&r) => func.ty(r).shape.to_vec(),
        None => Vec::new(),
    };
    if let Some(bad) = func.results.iter().find(|&&r| func.ty(r).shape[..] != shape[..]) {
        return Err(kernel_error(func, None, format!("result {bad} does not have the loop shape")));
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::Plan;
    use crate::exec::split::SPLIT_WORK;

    fn work(body: &str) -> f64 {
        let text =
            format!("func @k[kind=\"fusion\"](%x: f32[784,512]) -> (f32[784,512]) {{\n{body}\n  return %y\n}}\n");
        let module = ferrax_ir::parse(&text).unwrap();
        let func = module.entry().unwrap();
        let plan = Plan::new(func).unwrap();
        plan.work_per_outer(func) * plan.outer_extent() as f64
    }

    #[test]
    fn rounding_to_bf16_weighs_as_its_integer_code() {
        // A bf16 weight matrix of W7 rounded in f32: split across threads, where two
        // cheap f32 equations over the same elements are not.
        let round = work("  %h: bf16[784,512] = convert[dtype=bf16](%x)\n  %y: f32[784,512] = convert[dtype=f32](%h)");
        let plain = work("  %n: f32[784,512] = neg(%x)\n  %y: f32[784,512] = abs(%n)");
        assert!(round > SPLIT_WORK && plain <= SPLIT_WORK, "{round} {plain}");
    }
}
