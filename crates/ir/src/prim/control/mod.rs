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
            other => match other.strip_prefix("names:") {
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
    let scalar = selector.rank() == 0;
    match selector.dtype {
        DType::I32 if scalar => {}
        DType::Bool if scalar && branches.len() == 2 => {}
        DType::Bool if scalar => {
            return Err(format!("{op}: a bool predicate needs 2 branches, got {}", branches.len()));
        }
        DType::I32 | DType::Bool | DType::F32 | DType::F64 => {
            return Err(format!("{op}: the selector must be i32[] or bool[], got {selector}"));
        }
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

mod batch;
mod jvp;
mod transpose;

pub(crate) use batch::batch_control;
pub(crate) use jvp::jvp_control;
pub(crate) use transpose::{transpose_cond, transpose_custom_vjp, transpose_scan};
