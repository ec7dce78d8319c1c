//! What `transpose` builds for a value read by several slices: the second and later
//! cotangents are added into the accumulator's window in place, not padded to the full
//! operand size and added whole; and the gradient it computes is still the right one.

use ferrax_ir::array::Data;
use ferrax_ir::{Array, EvalOptions, Module, parse, verify};
use ferrax_transform::{Wrt, linearize, transpose};

const SLICES: &str = r#"
func @f(%x: f64[8], %w: f64[4]) -> (f64[]) {
  %a: f64[4] = slice[start=[0], limit=[4], strides=[1]](%x)
  %b: f64[4] = slice[start=[3], limit=[7], strides=[1]](%x)
  %c: f64[4] = slice[start=[4], limit=[8], strides=[1]](%x)
  %p: f64[4] = mul(%a, %w)
  %q: f64[4] = mul(%b, %b)
  %s: f64[4] = add(%p, %q)
  %t: f64[4] = add(%s, %c)
  %r: f64[] = reduce_sum[axes=[0]](%t)
  return %r
}
"#;

fn f64s(shape: &[usize], values: Vec<f64>) -> Array {
    Array::new(shape, Data::F64(values)).unwrap()
}

#[test]
fn slices_of_one_operand_transpose_into_one_accumulator() {
    let m: Module = parse(SLICES).unwrap();
    verify(&m).unwrap();
    let lin = linearize(&m, &Wrt::Default).unwrap();
    let t = transpose(&lin).unwrap_or_else(|e| panic!("{e}"));
    verify(&t).unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(&t)));
    let entry = t.entry().unwrap();
    let count = |name: &str| entry.eqns.iter().filter(|e| e.prim.name() == name).count();
    // Three slices of %x: the first cotangent is padded to full size, the other two go
    // into its window.
    assert!(count("pad") <= 1, "{}", ferrax_ir::print(&t));
    assert_eq!(count("dynamic_update_slice"), 2, "{}", ferrax_ir::print(&t));

    // The gradient with respect to x, from the primal Func's residuals and a unit
    // cotangent, against the closed form.
    let x: Vec<f64> = (0..8u32).map(|i| 0.5 + 0.25 * f64::from(i)).collect();
    let w = vec![1.5, -2.0, 0.75, 3.0];
    let primal_name = lin.entry().unwrap().name.clone();
    let outs =
        ferrax_ir::eval(&lin, &primal_name, &[f64s(&[8], x.clone()), f64s(&[4], w.clone())], &EvalOptions::default())
            .unwrap();
    let mut args: Vec<Array> = outs[1..].to_vec();
    args.push(f64s(&[], vec![1.0]));
    let grads = ferrax_ir::eval(&t, &entry.name, &args, &EvalOptions::default()).unwrap();
    let gx = grads[0].to_f64_vec();
    let mut want = vec![0.0; 8];
    for k in 0..4 {
        want[k] += w[k];
        want[k + 3] += 2.0 * x[k + 3];
        want[k + 4] += 1.0;
    }
    for (g, e) in gx.iter().zip(&want) {
        assert!((g - e).abs() < 1e-12, "{gx:?} vs {want:?}");
    }
}
