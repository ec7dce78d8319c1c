//! Structured primitives whose bodies are Funcs of the same module: `call`, `cond`,
//! `while`, `scan`, `custom_jvp`, `custom_vjp`, `remat`.

use crate::{Module, Type, format_types};
use ferrax_array::DType;
use std::fmt;
use std::str::FromStr;

/// The static parameters of a `scan`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScanParams {
    /// `@b(consts..., carry..., x_slices...) -> (carry..., y_slices...)`.
    pub body: String,
    /// Number of iterations (the leading size of every `xs` and `ys`).
    pub length: usize,
    /// Leading operands passed unchanged to every iteration.
    pub num_consts: usize,
    /// Operands threaded from one iteration to the next.
    pub num_carry: usize,
    /// Iterate from the last slice to the first.
    pub reverse: bool,
    /// Reverse mode keeps every K-th carry and recomputes the rest.
    pub checkpoint: Option<usize>,
}

/// What a `remat` region saves for the backward pass.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RematPolicy {
    /// Save only the region's inputs.
    Nothing,
    /// Save `dot_general` outputs.
    Dots,
    /// Save values tagged by `name` with one of these names.
    Names(Vec<String>),
}

impl fmt::Display for RematPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RematPolicy::Nothing => f.write_str("nothing"),
            RematPolicy::Dots => f.write_str("dots"),
            RematPolicy::Names(names) => write!(f, "names:{}", names.join(",")),
        }
    }
}

impl FromStr for RematPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<RematPolicy, String> {
        match s {
            "nothing" => Ok(RematPolicy::Nothing),
            "dots" => Ok(RematPolicy::Dots),
            _ => match s.strip_prefix("names:") {
                Some(list) => {
                    Ok(RematPolicy::Names(list.split(',').filter(|n| !n.is_empty()).map(String::from).collect()))
                }
                None => Err(format!("remat: unknown policy \"{s}\" (expected \"nothing\", \"dots\" or \"names:a,b\")")),
            },
        }
    }
}

fn signature<'m>(op: &str, role: &str, name: &str, module: &'m Module) -> Result<(Vec<Type>, &'m [Type]), String> {
    module.signature(name).ok_or_else(|| format!("{op}: {role} @{name} is not a Func of the module"))
}

fn expect_params(op: &str, role: &str, name: &str, params: &[Type], expected: &[Type]) -> Result<(), String> {
    if params == expected {
        Ok(())
    } else {
        Err(format!("{op}: {role} @{name} takes {} but is given {}", format_types(params), format_types(expected)))
    }
}

fn expect_results(op: &str, role: &str, name: &str, results: &[Type], expected: &[Type]) -> Result<(), String> {
    if results == expected {
        Ok(())
    } else {
        Err(format!(
            "{op}: {role} @{name} returns {} but must return {}",
            format_types(results),
            format_types(expected)
        ))
    }
}

// ---- type rules ----

pub(crate) fn infer_call(func: &str, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let (params, results) = signature("call", "callee", func, module)?;
    expect_params("call", "callee", func, &params, inputs)?;
    Ok(results.to_vec())
}

pub(crate) fn infer_cond(branches: &[String], inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let op = "cond";
    let Some((selector, operands)) = inputs.split_first() else {
        return Err(format!("{op}: expects a predicate or index operand"));
    };
    match (selector.dtype, selector.rank()) {
        (DType::I32, 0) => {}
        (DType::Bool, 0) if branches.len() == 2 => {}
        (DType::Bool, 0) => return Err(format!("{op}: a bool predicate needs 2 branches, got {}", branches.len())),
        _ => return Err(format!("{op}: the selector must be i32[] or bool[], got {selector}")),
    }
    let Some(first) = branches.first() else {
        return Err(format!("{op}: needs at least one branch"));
    };
    let (_, first_results) = signature(op, "branch", first, module)?;
    for (i, branch) in branches.iter().enumerate() {
        let (params, results) = signature(op, &format!("branch {i}"), branch, module)?;
        expect_params(op, &format!("branch {i}"), branch, &params, operands)?;
        expect_results(op, &format!("branch {i}"), branch, results, first_results)?;
    }
    Ok(first_results.to_vec())
}

