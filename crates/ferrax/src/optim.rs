//! Optimisers over parameter trees: [`Sgd`] (with momentum) and [`Adam`], and [`Zero1`],
//! which shards an optimiser's state over the workers of a named axis (ZeRO stage 1).
//!
//! Parameters are any [`Tree`] (a `Vec`, a tuple, a `#[derive(Tree)]` struct). Each
//! optimiser is written as a function over traced [`Tensor`]s, so an update step is
//! ordinary traced code: it can sit inside the same trace as the loss and its
//! gradient (one module per training step, ready to be compiled), and its state is a
//! tree too, so it can be passed in and out of a traced function like the parameters.
//!
//! For host values there is a convenience, `step`, which traces the update and runs
//! it with the reference interpreter; it traces on every call, so it suits small
//! problems and tests. In a training loop, trace the whole step instead.
//!
//! The updates follow the usual definitions. SGD with momentum `μ` keeps a velocity:
//! `v ← μ v + g`, `p ← p − lr v` (PyTorch's convention; `μ = 0` is plain SGD). Adam
//! (Kingma and Ba 2015) keeps the first and second moments and a step count `t`:
//! `m ← β1 m + (1 − β1) g`, `v ← β2 v + (1 − β2) g²`, `p ← p − lr m̂ / (√v̂ + ε)` with
//! `m̂ = m / (1 − β1^t)` and `v̂ = v / (1 − β2^t)`.
//!
//! ```
//! use ferrax::{Array, grad, optim::Adam};
//! let loss = |p: Vec<ferrax::Tensor>| (&p[0] * &p[0]).sum_all();
//! let adam = Adam::new(0.1);
//! let mut params = vec![Array::from_f32(&[2], vec![1.0, -2.0]).unwrap()];
//! let mut state = adam.init(&params).unwrap();
//! for _ in 0..20 {
//!     let g = grad(loss).call(&params).unwrap();
//!     (params, state) = adam.step(&g, &state, &params).unwrap();
//! }
//! let p = params[0].as_f32().unwrap();
//! assert!(p[0].abs() < 0.5 && p[1].abs() < 1.0);
//! ```

use crate::tree::{Tree, unflatten};
pub use crate::zero::Zero1;
use crate::{Error, Tensor, eval};
use ferrax_ir::{Array, DType, Type};
use std::fmt::Write as _;
use std::panic::Location;

/// The state of [`Sgd`]: one velocity per parameter leaf, in the parameters' structure.
#[derive(Clone, Debug, PartialEq)]
pub struct SgdState<P> {
    /// The running velocity `v`.
    pub velocity: P,
}

/// The state of [`Adam`]: the step count (an f32 scalar) and the two moment estimates,
/// in the parameters' structure. `L` is the leaf type: [`Tensor`] or [`Array`].
#[derive(Clone, Debug, PartialEq)]
pub struct AdamState<P, L> {
    /// The number of steps taken so far, as an f32 scalar.
    pub count: L,
    /// The first moment `m` (running mean of the gradients).
    pub mu: P,
    /// The second moment `v` (running mean of the squared gradients).
    pub nu: P,
}

impl<L, P: Tree<L>> Tree<L> for SgdState<P> {
    type With<M> = SgdState<P::With<M>>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        self.velocity.for_each_leaf(f)
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        SgdState { velocity: self.velocity.map_leaves(f) }
    }

    fn write_structure(&self, out: &mut String) {
        out.push_str("SgdState { velocity: ");
        self.velocity.write_structure(out);
        out.push_str(" }");
    }
}

impl<L, P: Tree<L>> Tree<L> for AdamState<P, L> {
    type With<M> = AdamState<P::With<M>, M>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        f(&self.count);
        self.mu.for_each_leaf(f);
        self.nu.for_each_leaf(f);
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        let count = f(&self.count);
        let mu = self.mu.map_leaves(f);
        let nu = self.nu.map_leaves(f);
        AdamState { count, mu, nu }
    }

    fn write_structure(&self, out: &mut String) {
        let _ = write!(out, "AdamState {{ count: *, mu: ");
        self.mu.write_structure(out);
        out.push_str(", nu: ");
        self.nu.write_structure(out);
        out.push_str(" }");
    }
}

/// The leaves of `tree`, cloned, in order.
fn leaves_of<L: Clone, T: Tree<L> + ?Sized>(tree: &T) -> Vec<L> {
    tree.leaves().into_iter().cloned().collect()
}

/// Checks that `tree` has as many leaves as the parameters.
fn same_count(what: &str, got: usize, params: usize) -> Result<(), Error> {
    match got == params {
        true => Ok(()),
        false => Err(Error::Arguments(format!("optim: {what} has {got} leaves, the parameters {params}"))),
    }
}

