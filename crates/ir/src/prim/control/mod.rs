//! Structured primitives whose bodies are Funcs of the same module: `call`, `cond`,
//! `while`, `scan`, `custom_jvp`, `custom_vjp`, `remat`, and the implicitly
//! differentiated `custom_linear_solve` and `custom_root` (`implicit.rs`).

use crate::attr::AttrVisitor;
use crate::prim::ad::{JvpContext, LinearIn, TransposeContext};
use crate::prim::batch::{BatchContext, Batched};
use crate::{Emitter, Module, Prim, Type, Value, format_types};
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
    /// Save every residual, out of memory: reverse mode offloads each to the run's
    /// spill file after the forward pass computes it and reloads it where the backward
    /// pass first reads it (`prim::memory`).
    Offload,
}

impl fmt::Display for RematPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RematPolicy::Nothing => f.write_str("nothing"),
            RematPolicy::Dots => f.write_str("dots"),
            RematPolicy::Names(names) => write!(f, "names:{}", names.join(",")),
            RematPolicy::Offload => f.write_str("offload"),
        }
    }
}

impl FromStr for RematPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<RematPolicy, String> {
        match s {
            "nothing" => Ok(RematPolicy::Nothing),
            "dots" => Ok(RematPolicy::Dots),
            "offload" => Ok(RematPolicy::Offload),
            other => match other.strip_prefix("names:") {
                Some(list) => {
                    Ok(RematPolicy::Names(list.split(',').filter(|n| !n.is_empty()).map(String::from).collect()))
                }
                None => Err(format!(
                    "remat: unknown policy \"{s}\" (expected \"nothing\", \"dots\", \"offload\" or \"names:a,b\")"
                )),
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
        DType::I32 | DType::Bool | DType::BF16 | DType::F16 | DType::F32 | DType::F64 => {
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

/// The type rule of a structured op; `module` resolves the Funcs it refers to.
pub(crate) fn infer(op: &ControlOp, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    match op {
        ControlOp::Call { func } | ControlOp::Remat { func, policy: _ } => infer_call(func, inputs, module),
        ControlOp::Cond { branches } => infer_cond(branches, inputs, module),
        ControlOp::While { cond, body, max_iters: _ } => infer_while(cond, body, inputs, module),
        ControlOp::Scan(params) => infer_scan(params, inputs, module),
        ControlOp::CustomJvp { func, jvp } => infer_custom_jvp(func, jvp, inputs, module),
        ControlOp::CustomVjp { func, fwd, bwd } => infer_custom_vjp(func, fwd, bwd, inputs, module),
        ControlOp::CustomLinearSolve(p) => implicit::infer_linear_solve(p, inputs, module),
        ControlOp::CustomRoot(p) => implicit::infer_root(p, inputs, module),
    }
}

mod batch;
mod implicit;
mod jvp;
mod transpose;

pub use implicit::{LinearSolveParams, RootParams};

/// The jvp rule (`jvp.rs`, `implicit.rs`): one transformed equation that computes the
/// outputs and their tangents, its bodies differentiated through `cx`.
pub(crate) fn jvp_control(
    em: &mut Emitter,
    cx: &mut dyn JvpContext,
    op: &ControlOp,
    primals: &[Value],
    tangents: &[Option<Value>],
) -> Result<(Vec<Value>, Vec<Option<Value>>), String> {
    match op {
        // Forward mode through custom_vjp differentiates `func`.
        ControlOp::Call { func } | ControlOp::CustomVjp { func, .. } => {
            jvp::jvp_call(em, cx, func, None, primals, tangents)
        }
        ControlOp::Remat { func, policy } => jvp::jvp_call(em, cx, func, Some(policy), primals, tangents),
        ControlOp::CustomJvp { func: _, jvp } => jvp::jvp_custom_jvp(em, cx, jvp, primals, tangents),
        ControlOp::Cond { branches } => jvp::jvp_cond(em, cx, branches, primals, tangents),
        ControlOp::While { cond, body, max_iters } => jvp::jvp_while(em, cx, cond, body, *max_iters, primals, tangents),
        ControlOp::Scan(params) => jvp::jvp_scan(em, cx, params, primals, tangents),
        ControlOp::CustomLinearSolve(p) => implicit::jvp_linear_solve(em, cx, p, primals, tangents),
        ControlOp::CustomRoot(p) => implicit::jvp_root(em, cx, p, primals, tangents),
    }
}

/// The batching rule (`batch.rs`, `implicit.rs`): the same op over batched bodies,
/// with batched operands and results at axis 0.
pub(crate) fn batch_control(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    op: &ControlOp,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    match op {
        ControlOp::Call { func } => batch::batch_call(em, cx, func, None, inputs, dims),
        ControlOp::Remat { func, policy } => batch::batch_call(em, cx, func, Some(policy), inputs, dims),
        ControlOp::CustomJvp { func, jvp } => batch::batch_custom_jvp(em, cx, [func, jvp], inputs, dims),
        ControlOp::CustomVjp { func, fwd, bwd } => batch::batch_custom_vjp(em, cx, [func, fwd, bwd], inputs, dims),
        ControlOp::Cond { branches } => batch::batch_cond(em, cx, branches, inputs, dims),
        ControlOp::While { cond, body, max_iters } => batch::batch_while(em, cx, cond, body, *max_iters, inputs, dims),
        ControlOp::Scan(params) => batch::batch_scan(em, cx, params, inputs, dims),
        ControlOp::CustomLinearSolve(p) => implicit::batch_linear_solve(em, cx, p, inputs, dims),
        ControlOp::CustomRoot(p) => implicit::batch_root(em, cx, p, inputs, dims),
    }
}

/// The transpose rule of a structured op in linear code (`transpose.rs`,
/// `implicit.rs`): `call` and `remat` transpose their body; `while` and the custom
/// rules other than `custom_vjp` and `custom_linear_solve` never reach transposition
/// (reverse mode turns a bounded loop into a scan and a custom_jvp or custom_root into
/// its jvp rule first).
pub(crate) fn transpose(
    em: &mut Emitter,
    cx: &mut dyn TransposeContext,
    op: &ControlOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        ControlOp::Call { func } => cx.transpose_into(em, func, inputs, cts),
        ControlOp::Remat { func, .. } => transpose::transpose_remat(em, cx, func, inputs, cts),
        ControlOp::Cond { branches } => transpose::transpose_cond(em, cx, branches, inputs, cts),
        ControlOp::Scan(params) => transpose::transpose_scan(em, cx, params, inputs, cts),
        ControlOp::CustomVjp { func, fwd, bwd } => {
            transpose::transpose_custom_vjp(em, cx, [func, fwd, bwd], inputs, cts)
        }
        ControlOp::While { .. } => Err("while has no transpose rule: reverse mode turns a loop bounded by max_iters \
             into a scan before transposing"
            .into()),
        ControlOp::CustomJvp { .. } => {
            Err("custom_jvp is not linear (reverse mode replaces it by its jvp rule)".into())
        }
        ControlOp::CustomLinearSolve(p) => implicit::transpose_linear_solve(em, cx, p, inputs, cts),
        ControlOp::CustomRoot(_) => Err("custom_root is not linear (reverse mode replaces it by its jvp rule)".into()),
    }
}

/// The number of results of Func `func` of `module`.
fn n_results(module: &Module, func: &str) -> Result<usize, String> {
    module.func(func).map(|f| f.results.len()).ok_or_else(|| format!("no Func @{func}"))
}

/// How often a structured op runs one of its Funcs (see [`ControlOp::runs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trips {
    /// Once per run of the op.
    Once,
    /// At most once: one of several alternatives runs.
    OneOf,
    /// This many times.
    Times(u64),
    /// Once per iteration of a loop of at most `max_iters` iterations (unbounded for
    /// `None`).
    Loop {
        /// The loop's bound.
        max_iters: Option<usize>,
    },
}

/// A structured primitive: runs Funcs of the module (calls, branches, loops, custom rules, remat regions).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ControlOp {
    /// Calls a Func of the module.
    Call {
        /// The callee.
        func: String,
    },
    /// Runs one branch, chosen by an i32 index (clamped) or a bool.
    Cond {
        /// The branches; all take the operands and return the same types.
        branches: Vec<String>,
    },
    /// `while cond(carry) { carry = body(carry) }`, optionally bounded.
    While {
        /// `@c(carry...) -> bool[]`.
        cond: String,
        /// `@b(carry...) -> (carry...)`.
        body: String,
        /// At most this many iterations; reverse mode needs it.
        max_iters: Option<usize>,
    },
    /// A loop over the leading axis of `xs`, threading a carry.
    Scan(ScanParams),
    /// Runs `func`; its derivative is given by `jvp`.
    CustomJvp {
        /// The primal function.
        func: String,
        /// `@j(primals..., tangents...) -> (outs..., tangent_outs...)`.
        jvp: String,
    },
    /// Runs `func`; reverse mode uses `fwd` and `bwd`.
    CustomVjp {
        /// The primal function.
        func: String,
        /// `@fw(primals...) -> (outs..., residuals...)`.
        fwd: String,
        /// `@bw(residuals..., cotangents...) -> (cotangents of float primals...)`.
        bwd: String,
    },
    /// Runs `func`, recomputed in the backward pass per `policy`.
    Remat {
        /// The region.
        func: String,
        /// What to save.
        policy: RematPolicy,
    },
    /// Runs `solve`; differentiated as the solution of a linear system.
    CustomLinearSolve(LinearSolveParams),
    /// Runs `solve`; differentiated as a root of `f`.
    CustomRoot(RootParams),
}

impl Prim {
    /// `call`: runs Func `func` on the operands and gives its results.
    pub fn call(func: impl Into<String>) -> Prim {
        Prim::Control(ControlOp::Call { func: func.into() })
    }

