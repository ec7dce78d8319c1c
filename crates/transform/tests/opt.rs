//! The optimiser: unit tests of each pass, the grad(grad(x sin x)) target, and a
//! property test that `opt` preserves results on generated modules.

use ferrax_ir::array::{Array, Data};
use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{EvalOptions, Module, eval_entry, parse, print};
use ferrax_transform::{Wrt, dce, grad, opt};

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
    let config = GenConfig::default();
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
