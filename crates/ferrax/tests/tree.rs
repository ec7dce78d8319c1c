//! Pytrees: nested structures flatten to their leaves in order and rebuild, user
//! structs derive `Tree`, and a parameter struct is traced, evaluated and updated as
//! one value.

use ferrax::{
    Array, DType, Tensor, Tree, Type, eval, trace, tree_leaves, tree_map, tree_structure, tree_unflatten, tree_zip_map,
};

#[derive(Tree, Clone, Debug, PartialEq)]
struct Layer<T> {
    w: T,
    b: T,
}

/// A 2-layer MLP: `y = w2·tanh(w1·x + b1) + b2`, with an optional output scale.
#[derive(Tree, Clone, Debug, PartialEq)]
struct Mlp<T> {
    layers: Vec<Layer<T>>,
    scale: Option<T>,
    #[tree(skip)]
    name: String,
}

/// Everything at once: a struct inside a tuple, an array of trees, an Option, a Box.
#[derive(Tree, Clone, Debug, PartialEq)]
struct Nested<T> {
    pair: (T, Layer<T>),
    grid: [Vec<T>; 2],
    maybe: Option<(T, T)>,
    boxed: Box<Layer<T>>,
    unit: ((), T),
}

/// A tuple struct with a const parameter and a lifetime.
#[derive(Tree, Clone, Debug, PartialEq)]
struct Stack<'a, P, const N: usize>([P; N], #[tree(skip)] &'a str);

/// A stand-in leaf type for the structural tests.
#[derive(Clone, Copy, Debug, PartialEq)]
struct N(i32);

impl Tree<N> for N {
    type With<M> = M;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a N)) {
        f(self)
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&N) -> M) -> M {
        f(self)
    }

    fn write_structure(&self, out: &mut String) {
        out.push('*');
    }
}

fn nested() -> Nested<N> {
    Nested {
        pair: (N(1), Layer { w: N(2), b: N(3) }),
        grid: [vec![N(4), N(5)], vec![]],
        maybe: Some((N(6), N(7))),
        boxed: Box::new(Layer { w: N(8), b: N(9) }),
        unit: ((), N(10)),
    }
}

fn ns(range: std::ops::RangeInclusive<i32>) -> Vec<N> {
    range.map(N).collect()
}

#[test]
fn nested_structures_flatten_in_order_and_rebuild() {
    let tree = nested();
    let leaves: Vec<N> = tree_leaves(&tree).into_iter().copied().collect();
    assert_eq!(leaves, ns(1..=10));
    assert_eq!(tree.leaf_count(), 10);
    assert_eq!(
        tree_structure(&tree),
        "Nested { pair: (*, Layer { w: *, b: * }), grid: [[*, *], []], maybe: Some((*, *)), \
         boxed: Layer { w: *, b: * }, unit: ((), *) }"
    );

    let strings: Nested<String> = tree_map(&tree, |x: &N| format!("#{}", x.0));
    assert_eq!(strings.boxed.b, "#9");
    assert_eq!(strings.grid[0], ["#4", "#5"]);

    let rebuilt = tree_unflatten(&tree, (11..=20).collect()).unwrap();
    assert_eq!(rebuilt.pair.1, Layer { w: 12, b: 13 });
    assert_eq!(rebuilt.maybe, Some((16, 17)));
    assert_eq!(rebuilt.unit, ((), 20));
    let round_trip = tree_unflatten(&tree, leaves).unwrap();
    assert_eq!(round_trip, tree);
    assert!(tree_unflatten(&tree, vec![0; 9]).is_none());
    assert!(tree_unflatten(&tree, vec![0; 11]).is_none());

    // `None` holds no leaves, and only `Some` is described as such.
    let fewer = Nested { maybe: None, ..nested() };
    assert_eq!(fewer.leaf_count(), 8);
    assert!(tree_structure(&fewer).contains("maybe: None,"));

    let stack = Stack([Layer { w: N(1), b: N(2) }, Layer { w: N(3), b: N(4) }, Layer { w: N(5), b: N(6) }], "three");
    assert_eq!(tree_structure(&stack), "Stack([Layer { w: *, b: * }, Layer { w: *, b: * }, Layer { w: *, b: * }])");
    let doubled: Stack<Layer<i32>, 3> = tree_map(&stack, |x: &N| x.0 * 2);
    assert_eq!((doubled.0[2].b, doubled.1), (12, "three"));
}

