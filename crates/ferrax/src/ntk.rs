//! The empirical neural tangent kernel of a model, `Θ(x1, x2) = J(x1)·J(x2)ᵀ`, where
//! `J(x)` is the Jacobian of the model's outputs with respect to all of its parameters
//! (the leaves of a parameter [`Tree`], flattened and concatenated).
//!
//! [`ntk`] computes it from Jacobian-vector and vector-Jacobian products, never forming
//! a Jacobian of more than one example (neural-tangents' "implicit" method): for every
//! example `x2_j` and output `b`, one vjp gives the parameter-space vector
//! `u = J(x2_j)ᵀ·e_b`, and one jvp of the model on the whole `x1` batch along `u` gives
//! the column `J(x1)·u` of the kernel. The examples of `x2` are a `scan`, the outputs
//! of one example a `vmap`, so memory holds at most `K` parameter-sized vectors at
//! once. [`NtkMethod::Jacobian`] instead forms both Jacobians (`jacrev`) and contracts
//! them: fewer operations when the parameters are few, memory `(N1 + N2)·K·P`.

use crate::ops::create::iota;
use crate::ops::index::s;
use crate::tracer;
use crate::transforms::{jacrev, jvp, vjp, vmap};
use crate::tree::{Tree, unflatten};
use crate::{Tensor, control};
use ferrax_ir::{DType, Type};
use std::panic::Location;

/// How [`ntk_with`] computes the kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NtkMethod {
    /// From products: one vjp per example of `x2` and output, one jvp over `x1` along
    /// each (the default; memory `K·P`, never a whole Jacobian).
    #[default]
    Products,
    /// From the Jacobians of both batches, by `jacrev`, contracted over the parameters.
    Jacobian,
}

/// The empirical NTK of the model `f(params, x)` between the batches `x1` (`[N1, ...]`)
/// and `x2` (`[N2, ...]`), by [`NtkMethod::Products`].
///
/// `f` takes the parameters (any [`Tree`] of tensors; only its float leaves count) and
/// a batch of examples along axis 0, and returns one scalar per example (`[N]`) or `K`
/// outputs per example (`[N, K]`). It must treat the examples independently (it is
/// called on `x1`, and on single examples of `x2` as batches of one). The kernel is
/// `[N1, N2]` for scalar outputs, `Θ[i, j] = Σ_p ∂f(x1_i)/∂p · ∂f(x2_j)/∂p`, and
/// `[N1, N2, K, K]` for `K` outputs, `Θ[i, j, a, b] = Σ_p ∂f(x1_i)_a/∂p ·
/// ∂f(x2_j)_b/∂p` (neural-tangents' layout without traced axes).
///
/// ```
/// use ferrax::ntk::ntk;
/// use ferrax::{Array, Tensor};
/// // f(w, x) = x·w: J(x) = x, so Θ = x1·x2ᵀ.
/// let f = |w: &Tensor, x: &Tensor| x.matmul(w);
/// let kernel = |(w, x1, x2): (Tensor, Tensor, Tensor)| ntk(f, &w, &x1, &x2);
/// let x1 = Array::from_f64(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
/// let x2 = Array::from_f64(&[1, 2], vec![1.0, -1.0]).unwrap();
/// let theta = ferrax::eval(kernel, &(Array::from(vec![0.5f64, 0.5]), x1, x2)).unwrap();
/// assert_eq!((theta.shape(), theta.to_f64_vec()), (&[2, 1][..], vec![-1.0, -1.0]));
/// ```
#[track_caller]
pub fn ntk<P, F>(f: F, params: &P, x1: &Tensor, x2: &Tensor) -> Tensor
where
    P: Tree<Tensor> + ?Sized,
    F: Fn(&P::With<Tensor>, &Tensor) -> Tensor,
{
    ntk_at(&f, params, x1, x2, NtkMethod::Products, Location::caller())
}

/// [`ntk`] by the given method.
#[track_caller]
pub fn ntk_with<P, F>(f: F, params: &P, x1: &Tensor, x2: &Tensor, method: NtkMethod) -> Tensor
where
    P: Tree<Tensor> + ?Sized,
    F: Fn(&P::With<Tensor>, &Tensor) -> Tensor,
{
    ntk_at(&f, params, x1, x2, method, Location::caller())
}

