//! Transposition of the linear forms of `scan`, `cond` and `custom_vjp` that
//! reverse mode builds.

use crate::Type;
use crate::prim::ScanParams;

/// The type of an input of a linear equation.
fn input_type(em: &crate::Emitter, input: &crate::prim::ad::LinearIn) -> Type {
    match input {
        crate::prim::ad::LinearIn::Residual(v) => em.ty(*v).clone(),
        crate::prim::ad::LinearIn::Linear(ty) => ty.clone(),
    }
}

/// `ct`, or zeros of type `ty` where it is symbolically zero.
fn or_zeros(em: &mut crate::Emitter, ct: Option<crate::Value>, ty: &Type) -> Result<crate::Value, String> {
    match ct {
        Some(ct) => Ok(ct),
        None => em.zeros(ty),
    }
}

/// `remat`: its body transposed, with the residuals its recomputation reads guarded
/// (see [`guard_recomputation`]).
pub(super) fn transpose_remat(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::TransposeContext,
    func: &str,
    inputs: &[crate::prim::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<Vec<Option<crate::Value>>, String> {
    let guarded = guard_recomputation(em, cx, func, inputs)?;
    cx.transpose_into(em, func, &guarded, cts)
}

/// The tag of the identity [`guard_recomputation`] puts between a saved value and the
/// backward pass's recomputation from it.
pub const RECOMPUTE_TAG: &str = "remat.recompute";

/// `inputs` of a `remat` region's linear body, each residual that the recomputation
/// (the body's equations that read no linear value, `reload`s aside) reads first passed through
/// `name[name="remat.recompute"]`. The recomputed equations then read values the
/// forward pass never computed, so common-subexpression elimination cannot merge them
/// with the forward pass's own (which would keep the forward values alive until the
/// backward pass and undo the checkpoint), as JAX's `optimization_barrier` does.
fn guard_recomputation(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::TransposeContext,
    func: &str,
    inputs: &[crate::prim::ad::LinearIn],
) -> Result<Vec<crate::prim::ad::LinearIn>, String> {
    use crate::prim::ad::LinearIn;
    let body = cx.module().func(func).ok_or_else(|| format!("no Func @{func}"))?;
    let mut linear = vec![false; body.value_types.len()];
    for (p, input) in body.params.iter().zip(inputs) {
        linear[p.index()] = input.is_linear();
    }
    let mut recomputed_reads = vec![false; body.value_types.len()];
    for e in &body.eqns {
        if e.inputs.iter().any(|v| linear[v.index()]) {
            e.outputs.iter().for_each(|o| linear[o.index()] = true);
        } else if !matches!(e.prim, crate::Prim::Memory(_)) {
            // A reload brings a value back (an offloaded one must reach it unguarded).
            e.inputs.iter().for_each(|v| recomputed_reads[v.index()] = true);
        }
    }
    let guard = crate::Prim::Name { name: RECOMPUTE_TAG.to_string() };
    let mut out = Vec::with_capacity(inputs.len());
    for (p, input) in body.params.iter().zip(inputs) {
        out.push(match input {
            LinearIn::Residual(v) if recomputed_reads[p.index()] => LinearIn::Residual(em.op(guard.clone(), &[*v])?),
            other => other.clone(),
        });
    }
    Ok(out)
}

/// The transpose rule of a linear `scan`: a scan in the opposite direction over the
/// transposed body. Its carries are the cotangents of the carries, then one
/// accumulator per linear const (their cotangents summed over the iterations); its xs
/// are the residual xs, then the given cotangents of the ys; its ys are the
/// cotangents of the linear xs. Every carry is treated as linear (a known initial
/// carry, such as an instantiated zero, simply drops its cotangent). A carry whose
/// input the body never reads linearly has a symbolically zero cotangent once the
/// scan runs at least once: it is reported as `None`, so that nothing upstream
/// multiplies a materialised zero by a non-finite residual (0 * inf is NaN, where the
/// true derivative is 0).
pub(super) fn transpose_scan(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::TransposeContext,
    s: &ScanParams,
    inputs: &[crate::prim::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<Vec<Option<crate::Value>>, String> {
    let (k, c) = (s.num_consts, s.num_carry);
    let body = cx.module().func(&s.body).ok_or_else(|| format!("scan: no body @{}", s.body))?;
    let param_types = body.param_types();
    let result_types = body.result_types.clone();
    if param_types.len() != inputs.len() || result_types.len() != cts.len() || k + c > inputs.len() {
        return Err(format!("scan: the operands or cotangents do not fit the body @{}", s.body));
    }
    let linear_consts: Vec<usize> = (0..k).filter(|&i| inputs[i].is_linear()).collect();
    let linear_xs: Vec<usize> = (k + c..inputs.len()).filter(|&i| inputs[i].is_linear()).collect();
    if c == 0 && linear_consts.is_empty() && linear_xs.is_empty() {
        return Ok(vec![None; inputs.len()]);
    }
    let (name, [consts, xs], unread) = transposed_scan_body(cx, s, [&param_types, &result_types], inputs, cts)?;
    let mut operands = consts;
    let n_consts = operands.len();
    for (i, ct) in cts[..c].iter().enumerate() {
        operands.push(or_zeros(em, *ct, &param_types[k + i])?);
    }
    for &i in &linear_consts {
        operands.push(em.zeros(&param_types[i])?);
    }
    operands.extend(xs);
    let num_carry = c + linear_consts.len();
    let params =
        ScanParams { body: name, num_consts: n_consts, num_carry, reverse: !s.reverse, checkpoint: None, ..*s };
    let outs = em.eqn(cx.module(), crate::Prim::scan(params), &operands)?;
    let mut out_cts: Vec<Option<crate::Value>> = vec![None; inputs.len()];
    for i in 0..c {
        let zero = s.length > 0 && unread[i];
        out_cts[k + i] = (inputs[k + i].is_linear() && !zero).then_some(outs[i]);
    }
    for (j, &i) in linear_consts.iter().chain(&linear_xs).enumerate() {
        out_cts[i] = Some(outs[c + j]);
    }
    Ok(out_cts)
}

/// The body of a transposed scan: `(residual consts, carry cotangents, accumulators of
/// the linear consts' cotangents, residual xs, given ys cotangents) -> (carry
/// cotangents, accumulators, linear xs cotangents)`. Returns its name and the outer
/// operands for its residual consts and for its xs (residual xs, ys cotangents), and
/// for each carry whether its cotangent out of the body is symbolically zero.
fn transposed_scan_body(
    cx: &mut dyn crate::prim::ad::TransposeContext,
    s: &ScanParams,
    [param_types, result_types]: [&[Type]; 2],
    inputs: &[crate::prim::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<(String, [Vec<crate::Value>; 2], Vec<bool>), String> {
    use crate::prim::ad::LinearIn;
    let (k, c) = (s.num_consts, s.num_carry);
    let mut b = crate::Emitter::new(format!("{}_transpose", s.body));
    let mut body_inputs: Vec<LinearIn> = param_types.iter().map(|t| LinearIn::Linear(t.clone())).collect();
    let (mut outer_consts, mut outer_xs) = (Vec::new(), Vec::new());
    let mut residual_param = |b: &mut crate::Emitter, i: usize, outer: &mut Vec<crate::Value>| {
        if let LinearIn::Residual(v) = inputs[i] {
            body_inputs[i] = LinearIn::Residual(b.param(param_types[i].clone()));
            outer.push(v);
        }
    };
    (0..k).for_each(|i| residual_param(&mut b, i, &mut outer_consts));
    let carry_cts: Vec<crate::Value> = param_types[k..k + c].iter().map(|t| b.param(t.clone())).collect();
    let linear_consts: Vec<usize> = (0..k).filter(|&i| inputs[i].is_linear()).collect();
    let accumulators: Vec<crate::Value> = linear_consts.iter().map(|&i| b.param(param_types[i].clone())).collect();
    (k + c..inputs.len()).for_each(|i| residual_param(&mut b, i, &mut outer_xs));
    let mut body_cts: Vec<Option<crate::Value>> = carry_cts.iter().map(|&v| Some(v)).collect();
    for (j, ct) in cts[c..].iter().enumerate() {
        body_cts.push(ct.map(|_| b.param(result_types[c + j].clone())));
        outer_xs.extend(ct);
    }
    let in_cts = cx.transpose_into(&mut b, &s.body, &body_inputs, &body_cts)?;
    let unread = in_cts[k..k + c].iter().map(Option::is_none).collect();
    let mut results = Vec::new();
    for i in k..k + c {
        results.push(or_zeros(&mut b, in_cts[i], &param_types[i])?);
    }
    for (&i, &acc) in linear_consts.iter().zip(&accumulators) {
        results.push(match in_cts[i] {
            Some(ct) => b.add(acc, ct)?,
            None => acc,
        });
    }
    for i in (k + c..inputs.len()).filter(|&i| inputs[i].is_linear()) {
        results.push(or_zeros(&mut b, in_cts[i], &param_types[i])?);
    }
    Ok((cx.add_func(b.finish(&results))?, [outer_consts, outer_xs], unread))
}

/// The transpose rule of a linear `cond`: a `cond` on the same index over the
/// transposed branches, each taking the residual operands and the given cotangents and
/// returning the cotangents of the linear operands.
pub(super) fn transpose_cond(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::TransposeContext,
    branches: &[String],
    inputs: &[crate::prim::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<Vec<Option<crate::Value>>, String> {
    use crate::prim::ad::LinearIn;
    let Some((index, operands)) = inputs.split_first() else {
        return Err("cond: expects an index operand".into());
    };
    let index = index.residual("the index of cond")?;
    let linear: Vec<usize> = (0..operands.len()).filter(|&i| operands[i].is_linear()).collect();
    if linear.is_empty() {
        return Ok(vec![None; inputs.len()]);
    }
    let types: Vec<Type> = operands.iter().map(|input| input_type(em, input)).collect();
    let first = branches.first().ok_or("cond: has no branches")?;
    let result_types = cx.module().func(first).map(|f| f.result_types.clone()).ok_or("cond: no branch Func")?;
    let mut names = Vec::with_capacity(branches.len());
    for branch in branches {
        let mut b = crate::Emitter::new(format!("{branch}_transpose"));
        let mut branch_inputs = Vec::with_capacity(operands.len());
        for (input, ty) in operands.iter().zip(&types) {
            branch_inputs.push(match input {
                LinearIn::Residual(_) => LinearIn::Residual(b.param(ty.clone())),
                LinearIn::Linear(ty) => LinearIn::Linear(ty.clone()),
            });
        }
        let branch_cts: Vec<Option<crate::Value>> =
            cts.iter().zip(&result_types).map(|(ct, ty)| ct.map(|_| b.param(ty.clone()))).collect();
        let in_cts = cx.transpose_into(&mut b, branch, &branch_inputs, &branch_cts)?;
        let mut results = Vec::with_capacity(linear.len());
        for &i in &linear {
            results.push(or_zeros(&mut b, in_cts[i], &types[i])?);
        }
        names.push(cx.add_func(b.finish(&results))?);
    }
    let mut args = vec![index];
    args.extend(operands.iter().filter_map(|input| match input {
        LinearIn::Residual(v) => Some(*v),
        LinearIn::Linear(_) => None,
    }));
    args.extend(cts.iter().flatten());
    let outs = em.eqn(cx.module(), crate::Prim::cond(names), &args)?;
    let mut out_cts = vec![None; inputs.len()];
    for (&i, &ct) in linear.iter().zip(&outs) {
        out_cts[1 + i] = Some(ct);
    }
    Ok(out_cts)
}

/// The residuals of `fwd` when it returns residual inputs unchanged (as reverse mode's
/// linear `custom_vjp` does): then `fwd` need not run again.
fn forwarded_residuals(
    module: &crate::Module,
    fwd: &str,
    n_out: usize,
    inputs: &[crate::prim::ad::LinearIn],
) -> Option<Vec<crate::Value>> {
    let f = module.func(fwd)?;
    let forwarded = |r: &crate::Value| match inputs.get(f.params.iter().position(|p| p == r)?)? {
        crate::prim::ad::LinearIn::Residual(v) => Some(*v),
        crate::prim::ad::LinearIn::Linear(_) => None,
    };
    f.results.get(n_out..)?.iter().map(forwarded).collect()
}

/// The transpose rule of a `custom_vjp` in linear code (reverse mode emits one for
/// the tangent part of a `custom_vjp`): the equation is linear in its linear inputs,
/// so its residuals do not depend on them. `fwd` runs with the linear inputs set to
/// zero for the residuals (unless it merely forwards residual inputs, which are then
/// used directly), and `bwd(residuals..., cotangents of the outputs...)` gives the
/// cotangents of the float inputs.
pub(super) fn transpose_custom_vjp(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::TransposeContext,
    [func, fwd, bwd]: [&String; 3],
    inputs: &[crate::prim::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<Vec<Option<crate::Value>>, String> {
    use crate::prim::ad::LinearIn;
    let result_types = cx.module().func(func).map(|f| f.result_types.clone()).ok_or("custom_vjp: no func")?;
    let mut bwd_args = match forwarded_residuals(cx.module(), fwd, result_types.len(), inputs) {
        Some(residuals) => residuals,
        None => {
            let mut args = Vec::with_capacity(inputs.len());
            for input in inputs {
                args.push(match input {
                    LinearIn::Residual(v) => *v,
                    LinearIn::Linear(ty) => em.zeros(ty)?,
                });
            }
            let outs = em.eqn(cx.module(), crate::Prim::call(fwd.clone()), &args)?;
            outs[result_types.len()..].to_vec()
        }
    };
    for (ct, ty) in cts.iter().zip(&result_types) {
        bwd_args.push(or_zeros(em, *ct, ty)?);
    }
    let float_cts = em.eqn(cx.module(), crate::Prim::call(bwd.clone()), &bwd_args)?;
    let mut float_cts = float_cts.into_iter();
    let mut out_cts = Vec::with_capacity(inputs.len());
    for input in inputs {
        let ct = if input_type(em, input).dtype.is_float() { float_cts.next() } else { None };
        out_cts.push(ct.filter(|_| input.is_linear()));
    }
    Ok(out_cts)
}