#[test]
fn builtin_containers_describe_their_structure() {
    let x = Array::scalar(1.0f32);
    assert_eq!(tree_structure(&x), "*");
    assert_eq!(tree_structure(&(x.clone(),)), "(*,)");
    assert_eq!(tree_structure(&[x.clone(), x.clone()]), "[*, *]");
    assert_eq!(tree_structure(&vec![(x.clone(), None::<Array>)]), "[(*, None)]");
    assert_eq!(tree_structure(&(x.clone(), Some(x.clone()), ())), "(*, Some(*), ())");
    assert_eq!(tree_structure(&[Vec::<Array>::new()][..]), "[[]]");
}

fn f32_type(shape: &[usize]) -> Type {
    Type::new(DType::F32, shape)
}

fn mlp_types() -> Mlp<Type> {
    Mlp {
        layers: vec![
            Layer { w: f32_type(&[4, 3]), b: f32_type(&[4]) },
            Layer { w: f32_type(&[2, 4]), b: f32_type(&[2]) },
        ],
        scale: Some(f32_type(&[])),
        name: "mlp".into(),
    }
}

fn mlp_values() -> Mlp<Array> {
    let values = |shape: &[usize], offset: f32| {
        let n: usize = shape.iter().product();
        Array::from_vec(shape, (0..n).map(|i| (i as f32 * 0.37 + offset).sin()).collect()).unwrap()
    };
    Mlp {
        layers: vec![
            Layer { w: values(&[4, 3], 0.0), b: values(&[4], 1.0) },
            Layer { w: values(&[2, 4], 2.0), b: values(&[2], 3.0) },
        ],
        scale: Some(Array::scalar(0.5f32)),
        name: "mlp".into(),
    }
}

/// The model, traced: each layer a matrix-vector product written as broadcast,
/// multiply and sum over the input axis.
fn forward(p: &Mlp<Tensor>, x: &Tensor) -> Tensor {
    let mut h = x.clone();
    for (i, layer) in p.layers.iter().enumerate() {
        let y = (&layer.w * &h).sum([1]) + &layer.b;
        h = if i + 1 < p.layers.len() { y.tanh() } else { y };
    }
    match &p.scale {
        Some(s) => h * s,
        None => h,
    }
}

/// The same model on the host, for reference.
fn forward_host(p: &Mlp<Array>, x: &[f32]) -> Vec<f32> {
    let mut h = x.to_vec();
    for (i, layer) in p.layers.iter().enumerate() {
        let (w, b) = (layer.w.as_f32().unwrap(), layer.b.as_f32().unwrap());
        let y: Vec<f32> =
            (0..b.len()).map(|r| (0..h.len()).map(|c| w[r * h.len() + c] * h[c]).sum::<f32>() + b[r]).collect();
        h = if i + 1 < p.layers.len() { y.iter().map(|v| v.tanh()).collect() } else { y };
    }
    let s = p.scale.as_ref().map_or(1.0, |s| s.as_f32().unwrap()[0]);
    h.iter().map(|v| v * s).collect()
}

#[test]
fn a_derived_parameter_struct_traces_as_its_leaves() {
    let spec = (mlp_types(), f32_type(&[3]));
    let module = trace(|(p, x): (Mlp<Tensor>, Tensor)| forward(&p, &x), &spec).unwrap();
    let entry = module.entry().unwrap();
    // The IR sees the flat list: w1, b1, w2, b2, scale, then x.
    let params: Vec<Type> = entry.params.iter().map(|&v| entry.ty(v).clone()).collect();
    let expected: Vec<Type> = tree_leaves(&spec).into_iter().cloned().collect();
    assert_eq!(params, expected);
    assert_eq!(entry.result_types, [f32_type(&[2])]);
    assert!(ferrax::ir::print(&module).contains("tanh"));
}