/// A copy of a traced tree (what an update returns after recording an error).
fn same<P: Tree<Tensor, With<Tensor> = P>>(tree: &P) -> P {
    tree.map_leaves(&mut |t| t.clone())
}

/// Host zeros shaped like every leaf of `params`.
fn zeros_like<P: Tree<Array, With<Array> = P>>(params: &P) -> Result<P, Error> {
    let zeros: Result<Vec<Array>, _> =
        params.leaves().iter().map(|a| Array::zeros(a.dtype(), a.shape(), &Default::default())).collect();
    unflatten(params, zeros?).ok_or_else(|| Error::Arguments("optim: parameter structure".into()))
}

/// Rebuilds `template`'s structure from `leaves` (as many as it has).
fn rebuild<P: Tree<Array, With<Array> = P>>(template: &P, leaves: Vec<Array>) -> Result<P, Error> {
    unflatten(template, leaves).ok_or_else(|| Error::Arguments("optim: the update changed the leaf count".into()))
}

/// Stochastic gradient descent with momentum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sgd {
    /// The learning rate.
    pub lr: f64,
    /// The momentum `μ` (0 for plain SGD).
    pub momentum: f64,
}

impl Sgd {
    /// SGD with learning rate `lr` and momentum `momentum`.
    ///
    /// ```
    /// let sgd = ferrax::optim::Sgd::new(0.1, 0.9);
    /// assert_eq!(sgd.momentum, 0.9);
    /// ```
    pub fn new(lr: f64, momentum: f64) -> Sgd {
        Sgd { lr, momentum }
    }

    /// The initial state for host parameters: zero velocities.
    ///
    /// ```
    /// use ferrax::{Array, optim::Sgd};
    /// let state = Sgd::new(0.1, 0.9).init(&vec![Array::scalar(1.0f32)]).unwrap();
    /// assert_eq!(state.velocity[0], Array::scalar(0.0f32));
    /// ```
    pub fn init<P: Tree<Array, With<Array> = P>>(&self, params: &P) -> Result<SgdState<P>, Error> {
        Ok(SgdState { velocity: zeros_like(params)? })
    }

    /// The initial state inside a trace: zero velocities shaped like `params`.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, optim::Sgd};
    /// let sgd = Sgd::new(0.1, 0.9);
    /// let v = ferrax::eval(|p: Vec<Tensor>| sgd.init_traced(&p).velocity, &vec![Array::scalar(3.0f32)]).unwrap();
    /// assert_eq!(v, vec![Array::scalar(0.0f32)]);
    /// ```
    pub fn init_traced<P: Tree<Tensor, With<Tensor> = P>>(&self, params: &P) -> SgdState<P> {
        SgdState { velocity: params.map_leaves(&mut |p| p.zeros_like()) }
    }

    /// One step on traced trees: the new parameters and state. `grads` and
    /// `state.velocity` have the parameters' structure (checked by their leaf counts;
    /// a mismatch poisons the trace with an error at the caller).
    ///
    /// ```
    /// use ferrax::{Array, Tensor, optim::{Sgd, SgdState}};
    /// let sgd = Sgd::new(0.5, 0.0);
    /// let args = (vec![Array::scalar(1.0f32)], SgdState { velocity: vec![Array::scalar(0.0f32)] });
    /// let (p, _) = ferrax::eval(|(p, s): (Vec<Tensor>, SgdState<Vec<Tensor>>)| {
    ///     let g = vec![&p[0] * 2.0]; // d/dp p² at p
    ///     sgd.update(&g, &s, &p)
    /// }, &args).unwrap();
    /// assert_eq!(p[0], Array::scalar(0.0f32));
    /// ```
    #[track_caller]
    pub fn update<P: Tree<Tensor, With<Tensor> = P>>(
        &self,
        grads: &P,
        state: &SgdState<P>,
        params: &P,
    ) -> (P, SgdState<P>) {
        let g = leaves_of(grads);
        let v = leaves_of(&state.velocity);
        let n = params.leaf_count();
        if g.len() != n || v.len() != n {
            let message =
                format!("optim::Sgd::update: {} gradients and {} velocities for {n} parameters", g.len(), v.len());
            // The error is recorded in the trace, which fails when it is finished.
            crate::tracer::fail(Location::caller(), message, Type::scalar(DType::F32));
            return (same(params), SgdState { velocity: same(params) });
        }
        let velocity: Vec<Tensor> = g.iter().zip(&v).map(|(g, v)| v * self.momentum + g).collect();
        let mut k = 0;
        let new_params = params.map_leaves(&mut |p| {
            let out = p - &velocity[k] * self.lr;
            k += 1;
            out
        });
        let velocity = unflatten(params, velocity).unwrap_or_else(|| same(params));
        (new_params, SgdState { velocity })
    }

