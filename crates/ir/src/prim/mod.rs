//! The primitive set and, per family, every rule of each primitive.
//!
//! [`Prim`] is a closed enum with named parameters. Each family lives in one file that
//! holds all of its rules: the type rule (which is also the verifier's check), the
//! reference evaluation, and later the jvp, transpose and batching rules. The
//! dispatchers here `match` on every variant with no `_ =>` arm, so adding a primitive
//! makes the compiler list every rule still to write (see docs/adding-a-primitive.md).

pub mod ad;
pub mod batch;
pub mod binary;
pub mod control;
pub mod index;
pub(crate) mod kernels;
pub(crate) mod layout;
pub mod linalg;
pub mod random;
pub mod reduce;
pub mod shape;
pub mod sum_order;
pub mod unary;

pub use binary::{BinaryOp, CompareOp};
pub use control::{RematPolicy, ScanParams};
pub use linalg::DotDims;
pub use reduce::{ArgOp, ReduceOp};
pub use unary::UnaryOp;

use crate::attr::{AttrReader, AttrValue, parse_float};
use crate::{Module, Type};
use ferrax_array::{Array, DType, Data, Shape, format_f32, format_f64};

/// A primitive with its static parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Prim {
    /// Elementwise unary math and logic (`neg`, `exp`, ..., `not`, `is_finite`).
    Unary(UnaryOp),
    /// `x^y` for a static integer `y`.
    IntegerPow {
        /// The exponent.
        y: i32,
    },
    /// Elementwise dtype conversion (float→int saturates, NaN→0).
    Convert {
        /// Target dtype.
        dtype: DType,
    },
    /// Identity whose derivative is zero.
    StopGradient,
    /// Identity that tags a value for checkpoint policies.
    Name {
        /// The tag.
        name: String,
    },
    /// Elementwise binary arithmetic and logic.
    Binary(BinaryOp),
    /// Elementwise comparison; the result is `bool`.
    Compare(CompareOp),
    /// `select(pred, on_true, on_false)`.
    Select,
    /// `clamp(lo, x, hi)`.
    Clamp,
    /// Operand axis i becomes output axis `dims[i]`; size-1 axes expand.
    BroadcastInDim {
        /// Output shape.
        shape: Shape,
        /// Output axis of each operand axis, strictly increasing.
        dims: Vec<usize>,
    },
    /// Same elements in C order, new shape.
    Reshape {
        /// Output shape.
        shape: Shape,
    },
    /// Output axis i is operand axis `perm[i]`.
    Transpose {
        /// A permutation of the axes.
        perm: Vec<usize>,
    },
    /// Reverses the listed axes.
    Rev {
        /// Axes to reverse.
        axes: Vec<usize>,
    },
    /// A strided box `[start, limit)` of the operand.
    Slice {
        /// First index per axis.
        start: Vec<usize>,
        /// One past the last index per axis.
        limit: Vec<usize>,
        /// Step per axis (> 0).
        strides: Vec<usize>,
    },
    /// Edge and interior padding with a scalar; negative edges crop.
    Pad {
        /// Padding before each axis.
        low: Vec<i64>,
        /// Padding after each axis.
        high: Vec<i64>,
        /// Padding between elements of each axis.
        interior: Vec<usize>,
    },
    /// Joins operands along an axis.
    Concatenate {
        /// The joining axis.
        axis: usize,
    },
    /// 0, 1, 2, ... along one axis.
    Iota {
        /// Element type.
        dtype: DType,
        /// Output shape.
        shape: Shape,
        /// The counting axis.
        dim: usize,
    },
    /// A literal; a rank-0 `value` splats to the result shape.
    Constant {
        /// The value: rank 0 (splat to `shape`) or of shape `shape`.
        value: Array,
        /// The result shape (in the text form, it comes from the declared type).
        shape: Shape,
    },
    /// A box of static `sizes` at dynamic i32 start indices, clamped to fit.
    DynamicSlice {
        /// Size per axis.
        sizes: Vec<usize>,
    },
    /// Writes `update` into `x` at dynamic start indices, clamped to fit.
    DynamicUpdateSlice,
    /// `take` along `axis` after `batch_dims` leading batch axes; indices clamped.
    Gather {
        /// The indexed axis of `x`.
        axis: usize,
        /// Leading axes shared by `x` and the indices.
        batch_dims: usize,
    },
    /// The transpose of `gather`: adds `updates` into `x` at the indices.
    ScatterAdd {
        /// The indexed axis of `x`.
        axis: usize,
        /// Leading axes shared by `x`, the indices and the updates.
        batch_dims: usize,
    },
    /// Reduction over axes.
    Reduce {
        /// Which reduction.
        op: ReduceOp,
        /// Reduced axes (removed from the shape).
        axes: Vec<usize>,
    },
    /// Index of the first extreme element along an axis.
    ArgReduce {
        /// `argmax` or `argmin`.
        op: ArgOp,
        /// The searched axis (removed from the shape).
        axis: usize,
        /// The index dtype (`i32`).
        index_dtype: DType,
    },
    /// Inclusive prefix sum along an axis.
    Cumsum {
        /// The summed axis.
        axis: usize,
        /// Sum from the end instead.
        reverse: bool,
    },
    /// Generalised tensor contraction (XLA's DotGeneral).
    DotGeneral(DotDims),
    /// Counter-based random bits (Threefry-2x32) of an `i32[2]` key.
    RandomBits {
        /// The result shape.
        shape: Shape,
    },
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
}

