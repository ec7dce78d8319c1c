//! The MLP of the textbook: 784-512-512-10, tanh, softmax cross-entropy, parameters in
//! one struct initialised from the PRNG; traced, printed, round-tripped and evaluated.

use ferrax::{Array, DType, Tensor, Tree, Type, nn, random, tree_map};

#[derive(Tree, Clone, Debug, PartialEq)]
struct Layer<T> {
    w: T,
    b: T,
}

#[derive(Tree, Clone, Debug, PartialEq)]
struct Mlp<T> {
    layers: Vec<Layer<T>>,
}

/// Weights ~ N(0, 1/fan_in), biases zero.
fn init(seed: u64, sizes: &[usize]) -> Mlp<Array> {
    let keys = random::split(&random::key(seed), sizes.len() - 1).unwrap();
    let layers = sizes
        .windows(2)
        .zip(&keys)
        .map(|(pair, key)| {
            let (fan_in, fan_out) = (pair[0], pair[1]);
            let scale = 1.0 / (fan_in as f32).sqrt();
            let w = ferrax::eval(|k: Tensor| random::normal(&k, &[fan_in, fan_out], DType::F32) * scale, key).unwrap();
            Layer { w, b: Array::from_f32(&[fan_out], vec![0.0; fan_out]).unwrap() }
        })
        .collect();
    Mlp { layers }
}

fn loss(params: Mlp<Tensor>, x: Tensor, labels: Tensor) -> Tensor {
    let n = params.layers.len();
    let mut h = x;
    for (i, layer) in params.layers.iter().enumerate() {
        h = h.matmul(&layer.w) + &layer.b;
        if i + 1 < n {
            h = h.tanh();
        }
    }
    nn::cross_entropy(&h, &nn::one_hot(&labels, 10, DType::F32))
}

#[test]
fn mlp_traces_round_trips_and_evaluates() {
    let params = init(0, &[784, 512, 512, 10]);
    let spec = (
        tree_map(&params, |a: &Array| Type::new(a.dtype(), a.shape())),
        Type::new(DType::F32, &[128, 784]),
        Type::new(DType::I32, &[128]),
    );
    let module = ferrax::trace(|(p, x, y)| loss(p, x, y), &spec).unwrap();
    let text = ferrax::ir::print(&module);
    insta::assert_snapshot!("mlp_784_512_512_10", text);

    let x = ferrax::eval(|k: Tensor| random::uniform(&k, &[128, 784], DType::F32, 0.0, 1.0), &random::key(1)).unwrap();
    let labels = Array::from_i32(&[128], (0..128).map(|i| i % 10).collect()).unwrap();
    let args = (params.clone(), x.clone(), labels.clone());
    let value = ferrax::eval(|(p, x, y)| loss(p, x, y), &args).unwrap();
    let value = value.as_f32().unwrap()[0];
    // Random initial logits: the loss is near ln(10) = 2.30.
    assert!((1.5..3.5).contains(&value), "loss {value}");

    // Printing, parsing and evaluating again gives the same value.
    let reparsed = ferrax::ir::parse(&text).unwrap();
    ferrax::ir::verify(&reparsed).unwrap();
    let mut inputs: Vec<Array> = ferrax::tree_leaves(&params).into_iter().cloned().collect();
    inputs.extend([x, labels]);
    let again = ferrax::ir::eval_entry(&reparsed, &inputs, &Default::default()).unwrap();
    assert_eq!(again[0].as_f32().unwrap()[0], value);
}
