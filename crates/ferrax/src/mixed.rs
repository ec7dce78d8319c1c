//! Mixed precision training, after DeepMind's jmp: a [`Policy`] saying in which dtype
//! parameters are kept, computation runs and outputs are returned, loss scaling for
//! f16 ([`NoLossScale`], [`StaticLossScale`], [`DynamicLossScale`]), [`all_finite`], and
//! [`select_tree`], with which an optimiser's step is skipped when the gradients
//! overflowed.
//!
//! The usual step: cast the f32 master parameters to the compute dtype, compute the
//! loss there, scale it, differentiate, unscale the gradients (in f32), check they are
//! finite, and apply the update only if they are, adjusting a dynamic loss scale:
//!
//! ```
//! use ferrax::mixed::{DynamicLossScale, LossScale, Policy, all_finite, select_tree};
//! use ferrax::optim::{Sgd, SgdState};
//! use ferrax::{Array, Tensor, grad, jit};
//!
//! let policy: Policy = "params=f32,compute=f16,output=f32".parse().unwrap();
//! let sgd = Sgd::new(0.1, 0.0);
//! let step = jit(|(p, s, ls, x): (Vec<Tensor>, SgdState<Vec<Tensor>>, DynamicLossScale<Tensor>, Tensor)| {
//!     let loss = |p: Vec<Tensor>| {
//!         let p = policy.cast_to_compute(&p);
//!         let y = &p[0] * &policy.cast_to_compute(&x);
//!         ls.scale(&policy.cast_to_output(&(&y * &y).sum_all()))
//!     };
//!     let grads = ls.unscale(&policy.cast_to_param(&grad(loss).apply(&p)));
//!     let finite = all_finite(&grads);
//!     let (new_p, new_s) = sgd.update(&grads, &s, &p);
//!     let (p, s) = select_tree(&finite, &(new_p, new_s), &(p.clone(), s.clone()));
//!     (p, s, ls.adjust(&finite))
//! });
//! let params = vec![Array::scalar(1.0f32)];
//! let state = sgd.init(&params).unwrap();
//! let (p, _, ls) = step.call(&(params, state, DynamicLossScale::new(), Array::scalar(0.5f32))).unwrap();
//! assert!((p[0].to_f64_vec()[0] - 0.95).abs() < 1e-3); // p - 0.1 · 2 p x²
//! assert_eq!(ls.counter.to_f64_vec(), [1.0]);
//! ```

use crate::tree::Tree;
use crate::{Error, Tensor};
use ferrax_ir::{Array, DType};
use std::fmt;
use std::str::FromStr;

/// The dtypes of mixed precision: `params` (the master copy the optimiser updates),
/// `compute` (the forward and backward passes) and `output` (what a model returns,
/// usually the loss). Only float leaves are cast; integer and bool leaves pass through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The dtype parameters are stored and updated in.
    pub params: DType,
    /// The dtype computation runs in.
    pub compute: DType,
    /// The dtype outputs are returned in.
    pub output: DType,
}

impl Default for Policy {
    /// Everything in f32.
    fn default() -> Policy {
        Policy { params: DType::F32, compute: DType::F32, output: DType::F32 }
    }
}

impl Policy {
    /// The float leaves of `tree` cast to the compute dtype.
    #[track_caller]
    pub fn cast_to_compute<T: Tree<Tensor> + ?Sized>(&self, tree: &T) -> T::With<Tensor> {
        cast_floats(tree, self.compute)
    }

    /// The float leaves of `tree` cast to the parameter dtype.
    #[track_caller]
    pub fn cast_to_param<T: Tree<Tensor> + ?Sized>(&self, tree: &T) -> T::With<Tensor> {
        cast_floats(tree, self.params)
    }

    /// The float leaves of `tree` cast to the output dtype.
    #[track_caller]
    pub fn cast_to_output<T: Tree<Tensor> + ?Sized>(&self, tree: &T) -> T::With<Tensor> {
        cast_floats(tree, self.output)
    }

    /// Host arrays' float leaves in the parameter dtype (to initialise the master
    /// parameters from values made in another dtype).
    pub fn params_from<T: Tree<Array> + ?Sized>(&self, tree: &T) -> Result<T::With<Array>, Error> {
        let mut failed = None;
        let out = tree.map_leaves(&mut |a: &Array| match a.dtype().is_float() && a.dtype() != self.params {
            true => {
                let values = ferrax_ir::array::Data::from_f64s(self.params, &a.to_f64_vec());
                Array::new(a.shape(), values).unwrap_or_else(|e| {
                    failed = Some(e);
                    a.clone()
                })
            }
            false => a.clone(),
        });
        match failed {
            Some(e) => Err(Error::Arguments(format!("mixed: {e}"))),
            None => Ok(out),
        }
    }
}

