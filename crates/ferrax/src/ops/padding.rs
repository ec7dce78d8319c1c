//! The `padding` argument of convolutions and windowed reductions (`jax.lax`'s
//! `"SAME"`, `"SAME_LOWER"`, `"VALID"` or explicit pairs), resolved to the IR's
//! explicit `(lo, hi)` pairs at trace time in one place, [`Padding::resolve`], which
//! both [`conv_general_dilated`](crate::lax::conv_general_dilated) and
//! [`reduce_window`](crate::lax::reduce_window) (and the pools built on it) call.

/// How an operand is padded along each windowed axis.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Padding {
    /// No padding: only windows that fit entirely in the operand.
    #[default]
    Valid,
    /// Each axis has `ceil(n / stride)` windows, the padding split evenly with the odd
    /// element after (JAX's `"SAME"`).
    Same,
    /// As `Same`, with the odd element before (JAX's `"SAME_LOWER"`).
    SameLower,
    /// `(lo, hi)` per axis; negative amounts crop (convolutions only).
    Explicit(Vec<(i64, i64)>),
}

impl Padding {
    /// The `(lo, hi)` pairs for windows spanning `extents` elements (the dilated window
    /// where the operation dilates it: a convolution's kernel; `reduce_window` takes the
    /// undilated taps, as JAX's does) moved by `strides` over axes of sizes `shape`, as
    /// JAX's `lax.padtype_to_pads`: `Same` pads each axis by
    /// `max((ceil(n / s) - 1)·s + k - n, 0)`, the smaller half first (last for
    /// `SameLower`).
    pub fn resolve(&self, shape: &[usize], extents: &[usize], strides: &[usize]) -> Result<Vec<(i64, i64)>, String> {
        let rank = shape.len();
        if extents.len() != rank || strides.len() != rank {
            return Err(format!(
                "padding: the window has {} axes and {} strides but the operand has rank {rank}",
                extents.len(),
                strides.len()
            ));
        }
        let lower_first = match self {
            Padding::Valid => return Ok(vec![(0, 0); rank]),
            Padding::Explicit(pairs) if pairs.len() == rank => return Ok(pairs.clone()),
            Padding::Explicit(pairs) => {
                return Err(format!("padding: {} (low, high) pairs for {rank} windowed axes", pairs.len()));
            }
            Padding::Same => true,
            Padding::SameLower => false,
        };
        (0..rank)
            .map(|a| {
                // i128: no product of sizes and strides overflows.
                let wide = |n: usize| i128::try_from(n).unwrap_or(i128::MAX);
                let (n, k, s) = (wide(shape[a]), wide(extents[a]), wide(strides[a]));
                if s == 0 {
                    return Err(format!("padding: stride 0 on axis {a}"));
                }
                let windows = (n + s - 1) / s;
                let total = ((windows - 1).max(0) * s + k - n).max(0);
                let (small, large) = (total / 2, total - total / 2);
                let fit =
                    |v: i128| i64::try_from(v).map_err(|_| format!("padding: {v} on axis {a} does not fit an i64"));
                if lower_first { Ok((fit(small)?, fit(large)?)) } else { Ok((fit(large)?, fit(small)?)) }
            })
            .collect()
    }
}
