//! The optimiser: unit tests of each pass, the grad(grad(x sin x)) target, and a
//! property test that `opt` preserves results on generated modules.

use ferrax_ir::array::{Array, Data};
use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{EvalOptions, Module, eval_entry, parse, print};
use ferrax_transform::{Wrt, cse, dce, fold, grad, opt, simplify};

fn module(text: &str) -> Module {
    let m = parse(text).expect("the test module parses");
    ferrax_ir::verify(&m).expect("the test module verifies");
    m
}

fn eqn_count(m: &Module) -> usize {
    m.entry().map_or(0, |f| f.eqns.len())
}

#[test]
fn grad_grad_x_sin_x_is_small_after_opt() {
    let f =
        module("func @f(%x: f64[]) -> (f64[]) {\n  %s: f64[] = sin(%x)\n  %y: f64[] = mul(%x, %s)\n  return %y\n}\n");
    let gg = grad(&grad(&f, &Wrt::Default, false).unwrap(), &Wrt::Default, false).unwrap();
    let optimised = opt(&gg).unwrap();
    println!("before: {} after dce: {}\n{}", eqn_count(&gg), eqn_count(&dce(&gg)), print(&optimised));
    assert!(eqn_count(&optimised) <= 10, "{}", print(&optimised));
    for x in [0.0, 0.5, -1.25, 3.0] {
        let args = [Array::scalar_f64(x)];
        let want = eval_entry(&gg, &args, &EvalOptions::default()).unwrap();
        let got = eval_entry(&optimised, &args, &EvalOptions::default()).unwrap();
        assert!(same_bits(&got, &want));
    }
}

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

#[test]
fn opt_preserves_results_on_generated_modules() {
    let config = GenConfig::from_env();
    let mut checked = 0;
    for seed in 0..400u64 {
        let m = random_module(seed, &config);
        let optimised = opt(&m).unwrap_or_else(|e| panic!("seed {seed}: opt fails: {e}\n{}", print(&m)));
        let entry = m.entry().unwrap();
        let mut rng = Rng::new(seed ^ 0x5EED);
        let args = random_inputs(entry, &mut rng, true);
        let options = EvalOptions { fuel: Some(100_000), ..EvalOptions::default() };
        let (Ok(want), got) = (eval_entry(&m, &args, &options), eval_entry(&optimised, &args, &options)) else {
            continue;
        };
        let got = got.unwrap_or_else(|e| panic!("seed {seed}: the optimised module fails: {e}"));
        assert!(
            same_bits(&got, &want),
            "seed {seed}: results differ\noriginal:\n{}\noptimised:\n{}\n{got:?}\n{want:?}",
            print(&m),
            print(&optimised)
        );
        checked += 1;
    }
    assert!(checked > 300, "only {checked} modules ran");
}

/// The entry's equations, printed, one per line (canonical value numbers).
fn body(m: &Module) -> Vec<String> {
    print(m).lines().filter(|l| l.starts_with("  %")).map(|l| l.trim().to_string()).collect()
}

#[test]
fn cse_merges_equal_equations_and_constants_by_bits() {
    let m = module(
        "func @f(%x: f32[2]) -> (f32[2], f32[2], f32[2]) {
  %a: f32[2] = exp(%x)
  %b: f32[2] = exp(%x)
  %c: f32[2] = constant[value=0.0]()
  %d: f32[2] = constant[value=0.0]()
  %e: f32[2] = constant[value=-0.0]()
  %p: f32[2] = add(%a, %c)
  %q: f32[2] = add(%b, %d)
  %r: f32[2] = add(%b, %e)
  return %p, %q, %r
}
",
    );
    let merged = dce(&cse(&m));
    assert_eq!(
        body(&merged),
        [
            "%1: f32[2] = exp(%0)",
            "%2: f32[2] = constant[value=0.0]()",
            "%3: f32[2] = constant[value=-0.0]()",
            "%4: f32[2] = add(%1, %2)",
            "%5: f32[2] = add(%1, %3)",
        ]
    );
    let results = &merged.entry().unwrap().results;
    assert_eq!(results[0], results[1]);
}

#[test]
fn cse_does_not_merge_different_attributes() {
    let m = module(
        "func @f(%x: f32[2,3]) -> (f32[2], f32[3]) {
  %a: f32[2] = reduce_sum[axes=[1]](%x)
  %b: f32[3] = reduce_sum[axes=[0]](%x)
  return %a, %b
}
",
    );
    assert_eq!(body(&cse(&m)).len(), 2);
}

