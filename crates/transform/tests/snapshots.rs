//! Snapshot tests of the IR the differentiation passes emit, after `dce`: `grad`,
//! `jvp`, `vjp`, `linearize` (both Funcs), `transpose` and `hvp`, for small functions
//! written as IR text. Each snapshot was reviewed by hand: it should read like the IR
//! one would write, with no work for zero tangents (parameters outside `wrt`,
//! integer values). Every module is verified before it is compared.
//!
//! A changed snapshot fails the test; review it with `cargo insta review` (or
//! `INSTA_UPDATE=always` and `git diff`). CI never accepts new snapshots.

use ferrax_ir::Module;
use ferrax_transform::{Wrt, dce, grad, hvp, jvp, linearize, transpose, vjp};

/// Parses and verifies a module written for a test.
fn module(text: &str) -> Module {
    let module = ferrax_ir::parse(text).expect("the test module parses");
    ferrax_ir::verify(&module).expect("the test module verifies");
    module
}

/// The canonical text of a transformed module after dce; it must verify.
fn ir(result: Result<Module, ferrax_ir::Error>) -> String {
    let module = dce(&result.expect("the transform succeeds"));
    if let Err(e) = ferrax_ir::verify(&module) {
        panic!("the transformed module does not verify: {e}\n{}", ferrax_ir::print(&module));
    }
    ferrax_ir::print(&module)
}

fn wrt(indices: &[usize]) -> Wrt {
    Wrt::Params(indices.to_vec())
}

/// sin(x) * x: the product rule with both factors depending on x.
const SIN_X_TIMES_X: &str = "\
func @f(%x: f64[]) -> (f64[]) {
  %s: f64[] = sin(%x)
  %y: f64[] = mul(%s, %x)
  return %y
}
";

#[test]
fn sin_x_times_x() {
    let f = module(SIN_X_TIMES_X);
    insta::assert_snapshot!("sin_x_times_x_jvp", ir(jvp(&f, &Wrt::Default)));
    insta::assert_snapshot!("sin_x_times_x_vjp", ir(vjp(&f, &Wrt::Default)));
    insta::assert_snapshot!("sin_x_times_x_grad", ir(grad(&f, &Wrt::Default, false)));
    let linearized = linearize(&f, &Wrt::Default);
    let transposed = ir(linearized.as_ref().map_err(Clone::clone).and_then(transpose));
    insta::assert_snapshot!("sin_x_times_x_linearize", ir(linearized));
    insta::assert_snapshot!("sin_x_times_x_transpose", transposed);
    insta::assert_snapshot!("sin_x_times_x_hvp", ir(hvp(&f, &Wrt::Default)));
}

/// (x + y) * sin(y): y fans out, so its cotangent is a sum.
const SUM_TIMES_SINE: &str = "\
func @f(%x: f64[], %y: f64[]) -> (f64[]) {
  %s: f64[] = add(%x, %y)
  %t: f64[] = sin(%y)
  %z: f64[] = mul(%s, %t)
  return %z
}
";

#[test]
fn sum_times_sine() {
    let f = module(SUM_TIMES_SINE);
    insta::assert_snapshot!("sum_times_sine_jvp", ir(jvp(&f, &Wrt::Default)));
    insta::assert_snapshot!("sum_times_sine_vjp", ir(vjp(&f, &Wrt::Default)));
    insta::assert_snapshot!("sum_times_sine_grad", ir(grad(&f, &wrt(&[0, 1]), false)));
    insta::assert_snapshot!("sum_times_sine_linearize", ir(linearize(&f, &Wrt::Default)));
    insta::assert_snapshot!("sum_times_sine_hvp", ir(hvp(&f, &wrt(&[0, 1]))));
}

/// A tanh layer with a scalar loss, sum(tanh(x w)), in f32.
const TANH_LAYER: &str = "\
func @loss(%w: f32[3,2], %x: f32[4,3]) -> (f32[]) {
  %h: f32[4,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %t: f32[4,2] = tanh(%h)
  %l: f32[] = reduce_sum[axes=[0,1]](%t)
  return %l
}
";

#[test]
fn tanh_layer() {
    let f = module(TANH_LAYER);
    // Differentiated with respect to the weights only (grad's default, param 0).
    insta::assert_snapshot!("tanh_layer_jvp", ir(jvp(&f, &wrt(&[0]))));
    insta::assert_snapshot!("tanh_layer_vjp", ir(vjp(&f, &wrt(&[0]))));
    insta::assert_snapshot!("tanh_layer_grad", ir(grad(&f, &Wrt::Default, false)));
    insta::assert_snapshot!("tanh_layer_linearize", ir(linearize(&f, &wrt(&[0]))));
    insta::assert_snapshot!("tanh_layer_hvp", ir(hvp(&f, &Wrt::Default)));
}

/// Symbolic zeros: %w is outside wrt and %n is an integer, so nothing is emitted for
/// their tangents or cotangents; the integer output gets none either.
const SYMBOLIC_ZEROS: &str = "\
func @f(%x: f64[3], %w: f64[3], %n: i32[]) -> (f64[], i32[]) {
  %nf: f64[] = convert[dtype=f64](%n)
  %nb: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%nf)
  %wn: f64[3] = mul(%w, %nb)
  %e: f64[3] = exp(%wn)
  %xe: f64[3] = mul(%x, %e)
  %y: f64[] = reduce_sum[axes=[0]](%xe)
  %m: i32[] = mul(%n, %n)
  return %y, %m
}
";

#[test]
fn symbolic_zeros() {
    let f = module(SYMBOLIC_ZEROS);
    // Beyond the snapshot: the jvp adds exactly the two tangent equations of %xe and %y
    // (mul by the primal e, reduce_sum) to f's seven.
    let jvp_module = dce(&jvp(&f, &wrt(&[0])).expect("jvp"));
    let entry = jvp_module.entry().expect("an entry");
    assert_eq!(entry.eqns.len(), f.entry().expect("an entry").eqns.len() + 2, "{}", ferrax_ir::print(&jvp_module));
    insta::assert_snapshot!("symbolic_zeros_jvp", ir(jvp(&f, &wrt(&[0]))));
    insta::assert_snapshot!("symbolic_zeros_vjp", ir(vjp(&f, &wrt(&[0]))));
    insta::assert_snapshot!("symbolic_zeros_grad", ir(grad(&f, &Wrt::Default, true)));
    insta::assert_snapshot!("symbolic_zeros_linearize", ir(linearize(&f, &wrt(&[0]))));
    // hvp takes a function returning one scalar: the same without the integer output.
    // %w is not differentiated by grad, but hvp's jvp gives it a tangent (every float
    // parameter), so the mixed second derivative d/dw (df/dx) appears; %n still has none.
    let scalar = module(&SYMBOLIC_ZEROS.replace("(f64[], i32[])", "(f64[])").replace("return %y, %m", "return %y"));
    insta::assert_snapshot!("symbolic_zeros_hvp", ir(hvp(&scalar, &Wrt::Default)));
}
