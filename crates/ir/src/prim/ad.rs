//! The interfaces of the differentiation rules, and their dispatch.
//!
//! Each family file holds its primitives' rules; here are the two entry points the
//! transforms call, both exhaustive `match`es over [`Prim`]:
//!
//! - [`Prim::jvp`]: forward mode. Given the primal inputs and outputs (already emitted)
//!   and the inputs' tangents (`None` is a symbolic zero), emit the outputs' tangents.
//!   Called only when some input tangent is non-zero. A rule may return `None` for an
//!   output whose tangent is zero (integer outputs always are).
//! - [`Prim::transpose`]: reverse mode of a *linear* equation. Its inputs are either
//!   residuals (known values) or linear (the equation is linear in them jointly);
//!   given the outputs' cotangents (`None` is zero), emit one cotangent per linear
//!   input. Only linear primitives have this rule: vjp is transpose ∘ linearize ∘ jvp.
//!
//! Structured primitives recurse into their bodies through the context traits, which
//! the transform crate implements.

use super::{binary, collective, control, conv, index, linalg, memory, reduce, shape, sort, unary, window};
use crate::{Emitter, Func, Module, Prim, Type, Value};

/// What a jvp rule of a structured primitive needs from the pass driving it.
pub trait JvpContext {
    /// The module being built (bodies already transformed are in it).
    fn module(&self) -> &Module;

    /// Transforms the Func `name` by jvp for the inputs marked `nonzero`; the result
    /// takes `(primals..., tangents of the nonzero inputs...)` and returns `(outputs...,
    /// tangents of the outputs marked in out_nonzero...)`. `instantiate` forces
    /// outputs to have (possibly zero) tangents.
    fn jvp_func(&mut self, name: &str, nonzero: &[bool], instantiate: &[bool]) -> Result<JvpFunc, String>;

    /// A copy of the jvp'd scan body `name` with its parameters and results regrouped
    /// for a `scan`: parameters `(consts, const tangents, carry, carry tangents, xs, xs
    /// tangents)` instead of `(consts, carry, xs, tangents...)`, results `(carry, carry
    /// tangents, ys, ys tangents)`. `groups` are the sizes of consts, carry and xs,
    /// `nonzero` the input tangent mask, `num_carry` the carries, `out_nonzero` the
    /// output tangent mask. Returns the copy's name.
    fn scan_body_jvp(
        &mut self,
        name: &str,
        groups: [usize; 3],
        nonzero: &[bool],
        num_carry: usize,
        out_nonzero: &[bool],
    ) -> Result<String, String>;
}

/// A Func transformed by jvp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JvpFunc {
    /// Its name in the module.
    pub name: String,
    /// Which outputs have a tangent (those tangents follow the outputs, in order).
    pub out_nonzero: Vec<bool>,
}

/// An input of a linear equation being transposed.
#[derive(Clone, Debug, PartialEq)]
pub enum LinearIn {
    /// A known value (available in the transposed Func).
    Residual(Value),
    /// A linear input, of this type: its cotangent is what the rule computes.
    Linear(Type),
}

impl LinearIn {
    /// The residual value, or an error naming `what` when the input is linear.
    pub fn residual(&self, what: &str) -> Result<Value, String> {
        match self {
            LinearIn::Residual(v) => Ok(*v),
            LinearIn::Linear(_) => Err(format!("{what} must be a residual (the equation is not linear otherwise)")),
        }
    }

    /// True for a linear input.
    pub fn is_linear(&self) -> bool {
        matches!(self, LinearIn::Linear(_))
    }
}

/// What a transpose rule of a structured primitive needs from the pass driving it.
///
/// Rules that never recurse into bodies only need [`TransposeContext::module`]; the
/// other methods default to an error naming what is missing.
pub trait TransposeContext {
    /// The module being built.
    fn module(&self) -> &Module;

    /// Adds `func` to the module being built, under a fresh name derived from its own
    /// (which is returned).
    fn add_func(&mut self, func: Func) -> Result<String, String> {
        Err(format!("this context cannot add Funcs (adding @{})", func.name))
    }

    /// Transposes a call of the Func `name` on `inputs` into `em`: `inputs` says which
    /// of its parameters are residuals (values of `em`) and which are linear, `cts`
    /// gives one (optional) cotangent per result. Returns one cotangent per input:
    /// `None` for residual inputs and symbolically zero cotangents. Equations of the
    /// body that read no linear value (recomputation) are emitted first.
    fn transpose_into(
        &mut self,
        em: &mut Emitter,
        name: &str,
        inputs: &[LinearIn],
        cts: &[Option<Value>],
    ) -> Result<Vec<Option<Value>>, String> {
        let _ = (em, inputs, cts);
        Err(format!("this context cannot transpose bodies (transposing @{name})"))
    }
}

