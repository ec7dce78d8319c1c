//! The basic layers: [`Linear`], [`LayerNorm`], [`BatchNorm`] (with its running
//! statistics as a separate state tree), [`Embedding`], [`Dropout`] and
//! [`Activation`]. Each is a configuration plus a parameter tree, with flax's defaults.

use super::{Context, Init, Layer, check_features, params_struct};
use crate::tracer::fail;
use crate::tree::Tree;
use crate::{Error, Tensor, random};
use ferrax_ir::{Array, DType, Type};
use std::panic::Location;

params_struct! {
    /// The parameters of [`Linear`]: `kernel` `(in, out)` and `bias` `(out,)` (absent
    /// when the layer has none).
    pub struct LinearParams<T> {
        /// The weight matrix, `(in_features, out_features)`.
        pub kernel: T,
        /// The bias, `(out_features,)`.
        pub bias: Option<T>,
    }
}

/// A dense layer `y = x · kernel + bias` over the last axis of `x` (flax's `Dense`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linear {
    /// Size of the input's last axis.
    pub in_features: usize,
    /// Size of the output's last axis.
    pub out_features: usize,
    /// Whether there is a bias.
    pub use_bias: bool,
    /// The kernel's initialiser (flax: Lecun normal).
    pub kernel_init: Init,
    /// The bias' initialiser (flax: zeros).
    pub bias_init: Init,
    /// The parameters' dtype.
    pub dtype: DType,
}

impl Linear {
    /// `in_features -> out_features` with a bias, flax's initialisers, f32.
    pub fn new(in_features: usize, out_features: usize) -> Linear {
        Linear {
            in_features,
            out_features,
            use_bias: true,
            kernel_init: Init::LecunNormal,
            bias_init: Init::Zeros,
            dtype: DType::F32,
        }
    }

    /// `x · kernel + bias`; `x`'s last axis must have `in_features` entries (its
    /// leading axes are batch axes).
    #[track_caller]
    pub fn apply(&self, params: &LinearParams<Tensor>, x: &Tensor) -> Tensor {
        if let Err(message) = check_features("nn::Linear", x, self.in_features) {
            let mut shape = x.shape().to_vec();
            shape.pop();
            shape.push(self.out_features);
            return fail(Location::caller(), message, Type::new(x.dtype(), &shape));
        }
        let y = x.matmul(&params.kernel);
        match &params.bias {
            Some(b) => y + b,
            None => y,
        }
    }
}

impl Layer for Linear {
    type Params<T: Tree<T>> = LinearParams<T>;

    fn init_traced(&self, key: &Tensor) -> LinearParams<Tensor> {
        let [k, b] = random::split_into(key);
        LinearParams {
            kernel: self.kernel_init.sample(&k, &[self.in_features, self.out_features], self.dtype),
            bias: self.use_bias.then(|| self.bias_init.sample(&b, &[self.out_features], self.dtype)),
        }
    }

    fn forward(&self, params: &LinearParams<Tensor>, x: &Tensor, _: &mut Context) -> Tensor {
        self.apply(params, x)
    }
}

params_struct! {
    /// The parameters of [`LayerNorm`]: `scale` and `bias`, `(features,)` each.
    pub struct LayerNormParams<T> {
        /// The learned scale (initially ones).
        pub scale: Option<T>,
        /// The learned shift (initially zeros).
        pub bias: Option<T>,
    }
}

/// Layer normalisation over the last axis (flax's `LayerNorm`):
/// `(x - mean) / sqrt(var + epsilon) * scale + bias`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerNorm {
    /// Size of the normalised (last) axis.
    pub features: usize,
    /// Added to the variance (flax: 1e-6).
    pub epsilon: f64,
    /// Whether there is a learned scale.
    pub use_scale: bool,
    /// Whether there is a learned bias.
    pub use_bias: bool,
    /// The parameters' dtype.
    pub dtype: DType,
}

impl LayerNorm {
    /// Over `features` entries, epsilon 1e-6, with scale and bias, f32.
    pub fn new(features: usize) -> LayerNorm {
        LayerNorm { features, epsilon: 1e-6, use_scale: true, use_bias: true, dtype: DType::F32 }
    }

    /// `x` normalised over its last axis. The variance is the mean of the squared
    /// deviations from the mean (two passes over the row, no cancellation).
    #[track_caller]
    pub fn apply(&self, params: &LayerNormParams<Tensor>, x: &Tensor) -> Tensor {
        if let Err(message) = check_features("nn::LayerNorm", x, self.features) {
            return fail(Location::caller(), message, x.ty().clone());
        }
        let axis = x.rank() - 1;
        let centred = x - x.mean([axis], true);
        let var = centred.powi(2).mean([axis], true);
        let y = centred * (var + self.epsilon).rsqrt();
        let y = match &params.scale {
            Some(s) => y * s,
            None => y,
        };
        match &params.bias {
            Some(b) => y + b,
            None => y,
        }
    }
}

