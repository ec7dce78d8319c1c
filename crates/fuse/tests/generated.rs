//! Property test: on generated modules (and their `opt`), `fuse` keeps the kernel
//! contract and the interpreter's results, bit for bit; plus unit tests of the public
//! helpers.

use ferrax_fuse::{check_schedule, fuse, is_kernel_prim, kernel_count};
use ferrax_ir::array::{Array, Data};
use ferrax_ir::prim::{BinaryOp, Prim, ReduceOp};
use ferrax_ir::prim::{IndexOp, ReductionOp, ShapeOp};
use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{EvalOptions, Module, eval_entry, parse, print};

/// Outputs agree bit for bit, except that any two NaNs agree.
fn same_bits(got: &[Array], want: &[Array]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            g.shape() == w.shape()
                && match (g.data(), w.data()) {
                    (Data::F32(a), Data::F32(b)) => {
                        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
                    }
                    (Data::F64(a), Data::F64(b)) => {
                        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
                    }
                    (a, b) => a == b,
                }
        })
}

fn check(seed: u64, m: &Module, what: &str) -> bool {
    let fused = fuse(m).unwrap_or_else(|e| panic!("seed {seed} ({what}): fuse fails: {e}\n{}", print(m)));
    check_schedule(&fused).unwrap_or_else(|e| panic!("seed {seed} ({what}): contract broken: {e}\n{}", print(&fused)));
    let reparsed = parse(&print(&fused)).unwrap_or_else(|e| panic!("seed {seed} ({what}): no round trip: {e}"));
    ferrax_ir::verify(&reparsed).unwrap_or_else(|e| panic!("seed {seed} ({what}): reparsed fails to verify: {e}"));
    let entry = m.entry().expect("an entry");
    let mut rng = Rng::new(seed ^ 0xF05E);
    let args = random_inputs(entry, &mut rng, true);
    let options = EvalOptions { fuel: Some(100_000), ..EvalOptions::default() };
    let Ok(want) = eval_entry(m, &args, &options) else { return false };
    let got = eval_entry(&fused, &args, &options)
        .unwrap_or_else(|e| panic!("seed {seed} ({what}): the fused module fails: {e}\n{}", print(&fused)));
    assert!(
        same_bits(&got, &want),
        "seed {seed} ({what}): results differ\noriginal:\n{}\nfused:\n{}",
        print(m),
        print(&fused)
    );
    true
}

#[test]
fn fuse_preserves_results_on_generated_modules() {
    let config = GenConfig::from_env();
    let mut checked = 0;
    for seed in 0..400u64 {
        let m = random_module(seed, &config);
        if check(seed, &m, "as generated") {
            checked += 1;
        }
        if let Ok(optimised) = ferrax_transform::opt(&m) {
            check(seed, &optimised, "after opt");
        }
    }
    assert!(checked > 300, "only {checked} modules ran");
}

#[test]
fn kernel_prims_are_the_contract_set() {
    assert!(is_kernel_prim(&Prim::Binary(BinaryOp::Add)));
    assert!(is_kernel_prim(&Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Max, axes: vec![0] })));
    assert!(is_kernel_prim(&Prim::Shape(ShapeOp::Transpose { perm: vec![1, 0] })));
    assert!(!is_kernel_prim(&Prim::Index(IndexOp::DynamicUpdateSlice)));
    assert!(!is_kernel_prim(&Prim::call("k")));
    assert!(!is_kernel_prim(&Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse: false })));
}

#[test]
fn kernel_count_counts_entry_equations() {
    let m = parse(
        "func @f(%x: f32[4,4]) -> (f32[4,4]) {
  %d: f32[4,4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %x)
  %e: f32[4,4] = exp(%d)
  %y: f32[4,4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%e, %x)
  return %y
}
",
    )
    .expect("parses");
    let fused = fuse(&m).expect("fuses");
    assert_eq!(kernel_count(&fused), 3, "{}", print(&fused));
    assert_eq!(kernel_count(&Module::new()), 0);
}

#[test]
fn a_schedule_with_a_plain_equation_is_rejected() {
    let m = parse("func @f(%x: f32[4]) -> (f32[4]) {\n  %y: f32[4] = exp(%x)\n  return %y\n}\n").expect("parses");
    let err = check_schedule(&m).expect_err("exp is not a launch");
    assert!(err.to_string().contains("not a launch"), "{err}");
    let two = parse(
        "func @f(%x: f32[4]) -> (f32[], f32[]) {
  %a: f32[], %b: f32[] = call[func=@k](%x)
  return %a, %b
}

func @k[kind=\"fusion\"](%x: f32[4]) -> (f32[], f32[]) {
  %a: f32[] = reduce_sum[axes=[0]](%x)
  %b: f32[] = reduce_max[axes=[0]](%x)
  return %a, %b
}
",
    )
    .expect("parses");
    let err = check_schedule(&two).expect_err("two reductions");
    assert!(err.to_string().contains("second reduction"), "{err}");
}

/// A long chain of diamonds (each `exp` read twice at one index): every kernel stays
/// under the size caps, no `exp` is computed twice, and the values are unchanged.
#[test]
fn long_programs_split_under_the_caps() {
    let mut text = String::from("func @f(%x: f32[16]) -> (f32[16]) {\n");
    let mut prev = "%x".to_string();
    for i in 0..200 {
        text += &format!("  %e{i}: f32[16] = exp({prev})\n  %b{i}: f32[16] = add(%e{i}, {prev})\n");
        text += &format!("  %c{i}: f32[16] = mul(%e{i}, {prev})\n  %d{i}: f32[16] = sub(%b{i}, %c{i})\n");
        prev = format!("%d{i}");
    }
    text += &format!("  return {prev}\n}}\n");
    let m = parse(&text).expect("parses");
    let fused = fuse(&m).expect("fuses");
    check_schedule(&fused).expect("keeps the contract");
    let kernels: Vec<_> = fused.funcs.values().filter(|f| ferrax_fuse::is_kernel(f)).collect();
    assert!(kernels.len() >= 800 / ferrax_fuse::MAX_KERNEL_EQNS, "{} kernels", kernels.len());
    for k in &kernels {
        assert!(k.eqns.len() <= ferrax_fuse::MAX_KERNEL_EQNS, "@{} has {} equations", k.name, k.eqns.len());
        assert!(k.params.len() <= ferrax_fuse::MAX_KERNEL_PARAMS, "@{} has {} params", k.name, k.params.len());
    }
    let exps: usize = kernels.iter().map(|k| k.eqns.iter().filter(|e| e.prim.name() == "exp").count()).sum();
    assert_eq!(exps, 200, "an exp is duplicated");
    let args = [Array::from_f32(&[16], (0..16).map(|i| i as f32 / 16.0 - 0.5).collect()).expect("an array")];
    let want = eval_entry(&m, &args, &EvalOptions::default()).expect("runs");
    let got = eval_entry(&fused, &args, &EvalOptions::default()).expect("the fused module runs");
    assert!(same_bits(&got, &want));
}
