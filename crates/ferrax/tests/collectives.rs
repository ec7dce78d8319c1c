//! The collectives of `ferrax::lax` from Rust: `vmap(f).axis_name("i")` binds the axis
//! (the examples are its members), nested vmaps bind nested axes, gradients follow
//! the sum-over-members convention, and a collective whose axis nothing binds is an
//! error at the caller's line that names the axis.

use ferrax::{Array, Tensor, grad, lax, vmap};

fn rows(shape: &[usize], data: Vec<f64>) -> Array {
    Array::from_f64(shape, data).unwrap()
}

#[test]
fn psum_axis_index_and_all_gather_across_the_examples() {
    let f = vmap(|x: Tensor| {
        let total = lax::psum(&x, &["i"]);
        let k = lax::axis_index("i").astype(ferrax::DType::F64);
        let gathered = lax::all_gather(&x, "i", 0, false);
        (&total + &k, gathered)
    })
    .axis_name("i");
    let x = rows(&[3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let (sums, gathered): (Array, Array) = f.call(&x).unwrap();
    assert_eq!(sums.to_f64_vec(), [9.0, 12.0, 10.0, 13.0, 11.0, 14.0]);
    assert_eq!(gathered.shape(), &[3, 3, 2]);
    assert_eq!(gathered.to_f64_vec(), [x.to_f64_vec(), x.to_f64_vec(), x.to_f64_vec()].concat());
}

#[test]
fn nested_vmaps_bind_nested_axes() {
    // The inner vmap binds `j`; a psum over the outer `i` inside it sums over the rows.
    let inner = vmap(|x: Tensor| {
        let over_i = lax::psum(&x, &["i"]);
        let over_j = lax::psum(&x, &["j"]);
        &over_i * 10.0 + &over_j
    })
    .axis_name("j");
    let outer = vmap(move |row: Tensor| inner.apply::<_, Tensor>(&row)).axis_name("i");
    let x = rows(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out: Array = outer.call(&x).unwrap();
    // Column sums 5, 7, 9 (over i) times 10, plus row sums 6 and 15 (over j).
    assert_eq!(out.to_f64_vec(), [56.0, 76.0, 96.0, 65.0, 85.0, 105.0]);
}

#[test]
fn per_member_gradients_sum_over_the_members() {
    // grad of sum(sin(psum(x))) on each member is the axis size times cos(psum(x)).
    let g = vmap(grad(|x: Tensor| lax::psum(&x, &["i"]).sin().sum_all())).axis_name("i");
    let x = rows(&[3, 2], vec![0.1, -0.4, 0.7, 0.2, -1.3, 0.5]);
    let out: Array = g.call(&x).unwrap();
    let s = [0.1 + 0.7 - 1.3, -0.4 + 0.2 + 0.5];
    for (k, v) in out.to_f64_vec().into_iter().enumerate() {
        let want = 3.0 * f64::cos(s[k % 2]);
        assert!((v - want).abs() < 1e-14, "{k}: {v} vs {want}");
    }
}

#[test]
fn a_collective_over_an_unbound_axis_names_the_axis_and_the_line() {
    let f = vmap(|x: Tensor| lax::psum(&x, &["k"])).axis_name("i");
    let e = f.call::<_, Tensor>(&Array::from(vec![1.0f64, 2.0])).unwrap_err().to_string();
    assert!(e.contains("axis `k`") && e.contains("collectives.rs"), "{e}");
    let e = ferrax::eval(|x: Tensor| lax::pmax(&x, &["i"]), &Array::from(vec![1.0f64])).unwrap_err().to_string();
    assert!(e.contains("no enclosing vmap binds the axis `i`"), "{e}");
}

/// Every collective at once, and a gradient through them.
fn mixed(x: Tensor) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor) {
    let k = lax::axis_index("i").astype(ferrax::DType::F64);
    let sum = lax::psum(&(&x * &k), &["i"]);
    let top = &lax::pmax(&x, &["i"]) - &lax::pmin(&x, &["i"]) + lax::pmean(&x, &["i"]);
    let gathered = lax::all_gather(&x, "i", 1, false);
    let scattered = lax::psum_scatter(&lax::all_gather(&x, "i", 0, true), "i", 0, true);
    let shifted = lax::ppermute(&x, "i", &[(0, 1), (1, 2)]);
    let swapped = lax::all_to_all(&lax::all_gather(&x, "i", 0, true), "i", 0, 1);
    (sum, top, gathered, scattered, shifted, swapped)
}

#[test]
fn pmap_on_threads_equals_vmap_with_the_axis_name_bit_for_bit() {
    for n in [3, 4] {
        pmap_equals_vmap(n);
    }
}

fn pmap_equals_vmap(n: usize) {
    let x = rows(&[n, 2, 2], (0..4 * n).map(|v| v as f64 * 0.37 - 1.1).collect());
    type Six = (Array, Array, Array, Array, Array, Array);
    let on_threads: Six = ferrax::pmap(mixed, "i").call(&x).unwrap();
    let by_vmap: Six = vmap(mixed).axis_name("i").call(&x).unwrap();
    let pairs = [
        (&on_threads.0, &by_vmap.0),
        (&on_threads.1, &by_vmap.1),
        (&on_threads.2, &by_vmap.2),
        (&on_threads.3, &by_vmap.3),
        (&on_threads.4, &by_vmap.4),
        (&on_threads.5, &by_vmap.5),
    ];
    for (k, (a, b)) in pairs.into_iter().enumerate() {
        assert_eq!(a.shape(), b.shape(), "result {k}");
        assert_eq!(a.to_f64_vec(), b.to_f64_vec(), "result {k}");
    }
    // Gradients through the collectives: the sum over the workers' objectives.
    let loss = |x: Tensor| {
        let (a, b, c, d, e, f) = mixed(x);
        a.sum_all() + b.sin().sum_all() + c.sum_all() * 0.5 + d.sum_all() + e.powi(2).sum_all() + f.sum_all()
    };
    let g_threads: Array = ferrax::pmap(grad(loss), "i").call(&x).unwrap();
    let g_vmap: Array = vmap(grad(loss)).axis_name("i").call(&x).unwrap();
    for (a, b) in g_threads.to_f64_vec().into_iter().zip(g_vmap.to_f64_vec()) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
    }
}

#[test]
fn workers_that_disagree_or_fail_end_every_call_with_an_error() {
    use ferrax::Communicator;
    use ferrax_dist::ThreadGroup;
    use std::time::Duration;
    let group = ThreadGroup::new(2, Duration::from_secs(20));
    let x = Array::from(vec![1.0f64, 2.0]);
    // Worker 1 reaches a different collective than worker 0.
    let results = group.run(|w| {
        let f = move |x: Tensor| if w.rank() == 0 { lax::psum(&x, &["i"]) } else { lax::pmax(&x, &["i"]) };
        ferrax::pmap(f, "i").call_on::<_, Tensor>(w, &x).map_err(|e| e.to_string())
    });
    let e = results[0].as_ref().unwrap_err();
    assert!(e.contains("worker 0 at psum") && e.contains("worker 1 at pmax"), "{e}");
    assert!(results[1].is_err());
    // Worker 1's operand has another shape: both workers' errors name both.
    let group = ThreadGroup::new(2, Duration::from_secs(20));
    let results = group.run(|w| {
        let mine = if w.rank() == 0 { x.clone() } else { Array::from(vec![1.0f64, 2.0, 3.0]) };
        ferrax::pmap(|x: Tensor| lax::psum(&x, &["i"]), "i").call_on::<_, Tensor>(w, &mine).map_err(|e| e.to_string())
    });
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert!(e.contains("f64[2]") && e.contains("f64[3]") && e.contains("worker 1"), "{e}");
    }
    // A worker that fails before its collective: the other returns instead of waiting.
    let group = ThreadGroup::new(2, Duration::from_secs(20));
    let results = group.run(|w| {
        if w.rank() == 1 {
            return Err("bad input".to_string());
        }
        ferrax::pmap(|x: Tensor| lax::psum(&x, &["i"]), "i").call_on::<_, Tensor>(w, &x).map_err(|e| e.to_string())
    });
    assert!(results[0].as_ref().unwrap_err().contains("worker 1 failed: bad input"), "{:?}", results[0]);
    // Without workers, a compiled collective names its unbound axis.
    let e = ferrax::jit(|x: Tensor| lax::psum(&x, &["i"])).call(&x).unwrap_err().to_string();
    assert!(e.contains("axis `i`"), "{e}");
}