pub(crate) fn infer_while(cond: &str, body: &str, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let op = "while";
    let (cond_params, cond_results) = signature(op, "cond", cond, module)?;
    expect_params(op, "cond", cond, &cond_params, inputs)?;
    expect_results(op, "cond", cond, cond_results, &[Type::scalar(DType::Bool)])?;
    let (body_params, body_results) = signature(op, "body", body, module)?;
    expect_params(op, "body", body, &body_params, inputs)?;
    expect_results(op, "body", body, body_results, inputs)?;
    Ok(inputs.to_vec())
}

pub(crate) fn infer_scan(s: &ScanParams, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let op = "scan";
    let fixed = s.num_consts.checked_add(s.num_carry).filter(|&n| n <= inputs.len()).ok_or_else(|| {
        format!("{op}: num_consts={} + num_carry={} exceeds the {} operands", s.num_consts, s.num_carry, inputs.len())
    })?;
    if s.checkpoint == Some(0) {
        return Err(format!("{op}: checkpoint must be >= 1 (or none)"));
    }
    let mut body_inputs: Vec<Type> = inputs[..fixed].to_vec();
    for (i, x) in inputs[fixed..].iter().enumerate() {
        if x.shape.first() != Some(&s.length) {
            return Err(format!("{op}: xs operand {i} is {x} but its leading axis must have size length={}", s.length));
        }
        body_inputs.push(Type::new(x.dtype, &x.shape[1..]));
    }
    let (params, results) = signature(op, "body", &s.body, module)?;
    expect_params(op, "body", &s.body, &params, &body_inputs)?;
    let carry = &inputs[s.num_consts..fixed];
    if results.len() < s.num_carry || &results[..s.num_carry] != carry {
        return Err(format!(
            "{op}: body @{} returns {} but must start with the carry {}",
            s.body,
            format_types(results),
            format_types(carry)
        ));
    }
    let mut out = carry.to_vec();
    for y in &results[s.num_carry..] {
        let mut shape = y.shape.clone();
        shape.insert(0, s.length);
        out.push(Type { dtype: y.dtype, shape });
    }
    Ok(out)
}

pub(crate) fn infer_custom_jvp(func: &str, jvp: &str, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let op = "custom_jvp";
    let (params, results) = signature(op, "func", func, module)?;
    expect_params(op, "func", func, &params, inputs)?;
    let (jvp_params, jvp_results) = signature(op, "jvp", jvp, module)?;
    let doubled = |t: &[Type]| [t, t].concat();
    expect_params(op, "jvp rule", jvp, &jvp_params, &doubled(inputs))?;
    expect_results(op, "jvp rule", jvp, jvp_results, &doubled(results))?;
    Ok(results.to_vec())
}

pub(crate) fn infer_custom_vjp(
    func: &str,
    fwd: &str,
    bwd: &str,
    inputs: &[Type],
    module: &Module,
) -> Result<Vec<Type>, String> {
    let op = "custom_vjp";
    let (params, results) = signature(op, "func", func, module)?;
    expect_params(op, "func", func, &params, inputs)?;
    let (fwd_params, fwd_results) = signature(op, "fwd", fwd, module)?;
    expect_params(op, "fwd", fwd, &fwd_params, inputs)?;
    if fwd_results.len() < results.len() || &fwd_results[..results.len()] != results {
        return Err(format!(
            "{op}: fwd @{fwd} returns {} but must start with the outputs of @{func} {}",
            format_types(fwd_results),
            format_types(results)
        ));
    }
    let residuals = &fwd_results[results.len()..];
    let (bwd_params, bwd_results) = signature(op, "bwd", bwd, module)?;
    expect_params(op, "bwd", bwd, &bwd_params, &[residuals, results].concat())?;
    let float_inputs: Vec<Type> = inputs.iter().filter(|t| t.dtype.is_float()).cloned().collect();
    expect_results(op, "bwd", bwd, bwd_results, &float_inputs)?;
    Ok(results.to_vec())
}

// ---- differentiation rules ----

