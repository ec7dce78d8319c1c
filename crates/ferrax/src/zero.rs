//! ZeRO stage 1 ([`Zero1`], re-exported as `ferrax::optim::Zero1`): the optimiser's
//! state sharded over the workers of a named axis, so that each worker keeps `1/N` of
//! it.
//!
//! Each parameter leaf is flattened and padded with zeros to a multiple of the number
//! of workers `N`; worker `k` owns block `k` of it. Inside the data-parallel step:
//! [`Zero1::scatter_mean`] turns each worker's gradient into its block of the mean
//! gradient (`psum_scatter` divided by `N`, where plain data parallelism `pmean`s the
//! whole gradient), the optimiser updates that block of the parameters
//! ([`Zero1::take_shard`]) with its block of the state, and [`Zero1::gather`] puts the
//! whole parameters back together on every worker (`all_gather`). The state is made
//! for the blocks on the host by [`Zero1::shards`]. What the workers exchange is the
//! same amount as an all-reduce (a reduce-scatter and an all-gather); what each keeps
//! of the optimiser's state is divided by `N`.

use crate::{Tensor, lax};
use ferrax_ir::Array;

/// ZeRO stage 1 over the axis `axis` of `workers` workers (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zero1 {
    axis: String,
    workers: usize,
}

impl Zero1 {
    /// Sharding over the axis `axis` of `workers` workers (at least one).
    pub fn new(axis: &str, workers: usize) -> Zero1 {
        Zero1 { axis: axis.to_string(), workers: workers.max(1) }
    }

    /// The elements of one worker's block of a leaf of `numel` elements.
    pub fn block(&self, numel: usize) -> usize {
        numel.div_ceil(self.workers)
    }

    /// Zeros shaped like one worker's blocks of `params` (what the optimiser's `init`
    /// takes to make the sharded state).
    pub fn shards(&self, params: &[Array]) -> Result<Vec<Array>, crate::Error> {
        params
            .iter()
            .map(|p| {
                let n = self.block(p.shape().iter().product());
                Ok(Array::zeros(p.dtype(), &[n], &Default::default())?)
            })
            .collect()
    }

    /// `p` flattened and padded with zeros to `workers` blocks.
    fn padded(&self, p: &Tensor) -> Tensor {
        let numel: usize = p.shape().iter().product();
        let pad = self.block(numel) * self.workers - numel;
        let flat = p.reshape(&[numel]);
        if pad == 0 { flat } else { flat.pad(&[0], &[pad as i64], &[0], 0.0) }
    }

    /// Inside the step: this worker's block of the leaf `p`.
    #[track_caller]
    pub fn take_shard(&self, p: &Tensor) -> Tensor {
        let numel: usize = p.shape().iter().product();
        let len = self.block(numel);
        let start = lax::axis_index(&self.axis) * (len as i32);
        self.padded(p).dynamic_slice(&[start], &[len])
    }

    /// Inside the step: this worker's block of the workers' mean gradient.
    #[track_caller]
    pub fn scatter_mean(&self, g: &Tensor) -> Tensor {
        lax::psum_scatter(&self.padded(g), &self.axis, 0, true) * (1.0 / self.workers as f64)
    }

    /// Inside the step: the whole leaf shaped like `like`, from every worker's block.
    #[track_caller]
    pub fn gather(&self, shard: &Tensor, like: &Tensor) -> Tensor {
        let numel: usize = like.shape().iter().product();
        let whole = lax::all_gather(shard, &self.axis, 0, true);
        let whole = if whole.shape()[0] == numel { whole } else { whole.slice(&[crate::s(0..numel as i64)]) };
        whole.reshape(like.shape())
    }
}
