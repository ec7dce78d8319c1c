//! Trace a small model and print its IR.
//!
//! A two-layer MLP whose parameters are one struct, initialised from the PRNG; the
//! loss is traced into IR (printed with the source line of every equation), then
//! evaluated with the reference interpreter on a random batch.
//!
//!     cargo run --example trace_model

use ferrax::{Array, DType, Tensor, Tree, Type, nn, random, tree_map};

/// One dense layer, generic over its leaves: `Layer<Type>` describes it, `Layer<Tensor>`
/// is traced, `Layer<Array>` holds the values.
#[derive(Tree, Clone, Debug)]
struct Layer<T> {
    w: T,
    b: T,
}

#[derive(Tree, Clone, Debug)]
struct Mlp<T> {
    hidden: Layer<T>,
    out: Layer<T>,
}

fn dense(key: &Array, fan_in: usize, fan_out: usize) -> Result<Layer<Array>, ferrax::Error> {
    let scale = 1.0 / (fan_in as f32).sqrt();
    let w = ferrax::eval(|k: Tensor| random::normal(&k, &[fan_in, fan_out], DType::F32) * scale, key)?;
    let b = Array::from_f32(&[fan_out], vec![0.0; fan_out])?;
    Ok(Layer { w, b })
}

fn loss(p: Mlp<Tensor>, x: Tensor, labels: Tensor) -> Tensor {
    let h = (x.matmul(&p.hidden.w) + &p.hidden.b).tanh();
    let logits = h.matmul(&p.out.w) + &p.out.b;
    nn::cross_entropy(&logits, &nn::one_hot(&labels, 3, DType::F32))
}

fn main() -> Result<(), ferrax::Error> {
    let [k1, k2, k3] = random::split_into::<_, 3>(&random::key(42))?;
    let params = Mlp { hidden: dense(&k1, 4, 8)?, out: dense(&k2, 8, 3)? };

    let spec = (
        tree_map(&params, |a: &Array| Type::new(a.dtype(), a.shape())),
        Type::new(DType::F32, &[5, 4]),
        Type::new(DType::I32, &[5]),
    );
    println!("{}", ferrax::make_ir(|(p, x, y)| loss(p, x, y), &spec)?);

    let x = ferrax::eval(|k: Tensor| random::normal(&k, &[5, 4], DType::F32), &k3)?;
    let labels = Array::from_i32(&[5], vec![0, 1, 2, 1, 0])?;
    let value = ferrax::eval(|(p, x, y)| loss(p, x, y), &(params, x, labels))?;
    println!("loss on a random batch: {}", value.describe(None));
    Ok(())
}
