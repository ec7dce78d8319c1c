//! The direct path against the interpreter: padding, strides, both dilations, 1-3
//! spatial axes, a strided input feature axis, an output count off the register
//! blocks, an empty batch, infinite weights on skipped taps, f32 and f64, 1 and 2 threads.

use crate::conv::ConvPlan;
use crate::{JitOptions, compile, policy};
use ferrax_ir::prim::{ConvOp, Prim};
use ferrax_ir::{Array, EvalOptions, eval_entry, parse};

/// `conv_general_dilated` of `x` by `w` with these attributes, as a module.
fn text(x: &str, w: &str, out: &str, attrs: &str) -> String {
    format!(
        "func @f(%x: {x}, %w: {w}) -> ({out}) {{\n  %y: {out} = conv_general_dilated[{attrs}, feature_group_count=1, batch_group_count=1, preferred=none](%x, %w)\n  return %y\n}}\n"
    )
}

/// Values in [-1, 1]; with `inf`, those above 0.99 infinite.
fn values(shape: &[usize], seed: u64, f64s: bool, inf: bool) -> Array {
    let n: usize = shape.iter().product();
    let v = (0..n as u64)
        .map(|i| ((i * 7919 + seed * 104729) % 2003) as f64 / 1001.0 - 1.0)
        .map(|v| if inf && v > 0.99 { f64::INFINITY } else { v });
    if f64s {
        Array::from_f64(shape, v.collect()).unwrap()
    } else {
        Array::from_f32(shape, v.map(|x| x as f32).collect()).unwrap()
    }
}

#[test]
fn the_direct_path_matches_the_interpreter() {
    let s1 = "window_strides=[1], padding=[[1,2]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=[\"NWC\",\"WIO\",\"NWC\"]";
    let nhwc = |s: &str, p: &str, ld: &str, rd: &str| {
        format!(
            "window_strides=[{s}], padding=[{p}], lhs_dilation=[{ld}], rhs_dilation=[{rd}], dimension_numbers=[\"NHWC\",\"HWIO\",\"NHWC\"]"
        )
    };
    let cases: Vec<(&str, Vec<usize>, Vec<usize>, Vec<usize>, String)> = vec![
        ("1-D, 1 feature, padded", vec![2, 9, 1], vec![3, 1, 8], vec![2, 10, 8], s1.to_string()),
        ("SAME 3x3 over RGB", vec![2, 6, 5, 3], vec![3, 3, 3, 32], vec![2, 6, 5, 32], nhwc("1,1", "[1,1],[1,1]", "1,1", "1,1")),
        // Above the split threshold (4096 positions x 27 taps x 32 outputs): two threads.
        ("split over threads", vec![4, 32, 32, 3], vec![3, 3, 3, 32], vec![4, 32, 32, 32], nhwc("1,1", "[1,1],[1,1]", "1,1", "1,1")),
        ("strided, 33 outputs", vec![1, 7, 8, 2], vec![3, 2, 2, 33], vec![1, 3, 4, 33], nhwc("2,2", "[0,0],[0,0]", "1,1", "1,1")),
        ("dilations, negative padding", vec![1, 5, 6, 4], vec![2, 3, 4, 9], vec![1, 9, 3, 9], nhwc("1,1", "[0,1],[-1,2]", "2,1", "1,2")),
        ("empty batch", vec![0, 4, 4, 3], vec![3, 3, 3, 8], vec![0, 4, 4, 8], nhwc("1,1", "[1,1],[1,1]", "1,1", "1,1")),
        (
            "3-D, NCDHW input",
            vec![1, 2, 4, 3, 3],
            vec![2, 2, 2, 2, 16],
            vec![1, 3, 2, 2, 16],
            "window_strides=[1,1,1], padding=[[0,0],[0,0],[0,0]], lhs_dilation=[1,1,1], rhs_dilation=[1,1,1], dimension_numbers=[\"NCDHW\",\"DHWIO\",\"NDHWC\"]".to_string(),
        ),
    ];
    for (label, x, w, out, attrs) in cases {
        for f64s in [false, true] {
            let dt = if f64s { "f64" } else { "f32" };
            let dims = |s: &[usize]| s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
            let t = text(
                &format!("{dt}[{}]", dims(&x)),
                &format!("{dt}[{}]", dims(&w)),
                &format!("{dt}[{}]", dims(&out)),
                &attrs,
            );
            let m = parse(&t).unwrap_or_else(|e| panic!("{label}: {e}\n{t}"));
            let f = m.entry().unwrap();
            let Prim::Conv(ConvOp::ConvGeneralDilated(c)) = &f.eqns[0].prim else { panic!("{label}: not a conv") };
            let plan = ConvPlan::new(c, f.ty(f.params[0]), f.ty(f.params[1]), &f.result_types[0]).unwrap();
            // An empty batch has fewer positions than taps: the packed path's.
            assert_eq!(plan.direct(), x[0] > 0, "{label}: the direct path or not");
            // Taps on padding and holes are skipped: infinite weights there stay out.
            let args = [values(&x, 1, f64s, false), values(&w, 2, f64s, label.starts_with("dilations"))];
            let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
            for threads in [1, 2] {
                let got = compile(&m, &JitOptions { threads, ..JitOptions::default() }).unwrap().call(&args).unwrap();
                policy::agree_for(&m, "f", &args, &want, &got)
                    .unwrap_or_else(|e| panic!("{label} {dt} {threads} threads: {e}"));
            }
        }
    }
}
