//! Structured arguments and results, like JAX's pytrees.
//!
//! A [`Tree<L>`] is a structure (a tuple, a `Vec`, an array, an `Option`, a user
//! struct of parameters) whose leaves are of type `L`: `Tensor` while tracing, `Array`
//! for host values, `Type` for the signature. The IR sees flat lists of leaves; a tree
//! flattens into its leaves in a fixed order and is rebuilt, with other leaves, by
//! [`Tree::map_leaves`]. A struct generic over its leaf type (`struct Mlp<T> { w1: T,
//! b1: T }`) is the same structure at every stage: `Mlp<Type>` describes the inputs,
//! `Mlp<Tensor>` is traced, `Mlp<Array>` holds the values.
//!
//! Trees are: the leaves `Tensor`, `Array` and `Type`; `Vec<T>`, `[T]`, `[T; N]`,
//! `Option<T>` (`None` has no leaves), `Box<T>`, `()` and tuples of up to 8 trees; and
//! structs with `#[derive(Tree)]`. Leaves are visited depth first, in order (fields in
//! declaration order).
//!
//! The friends of JAX's `jax.tree_util`: [`tree_map`], [`tree_leaves`],
//! [`tree_unflatten`], [`tree_structure`] and [`tree_zip_map`] (two trees of the same
//! structure, such as parameters and their gradients, into one).
//!
//! # Deriving
//!
//! `#[derive(Tree)]` (feature `derive`, on by default) implements `Tree<L>` for a
//! struct generic over one type parameter, its leaf type:
//!
//! ```
//! use ferrax::{Array, Tree, tree_map, tree_structure};
//!
//! #[derive(Tree, Clone, Debug, PartialEq)]
//! struct Layer<T> {
//!     w: T,
//!     b: T,
//! }
//!
//! #[derive(Tree, Clone, Debug, PartialEq)]
//! struct Mlp<T> {
//!     layers: Vec<Layer<T>>,
//!     head: (T, Option<T>),
//!     #[tree(skip)] // no leaves here: cloned unchanged
//!     name: String,
//! }
//!
//! let p = Mlp {
//!     layers: vec![Layer { w: Array::scalar(1.0f32), b: Array::scalar(2.0f32) }],
//!     head: (Array::scalar(3.0f32), None),
//!     name: "tiny".to_string(),
//! };
//! assert_eq!(p.leaf_count(), 3);
//! assert_eq!(tree_structure(&p), "Mlp { layers: [Layer { w: *, b: * }], head: (*, None) }");
//! let shapes: Mlp<Vec<usize>> = tree_map(&p, |a: &Array| a.shape().to_vec());
//! assert_eq!(shapes.layers[0].w, Vec::<usize>::new());
//! ```
//!
//! The rules, each checked with a compile error that names it:
//! - structs only (named fields, tuple fields or none), not enums or unions;
//! - exactly one type parameter, the leaf type `T`, with no bounds and no `where`
//!   clause on the struct (lifetimes and const parameters are fine);
//! - every field's type mentions `T` and is built from it with trees (`T`, `Vec<T>`,
//!   `(T, T)`, `[Layer<T>; 2]`, another derived struct...), so that mapping the
//!   field's leaves gives the same type with `T` replaced; the derived
//!   `Mlp<T>::With<M>` is `Mlp<T::With<M>>`;
//! - a field without leaves is marked `#[tree(skip)]`: it is cloned, so its type
//!   implements `Clone` and does not mention `T`.
//!
//! The derived impl requires only `T: Tree<L>`; a field whose type is not a tree of
//! `T` (`Rc<T>`, a struct without the derive) is reported at that field.
//!
//! ```compile_fail
//! #[derive(ferrax::Tree)]
//! enum Choice<T> { A(T), B(T, T) } // error: structs only
//! ```
//!
//! ```compile_fail
//! #[derive(ferrax::Tree)]
//! struct Two<T, U> { a: T, b: U } // error: exactly one type parameter
//! ```
//!
//! ```compile_fail
//! #[derive(ferrax::Tree)]
//! struct Sgd<T> { params: Vec<T>, lr: f32 } // error: `lr` holds no leaves (mark it #[tree(skip)])
//! ```
//!
//! Without the derive, an impl by hand follows the same pattern: `type With<M> =
//! Mlp<T::With<M>>`, `for_each_leaf` visiting each field's leaves, `map_leaves`
//! rebuilding each field, and optionally `write_structure`.

use crate::Tensor;
use ferrax_ir::{Array, Type};
use std::fmt::{self, Write as _};

/// A structure with leaves of type `L`.
pub trait Tree<L> {
    /// The same structure with leaves of type `M`.
    type With<M>;