#[test]
fn fold_evaluates_small_constant_equations_and_keeps_splats() {
    let m = module(
        "func @f(%x: f64[2]) -> (f64[2], f64[2]) {
  %c: f64[2] = constant[value=[0.0, 1.0]]()
  %s: f64[2] = cos(%c)
  %k: f64[2] = constant[value=0.0]()
  %t: f64[2] = cos(%k)
  %y: f64[2] = mul(%x, %s)
  return %y, %t
}
",
    );
    let folded = dce(&fold(&m).unwrap());
    let lines = body(&folded);
    assert!(lines.contains(&format!("%1: f64[2] = constant[value=[1.0,{}]]()", 1.0f64.cos())), "{lines:?}");
    assert!(lines.contains(&"%2: f64[2] = constant[value=1.0]()".to_string()), "{lines:?}");
}

#[test]
fn simplify_leaves_inexact_rewrites_alone() {
    let m = module(
        "func @f(%x: f32[2]) -> (f32[2], f32[2], f32[2]) {
  %z: f32[2] = constant[value=0.0]()
  %a: f32[2] = mul(%x, %z)
  %b: f32[2] = add(%x, %z)
  %w: f64[2] = convert[dtype=f64](%x)
  %n: f32[2] = convert[dtype=f32](%w)
  %c: f32[2] = sub(%n, %z)
  return %a, %b, %c
}
",
    );
    let simplified = dce(&simplify(&m));
    let lines = body(&simplified);
    assert_eq!(lines, ["%1: f32[2] = constant[value=0.0]()", "%2: f32[2] = mul(%0, %1)", "%3: f32[2] = add(%0, %1)"]);
    let f = simplified.entry().unwrap();
    assert_eq!(f.results[2], f.params[0]);
}

#[test]
fn simplify_folds_negations_into_add_and_sub_exactly() {
    let text = |t: &str| {
        format!(
            "func @f(%x: {t}[8], %y: {t}[8]) -> ({t}[8], {t}[8], {t}[8], {t}[8]) {{
  %ny: {t}[8] = neg(%y)
  %nx: {t}[8] = neg(%x)
  %a: {t}[8] = add(%x, %ny)
  %b: {t}[8] = add(%nx, %y)
  %c: {t}[8] = sub(%x, %ny)
  %d: {t}[8] = sub(%nx, %y)
  return %a, %b, %c, %d
}}
"
        )
    };
    let m = module(&text("f64"));
    let simplified = dce(&simplify(&m));
    // `neg(x) - y` is not rewritten (x = +0, y = -0 tells it from `neg(x + y)`).
    assert_eq!(
        body(&simplified),
        [
            "%2: f64[8] = neg(%0)",
            "%3: f64[8] = sub(%0, %1)",
            "%4: f64[8] = sub(%1, %0)",
            "%5: f64[8] = add(%0, %1)",
            "%6: f64[8] = sub(%2, %1)"
        ]
    );
    // Bit for bit on signed zeros, infinities, NaN and subnormals (f64, f32, i32).
    let special = [0.0, -0.0, 1.5, -2.25, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324];
    let xs: Vec<f64> = (0..64).map(|i| special[i % 8]).collect();
    let ys: Vec<f64> = (0..64).map(|i| special[i / 8]).collect();
    for k in 0..8 {
        let (x, y) = (&xs[8 * k..8 * k + 8], &ys[8 * k..8 * k + 8]);
        let args = [Array::from_f64(&[8], x.to_vec()).unwrap(), Array::from_f64(&[8], y.to_vec()).unwrap()];
        let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
        let got = eval_entry(&simplified, &args, &EvalOptions::default()).unwrap();
        assert!(same_bits(&got, &want), "{x:?} {y:?}");
        let m32 = module(&text("f32"));
        let f32s = |v: &[f64]| Array::from_f32(&[8], v.iter().map(|&a| a as f32).collect()).unwrap();
        let args32 = [f32s(x), f32s(y)];
        let want = eval_entry(&m32, &args32, &EvalOptions::default()).unwrap();
        let got = eval_entry(&dce(&simplify(&m32)), &args32, &EvalOptions::default()).unwrap();
        assert!(same_bits(&got, &want), "f32 {x:?} {y:?}");
    }
    let m = module(&text("i32"));
    let v = |s: i32| Array::from_i32(&[8], vec![0, 1, -1, i32::MIN, i32::MAX, 7, s.wrapping_neg(), s]).unwrap();
    let args = [v(3), v(i32::MIN)];
    let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
    assert_eq!(eval_entry(&dce(&simplify(&m)), &args, &EvalOptions::default()).unwrap(), want);
}

#[test]
fn opt_is_idempotent_and_keeps_bodies() {
    let m = module(
        "func @f(%c: f32[], %xs: f32[3]) -> (f32[], f32[3]) {
  %one: f32[] = constant[value=1.0]()
  %d: f32[] = mul(%c, %one)
  %s: f32[], %ys: f32[3] = scan[body=@acc, length=3, num_carry=1](%d, %xs)
  return %s, %ys
}
func @acc(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %n: f32[] = neg(%x)
  %m: f32[] = neg(%n)
  %s: f32[] = add(%c, %m)
  return %s, %s
}
",
    );
    let once = opt(&m).unwrap();
    assert_eq!(print(&opt(&once).unwrap()), print(&once));
    let acc = once.func("acc").expect("the scan body stays");
    assert_eq!(acc.eqns.len(), 1, "{}", print(&once));
    assert_eq!(eqn_count(&once), 1);
}

