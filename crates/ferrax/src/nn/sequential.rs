//! The [`Layer`] interface every layer implements, the [`Context`] of one forward
//! pass, and composition: tuples of layers, `Vec`s of layers and [`Sequential`].

use crate::Tensor;
use crate::random::{self, Key};
use crate::tracer::fail;
use crate::tree::Tree;
use std::panic::Location;

/// A layer: a configuration that initialises a parameter tree and applies itself to
/// one input with it.
///
/// `Params<T>` is the parameters with leaves `T` (`Array` on the host, `Tensor` when
/// traced), a [`Tree`] so that every transform and optimiser applies to it.
pub trait Layer {
    /// The parameters, generic over the leaf type.
    type Params<T: Tree<T>>: Tree<T>;

    /// The parameters drawn from a traced `key` (what [`Layer::init`] runs).
    fn init_traced(&self, key: &Tensor) -> Self::Params<Tensor>;

    /// The layer applied to `x` with `params`; `ctx` says whether this is training
    /// and gives dropout its keys.
    fn forward(&self, params: &Self::Params<Tensor>, x: &Tensor, ctx: &mut Context) -> Tensor;

    /// The parameters drawn from `key`: host arrays for a host key (traced and
    /// evaluated at once), tensors of the current trace for a traced key.
    #[track_caller]
    fn init<K: Key>(&self, key: &K) -> K::Output<Self::Params<Tensor>>
    where
        Self: Sized,
    {
        key.with_key(|k| self.init_traced(k))
    }
}

/// What one forward pass needs besides parameters and input: training or inference
/// (dropout and batch statistics act only in training), and in training a PRNG key
/// from which each dropout draws a fresh subkey.
#[derive(Clone, Debug)]
pub struct Context {
    /// True in training: dropout drops.
    pub train: bool,
    key: Option<Tensor>,
}

impl Context {
    /// Inference: no dropout, no key needed.
    pub fn eval() -> Context {
        Context { train: false, key: None }
    }

    /// Training with the traced PRNG `key`, split once per use.
    pub fn train(key: &Tensor) -> Context {
        Context { train: true, key: Some(key.clone()) }
    }

    /// A fresh key (the context keeps the other half of a split); `None` without a key.
    #[track_caller]
    pub fn next_key(&mut self) -> Option<Tensor> {
        let key = self.key.take()?;
        let [next, used] = random::split_into(&key);
        self.key = Some(next);
        Some(used)
    }
}

/// Layers applied in order: `Sequential((Linear::new(2, 8), Activation::Relu,
/// Linear::new(8, 1)))`. Its parameters are the tuple of the layers' parameters (`()`
/// for a layer without any). A bare tuple of layers is the same layer; this wrapper
/// only names the intent.
#[derive(Clone, Debug, PartialEq)]
pub struct Sequential<L>(pub L);

impl<L: Layer> Layer for Sequential<L> {
    type Params<T: Tree<T>> = L::Params<T>;

    fn init_traced(&self, key: &Tensor) -> Self::Params<Tensor> {
        self.0.init_traced(key)
    }

    fn forward(&self, params: &Self::Params<Tensor>, x: &Tensor, ctx: &mut Context) -> Tensor {
        self.0.forward(params, x, ctx)
    }
}

/// A stack of layers of one type (transformer blocks, say), applied in order.
impl<L: Layer> Layer for Vec<L> {
    type Params<T: Tree<T>> = Vec<L::Params<T>>;

    fn init_traced(&self, key: &Tensor) -> Self::Params<Tensor> {
        let keys = random::split(key, self.len());
        self.iter().zip(&keys).map(|(layer, k)| layer.init_traced(k)).collect()
    }

    fn forward(&self, params: &Self::Params<Tensor>, x: &Tensor, ctx: &mut Context) -> Tensor {
        if params.len() != self.len() {
            let message = format!("nn: a stack of {} layers got {} parameter sets", self.len(), params.len());
            return fail(Location::caller(), message, x.ty().clone());
        }
        self.iter().zip(params).fold(x.clone(), |h, (layer, p)| layer.forward(p, &h, ctx))
    }
}

macro_rules! sequential_tuple {
    ($count:literal; $($name:ident $index:tt),+) => {
        impl<$($name: Layer),+> Layer for ($($name,)+) {
            type Params<T: Tree<T>> = ($($name::Params<T>,)+);

            fn init_traced(&self, key: &Tensor) -> Self::Params<Tensor> {
                let keys = random::split(key, $count);
                ($(self.$index.init_traced(&keys[$index]),)+)
            }

            fn forward(&self, params: &Self::Params<Tensor>, x: &Tensor, ctx: &mut Context) -> Tensor {
                let h = x.clone();
                $(let h = self.$index.forward(&params.$index, &h, ctx);)+
                h
            }
        }
    };
}

sequential_tuple!(1; A 0);
sequential_tuple!(2; A 0, B 1);
sequential_tuple!(3; A 0, B 1, C 2);
sequential_tuple!(4; A 0, B 1, C 2, D 3);
sequential_tuple!(5; A 0, B 1, C 2, D 3, E 4);
sequential_tuple!(6; A 0, B 1, C 2, D 3, E 4, F 5);
sequential_tuple!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
sequential_tuple!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