/// The jvp rule of the structured primitives: emits one transformed equation that
/// computes the outputs and their tangents, differentiating the bodies through `cx`.
pub(crate) fn jvp_control(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::JvpContext,
    prim: &super::Prim,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    use super::Prim;
    let nonzero: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let nonzero_tangents: Vec<crate::Value> = tangents.iter().flatten().copied().collect();
    match prim {
        Prim::Call { func } | Prim::CustomVjp { func, .. } => {
            // Forward mode through custom_vjp differentiates `func` (DESIGN section 3).
            let jf = cx.jvp_func(func, &nonzero, &vec![false; n_results(cx, func)?])?;
            call_jvp(em, cx, Prim::Call { func: jf.name.clone() }, primals, &nonzero_tangents, &jf.out_nonzero)
        }
        Prim::Remat { func, policy } => {
            let jf = cx.jvp_func(func, &nonzero, &vec![false; n_results(cx, func)?])?;
            let remat = Prim::Remat { func: jf.name.clone(), policy: policy.clone() };
            call_jvp(em, cx, remat, primals, &nonzero_tangents, &jf.out_nonzero)
        }
        Prim::CustomJvp { func: _, jvp } => {
            // The rule takes one tangent per primal: instantiate the zero ones.
            let mut inputs = primals.to_vec();
            for (&p, t) in primals.iter().zip(tangents) {
                inputs.push(match t {
                    Some(t) => *t,
                    None => em.full_like(p, 0.0)?,
                });
            }
            let outs = em.eqn(cx.module(), Prim::Call { func: jvp.clone() }, &inputs)?;
            let n = outs.len() / 2;
            let tangents_out = outs[n..].iter().map(|&t| em.ty(t).dtype.is_float().then_some(t)).collect();
            Ok((outs[..n].to_vec(), tangents_out))
        }
        Prim::Cond { branches } => jvp_cond(em, cx, branches, primals, tangents),
        Prim::While { cond, body, max_iters } => jvp_while(em, cx, cond, body, *max_iters, primals, tangents),
        Prim::Scan(params) => jvp_scan(em, cx, params, primals, tangents),
        other => Err(format!("{}: not a structured primitive", other.name())),
    }
}

fn n_results(cx: &dyn super::ad::JvpContext, func: &str) -> Result<usize, String> {
    cx.module().func(func).map(|f| f.results.len()).ok_or_else(|| format!("no Func @{func}"))
}

/// Emits `prim(primals..., tangents...)` for a jvp'd callee and splits its results
/// into outputs and the tangents marked in `out_nonzero`.
fn call_jvp(
    em: &mut crate::Emitter,
    cx: &dyn super::ad::JvpContext,
    prim: super::Prim,
    primals: &[crate::Value],
    tangents: &[crate::Value],
    out_nonzero: &[bool],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let inputs: Vec<crate::Value> = primals.iter().chain(tangents).copied().collect();
    let outs = em.eqn(cx.module(), prim, &inputs)?;
    Ok(split_outputs(&outs, out_nonzero))
}

/// Splits `outputs..., tangents of the nonzero outputs...` into two lists.
fn split_outputs(outs: &[crate::Value], out_nonzero: &[bool]) -> (Vec<crate::Value>, Vec<Option<crate::Value>>) {
    let n = out_nonzero.len();
    let mut extra = outs[n..].iter();
    let tangents = out_nonzero.iter().map(|&nz| if nz { extra.next().copied() } else { None }).collect();
    (outs[..n].to_vec(), tangents)
}

fn or_masks(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x || *y).collect()
}

/// Instantiates zero tangents for the positions marked in `mask` that have none.
fn instantiate(
    em: &mut crate::Emitter,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
    mask: &[bool],
) -> Result<Vec<crate::Value>, String> {
    let mut out = Vec::new();
    for ((&p, t), &m) in primals.iter().zip(tangents).zip(mask) {
        if m {
            out.push(match t {
                Some(t) => *t,
                None => em.full_like(p, 0.0)?,
            });
        }
    }
    Ok(out)
}

fn jvp_cond(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::JvpContext,
    branches: &[String],
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let nonzero: Vec<bool> = tangents[1..].iter().map(Option::is_some).collect();
    let n_out = n_results(cx, &branches[0])?;
    // Outputs with a tangent in any branch get one in every branch.
    let mut out_nonzero = vec![false; n_out];
    for branch in branches {
        out_nonzero = or_masks(&out_nonzero, &cx.jvp_func(branch, &nonzero, &vec![false; n_out])?.out_nonzero);
    }
    let mut names = Vec::with_capacity(branches.len());
    for branch in branches {
        names.push(cx.jvp_func(branch, &nonzero, &out_nonzero)?.name);
    }
    let nonzero_tangents: Vec<crate::Value> = tangents[1..].iter().flatten().copied().collect();
    call_jvp(em, cx, super::Prim::Cond { branches: names }, primals, &nonzero_tangents, &out_nonzero)
}

