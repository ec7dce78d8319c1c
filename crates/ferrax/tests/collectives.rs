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
