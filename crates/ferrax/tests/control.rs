//! Control-flow builders: traced bodies, captures of outer tensors, and their errors.

use ferrax::{
    Array, Branch, DType, ScanOptions, Tensor, Type, cond, constant, eval, fori_loop, scan, scan_with, switch, trace,
    while_loop,
};

fn f32s(values: &[f32]) -> Array {
    Array::from_f32(&[values.len()], values.to_vec()).unwrap()
}

fn scalar(x: f32) -> Array {
    Array::scalar_f32(x)
}

#[test]
fn cond_picks_a_branch_and_captures_outer_tensors() {
    let run = |p: bool, x: f32| {
        let args = (Array::scalar_bool(p), scalar(x), scalar(10.0));
        eval(
            |(p, x, k): (Tensor, Tensor, Tensor)| {
                // Each branch captures a different outer tensor (k in one, x*x in the other).
                let square = &x * &x;
                cond(&p, |(y,): (Tensor,)| &y + &k, |(y,): (Tensor,)| &y * &square, &(x.clone(),))
            },
            &args,
        )
        .unwrap()
    };
    assert_eq!(run(true, 3.0), scalar(13.0));
    assert_eq!(run(false, 3.0), scalar(27.0));
}

#[test]
fn switch_clamps_its_index() {
    let run = |i: i32| {
        eval(
            |(i, x): (Tensor, Tensor)| {
                let branches: [Branch<(Tensor,), Tensor>; 3] =
                    [Box::new(|(y,)| &y + 1.0), Box::new(|(y,)| &y * 2.0), Box::new(|(y,)| -&y)];
                switch(&i, branches, &(x,))
            },
            &(Array::scalar_i32(i), scalar(5.0)),
        )
        .unwrap()
    };
    assert_eq!(
        [run(-4), run(0), run(1), run(2), run(9)],
        [scalar(6.0), scalar(6.0), scalar(10.0), scalar(-5.0), scalar(-5.0)]
    );
}

#[test]
fn while_loop_threads_several_carries_and_captures() {
    // Square y until it overflows to inf, counting steps by a captured increment.
    let run = |max_iters: Option<usize>| {
        eval(
            |(y, step): (Tensor, Tensor)| {
                let count = constant(&Array::scalar_f32(0.0));
                while_loop(
                    |(y, _): (Tensor, Tensor)| y.is_finite(),
                    |(y, n): (Tensor, Tensor)| (&y * &y, &n + &step),
                    &(y, count),
                    max_iters,
                )
            },
            &(scalar(2.0), scalar(1.0)),
        )
        .unwrap()
    };
    // 2^(2^k) overflows f32 at k = 7 (2^128).
    assert_eq!(run(None), (scalar(f32::INFINITY), scalar(7.0)));
    assert_eq!(run(Some(3)), (scalar(256.0), scalar(3.0)));
}

#[test]
fn scan_stacks_ys_and_uses_captures_as_constants() {
    let xs = Array::from_f32(&[4, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]).unwrap();
    let (carry, ys) = eval(
        |(xs, scale): (Tensor, Tensor)| {
            let zero = constant(&f32s(&[0.0, 0.0]));
            scan(
                |(c, x): (Tensor, Tensor)| {
                    let next = &c + &(&x * &scale);
                    (next.clone(), next)
                },
                &zero,
                &xs,
            )
        },
        &(xs.clone(), scalar(10.0)),
    )
    .unwrap();
    assert_eq!(carry, f32s(&[160.0, 200.0]));
    assert_eq!(ys.as_f32().unwrap(), &[10.0, 20.0, 40.0, 60.0, 90.0, 120.0, 160.0, 200.0]);
    let reversed = eval(
        |(xs,): (Tensor,)| {
            let zero = constant(&f32s(&[0.0, 0.0]));
            let options = ScanOptions { reverse: true, checkpoint: Some(2), ..ScanOptions::default() };
            scan_with(
                |(c, x): (Tensor, Tensor)| {
                    let next = &c + &x;
                    (next.clone(), next)
                },
                &zero,
                &xs,
                &options,
            )
            .1
        },
        &(xs,),
    )
    .unwrap();
    assert_eq!(reversed.as_f32().unwrap(), &[16.0, 20.0, 15.0, 18.0, 12.0, 14.0, 7.0, 8.0]);
}