    /// `cond`: runs `branches[i]` for the selector `i` (clamped; a bool picks 0 or 1).
    pub fn cond(branches: Vec<String>) -> Prim {
        Prim::Control(ControlOp::Cond { branches })
    }

    /// `while`: repeats `body` while `cond` holds, at most `max_iters` times if given.
    pub fn while_loop(cond: impl Into<String>, body: impl Into<String>, max_iters: Option<usize>) -> Prim {
        Prim::Control(ControlOp::While { cond: cond.into(), body: body.into(), max_iters })
    }

    /// `scan` with `params`.
    pub fn scan(params: ScanParams) -> Prim {
        Prim::Control(ControlOp::Scan(params))
    }

    /// `remat`: runs `func` as a region whose insides reverse mode recomputes, keeping
    /// what `policy` names.
    pub fn remat(func: impl Into<String>, policy: RematPolicy) -> Prim {
        Prim::Control(ControlOp::Remat { func: func.into(), policy })
    }

    /// `custom_jvp`: runs `func`, differentiated by the rule `jvp`.
    pub fn custom_jvp(func: impl Into<String>, jvp: impl Into<String>) -> Prim {
        Prim::Control(ControlOp::CustomJvp { func: func.into(), jvp: jvp.into() })
    }

    /// `custom_vjp`: runs `func`; reverse mode runs `fwd` and then `bwd`.
    pub fn custom_vjp(func: impl Into<String>, fwd: impl Into<String>, bwd: impl Into<String>) -> Prim {
        Prim::Control(ControlOp::CustomVjp { func: func.into(), fwd: fwd.into(), bwd: bwd.into() })
    }