impl Prim {
    /// The primitive's name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            Prim::Unary(op) => op.name(),
            Prim::IntegerPow { .. } => "integer_pow",
            Prim::Convert { .. } => "convert",
            Prim::StopGradient => "stop_gradient",
            Prim::Name { .. } => "name",
            Prim::Binary(op) => op.name(),
            Prim::Compare(op) => op.name(),
            Prim::Select => "select",
            Prim::Clamp => "clamp",
            Prim::BroadcastInDim { .. } => "broadcast_in_dim",
            Prim::Reshape { .. } => "reshape",
            Prim::Transpose { .. } => "transpose",
            Prim::Rev { .. } => "rev",
            Prim::Slice { .. } => "slice",
            Prim::Pad { .. } => "pad",
            Prim::Concatenate { .. } => "concatenate",
            Prim::Iota { .. } => "iota",
            Prim::Constant { .. } => "constant",
            Prim::DynamicSlice { .. } => "dynamic_slice",
            Prim::DynamicUpdateSlice => "dynamic_update_slice",
            Prim::Gather { .. } => "gather",
            Prim::ScatterAdd { .. } => "scatter_add",
            Prim::Reduce { op, .. } => op.name(),
            Prim::ArgReduce { op, .. } => op.name(),
            Prim::Cumsum { .. } => "cumsum",
            Prim::DotGeneral(_) => "dot_general",
            Prim::RandomBits { .. } => "random_bits",
            Prim::Call { .. } => "call",
            Prim::Cond { .. } => "cond",
            Prim::While { .. } => "while",
            Prim::Scan(_) => "scan",
            Prim::CustomJvp { .. } => "custom_jvp",
            Prim::CustomVjp { .. } => "custom_vjp",
            Prim::Remat { .. } => "remat",
        }
    }

    /// Every attribute, in declared order, defaults included (what the printer writes).
    pub fn attrs(&self) -> Vec<(&'static str, AttrValue)> {
        use AttrValue as A;
        let opt = |v: &Option<usize>| v.map_or(A::None, |k| A::Int(k as i64));
        match self {
            Prim::Unary(_)
            | Prim::StopGradient
            | Prim::Binary(_)
            | Prim::Compare(_)
            | Prim::Select
            | Prim::Clamp
            | Prim::DynamicUpdateSlice => vec![],
            Prim::IntegerPow { y } => vec![("y", A::Int(i64::from(*y)))],
            Prim::Convert { dtype } => vec![("dtype", A::DType(*dtype))],
            Prim::Name { name } => vec![("name", A::Str(name.clone()))],
            Prim::BroadcastInDim { shape, dims } => vec![("shape", A::ints(shape)), ("dims", A::ints(dims))],
            Prim::Reshape { shape } => vec![("shape", A::ints(shape))],
            Prim::Transpose { perm } => vec![("perm", A::ints(perm))],
            Prim::Rev { axes } => vec![("axes", A::ints(axes))],
            Prim::Slice { start, limit, strides } => {
                vec![("start", A::ints(start)), ("limit", A::ints(limit)), ("strides", A::ints(strides))]
            }
            Prim::Pad { low, high, interior } => {
                vec![("low", A::ints(low)), ("high", A::ints(high)), ("interior", A::ints(interior))]
            }
            Prim::Concatenate { axis } => vec![("axis", A::Int(*axis as i64))],
            Prim::Iota { dtype, shape, dim } => {
                vec![("dtype", A::DType(*dtype)), ("shape", A::ints(shape)), ("dim", A::Int(*dim as i64))]
            }
            Prim::Constant { value, shape: _ } => vec![("value", constant_attr(value))],
            Prim::DynamicSlice { sizes } => vec![("sizes", A::ints(sizes))],
            Prim::Gather { axis, batch_dims } | Prim::ScatterAdd { axis, batch_dims } => {
                vec![("axis", A::Int(*axis as i64)), ("batch_dims", A::Int(*batch_dims as i64))]
            }
            Prim::Reduce { axes, .. } => vec![("axes", A::ints(axes))],
            Prim::ArgReduce { axis, index_dtype, .. } => {
                vec![("axis", A::Int(*axis as i64)), ("index_dtype", A::DType(*index_dtype))]
            }
            Prim::Cumsum { axis, reverse } => vec![("axis", A::Int(*axis as i64)), ("reverse", A::Bool(*reverse))],
            Prim::DotGeneral(d) => vec![
                ("lhs_contract", A::ints(&d.lhs_contract)),
                ("rhs_contract", A::ints(&d.rhs_contract)),
                ("lhs_batch", A::ints(&d.lhs_batch)),
                ("rhs_batch", A::ints(&d.rhs_batch)),
            ],
            Prim::RandomBits { shape } => vec![("shape", A::ints(shape))],
            Prim::Call { func } => vec![("func", A::Func(func.clone()))],
            Prim::Cond { branches } => vec![("branches", A::funcs(branches))],
            Prim::While { cond, body, max_iters } => {
                vec![("cond", A::Func(cond.clone())), ("body", A::Func(body.clone())), ("max_iters", opt(max_iters))]
            }
            Prim::Scan(s) => vec![
                ("body", A::Func(s.body.clone())),
                ("length", A::Int(s.length as i64)),
                ("num_consts", A::Int(s.num_consts as i64)),
                ("num_carry", A::Int(s.num_carry as i64)),
                ("reverse", A::Bool(s.reverse)),
                ("checkpoint", opt(&s.checkpoint)),
            ],
            Prim::CustomJvp { func, jvp } => vec![("func", A::Func(func.clone())), ("jvp", A::Func(jvp.clone()))],
            Prim::CustomVjp { func, fwd, bwd } => {
                vec![("func", A::Func(func.clone())), ("fwd", A::Func(fwd.clone())), ("bwd", A::Func(bwd.clone()))]
            }
            Prim::Remat { func, policy } => {
                vec![("func", A::Func(func.clone())), ("policy", A::Str(policy.to_string()))]
            }
        }
    }

    /// Builds a primitive from its name and written attributes. `out_types` are the
    /// declared result types (a constant's literal is read at its result dtype).
    pub fn from_attrs(op: &str, attrs: Vec<(String, AttrValue)>, out_types: &[Type]) -> Result<Prim, String> {
        let mut r = AttrReader::new(op, attrs)?;
        let prim = match op {
            "integer_pow" => {
                let y = r.int("y")?;
                Prim::IntegerPow { y: i32::try_from(y).map_err(|_| format!("integer_pow: y={y} does not fit i32"))? }
            }
            "convert" => Prim::Convert { dtype: r.dtype("dtype", None)? },
            "stop_gradient" => Prim::StopGradient,
            "name" => Prim::Name { name: r.string("name", None)? },
            "select" => Prim::Select,
            "clamp" => Prim::Clamp,
            "broadcast_in_dim" => {
                Prim::BroadcastInDim { shape: r.usizes("shape", None)?.into(), dims: r.usizes("dims", None)? }
            }
            "reshape" => Prim::Reshape { shape: r.usizes("shape", None)?.into() },
            "transpose" => Prim::Transpose { perm: r.usizes("perm", None)? },
            "rev" => Prim::Rev { axes: r.usizes("axes", None)? },
            "slice" => {
                let start = r.usizes("start", None)?;
                let limit = r.usizes("limit", None)?;
                let strides = r.usizes("strides", Some(vec![1; start.len()]))?;
                Prim::Slice { start, limit, strides }
            }
            "pad" => {
                let low = r.ints("low")?;
                let high = r.ints("high")?;
                let interior = r.usizes("interior", Some(vec![0; low.len()]))?;
                Prim::Pad { low, high, interior }
            }
            "concatenate" => Prim::Concatenate { axis: r.usize("axis")? },
            "iota" => Prim::Iota {
                dtype: r.dtype("dtype", None)?,
                shape: r.usizes("shape", None)?.into(),
                dim: r.usize("dim")?,
            },
            "constant" => {
                let value = constant_from_attr(&r.raw("value")?, out_types)?;
                Prim::Constant { value, shape: out_types[0].shape.clone() }
            }
            "dynamic_slice" => Prim::DynamicSlice { sizes: r.usizes("sizes", None)? },
            "dynamic_update_slice" => Prim::DynamicUpdateSlice,
            "gather" => Prim::Gather { axis: r.usize("axis")?, batch_dims: r.opt_usize("batch_dims")?.unwrap_or(0) },
            "scatter_add" => {
                Prim::ScatterAdd { axis: r.usize("axis")?, batch_dims: r.opt_usize("batch_dims")?.unwrap_or(0) }
            }
            "argmax" | "argmin" => Prim::ArgReduce {
                op: if op == "argmax" { ArgOp::Argmax } else { ArgOp::Argmin },
                axis: r.usize("axis")?,
                index_dtype: r.dtype("index_dtype", Some(DType::I32))?,
            },
            "cumsum" => Prim::Cumsum { axis: r.usize("axis")?, reverse: r.bool_or("reverse", false)? },
            "dot_general" => Prim::DotGeneral(DotDims {
                lhs_contract: r.usizes("lhs_contract", None)?,
                rhs_contract: r.usizes("rhs_contract", None)?,
                lhs_batch: r.usizes("lhs_batch", Some(vec![]))?,
                rhs_batch: r.usizes("rhs_batch", Some(vec![]))?,
            }),
            "random_bits" => Prim::RandomBits { shape: r.usizes("shape", None)?.into() },
            "call" => Prim::Call { func: r.func("func")? },
            "cond" => Prim::Cond { branches: r.funcs("branches")? },
            "while" => {
                Prim::While { cond: r.func("cond")?, body: r.func("body")?, max_iters: r.opt_usize("max_iters")? }
            }
            "scan" => Prim::Scan(ScanParams {
                body: r.func("body")?,
                length: r.usize("length")?,
                num_consts: r.opt_usize("num_consts")?.unwrap_or(0),
                num_carry: r.usize("num_carry")?,
                reverse: r.bool_or("reverse", false)?,
                checkpoint: r.opt_usize("checkpoint")?,
            }),
            "custom_jvp" => Prim::CustomJvp { func: r.func("func")?, jvp: r.func("jvp")? },
            "custom_vjp" => Prim::CustomVjp { func: r.func("func")?, fwd: r.func("fwd")?, bwd: r.func("bwd")? },
            "remat" => Prim::Remat { func: r.func("func")?, policy: r.string("policy", Some("nothing"))?.parse()? },
            other => {
                if let Some(op) = UnaryOp::from_name(other) {
                    Prim::Unary(op)
                } else if let Some(op) = BinaryOp::from_name(other) {
                    Prim::Binary(op)
                } else if let Some(op) = CompareOp::from_name(other) {
                    Prim::Compare(op)
                } else if let Some(op) = ReduceOp::from_name(other) {
                    Prim::Reduce { op, axes: r.usizes("axes", None)? }
                } else {
                    return Err(format!("unknown primitive '{other}'"));
                }
            }
        };
        r.finish()?;
        Ok(prim)
    }

    /// Renames the Funcs this primitive refers to with `rename`.
    pub fn rename_callees(&mut self, rename: &mut dyn FnMut(&str) -> String) {
        match self {
            Prim::Call { func } | Prim::Remat { func, .. } => *func = rename(func),
            Prim::Cond { branches } => branches.iter_mut().for_each(|b| *b = rename(b)),
            Prim::While { cond, body, .. } => {
                *cond = rename(cond);
                *body = rename(body);
            }
            Prim::Scan(s) => s.body = rename(&s.body),
            Prim::CustomJvp { func, jvp } => {
                *func = rename(func);
                *jvp = rename(jvp);
            }
            Prim::CustomVjp { func, fwd, bwd } => {
                *func = rename(func);
                *fwd = rename(fwd);
                *bwd = rename(bwd);
            }
            Prim::Unary(_)
            | Prim::IntegerPow { .. }
            | Prim::Convert { .. }
            | Prim::StopGradient
            | Prim::Name { .. }
            | Prim::Binary(_)
            | Prim::Compare(_)
            | Prim::Select
            | Prim::Clamp
            | Prim::BroadcastInDim { .. }
            | Prim::Reshape { .. }
            | Prim::Transpose { .. }
            | Prim::Rev { .. }
            | Prim::Slice { .. }
            | Prim::Pad { .. }
            | Prim::Concatenate { .. }
            | Prim::Iota { .. }
            | Prim::Constant { .. }
            | Prim::DynamicSlice { .. }
            | Prim::DynamicUpdateSlice
            | Prim::Gather { .. }
            | Prim::ScatterAdd { .. }
            | Prim::Reduce { .. }
            | Prim::ArgReduce { .. }
            | Prim::Cumsum { .. }
            | Prim::DotGeneral(_)
            | Prim::RandomBits { .. } => {}
        }
    }

    /// The Funcs this primitive refers to, in attribute order.
    pub fn callees(&self) -> Vec<&str> {
        match self {
            Prim::Call { func } => vec![func],
            Prim::Cond { branches } => branches.iter().map(String::as_str).collect(),
            Prim::While { cond, body, .. } => vec![cond, body],
            Prim::Scan(s) => vec![&s.body],
            Prim::CustomJvp { func, jvp } => vec![func, jvp],
            Prim::CustomVjp { func, fwd, bwd } => vec![func, fwd, bwd],
            Prim::Remat { func, .. } => vec![func],
            Prim::Unary(_)
            | Prim::IntegerPow { .. }
            | Prim::Convert { .. }
            | Prim::StopGradient
            | Prim::Name { .. }
            | Prim::Binary(_)
            | Prim::Compare(_)
            | Prim::Select
            | Prim::Clamp
            | Prim::BroadcastInDim { .. }
            | Prim::Reshape { .. }
            | Prim::Transpose { .. }
            | Prim::Rev { .. }
            | Prim::Slice { .. }
            | Prim::Pad { .. }
            | Prim::Concatenate { .. }
            | Prim::Iota { .. }
            | Prim::Constant { .. }
            | Prim::DynamicSlice { .. }
            | Prim::DynamicUpdateSlice
            | Prim::Gather { .. }
            | Prim::ScatterAdd { .. }
            | Prim::Reduce { .. }
            | Prim::ArgReduce { .. }
            | Prim::Cumsum { .. }
            | Prim::DotGeneral(_)
            | Prim::RandomBits { .. } => vec![],
        }
    }

    /// The result types of this primitive applied to operands of `inputs` types: the
    /// type rule, shared by the builder and the verifier. `module` resolves the Funcs
    /// that structured primitives refer to. The error says what is wrong, with both
    /// sides of a mismatch; the caller adds the place (which names the primitive).
    pub fn infer(&self, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
        self.infer_rule(inputs, module).map_err(|message| {
            let prefix = format!("{}: ", self.name());
            message.strip_prefix(&prefix).map(str::to_string).unwrap_or(message)
        })
    }

    fn infer_rule(&self, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
        match self {
            Prim::Unary(op) => unary::infer_unary(*op, inputs),
            Prim::IntegerPow { y: _ } => unary::infer_integer_pow(inputs),
            Prim::Convert { dtype } => unary::infer_convert(*dtype, inputs),
            Prim::StopGradient | Prim::Name { .. } => unary::infer_identity(self.name(), inputs),
            Prim::Binary(op) => binary::infer_binary(*op, inputs),
            Prim::Compare(op) => binary::infer_compare(*op, inputs),
            Prim::Select => binary::infer_select(inputs),
            Prim::Clamp => binary::infer_clamp(inputs),
            Prim::BroadcastInDim { shape, dims } => shape::infer_broadcast_in_dim(shape, dims, inputs),
            Prim::Reshape { shape } => shape::infer_reshape(shape, inputs),
            Prim::Transpose { perm } => shape::infer_transpose(perm, inputs),
            Prim::Rev { axes } => shape::infer_rev(axes, inputs),
            Prim::Slice { start, limit, strides } => shape::infer_slice(start, limit, strides, inputs),
            Prim::Pad { low, high, interior } => shape::infer_pad(low, high, interior, inputs),
            Prim::Concatenate { axis } => shape::infer_concatenate(*axis, inputs),
            Prim::Iota { dtype, shape, dim } => shape::infer_iota(*dtype, shape, *dim, inputs),
            Prim::Constant { value, shape } => shape::infer_constant(value, shape, inputs),
            Prim::DynamicSlice { sizes } => index::infer_dynamic_slice(sizes, inputs),
            Prim::DynamicUpdateSlice => index::infer_dynamic_update_slice(inputs),
            Prim::Gather { axis, batch_dims } => index::infer_gather(*axis, *batch_dims, inputs),
            Prim::ScatterAdd { axis, batch_dims } => index::infer_scatter_add(*axis, *batch_dims, inputs),
            Prim::Reduce { op, axes } => reduce::infer_reduce(*op, axes, inputs),
            Prim::ArgReduce { op, axis, index_dtype } => reduce::infer_arg_reduce(*op, *axis, *index_dtype, inputs),
            Prim::Cumsum { axis, reverse: _ } => reduce::infer_cumsum(*axis, inputs),
            Prim::DotGeneral(dims) => linalg::infer_dot_general(dims, inputs),
            Prim::RandomBits { shape } => random::infer_random_bits(shape, inputs),
            Prim::Call { func } => control::infer_call(func, inputs, module),
            Prim::Cond { branches } => control::infer_cond(branches, inputs, module),
            Prim::While { cond, body, max_iters: _ } => control::infer_while(cond, body, inputs, module),
            Prim::Scan(params) => control::infer_scan(params, inputs, module),
            Prim::CustomJvp { func, jvp } => control::infer_custom_jvp(func, jvp, inputs, module),
            Prim::CustomVjp { func, fwd, bwd } => control::infer_custom_vjp(func, fwd, bwd, inputs, module),
            Prim::Remat { func, policy: _ } => control::infer_call(func, inputs, module),
        }
    }
}