#[test]
fn fori_loop_counts_and_nests_inside_cond() {
    let out = eval(
        |(p, x): (Tensor, Tensor)| {
            cond(
                &p,
                |(x,): (Tensor,)| fori_loop(0, 4, |i, (acc,): (Tensor,)| (&acc + &i.cast(DType::F32),), &(x,)).0,
                |(x,): (Tensor,)| x,
                &(x.clone(),),
            )
        },
        &(Array::scalar_bool(true), scalar(0.5)),
    )
    .unwrap();
    assert_eq!(out, scalar(6.5));
}

#[test]
fn control_flow_errors_are_reported_with_the_callers_line() {
    let f32t = Type::scalar(DType::F32);
    let line = line!() + 2;
    let err =
        trace(|(x,): (Tensor,)| cond(&x, |(y,): (Tensor,)| y, |(y,): (Tensor,)| y, &(x.clone(),)), &(f32t.clone(),))
            .unwrap_err()
            .to_string();
    assert!(err.starts_with(&format!("crates/ferrax/tests/control.rs:{line}:")), "{err}");
    assert!(err.contains("selector must be i32[] or bool[], got f32[]"), "{err}");

    let err = trace(
        |(p, x): (Tensor, Tensor)| cond(&p, |(y,): (Tensor,)| y.cast(DType::F64), |(y,): (Tensor,)| y, &(x,)),
        &(Type::scalar(DType::Bool), f32t.clone()),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("branch results differ: (f32[]) (branch 0) vs (f64[]) (branch 1)"), "{err}");

    let err = trace(
        |(xs,): (Tensor,)| scan(|(c, x): (Tensor, Tensor)| (c.cast(DType::F64), x), &constant(&scalar(0.0)), &xs).0,
        &(Type::new(DType::F32, &[3]),),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("scan: the body changes the carry type: (f32[]) -> (f64[])"), "{err}");

    let err = trace(
        |(x,): (Tensor,)| {
            while_loop(|(y,): (Tensor,)| y.sum([0]).is_finite(), |(y,): (Tensor,)| (y.sum([0]),), &(x,), None)
        },
        &(Type::new(DType::F32, &[2]),),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("while_loop: the body changes the carry type: (f32[2]) -> (f32[])"), "{err}");
}

#[test]
fn traced_control_flow_round_trips_through_text() {
    let module = trace(
        |(p, xs): (Tensor, Tensor)| {
            let total = scan(|(c, x): (Tensor, Tensor)| (&c + &x, ()), &constant(&scalar(0.0)), &xs).0;
            cond(&p, |(t,): (Tensor,)| &t * 2.0, |(t,): (Tensor,)| t, &(total,))
        },
        &(Type::scalar(DType::Bool), Type::new(DType::F32, &[5])),
    )
    .unwrap();
    let text = ferrax::ir::print(&module);
    let reparsed = ferrax::ir::parse(&text).unwrap();
    ferrax::ir::verify(&reparsed).unwrap();
    assert_eq!(ferrax::ir::print(&reparsed), text);
    insta::assert_snapshot!("scan_then_cond", text);
}

#[test]
fn captures_pass_through_every_level_of_nesting() {
    // The scan body, two traces deep, uses `k` of the outermost trace.
    let out = eval(
        |(p, xs, k): (Tensor, Tensor, Tensor)| {
            cond(
                &p,
                |(xs,): (Tensor,)| {
                    scan(|(c, x): (Tensor, Tensor)| (&c + &(&x * &k), ()), &constant(&scalar(0.0)), &xs).0
                },
                |(xs,): (Tensor,)| xs.sum([0]),
                &(xs.clone(),),
            )
        },
        &(Array::scalar_bool(true), f32s(&[1.0, 2.0, 3.0]), scalar(10.0)),
    )
    .unwrap();
    assert_eq!(out, scalar(60.0));
    let module = trace(
        |(p, xs, k): (Tensor, Tensor, Tensor)| {
            cond(
                &p,
                |(xs,): (Tensor,)| {
                    scan(|(c, x): (Tensor, Tensor)| (&c + &(&x * &k), ()), &constant(&scalar(0.0)), &xs).0
                },
                |(xs,): (Tensor,)| xs.sum([0]),
                &(xs.clone(),),
            )
        },
        &(Type::scalar(DType::Bool), Type::new(DType::F32, &[3]), Type::scalar(DType::F32)),
    )
    .unwrap();
    insta::assert_snapshot!("nested_capture", ferrax::ir::print(&module));
}