fn ntk_at<P, F>(
    f: &F,
    params: &P,
    x1: &Tensor,
    x2: &Tensor,
    method: NtkMethod,
    location: &'static Location<'static>,
) -> Tensor
where
    P: Tree<Tensor> + ?Sized,
    F: Fn(&P::With<Tensor>, &Tensor) -> Tensor,
{
    let flat: Vec<Tensor> = params.leaves().into_iter().cloned().collect();
    // The model on flat parameters (what the transforms differentiate).
    let model = |p: &[Tensor], x: &Tensor| f(&unflatten(params, p.to_vec()).expect("Tree walks agree"), x);
    let (n1, n2) = match (x1.shape().first(), x2.shape().first()) {
        (Some(&n1), Some(&n2)) if x1.shape()[1..] == x2.shape()[1..] => (n1, n2),
        _ => {
            let message = format!(
                "ntk: x1 is {} and x2 is {}; they must be batches [N, ...] of one example shape",
                x1.ty(),
                x2.ty()
            );
            return tracer::fail(location, message, Type::new(DType::F32, &[]));
        }
    };
    if n2 == 0 {
        return tracer::fail(location, "ntk: x2 has no examples".into(), Type::new(DType::F32, &[n1, 0]));
    }
    // The output type of one example, from the first of x2.
    let probe = model(&flat, &x2.slice(&[s(0..1)]));
    let outputs = match probe.shape() {
        [1] => None,
        &[1, k] => Some(k),
        _ => {
            let message =
                format!("ntk: the model returns {} for a batch of one; it must return [1] or [1, K]", probe.ty());
            return tracer::fail(location, message, Type::new(probe.dtype(), &[n1, n2]));
        }
    };
    let expected: Vec<usize> = [n1].into_iter().chain(outputs).collect();
    let first = model(&flat, x1);
    if first.shape() != expected.as_slice() {
        let message = format!(
            "ntk: the model returns {} for x1 ({}); per example it returns {}, so it must return {:?}",
            first.ty(),
            x1.ty(),
            probe.ty(),
            expected
        );
        return tracer::fail(location, message, Type::new(probe.dtype(), &[n1, n2]));
    }
    match method {
        NtkMethod::Products => by_products(&model, &flat, x1, x2, outputs, probe.dtype()),
        NtkMethod::Jacobian => by_jacobians(&model, &flat, x1, x2, outputs),
    }
}

/// The kernel by a scan over `x2`'s examples of one vjp and one jvp per output.
fn by_products(
    model: &dyn Fn(&[Tensor], &Tensor) -> Tensor,
    flat: &[Tensor],
    x1: &Tensor,
    x2: &Tensor,
    outputs: Option<usize>,
    dtype: DType,
) -> Tensor {
    let flat = flat.to_vec();
    let ((), columns) = control::scan(
        |((), example): ((), Tensor)| {
            let one = example.expand_dims(0);
            // J(x1)·J(x2_j)ᵀ·e for an output cotangent e of the single example.
            let column = |e: Tensor| {
                let (_, u) = vjp(|p: Vec<Tensor>| model(&p, &one)).apply(&flat, &e);
                jvp(|p: Vec<Tensor>| model(&p, x1)).apply(&flat, &u).1
            };
            let block = match outputs {
                None => column(Tensor::ones(dtype, &[1])),
                Some(k) => {
                    let basis = iota(DType::I32, &[k, k], 0).eq_(iota(DType::I32, &[k, k], 1)).cast(dtype);
                    vmap(column).apply(&basis.reshape(&[k, 1, k]))
                }
            };
            ((), block)
        },
        &(),
        x2,
    );
    match outputs {
        // [N2, N1] and [N2, K (of x2), N1, K (of x1)].
        None => columns.transpose(),
        Some(_) => columns.permute(&[2, 0, 3, 1]),
    }
}

/// The kernel by contracting both Jacobians over every float parameter leaf.
fn by_jacobians(
    model: &dyn Fn(&[Tensor], &Tensor) -> Tensor,
    flat: &[Tensor],
    x1: &Tensor,
    x2: &Tensor,
    outputs: Option<usize>,
) -> Tensor {
    let flat = flat.to_vec();
    let j1: Vec<Tensor> = jacrev(|p: Vec<Tensor>| model(&p, x1)).apply(&flat);
    let j2: Vec<Tensor> = jacrev(|p: Vec<Tensor>| model(&p, x2)).apply(&flat);
    let (n1, n2) = (x1.shape()[0], x2.shape()[0]);
    let k = outputs.unwrap_or(1);
    let mut total: Option<Tensor> = None;
    for ((a, b), leaf) in j1.iter().zip(&j2).zip(&flat) {
        if !leaf.dtype().is_float() {
            continue;
        }
        let size: usize = leaf.shape().iter().product();
        let product = a.reshape(&[n1 * k, size]).matmul(&b.reshape(&[n2 * k, size]).transpose());
        total = Some(match total {
            Some(t) => &t + &product,
            None => product,
        });
    }
    let dtype = j1.first().map_or(DType::F32, Tensor::dtype);
    let total = total.unwrap_or_else(|| Tensor::zeros(dtype, &[n1 * k, n2 * k]));
    match outputs {
        None => total,
        Some(k) => total.reshape(&[n1, k, n2, k]).permute(&[0, 2, 1, 3]),
    }
}