    /// One step on host arrays: traces [`Sgd::update`] and runs it.
    ///
    /// ```
    /// use ferrax::{Array, optim::Sgd};
    /// let sgd = Sgd::new(0.1, 0.9);
    /// let params = vec![Array::scalar(1.0f32)];
    /// let state = sgd.init(&params).unwrap();
    /// let (params, state) = sgd.step(&vec![Array::scalar(2.0f32)], &state, &params).unwrap();
    /// assert_eq!(params[0], Array::scalar(0.8f32));
    /// assert_eq!(state.velocity[0], Array::scalar(2.0f32));
    /// ```
    pub fn step<P: Tree<Array, With<Array> = P>>(
        &self,
        grads: &P,
        state: &SgdState<P>,
        params: &P,
    ) -> Result<(P, SgdState<P>), Error> {
        let n = params.leaf_count();
        same_count("the gradient", grads.leaf_count(), n)?;
        same_count("the velocity", state.velocity.leaf_count(), n)?;
        let args = (leaves_of(grads), SgdState { velocity: leaves_of(&state.velocity) }, leaves_of(params));
        let (p, s) =
            eval(|(g, s, p): (Vec<Tensor>, SgdState<Vec<Tensor>>, Vec<Tensor>)| self.update(&g, &s, &p), &args)?;
        Ok((rebuild(params, p)?, SgdState { velocity: rebuild(params, s.velocity)? }))
    }
}

/// Adam: adaptive moment estimation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adam {
    /// The learning rate.
    pub lr: f64,
    /// The decay of the first moment, `β1`.
    pub b1: f64,
    /// The decay of the second moment, `β2`.
    pub b2: f64,
    /// Added to `√v̂` in the denominator, `ε`.
    pub eps: f64,
}

impl Adam {
    /// Adam with learning rate `lr` and the usual defaults `β1 = 0.9`, `β2 = 0.999`,
    /// `ε = 1e-8`.
    ///
    /// ```
    /// let adam = ferrax::optim::Adam::new(1e-3);
    /// assert_eq!((adam.b1, adam.b2, adam.eps), (0.9, 0.999, 1e-8));
    /// ```
    pub fn new(lr: f64) -> Adam {
        Adam { lr, b1: 0.9, b2: 0.999, eps: 1e-8 }
    }

    /// Adam with every hyperparameter given.
    ///
    /// ```
    /// let adam = ferrax::optim::Adam::with(1e-3, 0.8, 0.99, 1e-6);
    /// assert_eq!(adam.b2, 0.99);
    /// ```
    pub fn with(lr: f64, b1: f64, b2: f64, eps: f64) -> Adam {
        Adam { lr, b1, b2, eps }
    }

    /// The initial state for host parameters: count 0 and zero moments.
    ///
    /// ```
    /// use ferrax::{Array, optim::Adam};
    /// let state = Adam::new(0.1).init(&vec![Array::scalar(1.0f64)]).unwrap();
    /// assert_eq!(state.count, Array::scalar(0.0f32));
    /// assert_eq!(state.nu[0], Array::scalar(0.0f64));
    /// ```
    pub fn init<P: Tree<Array, With<Array> = P>>(&self, params: &P) -> Result<AdamState<P, Array>, Error> {
        Ok(AdamState { count: Array::scalar(0.0f32), mu: zeros_like(params)?, nu: zeros_like(params)? })
    }

    /// The initial state inside a trace: count 0 and zero moments.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, optim::Adam};
    /// let adam = Adam::new(0.1);
    /// let count = ferrax::eval(|p: Vec<Tensor>| adam.init_traced(&p).count, &vec![Array::scalar(3.0f32)]).unwrap();
    /// assert_eq!(count, Array::scalar(0.0f32));
    /// ```
    pub fn init_traced<P: Tree<Tensor, With<Tensor> = P>>(&self, params: &P) -> AdamState<P, Tensor> {
        AdamState {
            count: Tensor::zeros(DType::F32, &[]),
            mu: params.map_leaves(&mut |p| p.zeros_like()),
            nu: params.map_leaves(&mut |p| p.zeros_like()),
        }
    }

