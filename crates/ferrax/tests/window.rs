//! The window family over many configurations: window sizes, strides, padding (explicit,
//! SAME, VALID), base and window dilation, 1-3 spatial dimensions, odd sizes, size-1
//! axes and empty operands. For each configuration and each of sum, max and min pooling:
//! jvp and vjp against central differences in f64, to order 2 (the inputs are distinct,
//! so max and min pooling are smooth there); vmap against a loop over the batch (the
//! batch axis first and last, and the selecting operand unbatched); the JIT against the
//! interpreter. Then the tie-breaking rule (the first maximum takes the whole
//! cotangent), overlapping windows adding up, and the errors.

use ferrax::ir::prim::window::Geometry;
use ferrax::ir::prim::{Window, WindowOp, WindowReduce};
use ferrax::ir::{EvalOptions, Module, eval_entry, parse};
use ferrax::lax::{Padding, WindowSpec, max_pool, reduce_window};
use ferrax::{Array, Tensor, grad, value_and_grad};
use ferrax_transform::{Modes, Tolerance, check_grads, vmap};

/// `(shape, window, strides, padding, base dilation, window dilation)`.
type Config = (&'static [usize], &'static [usize], &'static [usize], Padding, &'static [usize], &'static [usize]);

fn configs() -> Vec<Config> {
    use Padding::{Explicit, Same, Valid};
    vec![
        (&[7], &[3], &[2], Explicit(vec![(1, 2)]), &[1], &[1]),
        (&[9], &[2], &[2], Same, &[1], &[1]),
        (&[8], &[3], &[3], Valid, &[1], &[1]),
        (&[5], &[2], &[1], Explicit(vec![(0, 1)]), &[2], &[1]),
        (&[7], &[2], &[1], Valid, &[1], &[3]),
        (&[1], &[1], &[1], Valid, &[1], &[1]),
        (&[0], &[2], &[1], Valid, &[1], &[1]),
        (&[4, 4], &[2, 2], &[2, 2], Valid, &[1, 1], &[1, 1]),
        (&[5, 7], &[3, 3], &[2, 2], Same, &[1, 1], &[1, 1]),
        (&[5, 5], &[3, 2], &[1, 1], Same, &[1, 1], &[1, 1]),
        (&[3, 5], &[2, 2], &[1, 2], Explicit(vec![(1, 0), (0, 1)]), &[2, 1], &[1, 2]),
        (&[1, 6], &[1, 3], &[1, 2], Valid, &[1, 1], &[1, 1]),
        (&[2, 0], &[1, 2], &[1, 1], Valid, &[1, 1], &[1, 1]),
        (&[3, 4, 5], &[2, 2, 2], &[1, 2, 2], Same, &[1, 1, 1], &[1, 1, 1]),
        (&[2, 3, 4], &[2, 2, 2], &[1, 1, 2], Explicit(vec![(0, 1), (1, 0), (0, 0)]), &[1, 2, 1], &[1, 1, 2]),
        (&[2, 2, 3], &[1, 1, 3], &[1, 1, 1], Same, &[1, 1, 1], &[1, 1, 1]),
    ]
}

/// The IR window of a configuration (the padding resolved as `reduce_window` does).
fn window_of(c: &Config) -> Window {
    let pads = c.3.resolve(c.0, c.1, c.2).unwrap();
    Window {
        dimensions: c.1.to_vec(),
        strides: c.2.to_vec(),
        padding: pads.into_iter().map(|(l, h)| [l as usize, h as usize]).collect(),
        base_dilation: c.4.to_vec(),
        window_dilation: c.5.to_vec(),
    }
}

fn list(v: &[usize]) -> String {
    format!("[{}]", v.iter().map(usize::to_string).collect::<Vec<_>>().join(","))
}

fn attrs(w: &Window) -> String {
    let pads: Vec<String> = w.padding.iter().map(|[l, h]| format!("[{l},{h}]")).collect();
    format!(
        "window_dimensions={}, window_strides={}, padding=[{}], base_dilation={}, window_dilation={}",
        list(&w.dimensions),
        list(&w.strides),
        pads.join(","),
        list(&w.base_dilation),
        list(&w.window_dilation)
    )
}

/// `reduce_window` of `op`, then a square (so second derivatives are not zero).
fn module(op: WindowReduce, shape: &[usize], w: &Window) -> Module {
    let out = w.out_shape("reduce_window", shape).unwrap();
    let init = match op {
        WindowReduce::Sum => "0.0",
        WindowReduce::Max => "-inf",
        WindowReduce::Min => "inf",
    };
    let (s, o) = (list(shape), list(&out));
    parse(&format!(
        "func @f(%x: f64{s}) -> (f64{o}) {{
  %i: f64[] = constant[value={init}]()
  %y: f64{o} = reduce_window[op=\"{op}\", {}](%x, %i)
  %z: f64{o} = mul(%y, %y)
  return %z
}}
",
        attrs(w)
    ))
    .unwrap()
}

