//! Multi-head dot-product attention, as flax's `MultiHeadDotProductAttention`:
//! [`dot_product_attention`] on already projected heads, [`causal_mask`], and the
//! [`MultiHeadAttention`] layer with its query, key, value and output projections.

use super::{Context, Init, Layer, Linear, LinearParams, masked_softmax, params_struct, softmax};
use crate::ops::broadcast_shapes;
use crate::tracer::fail;
use crate::tree::Tree;
use crate::{Tensor, iota, random};
use ferrax_ir::{DType, Type};
use std::panic::Location;

/// The causal mask of a sequence of `length`: a bool `(length, length)` that is true
/// where the key position is at or before the query position (row `t` may attend to
/// columns `0..=t`), as flax's `make_causal_mask`.
#[track_caller]
pub fn causal_mask(length: usize) -> Tensor {
    let query = iota(DType::I32, &[length, length], 0);
    let key = iota(DType::I32, &[length, length], 1);
    key.le(query)
}

/// Attention of queries `q` `(batch, q_len, heads, head_dim)` over keys `k` and
/// values `v` `(batch, kv_len, heads, head_dim)` (flax's layout): the softmax over
/// the key positions of `q·kᵀ / √head_dim` (the query scaled first, as flax does),
/// where `mask` (bool, broadcasting to `(batch, heads, q_len, kv_len)`) is true,
/// times `v`; the result is `(batch, q_len, heads, head_dim)`. The mask goes through
/// [`masked_softmax`]: masked positions get exactly zero weight and no gradient, and
/// a query with every position masked gets a zero output.
#[track_caller]
pub fn dot_product_attention(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Tensor {
    let location = Location::caller();
    let operands = format!("nn::dot_product_attention: q {}, k {}, v {}", q.ty(), k.ty(), v.ty());
    let (qs, ks) = (q.shape(), k.shape());
    let consistent =
        q.rank() == 4 && k.shape() == v.shape() && k.rank() == 4 && qs[0] == ks[0] && qs[2] == ks[2] && qs[3] == ks[3];
    if !consistent {
        let message =
            format!("{operands}: expected q (batch, q_len, heads, head_dim) and k, v (batch, kv_len, heads, head_dim)");
        return fail(location, message, q.ty().clone());
    }
    let weights_shape = [qs[0], qs[2], qs[1], ks[1]];
    if let Some(m) = mask
        && (m.dtype() != DType::Bool
            || broadcast_shapes(&weights_shape, m.shape()).as_deref() != Some(&weights_shape[..]))
    {
        let message = format!("{operands}: the mask {} must be bool, broadcasting to {weights_shape:?}", m.ty());
        return fail(location, message, q.ty().clone());
    }
    let scale = 1.0 / (qs[3] as f64).sqrt();
    // Heads before positions, so that the products are batched over (batch, heads).
    let q = (q * scale).permute(&[0, 2, 1, 3]);
    let k = k.permute(&[0, 2, 3, 1]);
    let v = v.permute(&[0, 2, 1, 3]);
    let logits = q.matmul(&k);
    let weights = match mask {
        Some(m) => masked_softmax(&logits, m, 3),
        None => softmax(&logits, 3),
    };
    weights.matmul(&v).permute(&[0, 2, 1, 3])
}

params_struct! {
    /// The parameters of [`MultiHeadAttention`]: four dense projections. The query,
    /// key and value kernels are `(in_features, qkv_features)`, the heads side by side
    /// in their columns (head `h` is columns `h·head_dim..(h+1)·head_dim`); the output
    /// kernel is `(qkv_features, out_features)`.
    pub struct MultiHeadAttentionParams<T> {
        /// The query projection.
        pub query: LinearParams<T>,
        /// The key projection.
        pub key: LinearParams<T>,
        /// The value projection.
        pub value: LinearParams<T>,
        /// The output projection.
        pub out: LinearParams<T>,
    }
}

/// Multi-head attention (flax's `MultiHeadDotProductAttention`): inputs of shape
/// `(length, in_features)` or `(batch, length, in_features)` are projected to
/// `num_heads` heads of `qkv_features / num_heads` entries, attend with
/// [`dot_product_attention`] (under the causal mask when `causal`), and are projected
/// back to `out_features`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiHeadAttention {
    /// Number of heads; divides `qkv_features`.
    pub num_heads: usize,
    /// Size of the inputs' last axis.
    pub in_features: usize,
    /// Total size of the heads (flax: `in_features` by default).
    pub qkv_features: usize,
    /// Size of the output's last axis (flax: `in_features` by default).
    pub out_features: usize,
    /// Whether position `t` attends only to positions `0..=t` (self-attention).
    pub causal: bool,
    /// Whether the projections have biases.
    pub use_bias: bool,
    /// The projections' kernel initialiser (flax: Lecun normal).
    pub kernel_init: Init,
    /// The parameters' dtype.
    pub dtype: DType,
}

impl MultiHeadAttention {
    /// `num_heads` heads over `in_features` (also the heads' total and the output
    /// size), not causal, with biases, f32.
    pub fn new(in_features: usize, num_heads: usize) -> MultiHeadAttention {
        MultiHeadAttention {
            num_heads,
            in_features,
            qkv_features: in_features,
            out_features: in_features,
            causal: false,
            use_bias: true,
            kernel_init: Init::LecunNormal,
            dtype: DType::F32,
        }
    }