impl Layer for LayerNorm {
    type Params<T: Tree<T>> = LayerNormParams<T>;

    fn init_traced(&self, _: &Tensor) -> LayerNormParams<Tensor> {
        let shape = [self.features];
        LayerNormParams {
            scale: self.use_scale.then(|| Tensor::ones(self.dtype, &shape)),
            bias: self.use_bias.then(|| Tensor::zeros(self.dtype, &shape)),
        }
    }

    fn forward(&self, params: &LayerNormParams<Tensor>, x: &Tensor, _: &mut Context) -> Tensor {
        self.apply(params, x)
    }
}

params_struct! {
    /// The learned parameters of [`BatchNorm`]: `scale` and `bias`, `(features,)`.
    pub struct BatchNormParams<T> {
        /// The learned scale (initially ones).
        pub scale: T,
        /// The learned shift (initially zeros).
        pub bias: T,
    }
}

params_struct! {
    /// The running statistics of [`BatchNorm`] (flax's `batch_stats` collection):
    /// not trained by gradients, updated by [`BatchNorm::apply_train`].
    pub struct BatchNormState<T> {
        /// The running mean (initially zeros).
        pub mean: T,
        /// The running (biased) variance (initially ones).
        pub var: T,
    }
}

/// Batch normalisation over every axis but the last, the features (flax's
/// `BatchNorm` with `axis=-1`). In training the batch's own mean and (biased)
/// variance normalise it and the running statistics move towards them:
/// `running = momentum · running + (1 - momentum) · batch`; at inference the running
/// statistics normalise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchNorm {
    /// Size of the feature (last) axis.
    pub features: usize,
    /// The weight of the old running statistics (flax: 0.99).
    pub momentum: f64,
    /// Added to the variance (flax: 1e-5).
    pub epsilon: f64,
    /// The parameters' and statistics' dtype.
    pub dtype: DType,
}

impl BatchNorm {
    /// Over `features` channels, momentum 0.99, epsilon 1e-5, f32.
    pub fn new(features: usize) -> BatchNorm {
        BatchNorm { features, momentum: 0.99, epsilon: 1e-5, dtype: DType::F32 }
    }

    /// The initial parameters (unit scale, zero bias); they need no key.
    pub fn init(&self) -> Result<BatchNormParams<Array>, Error> {
        Ok(BatchNormParams {
            scale: Array::ones(self.dtype, &[self.features])?,
            bias: Array::zeros(self.dtype, &[self.features], &Default::default())?,
        })
    }

    /// The initial running statistics: mean 0, variance 1.
    pub fn init_state(&self) -> Result<BatchNormState<Array>, Error> {
        Ok(BatchNormState {
            mean: Array::zeros(self.dtype, &[self.features], &Default::default())?,
            var: Array::ones(self.dtype, &[self.features])?,
        })
    }

    /// Training: `x` normalised with its batch statistics, and the updated running
    /// statistics (behind `stop_gradient`: no gradient flows into the state).
    #[track_caller]
    pub fn apply_train(
        &self,
        params: &BatchNormParams<Tensor>,
        state: &BatchNormState<Tensor>,
        x: &Tensor,
    ) -> (Tensor, BatchNormState<Tensor>) {
        if let Err(message) = check_features("nn::BatchNorm", x, self.features) {
            let poisoned = fail(Location::caller(), message, x.ty().clone());
            return (poisoned, state.map_leaves(&mut |t: &Tensor| t.clone()));
        }
        let axes: Vec<usize> = (0..x.rank() - 1).collect();
        let mean = x.mean(axes.clone(), false);
        let var = (x - &mean).powi(2).mean(axes, false);
        let y = self.normalise(params, x, &mean, &var);
        let m = self.momentum;
        let state = BatchNormState {
            mean: (&state.mean * m + mean.stop_gradient() * (1.0 - m)).cast(state.mean.dtype()),
            var: (&state.var * m + var.stop_gradient() * (1.0 - m)).cast(state.var.dtype()),
        };
        (y, state)
    }

    /// Inference: `x` normalised with the running statistics.
    #[track_caller]
    pub fn apply_eval(&self, params: &BatchNormParams<Tensor>, state: &BatchNormState<Tensor>, x: &Tensor) -> Tensor {
        if let Err(message) = check_features("nn::BatchNorm", x, self.features) {
            return fail(Location::caller(), message, x.ty().clone());
        }
        self.normalise(params, x, &state.mean, &state.var)
    }

    fn normalise(&self, params: &BatchNormParams<Tensor>, x: &Tensor, mean: &Tensor, var: &Tensor) -> Tensor {
        (x - mean) * (var + self.epsilon).rsqrt() * &params.scale + &params.bias
    }
}

