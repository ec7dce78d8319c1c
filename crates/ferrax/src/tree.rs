//! Structured arguments and results, like JAX's pytrees.
//!
//! A [`Tree<L>`] is a structure (a tuple, a `Vec`, an array, an `Option`, a user
//! struct of parameters) whose leaves are of type `L`: `Tensor` while tracing, `Array`
//! for host values, `Type` for the signature. The IR sees flat lists of leaves; a tree
//! flattens into its leaves in a fixed order and is rebuilt, with other leaves, by
//! [`Tree::map_leaves`]. A struct generic over its leaf type (`struct Mlp<T> { w1: T,
//! b1: T }`) is the same structure at every stage: `Mlp<Type>` describes the inputs,
//! `Mlp<Tensor>` is traced, `Mlp<Array>` holds the values.

use crate::Tensor;
use ferrax_ir::{Array, Type};

/// A structure with leaves of type `L`.
pub trait Tree<L> {
    /// The same structure with leaves of type `M`.
    type With<M>;

    /// Calls `f` on every leaf, in order.
    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L));

    /// The same structure with every leaf replaced by `f(leaf)`, in order.
    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M>;

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
}

impl<L, T: Tree<L>> Tree<L> for [T] {
    type With<M> = Vec<T::With<M>>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        self.iter().for_each(|item| item.for_each_leaf(f));
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
        self.iter().map(|item| item.map_leaves(f)).collect()
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
}

impl<L> Tree<L> for () {
    type With<M> = ();

    fn for_each_leaf<'a>(&'a self, _: &mut dyn FnMut(&'a L)) {}

    fn map_leaves<M>(&self, _: &mut dyn FnMut(&L) -> M) {}
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