/// The error of a transpose rule asked to transpose a primitive that is not linear.
pub(crate) fn not_linear(name: &str) -> String {
    format!("{name} is not linear, so it has no transpose rule (is it fed by a non-residual value?)")
}

impl Prim {
    /// Emits the tangents of this equation's outputs (see the module docs).
    pub fn jvp(
        &self,
        em: &mut Emitter,
        cx: &mut dyn JvpContext,
        primals: &[Value],
        outputs: &[Value],
        tangents: &[Option<Value>],
    ) -> Result<Vec<Option<Value>>, String> {
        let (p, o, t) = (primals, outputs, tangents);
        match self {
            Prim::Unary(op) => unary::jvp_unary(em, *op, p, o, t),
            Prim::Name { .. } => Ok(vec![t.first().copied().flatten()]),
            Prim::Binary(op) => binary::jvp_binary(em, *op, p, o, t),
            Prim::Compare(_) | Prim::Random(_) => Ok(vec![None]),
            Prim::Ternary(op) => binary::jvp_ternary(em, *op, p, o, t),
            Prim::Shape(op) => shape::jvp_structural(em, op, p, o, t),
            Prim::Index(op) => index::jvp_index(em, op, p, o, t),
            Prim::Reduction(op) => reduce::jvp(em, op, p, o, t),
            Prim::Linalg(op) => linalg::jvp(em, op, p, o, t),
            Prim::Memory(op) => memory::jvp(em, *op, t),
            Prim::Sort(op) => sort::jvp(em, *op, p, o, t),
            Prim::Conv(op) => conv::jvp(em, op, p, o, t),
            Prim::Window(op) => window::jvp(em, op, p, t),
            Prim::Collective(op) => collective::jvp(em, op, p, o, t),
            Prim::Control(_) => {
                let _ = cx;
                Err(format!("{}: structured primitives are differentiated by Prim::jvp_full", self.name()))
            }
        }
        .map(|mut out| {
            out.resize(outputs.len(), None);
            out
        })
    }

    /// Emits this equation on `primals` together with its outputs' tangents: the primal
    /// equation then [`Prim::jvp`] for the other primitives; one transformed equation
    /// computing both for the structured ones (their bodies are differentiated).
    pub fn jvp_full(
        &self,
        em: &mut Emitter,
        cx: &mut dyn JvpContext,
        primals: &[Value],
        tangents: &[Option<Value>],
    ) -> Result<(Vec<Value>, Vec<Option<Value>>), String> {
        let Prim::Control(op) = self else {
            let outputs = em.eqn(cx.module(), self.clone(), primals)?.to_vec();
            let out_tangents = self.jvp(em, cx, primals, &outputs, tangents)?;
            return Ok((outputs, out_tangents));
        };
        control::jvp_control(em, cx, op, primals, tangents)
    }

    /// Emits the cotangents of this linear equation's linear inputs (see the module
    /// docs); `None` for residual inputs and zero cotangents.
    pub fn transpose(
        &self,
        em: &mut Emitter,
        cx: &mut dyn TransposeContext,
        inputs: &[LinearIn],
        cts: &[Option<Value>],
    ) -> Result<Vec<Option<Value>>, String> {
        match self {
            Prim::Unary(op) => unary::transpose_unary(em, *op, inputs, cts),
            Prim::Name { .. } => Ok(cts.to_vec()),
            Prim::Binary(op) => binary::transpose_binary(em, *op, inputs, cts),
            Prim::Compare(_) | Prim::Random(_) => Err(not_linear(self.name())),
            Prim::Ternary(op) => binary::transpose_ternary(em, *op, inputs, cts),
            Prim::Shape(op) => shape::transpose_structural(em, op, inputs, cts),
            Prim::Index(op) => index::transpose_index(em, op, inputs, cts),
            Prim::Reduction(op) => reduce::transpose(em, op, inputs, cts),
            Prim::Linalg(op) => linalg::transpose(em, op, inputs, cts),
            Prim::Memory(op) => memory::transpose(*op, cts),
            Prim::Sort(op) => sort::transpose(*op),
            Prim::Control(op) => control::transpose(em, cx, op, inputs, cts),
            Prim::Conv(op) => conv::transpose(em, op, inputs, cts),
            Prim::Window(op) => window::transpose(em, op, inputs, cts),
            Prim::Collective(op) => collective::transpose(em, op, inputs, cts),
        }
    }
}