/// The carries of a `while` body with a tangent: those given one, and those a body
/// step gives one, to a fixpoint.
fn carry_fixpoint(cx: &mut dyn super::ad::JvpContext, body: &str, given: &[bool]) -> Result<Vec<bool>, String> {
    let mut carry = given.to_vec();
    loop {
        let out = cx.jvp_func(body, &carry, &carry)?.out_nonzero;
        let next = or_masks(&carry, &out);
        if next == carry {
            return Ok(carry);
        }
        carry = next;
    }
}

fn jvp_while(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::JvpContext,
    cond: &str,
    body: &str,
    max_iters: Option<usize>,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let given: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let carry = carry_fixpoint(cx, body, &given)?;
    let body_jvp = cx.jvp_func(body, &carry, &carry)?;
    let cond_jvp = cx.jvp_func(cond, &carry, &[false])?;
    let carry_tangents = instantiate(em, primals, tangents, &carry)?;
    let prim = super::Prim::While { cond: cond_jvp.name, body: body_jvp.name, max_iters };
    call_jvp(em, cx, prim, primals, &carry_tangents, &carry)
}

fn jvp_scan(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::JvpContext,
    params: &ScanParams,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let (k, c) = (params.num_consts, params.num_carry);
    let given: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let n_ys = n_results(cx, &params.body)? - c;
    // Fixpoint over the carries, with the consts' and xs' masks fixed.
    let mut carry = given[k..k + c].to_vec();
    loop {
        let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
        let mut inst = carry.clone();
        inst.extend(vec![false; n_ys]);
        let out = cx.jvp_func(&params.body, &mask, &inst)?.out_nonzero;
        let next = or_masks(&carry, &out[..c]);
        if next == carry {
            break;
        }
        carry = next;
    }
    let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
    let mut inst = carry.clone();
    inst.extend(vec![false; n_ys]);
    let jf = cx.jvp_func(&params.body, &mask, &inst)?;
    // The jvp'd body takes (consts, carry, xs, tangents of those) and returns (carry,
    // ys, tangents of carry, tangents of ys); a scan needs (consts + their tangents,
    // carry + theirs, xs + theirs) and (carry + theirs, ys + theirs).
    let ys_nonzero = jf.out_nonzero[c..].to_vec();
    let name = cx.scan_body_jvp(&jf.name, [k, c, primals.len() - k - c], &mask, c, &jf.out_nonzero)?;
    let consts_t: Vec<crate::Value> = tangents[..k].iter().flatten().copied().collect();
    let carry_t = instantiate(em, &primals[k..k + c], &tangents[k..k + c], &carry)?;
    let xs_t: Vec<crate::Value> = tangents[k + c..].iter().flatten().copied().collect();
    let mut inputs: Vec<crate::Value> = primals[..k].to_vec();
    inputs.extend(&consts_t);
    inputs.extend(&primals[k..k + c]);
    inputs.extend(&carry_t);
    inputs.extend(&primals[k + c..]);
    inputs.extend(&xs_t);
    let n_carry_t = carry_t.len();
    let scan = super::Prim::Scan(ScanParams {
        body: name,
        length: params.length,
        num_consts: k + consts_t.len(),
        num_carry: c + n_carry_t,
        reverse: params.reverse,
        checkpoint: params.checkpoint,
    });
    let outs = em.eqn(cx.module(), scan, &inputs)?;
    // Outputs: carry, carry tangents, ys, ys tangents.
    let carry_out = outs[..c].to_vec();
    let mut carry_t_out = outs[c..c + n_carry_t].iter();
    let ys_out = outs[c + n_carry_t..c + n_carry_t + n_ys].to_vec();
    let mut ys_t_out = outs[c + n_carry_t + n_ys..].iter();
    let mut out_tangents: Vec<Option<crate::Value>> =
        carry.iter().map(|&nz| if nz { carry_t_out.next().copied() } else { None }).collect();
    out_tangents.extend(ys_nonzero.iter().map(|&nz| if nz { ys_t_out.next().copied() } else { None }));
    let mut outputs = carry_out;
    outputs.extend(ys_out);
    Ok((outputs, out_tangents))
}

/// The type of an input of a linear equation.
fn input_type(em: &crate::Emitter, input: &super::ad::LinearIn) -> Type {
    match input {
        super::ad::LinearIn::Residual(v) => em.ty(*v).clone(),
        super::ad::LinearIn::Linear(ty) => ty.clone(),
    }
}

/// `ct`, or zeros of type `ty` where it is symbolically zero.
fn or_zeros(em: &mut crate::Emitter, ct: Option<crate::Value>, ty: &Type) -> Result<crate::Value, String> {
    match ct {
        Some(ct) => Ok(ct),
        None => em.zeros(ty),
    }
}