/// `tree` with every float leaf cast to `dtype`.
#[track_caller]
fn cast_floats<T: Tree<Tensor> + ?Sized>(tree: &T, dtype: DType) -> T::With<Tensor> {
    tree.map_leaves(&mut |t: &Tensor| if t.dtype().is_float() { t.astype(dtype) } else { t.clone() })
}

impl FromStr for Policy {
    type Err = String;

    /// Parses `"params=f32,compute=bf16,output=f32"` (jmp's form; `p`, `c` and `o` are
    /// short for the keys, `float32`/`bfloat16`/`float16`/`half` name the dtypes, and a
    /// key left out is f32).
    fn from_str(text: &str) -> Result<Policy, String> {
        let mut policy = Policy::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("mixed policy: `{part}` is not key=dtype (in \"{text}\")"))?;
            let dtype = match value.trim() {
                "f32" | "float32" => DType::F32,
                "bf16" | "bfloat16" => DType::BF16,
                "f16" | "float16" | "half" => DType::F16,
                "f64" | "float64" => DType::F64,
                other => return Err(format!("mixed policy: `{other}` is not a float dtype (in \"{text}\")")),
            };
            match key.trim() {
                "params" | "p" => policy.params = dtype,
                "compute" | "c" => policy.compute = dtype,
                "output" | "o" => policy.output = dtype,
                other => {
                    return Err(format!("mixed policy: unknown key `{other}` (params, compute, output) in \"{text}\""));
                }
            }
        }
        Ok(policy)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "params={},compute={},output={}", self.params, self.compute, self.output)
    }
}

/// A loss scale: multiply the loss before differentiating (so that small f16 gradients
/// do not flush to zero), divide the gradients after, and adjust after each step.
pub trait LossScale: Sized {
    /// `loss` times the scale (in the loss's dtype).
    fn scale(&self, loss: &Tensor) -> Tensor;

    /// The float leaves of `grads` divided by the scale.
    fn unscale<T: Tree<Tensor> + ?Sized>(&self, grads: &T) -> T::With<Tensor>;

    /// The scale for the next step, given whether this step's gradients were finite.
    fn adjust(&self, grads_finite: &Tensor) -> Self;
}

/// No scaling (bf16, whose range is f32's, needs none).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoLossScale;

impl LossScale for NoLossScale {
    fn scale(&self, loss: &Tensor) -> Tensor {
        loss.clone()
    }

    fn unscale<T: Tree<Tensor> + ?Sized>(&self, grads: &T) -> T::With<Tensor> {
        grads.map_leaves(&mut |t: &Tensor| t.clone())
    }

    fn adjust(&self, _grads_finite: &Tensor) -> NoLossScale {
        NoLossScale
    }
}

/// A fixed scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StaticLossScale(pub f64);

/// The fixed loss scales are trees without leaves, so that one training step can take
/// any loss scale as part of its traced state.
/// The structure names the scale: a compiled step is specific to it.
macro_rules! leafless {
    ($($ty:ty),*) => {$(
        impl<L> Tree<L> for $ty {
            type With<M> = $ty;

            fn for_each_leaf<'a>(&'a self, _: &mut dyn FnMut(&'a L)) {}

            fn map_leaves<M>(&self, _: &mut dyn FnMut(&L) -> M) -> $ty {
                *self
            }

            fn write_structure(&self, out: &mut String) {
                out.push_str(&format!("{self:?}"));
            }
        }
    )*};
}

leafless!(NoLossScale, StaticLossScale);

impl LossScale for StaticLossScale {
    #[track_caller]
    fn scale(&self, loss: &Tensor) -> Tensor {
        loss * self.0
    }

    #[track_caller]
    fn unscale<T: Tree<Tensor> + ?Sized>(&self, grads: &T) -> T::With<Tensor> {
        let inverse = 1.0 / self.0;
        grads.map_leaves(&mut |t: &Tensor| if t.dtype().is_float() { t * inverse } else { t.clone() })
    }

    fn adjust(&self, _grads_finite: &Tensor) -> StaticLossScale {
        *self
    }
}

/// A scale that halves (down to `min_scale`) whenever the gradients overflow and
/// doubles (by `factor`) after `period` finite steps in a row, as jmp's: it starts at
/// 2^15, with period 2000, factor 2 and minimum 1. Its state (`scale`, an f32 scalar,
/// and `counter`, the i32 count of finite steps since the last change) is a tree of
/// `L` leaves, [`Array`]s between steps and [`Tensor`]s inside a traced step.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicLossScale<L> {
    /// The current scale (f32[]).
    pub scale: L,
    /// Finite steps since the scale last changed (i32[]).
    pub counter: L,
    /// Finite steps before the scale grows.
    pub period: i32,
    /// What the scale is multiplied or divided by.
    pub factor: f64,
    /// The smallest scale.
    pub min_scale: f64,
}