    /// The same layer with the causal mask on or off.
    pub fn with_causal(self, causal: bool) -> MultiHeadAttention {
        MultiHeadAttention { causal, ..self }
    }

    fn projection(&self, in_features: usize, out_features: usize) -> Linear {
        Linear {
            use_bias: self.use_bias,
            kernel_init: self.kernel_init,
            dtype: self.dtype,
            ..Linear::new(in_features, out_features)
        }
    }

    /// Self-attention of `x` (`(length, in_features)` or `(batch, length,
    /// in_features)`), under the causal mask if the layer is causal and `mask` (bool,
    /// broadcasting to `(batch, heads, length, length)`) if given.
    #[track_caller]
    pub fn apply(&self, params: &MultiHeadAttentionParams<Tensor>, x: &Tensor, mask: Option<&Tensor>) -> Tensor {
        self.attend(params, x, x, mask, Location::caller())
    }

    /// Attention of the positions of `query` over those of `key_value` (both
    /// `(length, in_features)` or `(batch, length, in_features)`, lengths may differ
    /// unless the layer is causal).
    #[track_caller]
    pub fn apply_cross(
        &self,
        params: &MultiHeadAttentionParams<Tensor>,
        query: &Tensor,
        key_value: &Tensor,
        mask: Option<&Tensor>,
    ) -> Tensor {
        self.attend(params, query, key_value, mask, Location::caller())
    }

    fn attend(
        &self,
        params: &MultiHeadAttentionParams<Tensor>,
        query: &Tensor,
        key_value: &Tensor,
        mask: Option<&Tensor>,
        location: &'static Location<'static>,
    ) -> Tensor {
        let heads = self.num_heads;
        let mut out_shape = query.shape().to_vec();
        if let Some(last) = out_shape.last_mut() {
            *last = self.out_features;
        }
        let out_ty = Type::new(query.dtype(), &out_shape);
        let problem = if heads == 0 || !self.qkv_features.is_multiple_of(heads) {
            Some(format!("{heads} heads do not divide qkv_features {}", self.qkv_features))
        } else if !matches!(query.rank(), 2 | 3) || query.rank() != key_value.rank() {
            Some(format!(
                "inputs {} and {} must both be (length, features) or (batch, length, features)",
                query.ty(),
                key_value.ty()
            ))
        } else if query.shape().last() != Some(&self.in_features) || key_value.shape().last() != Some(&self.in_features)
        {
            Some(format!("inputs {} and {} must have {} features", query.ty(), key_value.ty(), self.in_features))
        } else if query.rank() == 3 && query.shape()[0] != key_value.shape()[0] {
            Some(format!("inputs {} and {} differ in batch size", query.ty(), key_value.ty()))
        } else if self.causal && query.shape()[query.rank() - 2] != key_value.shape()[key_value.rank() - 2] {
            Some(format!("a causal layer needs equal lengths, got {} and {}", query.ty(), key_value.ty()))
        } else {
            None
        };
        if let Some(problem) = problem {
            return fail(location, format!("nn::MultiHeadAttention: {problem}"), out_ty);
        }
        let batched = query.rank() == 3;
        let (q_in, kv_in) =
            if batched { (query.clone(), key_value.clone()) } else { (query.expand_dims(0), key_value.expand_dims(0)) };
        let (batch, q_len, kv_len) = (q_in.shape()[0], q_in.shape()[1], kv_in.shape()[1]);
        let head_dim = self.qkv_features / heads;
        let qkv = self.projection(self.in_features, self.qkv_features);
        let split = |t: Tensor, length: usize| t.reshape(&[batch, length, heads, head_dim]);
        let q = split(qkv.apply(&params.query, &q_in), q_len);
        let k = split(qkv.apply(&params.key, &kv_in), kv_len);
        let v = split(qkv.apply(&params.value, &kv_in), kv_len);
        let mask = match (self.causal, mask) {
            (true, Some(m)) => Some(causal_mask(q_len).and(m)),
            (true, None) => Some(causal_mask(q_len)),
            (false, m) => m.cloned(),
        };
        let heads_out = dot_product_attention(&q, &k, &v, mask.as_ref()).reshape(&[batch, q_len, self.qkv_features]);
        let out = self.projection(self.qkv_features, self.out_features).apply(&params.out, &heads_out);
        if batched { out } else { out.reshape(&out_shape) }
    }
}

impl Layer for MultiHeadAttention {
    type Params<T: Tree<T>> = MultiHeadAttentionParams<T>;

    fn init_traced(&self, key: &Tensor) -> MultiHeadAttentionParams<Tensor> {
        let [q, k, v, o] = random::split_into(key);
        let qkv = self.projection(self.in_features, self.qkv_features);
        MultiHeadAttentionParams {
            query: qkv.init_traced(&q),
            key: qkv.init_traced(&k),
            value: qkv.init_traced(&v),
            out: self.projection(self.qkv_features, self.out_features).init_traced(&o),
        }
    }

    /// Self-attention of `x` (see [`MultiHeadAttention::apply`]), without an extra mask.
    fn forward(&self, params: &MultiHeadAttentionParams<Tensor>, x: &Tensor, _: &mut Context) -> Tensor {
        self.apply(params, x, None)
    }
}