fn constant_attr(value: &Array) -> AttrValue {
    let element = |i: usize| match value.data() {
        Data::Bool(v) => AttrValue::Bool(v[i]),
        Data::I32(v) => AttrValue::Int(i64::from(v[i])),
        Data::F32(v) => AttrValue::Float(format_f32(v[i])),
        Data::F64(v) => AttrValue::Float(format_f64(v[i])),
    };
    if value.rank() == 0 { element(0) } else { AttrValue::List((0..value.len()).map(element).collect()) }
}

/// The pattern of the attribute kinds that are not numbers (every one named, so that a
/// new kind must be placed).
macro_rules! not_a_number {
    () => {
        AttrValue::Bool(_)
            | AttrValue::None
            | AttrValue::DType(_)
            | AttrValue::Func(_)
            | AttrValue::Str(_)
            | AttrValue::List(_)
    };
}

fn constant_from_attr(value: &AttrValue, out_types: &[Type]) -> Result<Array, String> {
    let [ty] = out_types else {
        return Err(format!("constant: has one result, {} declared", out_types.len()));
    };
    // Every kind named, so that a new attribute kind must be placed here.
    let (items, shape): (Vec<&AttrValue>, Shape) = match value {
        AttrValue::List(items) => (items.iter().collect(), ty.shape.clone()),
        AttrValue::Int(_)
        | AttrValue::Float(_)
        | AttrValue::Bool(_)
        | AttrValue::None
        | AttrValue::DType(_)
        | AttrValue::Func(_)
        | AttrValue::Str(_) => (vec![value], Shape::new()),
    };
    let expected = ferrax_array::element_count(&shape).map_err(|e| format!("constant: {e}"))?;
    if items.len() != expected {
        return Err(format!("constant: value has {} elements but the type {ty} needs {expected}", items.len()));
    }
    let bad = |v: &AttrValue| format!("constant: {} `{v}` is not a {} value", v.kind(), ty.dtype);
    let data = match ty.dtype {
        DType::Bool => Data::Bool(
            items
                .iter()
                .map(|v| if let AttrValue::Bool(b) = v { Ok(*b) } else { Err(bad(v)) })
                .collect::<Result<_, _>>()?,
        ),
        DType::I32 => Data::I32(
            items
                .iter()
                .map(|v| match v {
                    AttrValue::Int(i) => i32::try_from(*i).map_err(|_| format!("constant: {i} does not fit i32")),
                    AttrValue::Float(_) | not_a_number!() => Err(bad(v)),
                })
                .collect::<Result<_, _>>()?,
        ),
        DType::F32 => Data::F32(
            items
                .iter()
                .map(|v| match v {
                    AttrValue::Int(i) => Ok(*i as f32),
                    AttrValue::Float(text) => parse_float::<f32>(text).ok_or_else(|| bad(v)),
                    not_a_number!() => Err(bad(v)),
                })
                .collect::<Result<_, _>>()?,
        ),
        DType::F64 => Data::F64(
            items
                .iter()
                .map(|v| match v {
                    AttrValue::Int(i) => Ok(*i as f64),
                    AttrValue::Float(text) => parse_float::<f64>(text).ok_or_else(|| bad(v)),
                    not_a_number!() => Err(bad(v)),
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    Array::new(shape, data).map_err(|e| format!("constant: {e}"))
}

/// Checks the operand count: `add: expects 2 operands, got 3`.
pub(crate) fn expect_arity(op: &str, inputs: &[Type], n: usize) -> Result<(), String> {
    if inputs.len() == n {
        Ok(())
    } else {
        Err(format!("{op}: expects {n} operand{}, got {}", if n == 1 { "" } else { "s" }, inputs.len()))
    }
}

/// Checks that `axis` indexes a rank-`rank` operand.
pub(crate) fn check_axis(op: &str, what: &str, axis: usize, rank: usize) -> Result<(), String> {
    if axis < rank { Ok(()) } else { Err(format!("{op}: {what} {axis} is out of range for rank {rank}")) }
}

/// Checks a list of distinct in-range axes.
pub(crate) fn check_axes(op: &str, what: &str, axes: &[usize], rank: usize) -> Result<(), String> {
    for (i, &axis) in axes.iter().enumerate() {
        check_axis(op, what, axis, rank)?;
        if axes[..i].contains(&axis) {
            return Err(format!("{op}: {what} {axis} is repeated in {axes:?}"));
        }
    }
    Ok(())
}

/// Checks that a list attribute has one entry per axis.
pub(crate) fn check_len(op: &str, attr: &str, len: usize, rank: usize) -> Result<(), String> {
    if len == rank { Ok(()) } else { Err(format!("{op}: '{attr}' has {len} entries but the operand has rank {rank}")) }
}

/// Checks that two operand types are equal: `add: operand types differ: f32[2] vs f32[3]`.
pub(crate) fn expect_same(op: &str, a: &Type, b: &Type) -> Result<(), String> {
    if a == b { Ok(()) } else { Err(format!("{op}: operand types differ: {a} vs {b}")) }
}