impl DynamicLossScale<Array> {
    /// jmp's defaults: scale 2^15, period 2000, factor 2, minimum 1.
    pub fn new() -> DynamicLossScale<Array> {
        DynamicLossScale::with_scale(32768.0)
    }

    /// Starting at `scale`, with period 2000, factor 2 and minimum 1.
    pub fn with_scale(scale: f64) -> DynamicLossScale<Array> {
        DynamicLossScale {
            scale: Array::scalar(scale as f32),
            counter: Array::scalar(0i32),
            period: 2000,
            factor: 2.0,
            min_scale: 1.0,
        }
    }
}

impl Default for DynamicLossScale<Array> {
    fn default() -> DynamicLossScale<Array> {
        DynamicLossScale::new()
    }
}

impl<L> Tree<L> for DynamicLossScale<L> {
    type With<M> = DynamicLossScale<M>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        f(&self.scale);
        f(&self.counter);
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> DynamicLossScale<M> {
        let scale = f(&self.scale);
        let counter = f(&self.counter);
        DynamicLossScale { scale, counter, period: self.period, factor: self.factor, min_scale: self.min_scale }
    }

    fn write_structure(&self, out: &mut String) {
        out.push_str("DynamicLossScale { scale: *, counter: * }");
    }
}

impl LossScale for DynamicLossScale<Tensor> {
    #[track_caller]
    fn scale(&self, loss: &Tensor) -> Tensor {
        loss * &self.scale.astype(loss.dtype())
    }

    #[track_caller]
    fn unscale<T: Tree<Tensor> + ?Sized>(&self, grads: &T) -> T::With<Tensor> {
        grads.map_leaves(&mut |t: &Tensor| match t.dtype().is_float() {
            true => t / &self.scale.astype(t.dtype()),
            false => t.clone(),
        })
    }

    #[track_caller]
    fn adjust(&self, grads_finite: &Tensor) -> DynamicLossScale<Tensor> {
        let grown = &self.scale * self.factor;
        // Growing past f32's range keeps the old scale.
        let grown = crate::where_(&grown.is_finite(), &grown, &self.scale);
        let at_period = self.counter.eq_(self.period - 1);
        let kept = crate::where_(&at_period, &grown, &self.scale);
        let shrunk = (&self.scale / self.factor).maximum(self.min_scale);
        let scale = crate::where_(grads_finite, &kept, &shrunk);
        let next = (&self.counter + 1).rem(self.period);
        let counter = crate::where_(grads_finite, &next, 0);
        DynamicLossScale { scale, counter, period: self.period, factor: self.factor, min_scale: self.min_scale }
    }
}

/// Whether every element of every float leaf of `tree` is finite: a `bool[]` (true for
/// a tree without float leaves).
#[track_caller]
pub fn all_finite<T: Tree<Tensor> + ?Sized>(tree: &T) -> Tensor {
    let mut all = Tensor::full(DType::Bool, &[], true);
    for leaf in tree.leaves() {
        if leaf.dtype().is_float() {
            let bad = leaf.is_finite().not().sum_axes(.., false);
            all = all.and(bad.eq_(0));
        }
    }
    all
}

/// `on_true` where `pred` (a `bool[]`) holds, else `on_false`, leaf by leaf (the two
/// trees of one structure and types): how a training step keeps its old parameters and
/// optimiser state when the gradients were not finite.
#[track_caller]
pub fn select_tree<T: Tree<Tensor> + ?Sized>(pred: &Tensor, on_true: &T, on_false: &T) -> T::With<Tensor> {
    let others = on_false.leaves();
    let mut k = 0;
    on_true.map_leaves(&mut |t: &Tensor| {
        let out = match others.get(k) {
            Some(other) => crate::where_(pred, t, *other),
            None => t.clone(),
        };
        k += 1;
        out
    })
}