/// Distinct values (a shuffled arithmetic sequence, at least 0.37 apart).
fn distinct(shape: &[usize], seed: usize) -> Array {
    let n: usize = shape.iter().product();
    let mut v: Vec<f64> = (0..n).map(|k| 0.37 * (k as f64 - n as f64 / 2.0) + 0.05).collect();
    let mut state = seed as u64 * 0x9E37_79B9 + 7;
    for i in (1..n).rev() {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        v.swap(i, (state >> 33) as usize % (i + 1));
    }
    Array::from_f64(shape, v).unwrap()
}

/// Whether every window of a configuration covers an operand element (a window of
/// padding alone has max -inf, which finite differences cannot take).
fn every_window_covers(shape: &[usize], w: &Window) -> bool {
    let g = Geometry::new("test", w, shape).unwrap();
    let mut all = true;
    g.for_each(|_, offsets| all &= !offsets.is_empty());
    all
}

fn ops() -> [WindowReduce; 3] {
    [WindowReduce::Sum, WindowReduce::Max, WindowReduce::Min]
}

#[test]
fn derivatives_agree_with_finite_differences_to_order_two() {
    let tol = Tolerance { eps: 1e-5, atol: 1e-6, rtol: 1e-5 };
    let mut checked = 0;
    for (k, c) in configs().iter().enumerate() {
        let w = window_of(c);
        for op in ops() {
            if op != WindowReduce::Sum && !every_window_covers(c.0, &w) {
                continue;
            }
            let m = module(op, c.0, &w);
            let x = distinct(c.0, k);
            check_grads(&m, &[x], 2, Modes::Both, tol).unwrap_or_else(|e| panic!("config {k} {op}: {e}"));
            checked += 1;
        }
    }
    assert!(checked >= 44, "{checked} checks");
}

/// Example `b` of `xs` along `axis` (f64).
fn take(xs: &Array, axis: usize, b: usize) -> Array {
    let shape = xs.shape();
    let (outer, n, inner): (usize, usize, usize) =
        (shape[..axis].iter().product(), shape[axis], shape[axis + 1..].iter().product());
    let v = xs.to_f64_vec();
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        out.extend_from_slice(&v[(o * n + b) * inner..(o * n + b + 1) * inner]);
    }
    let mut sh = shape.to_vec();
    sh.remove(axis);
    Array::from_f64(&sh, out).unwrap()
}

/// The module run on each example of `xs` (batched along `axis`) and stacked back.
fn looped(m: &Module, xs: &Array, axis: usize) -> Vec<f64> {
    let n = xs.shape()[axis];
    let mut per_example = Vec::new();
    for b in 0..n {
        let x = take(xs, axis, b);
        per_example.push(eval_entry(m, &[x], &EvalOptions::default()).unwrap().remove(0));
    }
    // Stack along `axis` in row-major order.
    let shape = per_example.first().map(|a| a.shape().to_vec()).unwrap_or_default();
    let (outer, inner): (usize, usize) = (shape[..axis].iter().product(), shape[axis..].iter().product());
    let mut out = Vec::new();
    for o in 0..outer {
        for ex in &per_example {
            out.extend_from_slice(&ex.to_f64_vec()[o * inner..(o + 1) * inner]);
        }
    }
    out
}