params_struct! {
    /// The parameters of [`Embedding`]: the table, `(num_embeddings, features)`.
    pub struct EmbeddingParams<T> {
        /// One row per token.
        pub embedding: T,
    }
}

/// A lookup table from integer ids to vectors (flax's `Embed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Embedding {
    /// Number of rows (the vocabulary size).
    pub num_embeddings: usize,
    /// Size of each vector.
    pub features: usize,
    /// The table's initialiser (flax: normal with variance `1 / features`).
    pub init: Init,
    /// The table's dtype.
    pub dtype: DType,
}

impl Embedding {
    /// `num_embeddings` vectors of `features` entries, flax's initialiser, f32.
    pub fn new(num_embeddings: usize, features: usize) -> Embedding {
        let std = 1.0 / (features.max(1) as f64).sqrt();
        Embedding { num_embeddings, features, init: Init::Normal(std), dtype: DType::F32 }
    }

    /// The rows of the table at `ids` (i32, any shape): the result has `ids`' shape
    /// plus a last axis of `features`. Ids outside the table are clamped into it, as
    /// JAX's gather does.
    #[track_caller]
    pub fn apply(&self, params: &EmbeddingParams<Tensor>, ids: &Tensor) -> Tensor {
        if ids.dtype() != DType::I32 {
            let mut shape = ids.shape().to_vec();
            shape.push(self.features);
            let message = format!("nn::Embedding: ids {} must be i32", ids.ty());
            return fail(Location::caller(), message, Type::new(self.dtype, &shape));
        }
        params.embedding.index_select(0, ids)
    }

    /// `x · tableᵀ`: scores of `x` (last axis `features`) against every row, for an
    /// output layer that shares the embedding's weights (flax's `Embed.attend`).
    #[track_caller]
    pub fn attend(&self, params: &EmbeddingParams<Tensor>, x: &Tensor) -> Tensor {
        if let Err(message) = check_features("nn::Embedding::attend", x, self.features) {
            let mut shape = x.shape().to_vec();
            shape.pop();
            shape.push(self.num_embeddings);
            return fail(Location::caller(), message, Type::new(x.dtype(), &shape));
        }
        x.matmul(&params.embedding.transpose())
    }
}

impl Layer for Embedding {
    type Params<T: Tree<T>> = EmbeddingParams<T>;

    fn init_traced(&self, key: &Tensor) -> EmbeddingParams<Tensor> {
        EmbeddingParams { embedding: self.init.sample(key, &[self.num_embeddings, self.features], self.dtype) }
    }

    fn forward(&self, params: &EmbeddingParams<Tensor>, ids: &Tensor, _: &mut Context) -> Tensor {
        self.apply(params, ids)
    }
}

/// Inverted dropout (flax's `Dropout`): in training each element is zeroed with
/// probability `rate` and the others scaled by `1 / (1 - rate)`; at inference the
/// identity. No parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dropout {
    /// The probability of dropping an element, in `[0, 1]`.
    pub rate: f64,
}

impl Dropout {
    /// Dropout with `rate`.
    pub fn new(rate: f64) -> Dropout {
        Dropout { rate }
    }

    /// Training: `x` with elements dropped using the traced PRNG `key`.
    #[track_caller]
    pub fn apply(&self, key: &Tensor, x: &Tensor) -> Tensor {
        random::dropout(key, x, self.rate)
    }
}

impl Layer for Dropout {
    type Params<T: Tree<T>> = ();

    fn init_traced(&self, _: &Tensor) {}

    #[track_caller]
    fn forward(&self, _: &(), x: &Tensor, ctx: &mut Context) -> Tensor {
        if !ctx.train || self.rate == 0.0 {
            return x.clone();
        }
        match ctx.next_key() {
            Some(key) => self.apply(&key, x),
            None => {
                let message = "nn::Dropout: training needs a PRNG key (build the context with Context::train(key))";
                fail(Location::caller(), message.to_string(), x.ty().clone())
            }
        }
    }
}

/// An elementwise function as a layer without parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// GELU, tanh approximation (JAX's default).
    Gelu,
    /// GELU, exact (erf) form.
    GeluExact,
    /// `x · sigmoid(x)`.
    Silu,
    /// `tanh(x)`.
    Tanh,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
}

impl Activation {
    /// The function applied to `x`.
    #[track_caller]
    pub fn apply(&self, x: &Tensor) -> Tensor {
        match self {
            Activation::Relu => x.relu(),
            Activation::Gelu => super::gelu(x, true),
            Activation::GeluExact => super::gelu(x, false),
            Activation::Silu => super::silu(x),
            Activation::Tanh => x.tanh(),
            Activation::Sigmoid => x.sigmoid(),
        }
    }
}

impl Layer for Activation {
    type Params<T: Tree<T>> = ();

    fn init_traced(&self, _: &Tensor) {}

    fn forward(&self, _: &(), x: &Tensor, _: &mut Context) -> Tensor {
        self.apply(x)
    }
}