#[test]
fn a_derived_parameter_struct_evaluates() {
    let p = mlp_values();
    let x = [0.25f32, -1.0, 2.0];
    let out =
        eval(|(p, x): (Mlp<Tensor>, Tensor)| forward(&p, &x), &(p.clone(), Array::from_vec(&[3], x.to_vec()).unwrap()))
            .unwrap();
    let expected = Array::from_vec(&[2], forward_host(&p, &x)).unwrap();
    out.assert_close(&expected, 1e-5, 1e-6).unwrap();

    // Without the scale, the structure (and the traced signature) has one leaf fewer.
    let unscaled = Mlp { scale: None, ..p };
    let out = eval(
        |(p, x): (Mlp<Tensor>, Tensor)| forward(&p, &x),
        &(unscaled.clone(), Array::from_vec(&[3], x.to_vec()).unwrap()),
    )
    .unwrap();
    let expected = Array::from_vec(&[2], forward_host(&unscaled, &x)).unwrap();
    out.assert_close(&expected, 1e-5, 1e-6).unwrap();
}

#[test]
fn a_parameter_struct_is_a_traced_result_too() {
    // An SGD step inside the trace: parameters and "gradients" in, parameters out.
    let p = mlp_values();
    let g = tree_map(&p, |a: &Array| Array::ones(a.dtype(), a.shape()).unwrap());
    let stepped: Mlp<Array> =
        eval(|(p, g): (Mlp<Tensor>, Mlp<Tensor>)| tree_zip_map(&p, &g, |p, g| p - g * 0.1).unwrap(), &(p.clone(), g))
            .unwrap();
    assert_eq!(stepped.name, "mlp", "skipped fields keep the traced function's value");
    for (new, old) in tree_leaves(&stepped).into_iter().zip(tree_leaves(&p)) {
        let expected: Vec<f32> = old.as_f32().unwrap().iter().map(|v| v - 0.1).collect();
        new.assert_close(&Array::from_vec(old.shape(), expected).unwrap(), 1e-6, 1e-7).unwrap();
    }
}

#[test]
fn zip_map_pairs_leaves_and_checks_structure() {
    let specs = mlp_types();
    let values = mlp_values();
    // Different leaf types on the two sides: check that values fit their specs.
    let fits =
        tree_zip_map(&specs, &values, |t: &Type, a: &Array| t.dtype == a.dtype() && t.shape.as_slice() == a.shape());
    let fits = fits.unwrap();
    assert!(fits.layers.iter().all(|layer| layer.w && layer.b) && fits.scale == Some(true));

    let shorter = Mlp { layers: values.layers[..1].to_vec(), ..values.clone() };
    let err = tree_zip_map(&values, &shorter, |a: &Array, _: &Array| a.clone()).unwrap_err();
    assert_eq!(err.left, "Mlp { layers: [Layer { w: *, b: * }, Layer { w: *, b: * }], scale: Some(*) }");
    assert_eq!(err.right, "Mlp { layers: [Layer { w: *, b: * }], scale: Some(*) }");
    assert!(err.to_string().starts_with("the trees differ in structure: Mlp { layers: "), "{err}");
    let as_api_error: ferrax::Error = err.into();
    assert!(matches!(as_api_error, ferrax::Error::Arguments(_)));

    // Same leaf count, different places: still a mismatch.
    let a = vec![ns(1..=2), ns(3..=3)];
    let b = vec![ns(1..=1), ns(2..=3)];
    assert!(tree_zip_map(&a, &b, |x: &N, y: &N| x.0 + y.0).is_err());
    assert_eq!(tree_zip_map(&a, &a, |x: &N, y: &N| x.0 + y.0).unwrap(), [vec![2, 4], vec![6]]);
    let none: Option<Layer<N>> = None;
    assert!(tree_zip_map(&none, &Some(Layer { w: N(1), b: N(2) }), |x: &N, _: &N| *x).is_err());
}