#[test]
fn vmap_matches_a_loop_over_the_batch() {
    for (k, c) in configs().iter().enumerate() {
        let w = window_of(c);
        for op in ops() {
            let m = module(op, c.0, &w);
            let rank = c.0.len();
            for axis in [0, rank] {
                let mut shape = c.0.to_vec();
                shape.insert(axis, 3);
                let xs = distinct(&shape, k + 11);
                let batched = vmap(&m, &[Some(axis as isize)], &[axis as isize], 3).unwrap();
                let got = eval_entry(&batched, std::slice::from_ref(&xs), &EvalOptions::default()).unwrap().remove(0);
                assert_eq!(got.to_f64_vec(), looped(&m, &xs, axis), "config {k} {op} batch axis {axis}");
            }
        }
    }
}

#[test]
fn the_selections_batch_with_either_operand_unbatched() {
    let w = Window { strides: vec![2, 1], padding: vec![[1, 0], [0, 1]], ..Window::new(&[2, 2]) };
    let (s, o) = ([3usize, 4], w.out_shape("t", &[3, 4]).unwrap());
    for name in ["select_and_gather_add", "select_and_scatter_add"] {
        let (first, result) = if name == "select_and_gather_add" { (list(&s), list(&o)) } else { (list(&o), list(&s)) };
        let m = parse(&format!(
            "func @f(%t: f64{first}, %x: f64{}) -> (f64{result}) {{
  %y: f64{result} = {name}[select=\"max\", {}](%t, %x)
  return %y
}}
",
            list(&s),
            attrs(&w)
        ))
        .unwrap();
        let t_shape: Vec<usize> = if name == "select_and_gather_add" { s.to_vec() } else { o.to_vec() };
        for (bt, bx) in [(true, false), (false, true), (true, true)] {
            let batch = |shape: &[usize], on: bool, seed| {
                let mut sh = shape.to_vec();
                if on {
                    sh.insert(0, 2);
                }
                distinct(&sh, seed)
            };
            let (ts, xs) = (batch(&t_shape, bt, 1), batch(&s, bx, 2));
            let axes = [bt.then_some(0), bx.then_some(0)];
            let batched = vmap(&m, &axes, &[0], 2).unwrap();
            let got = eval_entry(&batched, &[ts.clone(), xs.clone()], &EvalOptions::default()).unwrap().remove(0);
            let mut want = Vec::new();
            for b in 0..2 {
                let t = if bt { take(&ts, 0, b) } else { ts.clone() };
                let x = if bx { take(&xs, 0, b) } else { xs.clone() };
                want.extend(eval_entry(&m, &[t, x], &EvalOptions::default()).unwrap()[0].to_f64_vec());
            }
            assert_eq!(got.to_f64_vec(), want, "{name} batched t {bt}, x {bx}");
        }
    }
}

#[test]
fn the_jit_agrees_with_the_interpreter() {
    for (k, c) in configs().iter().enumerate() {
        let w = window_of(c);
        for op in ops() {
            let m = module(op, c.0, &w);
            let x = distinct(c.0, k + 5);
            let want = eval_entry(&m, std::slice::from_ref(&x), &EvalOptions::default()).unwrap();
            let exe = ferrax::jit_module(&m).unwrap();
            let got = exe.call(&[x]).unwrap();
            assert_eq!(got[0].to_f64_vec(), want[0].to_f64_vec(), "config {k} {op}");
        }
    }
}