/// The transpose rule of a linear `scan`: a scan in the opposite direction over the
/// transposed body. Its carries are the cotangents of the carries, then one
/// accumulator per linear const (their cotangents summed over the iterations); its xs
/// are the residual xs, then the given cotangents of the ys; its ys are the
/// cotangents of the linear xs. Every carry is treated as linear (a known initial
/// carry, such as an instantiated zero, simply drops its cotangent).
pub(crate) fn transpose_scan(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::TransposeContext,
    s: &ScanParams,
    inputs: &[super::ad::LinearIn],
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
    let (name, [consts, xs]) = transposed_scan_body(cx, s, [&param_types, &result_types], inputs, cts)?;
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
    let outs = em.eqn(cx.module(), super::Prim::Scan(params), &operands)?;
    let mut out_cts: Vec<Option<crate::Value>> = vec![None; inputs.len()];
    for i in 0..c {
        out_cts[k + i] = inputs[k + i].is_linear().then_some(outs[i]);
    }
    for (j, &i) in linear_consts.iter().chain(&linear_xs).enumerate() {
        out_cts[i] = Some(outs[c + j]);
    }
    Ok(out_cts)
}

/// The body of a transposed scan: `(residual consts, carry cotangents, accumulators of
/// the linear consts' cotangents, residual xs, given ys cotangents) -> (carry
/// cotangents, accumulators, linear xs cotangents)`. Returns its name and the outer
/// operands for its residual consts and for its xs (residual xs, ys cotangents).
fn transposed_scan_body(
    cx: &mut dyn super::ad::TransposeContext,
    s: &ScanParams,
    [param_types, result_types]: [&[Type]; 2],
    inputs: &[super::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<(String, [Vec<crate::Value>; 2]), String> {
    use super::ad::LinearIn;
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
    Ok((cx.add_func(b.finish(&results))?, [outer_consts, outer_xs]))
}

/// The transpose rule of a linear `cond`: a `cond` on the same index over the
/// transposed branches, each taking the residual operands and the given cotangents and
/// returning the cotangents of the linear operands.
pub(crate) fn transpose_cond(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::TransposeContext,
    branches: &[String],
    inputs: &[super::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<Vec<Option<crate::Value>>, String> {
    use super::ad::LinearIn;
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
    let outs = em.eqn(cx.module(), super::Prim::Cond { branches: names }, &args)?;
    let mut out_cts = vec![None; inputs.len()];
    for (&i, &ct) in linear.iter().zip(&outs) {
        out_cts[1 + i] = Some(ct);
    }
    Ok(out_cts)
}

/// The residuals of `fwd` when it returns residual inputs unchanged (as reverse mode's
/// linear `custom_vjp` does): then `fwd` need not run again.
fn forwarded_residuals(
    module: &Module,
    fwd: &str,
    n_out: usize,
    inputs: &[super::ad::LinearIn],
) -> Option<Vec<crate::Value>> {
    let f = module.func(fwd)?;
    let forwarded = |r: &crate::Value| match inputs.get(f.params.iter().position(|p| p == r)?)? {
        super::ad::LinearIn::Residual(v) => Some(*v),
        super::ad::LinearIn::Linear(_) => None,
    };
    f.results.get(n_out..)?.iter().map(forwarded).collect()
}

/// The transpose rule of a `custom_vjp` in linear code (reverse mode emits one for
/// the tangent part of a `custom_vjp`): the equation is linear in its linear inputs,
/// so its residuals do not depend on them. `fwd` runs with the linear inputs set to
/// zero for the residuals (unless it merely forwards residual inputs, which are then
/// used directly), and `bwd(residuals..., cotangents of the outputs...)` gives the
/// cotangents of the float inputs.
pub(crate) fn transpose_custom_vjp(
    em: &mut crate::Emitter,
    cx: &mut dyn super::ad::TransposeContext,
    [func, fwd, bwd]: [&String; 3],
    inputs: &[super::ad::LinearIn],
    cts: &[Option<crate::Value>],
) -> Result<Vec<Option<crate::Value>>, String> {
    use super::ad::LinearIn;
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
            let outs = em.eqn(cx.module(), super::Prim::Call { func: fwd.clone() }, &args)?;
            outs[result_types.len()..].to_vec()
        }
    };
    for (ct, ty) in cts.iter().zip(&result_types) {
        bwd_args.push(or_zeros(em, *ct, ty)?);
    }
    let float_cts = em.eqn(cx.module(), super::Prim::Call { func: bwd.clone() }, &bwd_args)?;
    let mut float_cts = float_cts.into_iter();
    let mut out_cts = Vec::with_capacity(inputs.len());
    for input in inputs {
        let ct = if input_type(em, input).dtype.is_float() { float_cts.next() } else { None };
        out_cts.push(ct.filter(|_| input.is_linear()));
    }
    Ok(out_cts)
}

// ---- batching rules ----

use super::batch::{BatchContext, Batched};
use crate::{Emitter, Value};

/// Moves every batched input to axis 0 (and, where `all`, broadcasts the unbatched
/// ones there too); returns the inputs and which are batched.
fn inputs_at_front(
    em: &mut Emitter,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
    all: bool,
) -> Result<(Vec<Value>, Vec<bool>), String> {
    let mut out = Vec::with_capacity(inputs.len());
    let mut batched = Vec::with_capacity(inputs.len());
    for (&x, &d) in inputs.iter().zip(dims) {
        match (d, all) {
            (Some(d), _) => out.push(em.move_axis(x, d, 0)?),
            (None, true) => out.push(em.add_batch_axis(x, size, 0)?),
            (None, false) => out.push(x),
        }
        batched.push(d.is_some() || all);
    }
    Ok((out, batched))
}

fn front_dims(batched: &[bool]) -> Vec<Option<usize>> {
    batched.iter().map(|&b| b.then_some(0)).collect()
}

/// The batching rule of the structured primitives.
pub(crate) fn batch_control(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    prim: &super::Prim,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    use super::Prim;
    let size = cx.axis_size();
    match prim {
        Prim::Call { func } | Prim::Remat { func, .. } => {
            let (ins, batched) = inputs_at_front(em, size, inputs, dims, false)?;
            let n_out = cx.module().func(func).map(|f| f.results.len()).ok_or(format!("no Func @{func}"))?;
            let bf = cx.batch_func(func, &batched, &vec![false; n_out])?;
            let new = match prim {
                Prim::Remat { policy, .. } => Prim::Remat { func: bf.name, policy: policy.clone() },
                _ => Prim::Call { func: bf.name },
            };
            let outs = em.eqn(cx.module(), new, &ins)?;
            Ok((outs.to_vec(), front_dims(&bf.out_batched)))
        }
        Prim::CustomJvp { func, jvp } => {
            // Every input and output batched, so that the rule's signature still fits.
            let (ins, batched) = inputs_at_front(em, size, inputs, dims, true)?;
            let n_out = cx.module().func(func).map(|f| f.results.len()).ok_or(format!("no Func @{func}"))?;
            let f = cx.batch_func(func, &batched, &vec![true; n_out])?;
            let j = cx.batch_func(jvp, &[batched.clone(), batched].concat(), &vec![true; 2 * n_out])?;
            let outs = em.eqn(cx.module(), Prim::CustomJvp { func: f.name, jvp: j.name }, &ins)?;
            Ok((outs.to_vec(), vec![Some(0); n_out]))
        }
        Prim::CustomVjp { func, fwd, bwd } => {
            let (ins, batched) = inputs_at_front(em, size, inputs, dims, true)?;
            let module = cx.module();
            let n_out = module.func(func).map(|f| f.results.len()).ok_or(format!("no Func @{func}"))?;
            let n_fwd = module.func(fwd).map(|f| f.results.len()).ok_or(format!("no Func @{fwd}"))?;
            let n_bwd_in = module.func(bwd).map(|f| f.params.len()).ok_or(format!("no Func @{bwd}"))?;
            let n_bwd_out = module.func(bwd).map(|f| f.results.len()).unwrap_or(0);
            let f = cx.batch_func(func, &batched, &vec![true; n_out])?;
            let fw = cx.batch_func(fwd, &batched, &vec![true; n_fwd])?;
            let bw = cx.batch_func(bwd, &vec![true; n_bwd_in], &vec![true; n_bwd_out])?;
            let outs = em.eqn(cx.module(), Prim::CustomVjp { func: f.name, fwd: fw.name, bwd: bw.name }, &ins)?;
            Ok((outs.to_vec(), vec![Some(0); n_out]))
        }
        Prim::Cond { branches } => batch_cond(em, cx, branches, inputs, dims),
        Prim::While { cond, body, max_iters } => batch_while(em, cx, cond, body, *max_iters, inputs, dims),
        Prim::Scan(params) => batch_scan(em, cx, params, inputs, dims),
        other => Err(format!("{}: not a structured primitive", other.name())),
    }
}

fn or_all(masks: &[Vec<bool>]) -> Vec<bool> {
    let n = masks.first().map_or(0, Vec::len);
    (0..n).map(|i| masks.iter().any(|m| m[i])).collect()
}

fn batch_cond(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    branches: &[String],
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    use super::Prim;
    let size = cx.axis_size();
    let n_out = cx.module().func(&branches[0]).map(|f| f.results.len()).ok_or("no branch")?;
    if dims[0].is_none() {
        // The same branch for every example: batch the branches alike.
        let (ops, batched) = inputs_at_front(em, size, &inputs[1..], &dims[1..], false)?;
        let mut masks = Vec::new();
        for b in branches {
            masks.push(cx.batch_func(b, &batched, &vec![false; n_out])?.out_batched);
        }
        let out_batched = or_all(&masks);
        let mut names = Vec::new();
        for b in branches {
            names.push(cx.batch_func(b, &batched, &out_batched)?.name);
        }
        let mut all = vec![inputs[0]];
        all.extend(ops);
        let outs = em.eqn(cx.module(), Prim::Cond { branches: names }, &all)?;
        return Ok((outs.to_vec(), front_dims(&out_batched)));
    }
    // A batched selector: run every branch on every example and select per example.
    // Each branch sees its operands through select(taken, x, stop_gradient(x)), so
    // that in reverse mode no cotangent (and no NaN) flows back from a branch an
    // example did not take.
    let (ops, batched) = inputs_at_front(em, size, &inputs[1..], &dims[1..], true)?;
    let selector = em.move_axis(inputs[0], dims[0].unwrap_or(0), 0)?;
    let index = match em.ty(selector).dtype {
        ferrax_array::DType::Bool => em.convert(selector, ferrax_array::DType::I32)?,
        _ => {
            let last = em.full_like(selector, (branches.len() - 1) as f64)?;
            let zero = em.full_like(selector, 0.0)?;
            em.op(Prim::Clamp, &[zero, selector, last])?
        }
    };
    let mut result: Option<Vec<Value>> = None;
    for (k, b) in branches.iter().enumerate() {
        let kv = em.full_like(index, k as f64)?;
        let taken = em.compare(super::CompareOp::Eq, index, kv)?;
        let mut guarded = Vec::with_capacity(ops.len());
        for &x in &ops {
            let mask = broadcast_lanes(em, taken, x)?;
            let stopped = em.op(Prim::StopGradient, &[x])?;
            guarded.push(em.select(mask, x, stopped)?);
        }
        let bf = cx.batch_func(b, &batched, &vec![true; n_out])?;
        let outs = em.eqn(cx.module(), Prim::Call { func: bf.name }, &guarded)?;
        result = Some(match result {
            None => outs.to_vec(),
            Some(acc) => {
                let mut merged = Vec::with_capacity(acc.len());
                for (&a, &o) in acc.iter().zip(outs.iter()) {
                    let mask = broadcast_lanes(em, taken, o)?;
                    merged.push(em.select(mask, o, a)?);
                }
                merged
            }
        });
    }
    Ok((result.unwrap_or_default(), vec![Some(0); n_out]))
}

/// A per-example bool `lanes` (shape `[B]`) broadcast to the shape of `like` (batched
/// at axis 0).
fn broadcast_lanes(em: &mut Emitter, lanes: Value, like: Value) -> Result<Value, String> {
    let shape = em.ty(like).shape.clone();
    em.broadcast_in_dim(lanes, &shape, &[0])
}

fn batch_while(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    cond: &str,
    body: &str,
    max_iters: Option<usize>,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    use super::Prim;
    let size = cx.axis_size();
    let n = inputs.len();
    // Fixpoint: which carries vary.
    let mut batched: Vec<bool> = dims.iter().map(Option::is_some).collect();
    loop {
        let out = cx.batch_func(body, &batched, &batched)?.out_batched;
        let next: Vec<bool> = batched.iter().zip(&out).map(|(a, b)| *a || *b).collect();
        if next == batched {
            break;
        }
        batched = next;
    }
    let pred_batched = cx.batch_func(cond, &batched, &[false])?.out_batched[0];
    if !pred_batched {
        let mut ins = Vec::with_capacity(n);
        for ((&x, &d), &b) in inputs.iter().zip(dims).zip(&batched) {
            ins.push(if b { em.batch_at(x, d, size, 0)? } else { x });
        }
        let c = cx.batch_func(cond, &batched, &[false])?;
        let b = cx.batch_func(body, &batched, &batched)?;
        let outs = em.eqn(cx.module(), Prim::While { cond: c.name, body: b.name, max_iters }, &ins)?;
        return Ok((outs.to_vec(), front_dims(&batched)));
    }
    // A predicate that varies: every carry is batched; the loop runs while any example
    // is still running, and finished examples keep their carry.
    let all = vec![true; n];
    let (ins, _) = inputs_at_front(em, size, inputs, dims, true)?;
    let c = cx.batch_func(cond, &all, &[true])?;
    let b = cx.batch_func(body, &all, &all)?;
    let carry_types: Vec<crate::Type> = ins.iter().map(|&v| em.ty(v).clone()).collect();
    // any_cond(carry) = reduce_max over lanes of the per-example predicate.
    let mut any = Emitter::new(format!("{cond}_any"));
    let params: Vec<Value> = carry_types.iter().map(|t| any.param(t.clone())).collect();
    let lanes = any.eqn(cx.module(), Prim::Call { func: c.name.clone() }, &params)?[0];
    let as_int = any.convert(lanes, ferrax_array::DType::I32)?;
    let most = any.op(Prim::Reduce { op: super::ReduceOp::Max, axes: vec![0] }, &[as_int])?;
    let zero = any.full_like(most, 0.0)?;
    let running = any.compare(super::CompareOp::Gt, most, zero)?;
    let any_name = cx.add_func(any.finish(&[running]));
    // step(carry) = select(still running, body(carry), carry), per example.
    let mut step = Emitter::new(format!("{body}_masked"));
    let params: Vec<Value> = carry_types.iter().map(|t| step.param(t.clone())).collect();
    let lanes = step.eqn(cx.module(), Prim::Call { func: c.name }, &params)?[0];
    let next = step.eqn(cx.module(), Prim::Call { func: b.name }, &params)?;
    let mut results = Vec::with_capacity(n);
    for (&new, &old) in next.iter().zip(&params) {
        let mask = broadcast_lanes(&mut step, lanes, new)?;
        results.push(step.select(mask, new, old)?);
    }
    let step_name = cx.add_func(step.finish(&results));
    let outs = em.eqn(cx.module(), Prim::While { cond: any_name, body: step_name, max_iters }, &ins)?;
    Ok((outs.to_vec(), vec![Some(0); n]))
}

fn batch_scan(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    params: &ScanParams,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    use super::Prim;
    let size = cx.axis_size();
    let (k, c) = (params.num_consts, params.num_carry);
    let n_out = cx.module().func(&params.body).map(|f| f.results.len()).ok_or("no scan body")?;
    let given: Vec<bool> = dims.iter().map(Option::is_some).collect();
    let mut carry = given[k..k + c].to_vec();
    loop {
        let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
        let mut force_out = carry.clone();
        force_out.extend(vec![false; n_out - c]);
        let out = cx.batch_func(&params.body, &mask, &force_out)?.out_batched;
        let next: Vec<bool> = carry.iter().zip(&out[..c]).map(|(a, b)| *a || *b).collect();
        if next == carry {
            break;
        }
        carry = next;
    }
    let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
    let mut force_out = carry.clone();
    force_out.extend(vec![false; n_out - c]);
    let bf = cx.batch_func(&params.body, &mask, &force_out)?;
    // Consts and carries batched at axis 0; xs batched at axis 1 (axis 0 is scanned).
    let mut ins = Vec::with_capacity(inputs.len());
    for (i, (&x, &d)) in inputs.iter().zip(dims).enumerate() {
        let is_xs = i >= k + c;
        ins.push(match (d, mask[i]) {
            (Some(d), _) => em.move_axis(x, d, usize::from(is_xs))?,
            (None, true) => em.add_batch_axis(x, size, usize::from(is_xs))?,
            (None, false) => x,
        });
    }
    let scan = Prim::Scan(ScanParams { body: bf.name, ..params.clone() });
    let outs = em.eqn(cx.module(), scan, &ins)?;
    let out_dims: Vec<Option<usize>> =
        bf.out_batched.iter().enumerate().map(|(i, &b)| b.then_some(if i < c { 0 } else { 1 })).collect();
    Ok((outs.to_vec(), out_dims))
}