    /// One step on traced trees: the new parameters and state. The bias corrections
    /// are computed from the traced step count, so one traced step serves every
    /// iteration.
    ///
    /// ```
    /// use ferrax::{DType, Tensor, Type, optim::{Adam, AdamState}};
    /// let adam = Adam::new(0.01);
    /// let f32s = |n: usize| Type::new(DType::F32, &[n]);
    /// let spec = (vec![f32s(3)], AdamState { count: Type::scalar(DType::F32), mu: vec![f32s(3)], nu: vec![f32s(3)] });
    /// let ir = ferrax::make_ir(|(p, s): (Vec<Tensor>, AdamState<Vec<Tensor>, Tensor>)| {
    ///     let g = ferrax::grad(|p: Vec<Tensor>| (&p[0] * &p[0]).sum_all()).apply(&p);
    ///     adam.update(&g, &s, &p)
    /// }, &spec).unwrap();
    /// assert!(ir.contains("sqrt"));
    /// ```
    #[track_caller]
    pub fn update<P: Tree<Tensor, With<Tensor> = P>>(
        &self,
        grads: &P,
        state: &AdamState<P, Tensor>,
        params: &P,
    ) -> (P, AdamState<P, Tensor>) {
        let g = leaves_of(grads);
        let m = leaves_of(&state.mu);
        let v = leaves_of(&state.nu);
        let n = params.leaf_count();
        if g.len() != n || m.len() != n || v.len() != n {
            let message = format!(
                "optim::Adam::update: {} gradients, {} and {} moments for {n} parameters",
                g.len(),
                m.len(),
                v.len()
            );
            crate::tracer::fail(Location::caller(), message, Type::scalar(DType::F32));
            let state = AdamState { count: state.count.clone(), mu: same(params), nu: same(params) };
            return (same(params), state);
        }
        let count: Tensor = &state.count + 1.0;
        // 1 - β^t as -expm1(t ln β): t stays a traced value, and expm1 keeps the f32
        // count's correction accurate when β is close to 1 (no cancellation).
        let power1: Tensor = &count * self.b1.ln();
        let power2: Tensor = &count * self.b2.ln();
        let correction1: Tensor = -power1.expm1();
        let correction2: Tensor = -power2.expm1();
        let mu: Vec<Tensor> = g.iter().zip(&m).map(|(g, m)| m * self.b1 + g * (1.0 - self.b1)).collect();
        let nu: Vec<Tensor> = g.iter().zip(&v).map(|(g, v)| v * self.b2 + g * g * (1.0 - self.b2)).collect();
        let mut k = 0;
        let new_params = params.map_leaves(&mut |p| {
            let i = k;
            k += 1;
            let m_hat = &mu[i] / correction1.cast(p.dtype());
            let v_hat = &nu[i] / correction2.cast(p.dtype());
            p - m_hat * self.lr / (v_hat.sqrt() + self.eps)
        });
        let mu = unflatten(params, mu).unwrap_or_else(|| same(params));
        let nu = unflatten(params, nu).unwrap_or_else(|| same(params));
        (new_params, AdamState { count, mu, nu })
    }

    /// One step on host arrays: traces [`Adam::update`] and runs it.
    ///
    /// ```
    /// use ferrax::{Array, optim::Adam};
    /// let adam = Adam::new(0.1);
    /// let params = vec![Array::scalar(1.0f64)];
    /// let state = adam.init(&params).unwrap();
    /// let (params, state) = adam.step(&vec![Array::scalar(2.0f64)], &state, &params).unwrap();
    /// // The first step moves each parameter by about lr, whatever the gradient's size.
    /// assert!((params[0].as_f64().unwrap()[0] - 0.9).abs() < 1e-6);
    /// assert_eq!(state.count, Array::scalar(1.0f32));
    /// ```
    pub fn step<P: Tree<Array, With<Array> = P>>(
        &self,
        grads: &P,
        state: &AdamState<P, Array>,
        params: &P,
    ) -> Result<(P, AdamState<P, Array>), Error> {
        let n = params.leaf_count();
        same_count("the gradient", grads.leaf_count(), n)?;
        same_count("the first moment", state.mu.leaf_count(), n)?;
        same_count("the second moment", state.nu.leaf_count(), n)?;
        let flat_state = AdamState { count: state.count.clone(), mu: leaves_of(&state.mu), nu: leaves_of(&state.nu) };
        let args = (leaves_of(grads), flat_state, leaves_of(params));
        let (p, s) = eval(
            |(g, s, p): (Vec<Tensor>, AdamState<Vec<Tensor>, Tensor>, Vec<Tensor>)| self.update(&g, &s, &p),
            &args,
        )?;
        let state = AdamState { count: s.count, mu: rebuild(params, s.mu)?, nu: rebuild(params, s.nu)? };
        Ok((rebuild(params, p)?, state))
    }
}