#[test]
fn the_first_maximum_takes_the_whole_cotangent() {
    // Two windows of four equal values each: only the first of each gets the gradient.
    let x = Array::from_f64(&[1, 2, 4, 1], vec![1.0; 8]).unwrap();
    let g = grad(|x: Tensor| max_pool(&x, &[2, 2], &[2, 2], Padding::Valid).sum_all()).call(&x).unwrap();
    assert_eq!(g.to_f64_vec(), [1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    // Ties later in a window lose to the first extreme: max ties in [2, 0, 2], min
    // ties in [1, 3, 1].
    let x = Array::from_f64(&[6], vec![1.0, 3.0, 1.0, 2.0, 0.0, 2.0]).unwrap();
    let spec = WindowSpec::new(&[3]).strides(&[3]);
    let gmax = grad(|x: Tensor| reduce_window(&x, f64::NEG_INFINITY, WindowReduce::Max, &spec).sum_all());
    assert_eq!(gmax.call(&x).unwrap().to_f64_vec(), [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
    let gmin = grad(|x: Tensor| reduce_window(&x, f64::INFINITY, WindowReduce::Min, &spec).sum_all());
    assert_eq!(gmin.call(&x).unwrap().to_f64_vec(), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
}

#[test]
fn overlapping_windows_add_their_cotangents() {
    // Windows [1, 3], [3, 2], [2, 0] with stride 1: 3 wins twice.
    let x = Array::from_f64(&[4], vec![1.0, 3.0, 2.0, 0.0]).unwrap();
    let spec = WindowSpec::new(&[2]);
    let (v, g) = value_and_grad(|x: Tensor| {
        let y = reduce_window(&x, f64::NEG_INFINITY, WindowReduce::Max, &spec);
        let w = Tensor::constant(&Array::from_f64(&[3], vec![1.0, 10.0, 100.0]).unwrap());
        (&y * &w).sum_all()
    })
    .call(&x)
    .unwrap();
    assert_eq!(v.to_f64_vec(), [3.0 + 30.0 + 200.0]);
    assert_eq!(g.to_f64_vec(), [0.0, 11.0, 100.0, 0.0]);
}

#[test]
fn padding_resolves_as_jax_does() {
    // lax.padtype_to_pads((5, 6, 1), (3, 2, 1), (2, 4, 1), "SAME") == [(1, 1), (0, 0), (0, 0)]
    assert_eq!(Padding::Same.resolve(&[5, 6, 1], &[3, 2, 1], &[2, 4, 1]).unwrap(), [(1, 1), (0, 0), (0, 0)]);
    // An odd total puts the extra element at the end: n=4, k=4, s=1 pads 3 as (1, 2).
    assert_eq!(Padding::Same.resolve(&[4], &[4], &[1]).unwrap(), [(1, 2)]);
    assert_eq!(Padding::Valid.resolve(&[4, 4], &[2, 2], &[1, 1]).unwrap(), [(0, 0), (0, 0)]);
    assert!(Padding::Explicit(vec![(1, 1)]).resolve(&[4, 4], &[2, 2], &[1, 1]).unwrap_err().contains("1 (low, high)"));
}

#[test]
fn bad_windows_are_errors_naming_both_sides() {
    let x = Array::from_f64(&[2, 4, 4, 3], vec![0.0; 96]).unwrap();
    let e = ferrax::eval(|x: Tensor| max_pool(&x, &[2, 2], &[2], Padding::Valid), &x).unwrap_err();
    assert!(e.to_string().contains("1 strides for a window of 2 axes"), "{e}");
    let spec = WindowSpec::new(&[2, 2]);
    let e = ferrax::eval(|x: Tensor| reduce_window(&x, 0.0, WindowReduce::Sum, &spec), &x).unwrap_err();
    assert!(e.to_string().contains("rank 4"), "{e}");
    // A zero stride is refused by the type rule.
    let w = Window { strides: vec![0], ..Window::new(&[2]) };
    let op = WindowOp::ReduceWindow { op: WindowReduce::Sum, window: w };
    let types = [ferrax::Type::new(ferrax::DType::F32, &[4]), ferrax::Type::new(ferrax::DType::F32, &[])];
    let e = ferrax::ir::Prim::Window(op).infer(&types, &Module::new()).unwrap_err();
    assert!(e.contains("'window_strides' must be positive"), "{e}");
    // An init that is not the identity is refused when the function runs.
    let e = ferrax::eval(|x: Tensor| reduce_window(&x, 1.0, WindowReduce::Sum, &spec.clone()), &x).unwrap_err();
    assert!(e.to_string().contains("rank 4"), "{e}");
    let v = Array::from_f64(&[3], vec![1.0, 2.0, 3.0]).unwrap();
    let spec1 = WindowSpec::new(&[2]);
    let e = ferrax::eval(|x: Tensor| reduce_window(&x, 1.0, WindowReduce::Sum, &spec1), &v).unwrap_err();
    assert!(e.to_string().contains("init must be the identity of sum (0), got 1"), "{e}");
}
