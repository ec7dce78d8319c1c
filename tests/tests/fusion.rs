//! Launch counts of two whole programs after `opt` and `fuse`: the MLP training step
//! (784-512-512-10, tanh, softmax cross-entropy, batch 128, f32; `value_and_grad` with
//! respect to W1, b1, W2, b2, W3, b3) and the Hessian-vector product of the Rosenbrock
//! function (f64). Each fused module must keep the kernel contract and give the same
//! values as the unfused one on the interpreter. The counts are pinned exactly, so a
//! fusion rule that stops applying (or a new one) shows here and the README's figures
//! get updated with it.

use ferrax::{DType, Tensor, Type, nn, s};
use ferrax_ir::array::{Array, Data};
use ferrax_ir::{EvalOptions, Module, eval_entry};
use ferrax_transform::{Wrt, hvp, opt, value_and_grad};

/// `opt` then `fuse`, checked against the contract; prints the launches.
fn fused(module: &Module, what: &str) -> Module {
    let optimised = opt(module).expect("opt");
    let fused = ferrax_fuse::fuse(&optimised).expect("fuse");
    ferrax_fuse::check_schedule(&fused).expect("the fused module keeps the contract");
    let entry = fused.entry().expect("an entry");
    println!(
        "{what}: {} equations after opt, {} launches",
        optimised.entry().map_or(0, |f| f.eqns.len()),
        entry.eqns.len()
    );
    println!("{}", ferrax_ir::print(&fused));
    fused
}

/// Deterministic arguments of the entry's parameter types, small enough to stay finite.
fn arguments(module: &Module) -> Vec<Array> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as f64 / (1u64 << 31) as f64) - 0.5
    };
    let entry = module.entry().expect("an entry");
    entry
        .param_types()
        .iter()
        .map(|t| {
            let n: usize = t.shape.iter().product();
            let data = match t.dtype {
                DType::F32 => Data::F32((0..n).map(|_| (next() * 0.1) as f32).collect()),
                DType::F64 => Data::F64((0..n).map(|_| next() * 2.0).collect()),
                DType::I32 => Data::I32((0..n).map(|k| (k % 10) as i32).collect()),
                DType::Bool => Data::Bool((0..n).map(|k| k % 2 == 0).collect()),
                DType::BF16 | DType::F16 => Data::from_f64s(t.dtype, &(0..n).map(|_| next() * 0.1).collect::<Vec<_>>()),
            };
            Array::new(t.shape.clone(), data).expect("an argument")
        })
        .collect()
}

/// Same values, bit for bit.
fn assert_same(a: &Module, b: &Module) {
    let args = arguments(a);
    let want = eval_entry(a, &args, &EvalOptions::default()).expect("the original runs");
    let got = eval_entry(b, &args, &EvalOptions::default()).expect("the fused module runs");
    assert_eq!(want.len(), got.len());
    for (w, g) in want.iter().zip(&got) {
        let same = match (w.data(), g.data()) {
            (Data::F32(x), Data::F32(y)) => x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits()),
            (Data::F64(x), Data::F64(y)) => x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits()),
            (x, y) => x == y,
        };
        assert!(same && w.shape() == g.shape(), "a result differs after fuse");
    }
}

fn mlp_loss(p: Vec<Tensor>) -> Tensor {
    let [w1, b1, w2, b2, w3, b3, x, labels] = <[Tensor; 8]>::try_from(p).expect("8 leaves");
    let h1 = (x.matmul(&w1) + &b1).tanh();
    let h2 = (h1.matmul(&w2) + &b2).tanh();
    let logits = h2.matmul(&w3) + &b3;
    nn::cross_entropy(&logits, &nn::one_hot(&labels, 10, DType::F32))
}

/// The README's figure: 18 launches, 8 of them GEMMs.
#[test]
fn mlp_training_step_fuses_into_18_launches() {
    let f32 = |shape: &[usize]| Type::new(DType::F32, shape);
    let spec = [
        f32(&[784, 512]),
        f32(&[512]),
        f32(&[512, 512]),
        f32(&[512]),
        f32(&[512, 10]),
        f32(&[10]),
        f32(&[128, 784]),
        Type::new(DType::I32, &[128]),
    ];
    let loss = ferrax::trace(mlp_loss, &spec[..]).expect("the loss traces");
    let step = value_and_grad(&loss, &Wrt::Params((0..6).collect()), false).expect("value_and_grad");
    let fused = fused(&step, "MLP value_and_grad");
    let launches = ferrax_fuse::kernel_count(&fused);
    assert_eq!(launches, 18, "launches:\n{}", ferrax_ir::print(&fused));
    let gemms = fused.entry().expect("an entry").eqns.iter().filter(|e| e.prim.name() == "dot_general").count();
    assert_eq!(gemms, 8, "GEMM launches:\n{}", ferrax_ir::print(&fused));
    assert_same(&step, &fused);
}

fn rosenbrock(x: Tensor) -> Tensor {
    let head = x.slice(&[s(..-1)]);
    let tail = x.slice(&[s(1..)]);
    let diff: Tensor = tail - head.powi(2);
    let a: Tensor = diff.powi(2) * 100.0;
    let one_minus: Tensor = -head + 1.0;
    let b: Tensor = one_minus.powi(2);
    let total: Tensor = a + b;
    total.sum_all()
}

/// One launch: the gradient and the product are elementwise over the same 1000-element
/// loop (slices and pads are views), so their kernels merge. The README's "2" was
/// measured before consecutive elementwise kernels of one loop shape merged.
#[test]
fn rosenbrock_hvp_fuses_into_one_launch() {
    let f = ferrax::trace(rosenbrock, &Type::new(DType::F64, &[1000])).expect("rosenbrock traces");
    let h = hvp(&f, &Wrt::Default).expect("hvp");
    let fused = fused(&h, "Rosenbrock hvp");
    let launches = ferrax_fuse::kernel_count(&fused);
    assert_eq!(launches, 1, "launches:\n{}", ferrax_ir::print(&fused));
    assert_same(&h, &fused);
}

/// Causal attention's value and gradient: the mask `le(iota, iota)`, read by the
/// forward max, the forward exp and the backward kernels, is recomputed in each kernel
/// (an index constant) instead of being written out as a bool buffer that every reader
/// would load bytewise: no kernel takes or returns a bool.
#[test]
fn a_causal_mask_is_recomputed_in_every_kernel() {
    let loss = |p: Vec<Tensor>| {
        let mask = nn::causal_mask(8);
        (nn::dot_product_attention(&p[0], &p[1], &p[2], Some(&mask)) * &p[0]).sum_all()
    };
    let t = Type::new(DType::F32, &[2, 8, 3, 4]);
    let f = ferrax::trace(|p: Vec<Tensor>| loss(p), &vec![t.clone(), t.clone(), t]).expect("attention traces");
    let g = value_and_grad(&f, &Wrt::Params(vec![0, 1, 2]), false).expect("value_and_grad");
    let fused = fused(&g, "causal attention value_and_grad");
    let kernels: Vec<_> = fused.funcs.values().filter(|f| f.attr("kind").is_some()).collect();
    assert!(!kernels.is_empty());
    for k in kernels {
        let results = k.results.iter().map(|&r| k.ty(r));
        let bools = k.param_types().iter().chain(results).any(|t| t.dtype == DType::Bool);
        assert!(!bools, "a bool crosses a kernel boundary:\n{}", ferrax_ir::print(&fused));
    }
    assert_same(&g, &fused);
}
