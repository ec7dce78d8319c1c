//! The vmap pass at the IR level: snapshots of the batched IR (reviewed by hand: no
//! loop, no broadcast of what does not vary, no transpose of an unbatched operand),
//! and compositions with the differentiation passes checked against loops over the
//! examples.

use ferrax_ir::{Module, Prim};
use ferrax_transform::{Wrt, dce, grad, vmap};

/// Parses and verifies a module written for a test.
fn module(text: &str) -> Module {
    let module = ferrax_ir::parse(text).expect("the test module parses");
    ferrax_ir::verify(&module).expect("the test module verifies");
    module
}

/// `dce` of a transformed module; it must verify.
fn checked(result: Result<Module, ferrax_ir::Error>) -> Module {
    let module = dce(&result.expect("the transform succeeds"));
    if let Err(e) = ferrax_ir::verify(&module) {
        panic!("the transformed module does not verify: {e}\n{}", ferrax_ir::print(&module));
    }
    module
}

/// Every primitive name used by any Func of `module`.
fn prims(module: &Module) -> Vec<&'static str> {
    module.funcs.values().flat_map(|f| f.eqns.iter().map(|e| e.prim.name())).collect()
}

/// A matrix-vector product A v.
const MATVEC: &str = "\
func @mv(%a: f64[3,4], %v: f64[4]) -> (f64[3]) {
  %y: f64[3] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %v)
  return %y
}
";

/// vmap over the vector only: one `dot_general` contracting A with the batch of
/// vectors, no loop, and A is used as it is (never transposed nor broadcast).
#[test]
fn matvec_over_the_vector_is_one_dot_general() {
    let m = module(MATVEC);
    let batched = checked(vmap(&m, &[None, Some(0)], &[0], 5));
    let names = prims(&batched);
    assert_eq!(names.iter().filter(|n| **n == "dot_general").count(), 1, "{names:?}");
    for looping in ["while", "scan", "call"] {
        assert!(!names.contains(&looping), "{looping} in {names:?}");
    }
    let entry = batched.entry().expect("an entry");
    let a = entry.params[0];
    for eqn in &entry.eqns {
        if eqn.inputs.contains(&a) {
            assert!(matches!(eqn.prim, Prim::DotGeneral(_)), "A goes through {} before the product", eqn.prim.name());
        }
    }
    insta::assert_snapshot!("matvec_vmap_vector", ferrax_ir::print(&batched));
    // The batch axis last, in and out: still one product.
    let last = checked(vmap(&m, &[None, Some(-1)], &[-1], 5));
    assert_eq!(prims(&last).iter().filter(|n| **n == "dot_general").count(), 1);
    insta::assert_snapshot!("matvec_vmap_vector_last_axes", ferrax_ir::print(&last));
}

/// Both operands batched: the batch axis becomes a batch dimension of the product.
#[test]
fn matvec_over_both_is_a_batched_dot_general() {
    let m = module(MATVEC);
    let batched = checked(vmap(&m, &[Some(0), Some(0)], &[0], 5));
    assert_eq!(prims(&batched), vec!["dot_general"]);
    insta::assert_snapshot!("matvec_vmap_both", ferrax_ir::print(&batched));
}

/// Per-example gradients of a linear layer's loss: `vmap(grad(f))` over the examples,
/// with the weights shared, stays free of loops (and equals the per-example grads: see
/// the composition tests).
#[test]
fn per_example_gradient_ir() {
    let m = module(
        "func @loss(%w: f64[2,3], %x: f64[3]) -> (f64[]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[2] = tanh(%y)
  %s: f64[] = reduce_sum[axes=[0]](%t)
  return %s
}
",
    );
    let g = checked(grad(&m, &Wrt::Default, false));
    let batched = checked(vmap(&g, &[None, Some(0)], &[0], 4));
    let names = prims(&batched);
    assert!(!names.contains(&"while") && !names.contains(&"scan"), "{names:?}");
    insta::assert_snapshot!("per_example_gradient", ferrax_ir::print(&batched));
}