/// `reduce(broadcast_in_dim(y))` over axes the broadcast kept becomes the reduction of
/// `y` broadcast, bit for bit (sums of 37 terms in the interpreter's pairwise order,
/// max and product, over one and two axes); a reduction over an expanded axis stays.
#[test]
fn simplify_reduces_before_broadcasting_exactly() {
    let m = module(
        "func @f(%y: f32[3,37,1]) -> (f32[3,5], f32[5], f32[3,5], f32[37,5], f32[3,37]) {
  %b: f32[3,37,5] = broadcast_in_dim[shape=[3,37,5], dims=[0,1,2]](%y)
  %s: f32[3,5] = reduce_sum[axes=[1]](%b)
  %t: f32[5] = reduce_sum[axes=[0,1]](%b)
  %m: f32[3,5] = reduce_max[axes=[1]](%b)
  %p: f32[37,5] = reduce_prod[axes=[0]](%b)
  %e: f32[3,37] = reduce_sum[axes=[2]](%b)
  return %s, %t, %m, %p, %e
}
",
    );
    let simplified = dce(&simplify(&m));
    let reductions: Vec<String> = body(&simplified).into_iter().filter(|l| l.contains("reduce_")).collect();
    println!("{}", print(&simplified));
    // Four reductions read `y` itself; the sum over the expanded axis 2 reads the broadcast.
    assert_eq!(reductions.iter().filter(|l| l.ends_with("(%0)")).count(), 4, "{reductions:?}");
    assert_eq!(reductions.iter().filter(|l| l.contains("f32[3,37] = reduce_sum[axes=[2]]")).count(), 1);
    let special = [0.1, -0.0, 1.5e30, -2.25, 3.3e-39, 7.0, -1.0e-3, 0.3];
    let y: Vec<f32> = (0..111).map(|i| special[i % 8] * (1.0 + i as f32 / 7.0)).collect();
    let args = [Array::from_f32(&[3, 37, 1], y).unwrap()];
    let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
    let got = eval_entry(&simplified, &args, &EvalOptions::default()).unwrap();
    assert!(same_bits(&got, &want));
}

/// `c1 * (c2 * x)` becomes one product where that is exact (`c2` a power of two at
/// least 1, `|c1| >= 1`): the same bits for overflow, subnormals, zeros, infinities and
/// NaN, in f32 and f64; a halving inside, a non-power of two inside, or `|c1| < 1`
/// outside stay two products.
#[test]
fn simplify_folds_exact_scalings_only() {
    for ty in ["f32", "f64"] {
        let m = module(&format!(
            "func @f(%x: {ty}[12]) -> ({ty}[12], {ty}[12], {ty}[12], {ty}[12], {ty}[12]) {{
  %two: {ty}[12] = constant[value=2.0]()
  %eight: {ty}[12] = constant[value=-8.0]()
  %hundred: {ty}[12] = constant[value=100.0]()
  %half: {ty}[12] = constant[value=0.5]()
  %three: {ty}[12] = constant[value=3.0]()
  %a: {ty}[12] = mul(%two, %x)
  %b: {ty}[12] = mul(%hundred, %a)
  %c: {ty}[12] = mul(%x, %eight)
  %d: {ty}[12] = mul(%c, %hundred)
  %e: {ty}[12] = mul(%half, %x)
  %f: {ty}[12] = mul(%hundred, %e)
  %g: {ty}[12] = mul(%three, %x)
  %h: {ty}[12] = mul(%hundred, %g)
  %i: {ty}[12] = mul(%half, %a)
  return %b, %d, %f, %h, %i
}}
"
        ));
        let simplified = dce(&simplify(&m));
        let products = body(&simplified).into_iter().filter(|l| l.contains(" = mul(")).count();
        println!("{}", print(&simplified));
        // %b and %d fold (one product each); %f, %h and %i keep two (%a survives for %i).
        assert_eq!(products, 1 + 1 + 2 + 2 + 2, "{ty}");
        let x: Vec<f64> =
            vec![1.0, -0.0, 0.0, f64::INFINITY, f64::NAN, 3.0e38, -1.7e308, 1.0e-40, 5.0e-324, 1.3, -2.5e-310, 7.0];
        let args = [match ty {
            "f32" => Array::from_f32(&[12], x.iter().map(|&v| v as f32).collect()).unwrap(),
            _ => Array::from_f64(&[12], x).unwrap(),
        }];
        let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
        let got = eval_entry(&simplified, &args, &EvalOptions::default()).unwrap();
        assert!(same_bits(&got, &want), "{ty}");
    }
}