/// Reductions and data movement in every dtype they take: the threads engine's bits are
/// the vmap form's (16-bit floats summed in f32 and rounded once, i32 wrapping).
#[test]
fn pmap_equals_vmap_in_f32_i32_and_16_bit_floats() {
    use ferrax::DType;
    let f = |x: Tensor| {
        let s = lax::psum(&x, &["i"]);
        let m = lax::pmax(&x, &["i"]);
        let g = lax::all_gather(&x, "i", 0, false);
        let sc = lax::psum_scatter(&lax::all_gather(&x, "i", 1, true), "i", 1, true);
        (s, m, g, sc)
    };
    for dtype in [DType::F32, DType::I32, DType::BF16, DType::F16] {
        for n in [1, 2, 4] {
            let values: Vec<f64> = (0..n * 6).map(|v| (v as f64 * 1.37 - 7.1) * 1.01f64.powi(v as i32)).collect();
            let x = ferrax::eval(|t: Tensor| t.astype(dtype), &rows(&[n, 2, 3], values)).unwrap();
            type Four = (Array, Array, Array, Array);
            let on_threads: Four = ferrax::pmap(f, "i").call(&x).unwrap();
            let by_vmap: Four = vmap(f).axis_name("i").call(&x).unwrap();
            let pairs = [
                (&on_threads.0, &by_vmap.0),
                (&on_threads.1, &by_vmap.1),
                (&on_threads.2, &by_vmap.2),
                (&on_threads.3, &by_vmap.3),
            ];
            for (k, (a, b)) in pairs.into_iter().enumerate() {
                assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()), "{dtype} n={n} result {k}");
                assert_eq!(a.to_f64_vec(), b.to_f64_vec(), "{dtype} n={n} result {k}");
            }
        }
    }
}