    /// Calls `f` on every leaf, in order.
    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L));

    /// The same structure with every leaf replaced by `f(leaf)`, in order.
    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M>;

    /// For a tuple, an array, a `Vec` or a slice (the shapes a function's positional
    /// arguments take), how many leaves each top-level element holds, in order; `None`
    /// for any other structure. What `argnums` counts in.
    fn child_leaf_counts(&self) -> Option<Vec<usize>> {
        None
    }

    /// The leaves, in order.
    fn leaves(&self) -> Vec<&L> {
        let mut out = Vec::new();
        self.for_each_leaf(&mut |leaf| out.push(leaf));
        out
    }

    /// Number of leaves.
    fn leaf_count(&self) -> usize {
        let mut n = 0;
        self.for_each_leaf(&mut |_| n += 1);
        n
    }

    /// Appends a description of the structure to `out`, `*` for each leaf, like JAX's
    /// treedef: `(*, [*, *], None)`, `Mlp { layers: [Layer { w: *, b: * }], head: * }`.
    /// Trees with the same description have their leaves in the same places. The
    /// default, for impls by hand, writes only the number of leaves: `<3 leaves>`.
    fn write_structure(&self, out: &mut String) {
        let _ = write!(out, "<{} leaves>", self.leaf_count());
    }
}

/// `tree` with every leaf replaced by `f(leaf)`, in order (JAX's `tree_map`).
///
/// ```
/// use ferrax::{Array, tree_map};
/// let pair = (Array::scalar(1.5f32), vec![Array::scalar(2.0f64)]);
/// let dtypes = tree_map(&pair, |a: &Array| a.dtype());
/// assert_eq!(dtypes, (ferrax::DType::F32, vec![ferrax::DType::F64]));
/// ```
pub fn tree_map<L, T: Tree<L> + ?Sized, M>(tree: &T, mut f: impl FnMut(&L) -> M) -> T::With<M> {
    tree.map_leaves(&mut f)
}

/// The leaves of `tree`, in order (JAX's `tree_leaves`).
pub fn tree_leaves<L, T: Tree<L> + ?Sized>(tree: &T) -> Vec<&L> {
    tree.leaves()
}

/// `template`'s structure rebuilt with `leaves`, in order; `None` when the number of
/// leaves differs from the template's (JAX's `tree_unflatten`, the template standing
/// for the treedef).
pub fn tree_unflatten<L, T: Tree<L> + ?Sized, M>(template: &T, leaves: Vec<M>) -> Option<T::With<M>> {
    unflatten(template, leaves)
}

/// The description of `tree`'s structure (see [`Tree::write_structure`]).
pub fn tree_structure<L, T: Tree<L> + ?Sized>(tree: &T) -> String {
    let mut out = String::new();
    tree.write_structure(&mut out);
    out
}

/// Two trees of the same structure into one: `f(a_leaf, b_leaf)` for each pair of
/// leaves in the same place, in `a`'s structure. The trees may differ in their leaf
/// types (parameters and their gradients, specs and values); an error describes both
/// when their structures differ (a `Vec` of another length, `None` against `Some`).
///
/// ```
/// use ferrax::{Array, tree_zip_map};
/// let params = vec![Array::scalar(1.0f32), Array::scalar(2.0f32)];
/// let grads = vec![Array::scalar(0.5f32), Array::scalar(-1.0f32)];
/// let step = |p: &Array, g: &Array| {
///     let (p, g) = (p.as_f32().unwrap()[0], g.as_f32().unwrap()[0]);
///     Array::scalar(p - 0.1 * g)
/// };
/// let updated = tree_zip_map(&params, &grads, step).unwrap();
/// assert_eq!(updated[1].as_f32(), Some(&[2.1f32][..]));
/// let err = tree_zip_map(&params, &grads[..1], step).unwrap_err();
/// assert_eq!(err.to_string(), "the trees differ in structure: [*, *] against [*]");
/// ```
pub fn tree_zip_map<LA, LB, A, B, M>(
    a: &A,
    b: &B,
    mut f: impl FnMut(&LA, &LB) -> M,
) -> Result<A::With<M>, StructureError>
where
    A: Tree<LA> + ?Sized,
    B: Tree<LB> + ?Sized,
{
    let (left, right) = (tree_structure(a), tree_structure(b));
    if left != right {
        return Err(StructureError { left, right });
    }
    let mut others = b.leaves().into_iter();
    // Equal structures have equal leaf counts (a hand-written `Tree` whose description
    // disagrees with its leaves breaks this contract).
    Ok(a.map_leaves(&mut |x| f(x, others.next().expect("trees of equal structure have equal leaf counts"))))
}

/// Two trees that were to be combined leaf by leaf differ in structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructureError {
    /// The first tree's structure.
    pub left: String,
    /// The second tree's structure.
    pub right: String,
}

impl fmt::Display for StructureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the trees differ in structure: {} against {}", self.left, self.right)
    }
}

impl std::error::Error for StructureError {}

impl From<StructureError> for crate::Error {
    fn from(e: StructureError) -> crate::Error {
        crate::Error::Arguments(e.to_string())
    }
}