    /// `custom_linear_solve` with `params`.
    pub fn custom_linear_solve(params: LinearSolveParams) -> Prim {
        Prim::Control(ControlOp::CustomLinearSolve(params))
    }

    /// `custom_root` with `params`.
    pub fn custom_root(params: RootParams) -> Prim {
        Prim::Control(ControlOp::CustomRoot(params))
    }

    /// The body of a `while`: the Func each iteration runs, which takes and returns the
    /// carries (the op's operands and results); `None` for any other primitive.
    pub fn loop_body(&self) -> Option<&str> {
        if let Prim::Control(ControlOp::While { body, .. }) = self { Some(body) } else { None }
    }

    /// The parameters of a `scan`; `None` for any other primitive.
    pub fn scan_params(&self) -> Option<&ScanParams> {
        if let Prim::Control(ControlOp::Scan(params)) = self { Some(params) } else { None }
    }

    /// The parameters of a `scan`, to rewrite in place; `None` for any other primitive.
    pub fn scan_params_mut(&mut self) -> Option<&mut ScanParams> {
        if let Prim::Control(ControlOp::Scan(params)) = self { Some(params) } else { None }
    }

    /// The Func a `call` runs; `None` for any other primitive (a loop, a branch or a
    /// custom rule also runs Funcs, see [`Prim::callees`], but not as a plain call).
    pub fn callee(&self) -> Option<&str> {
        if let Prim::Control(ControlOp::Call { func }) = self { Some(func) } else { None }
    }
}

impl ControlOp {
    /// The name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            ControlOp::Call { .. } => "call",
            ControlOp::Cond { .. } => "cond",
            ControlOp::While { .. } => "while",
            ControlOp::Scan(_) => "scan",
            ControlOp::CustomJvp { .. } => "custom_jvp",
            ControlOp::CustomVjp { .. } => "custom_vjp",
            ControlOp::Remat { .. } => "remat",
            ControlOp::CustomLinearSolve(_) => "custom_linear_solve",
            ControlOp::CustomRoot(_) => "custom_root",
        }
    }

    /// The op named `name`, with placeholder parameters that
    /// [`ControlOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<ControlOp> {
        let f = String::new;
        Some(match name {
            "call" => ControlOp::Call { func: f() },
            "cond" => ControlOp::Cond { branches: vec![] },
            "while" => ControlOp::While { cond: f(), body: f(), max_iters: None },
            "scan" => ControlOp::Scan(ScanParams {
                body: f(),
                length: 0,
                num_consts: 0,
                num_carry: 0,
                reverse: false,
                checkpoint: None,
            }),
            "custom_jvp" => ControlOp::CustomJvp { func: f(), jvp: f() },
            "custom_vjp" => ControlOp::CustomVjp { func: f(), fwd: f(), bwd: f() },
            "remat" => ControlOp::Remat { func: f(), policy: RematPolicy::Nothing },
            "custom_linear_solve" => ControlOp::CustomLinearSolve(LinearSolveParams {
                matvec: f(),
                solve: f(),
                transpose_solve: None,
                symmetric: false,
                num_consts: 0,
            }),
            "custom_root" => {
                ControlOp::CustomRoot(RootParams { f: f(), solve: f(), tangent_solve: f(), num_consts: 0 })
            }
            _ => return None,
        })
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            ControlOp::Call { func } => v.func("func", func),
            ControlOp::Cond { branches } => v.funcs("branches", branches),
            ControlOp::While { cond, body, max_iters } => {
                v.func("cond", cond)?;
                v.func("body", body)?;
                v.opt_usize("max_iters", max_iters)
            }
            ControlOp::Scan(s) => {
                v.func("body", &mut s.body)?;
                v.usize("length", &mut s.length)?;
                v.usize_or("num_consts", &mut s.num_consts, 0)?;
                v.usize("num_carry", &mut s.num_carry)?;
                v.bool_or("reverse", &mut s.reverse, false)?;
                v.opt_usize("checkpoint", &mut s.checkpoint)
            }
            ControlOp::CustomJvp { func, jvp } => {
                v.func("func", func)?;
                v.func("jvp", jvp)
            }
            ControlOp::CustomVjp { func, fwd, bwd } => {
                v.func("func", func)?;
                v.func("fwd", fwd)?;
                v.func("bwd", bwd)
            }
            ControlOp::Remat { func, policy } => {
                v.func("func", func)?;
                v.parsed("policy", policy, "nothing")
            }
            ControlOp::CustomLinearSolve(p) => {
                v.func("matvec", &mut p.matvec)?;
                v.func("solve", &mut p.solve)?;
                v.opt_func("transpose_solve", &mut p.transpose_solve)?;
                v.bool_or("symmetric", &mut p.symmetric, false)?;
                v.usize_or("num_consts", &mut p.num_consts, 0)
            }
            ControlOp::CustomRoot(p) => {
                v.func("f", &mut p.f)?;
                v.func("solve", &mut p.solve)?;
                v.func("tangent_solve", &mut p.tangent_solve)?;
                v.usize_or("num_consts", &mut p.num_consts, 0)
            }
        }
    }

    /// The Func whose call computes this op's value: a `call`'s callee, and the
    /// function a custom rule or a `remat` region wraps (`custom_linear_solve` and
    /// `custom_root`: `solve`), whose other Funcs only transforms read; `None` for
    /// branches and loops. Compiled code and the interpreter run it in the op's place.
    pub fn primal(&self) -> Option<&str> {
        match self {
            ControlOp::Call { func }
            | ControlOp::Remat { func, .. }
            | ControlOp::CustomJvp { func, .. }
            | ControlOp::CustomVjp { func, .. } => Some(func),
            ControlOp::CustomLinearSolve(p) => Some(&p.solve),
            ControlOp::CustomRoot(p) => Some(&p.solve),
            ControlOp::Cond { .. } | ControlOp::While { .. } | ControlOp::Scan(_) => None,
        }
    }

    /// The Funcs one run of this op runs, with how often: what the cost model
    /// multiplies out.
    pub fn runs(&self) -> Vec<(&str, Trips)> {
        match self {
            ControlOp::Cond { branches } => branches.iter().map(|b| (b.as_str(), Trips::OneOf)).collect(),
            ControlOp::While { cond, body, max_iters } => {
                let trips = Trips::Loop { max_iters: *max_iters };
                vec![(cond.as_str(), trips), (body.as_str(), trips)]
            }
            ControlOp::Scan(s) => vec![(&s.body, Trips::Times(s.length as u64))],
            ControlOp::Call { .. }
            | ControlOp::Remat { .. }
            | ControlOp::CustomJvp { .. }
            | ControlOp::CustomVjp { .. }
            | ControlOp::CustomLinearSolve(_)
            | ControlOp::CustomRoot(_) => self.primal().map(|f| (f, Trips::Once)).into_iter().collect(),
        }
    }

    /// A loop with no bound on its iterations (a `while` without `max_iters`): it may
    /// run forever, and reverse mode cannot go through it.
    pub fn unbounded(&self) -> bool {
        matches!(self, ControlOp::While { max_iters: None, .. })
    }

    /// The Funcs this op refers to, in attribute order.
    pub fn callees(&self) -> Vec<&str> {
        match self {
            ControlOp::Call { func } | ControlOp::Remat { func, .. } => vec![func],
            ControlOp::Cond { branches } => branches.iter().map(String::as_str).collect(),
            ControlOp::While { cond, body, .. } => vec![cond, body],
            ControlOp::Scan(s) => vec![&s.body],
            ControlOp::CustomJvp { func, jvp } => vec![func, jvp],
            ControlOp::CustomVjp { func, fwd, bwd } => vec![func, fwd, bwd],
            ControlOp::CustomLinearSolve(p) => {
                let mut names = vec![p.matvec.as_str(), &p.solve];
                names.extend(p.transpose_solve.as_deref());
                names
            }
            ControlOp::CustomRoot(p) => vec![&p.f, &p.solve, &p.tangent_solve],
        }
    }

    /// Renames the Funcs this op refers to with `rename`.
    pub fn rename_callees(&mut self, rename: &mut dyn FnMut(&str) -> String) {
        match self {
            ControlOp::Call { func } | ControlOp::Remat { func, .. } => *func = rename(func),
            ControlOp::Cond { branches } => branches.iter_mut().for_each(|b| *b = rename(b)),
            ControlOp::While { cond, body, .. } => {
                *cond = rename(cond);
                *body = rename(body);
            }
            ControlOp::Scan(s) => s.body = rename(&s.body),
            ControlOp::CustomJvp { func, jvp } => {
                *func = rename(func);
                *jvp = rename(jvp);
            }
            ControlOp::CustomVjp { func, fwd, bwd } => {
                *func = rename(func);
                *fwd = rename(fwd);
                *bwd = rename(bwd);
            }
            ControlOp::CustomLinearSolve(p) => {
                p.matvec = rename(&p.matvec);
                p.solve = rename(&p.solve);
                if let Some(t) = &mut p.transpose_solve {
                    *t = rename(t);
                }
            }
            ControlOp::CustomRoot(p) => {
                p.f = rename(&p.f);
                p.solve = rename(&p.solve);
                p.tangent_solve = rename(&p.tangent_solve);
            }
        }
    }
}