/// Writes `[a, b, ...]` (the items' structures) to `out`.
fn write_list<'a, L, T: Tree<L> + 'a>(items: impl IntoIterator<Item = &'a T>, out: &mut String) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write_structure(out);
    }
    out.push(']');
}

/// Rebuilds `template`'s structure with `leaves` (in order); `None` when the number of
/// leaves differs from the template's.
pub fn unflatten<L, T: Tree<L> + ?Sized, M>(template: &T, leaves: Vec<M>) -> Option<T::With<M>> {
    if leaves.len() != template.leaf_count() {
        return None;
    }
    let mut iter = leaves.into_iter();
    // The counts agree, so every leaf finds a value (a hand-written `Tree` whose
    // `map_leaves` visits other leaves than `for_each_leaf` breaks this contract).
    Some(template.map_leaves(&mut |_| iter.next().expect("Tree::map_leaves visits as many leaves as for_each_leaf")))
}

macro_rules! leaf {
    ($($ty:ty),*) => {$(
        impl Tree<$ty> for $ty {
            type With<M> = M;

            fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a $ty)) {
                f(self)
            }

            fn map_leaves<M>(&self, f: &mut dyn FnMut(&$ty) -> M) -> M {
                f(self)
            }

            fn write_structure(&self, out: &mut String) {
                out.push('*');
            }
        }
    )*};
}

leaf!(Tensor, Array, Type);

impl<L, T: Tree<L>> Tree<L> for Vec<T> {
    type With<M> = Vec<T::With<M>>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        self.iter().for_each(|item| item.for_each_leaf(f));
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        self.iter().map(|item| item.map_leaves(f)).collect()
    }

    fn child_leaf_counts(&self) -> Option<Vec<usize>> {
        Some(self.iter().map(Tree::leaf_count).collect())
    }

    fn write_structure(&self, out: &mut String) {
        write_list(self, out);
    }
}

impl<L, T: Tree<L>> Tree<L> for [T] {
    type With<M> = Vec<T::With<M>>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        self.iter().for_each(|item| item.for_each_leaf(f));
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        self.iter().map(|item| item.map_leaves(f)).collect()
    }

    fn child_leaf_counts(&self) -> Option<Vec<usize>> {
        Some(self.iter().map(Tree::leaf_count).collect())
    }

    fn write_structure(&self, out: &mut String) {
        write_list(self, out);
    }
}

impl<L, T: Tree<L>, const N: usize> Tree<L> for [T; N] {
    type With<M> = [T::With<M>; N];

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        self.iter().for_each(|item| item.for_each_leaf(f));
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        let mut i = 0;
        std::array::from_fn(|_| {
            let out = self[i].map_leaves(f);
            i += 1;
            out
        })
    }

    fn child_leaf_counts(&self) -> Option<Vec<usize>> {
        Some(self.iter().map(Tree::leaf_count).collect())
    }

    fn write_structure(&self, out: &mut String) {
        write_list(self, out);
    }
}

impl<L, T: Tree<L>> Tree<L> for Option<T> {
    type With<M> = Option<T::With<M>>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        if let Some(item) = self {
            item.for_each_leaf(f);
        }
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        self.as_ref().map(|item| item.map_leaves(f))
    }

    fn write_structure(&self, out: &mut String) {
        match self {
            None => out.push_str("None"),
            Some(item) => {
                out.push_str("Some(");
                item.write_structure(out);
                out.push(')');
            }
        }
    }
}

impl<L, T: Tree<L> + ?Sized> Tree<L> for Box<T> {
    type With<M> = Box<T::With<M>>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        (**self).for_each_leaf(f);
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        Box::new((**self).map_leaves(f))
    }

    fn write_structure(&self, out: &mut String) {
        (**self).write_structure(out);
    }
}

impl<L> Tree<L> for () {
    type With<M> = ();

    fn for_each_leaf<'a>(&'a self, _: &mut dyn FnMut(&'a L)) {}

    fn map_leaves<M>(&self, _: &mut dyn FnMut(&L) -> M) {}

    fn write_structure(&self, out: &mut String) {
        out.push_str("()");
    }
}

macro_rules! tuple {
    ($($name:ident $index:tt),+) => {
        impl<L, $($name: Tree<L>),+> Tree<L> for ($($name,)+) {
            type With<M> = ($($name::With<M>,)+);

            fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
                $(self.$index.for_each_leaf(f);)+
            }

            fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
                ($(self.$index.map_leaves(f),)+)
            }

            fn child_leaf_counts(&self) -> Option<Vec<usize>> {
                Some(vec![$(self.$index.leaf_count()),+])
            }

            fn write_structure(&self, out: &mut String) {
                let parts: &[&dyn Fn(&mut String)] = &[$(&|out| self.$index.write_structure(out)),+];
                out.push('(');
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    part(out);
                }
                // A one-tuple prints as `(*,)`, as Rust writes it.
                if parts.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
        }
    };
}

tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
