//! Budgeted checkpointing: a 50-layer tanh chain whose gradient is fitted to a quarter
//! of its unconstrained peak, with unchanged values; a budget that cannot be met.

use ferrax_ir::array::Array;
use ferrax_ir::testing::{Rng, random_inputs};
use ferrax_ir::{EvalOptions, Module, eval_entry, parse, verify};
use ferrax_transform::{Wrt, cost, grad, grad_with_budget, value_and_grad, value_and_grad_with_budget};

const LAYERS: usize = 50;
const WIDTH: usize = 256;

/// `h_{i+1} = tanh(h_i * a_i)` for 50 layers over `x: f32[256]` with scalar weights
/// `a_i`, then the sum.
fn chain() -> Module {
    let mut text = String::from("func @chain(%x: f32[256]");
    for i in 0..LAYERS {
        text.push_str(&format!(", %a{i}: f32[]"));
    }
    text.push_str(") -> (f32[]) {\n");
    let mut h = "x".to_string();
    for i in 0..LAYERS {
        text.push_str(&format!("  %b{i}: f32[{WIDTH}] = broadcast_in_dim[shape=[{WIDTH}], dims=[]](%a{i})\n"));
        text.push_str(&format!("  %m{i}: f32[{WIDTH}] = mul(%{h}, %b{i})\n"));
        text.push_str(&format!("  %h{i}: f32[{WIDTH}] = tanh(%m{i})\n"));
        h = format!("h{i}");
    }
    text.push_str(&format!("  %s: f32[] = reduce_sum[axes=[0]](%{h})\n  return %s\n}}\n"));
    let m = parse(&text).expect("the chain parses");
    verify(&m).expect("the chain verifies");
    m
}

fn all_params() -> Wrt {
    Wrt::Params((0..=LAYERS).collect())
}

fn peak(m: &Module) -> u64 {
    cost(m).expect("cost").entry().expect("an entry").peak_live_bytes
}

fn bits(outputs: &[Array]) -> Vec<Vec<u64>> {
    outputs.iter().map(|a| a.to_f64_vec().into_iter().map(f64::to_bits).collect()).collect()
}

#[test]
fn a_quarter_of_the_peak_fits_with_unchanged_values() {
    let f = chain();
    let wrt = all_params();
    let base = grad(&f, &wrt, false).unwrap();
    let p = peak(&base);
    let budget = p / 4;
    let (fitted, report) = grad_with_budget(&f, &wrt, false, budget).unwrap();
    verify(&fitted).unwrap();
    let fitted_peak = peak(&fitted);
    println!("unconstrained {p}, budget {budget}: {report}");
    assert!(fitted_peak <= budget, "peak {fitted_peak} > budget {budget}");
    assert_eq!(report.peak, fitted_peak);
    assert!(report.rematerialized > 0, "{report}");
    // The checkpointed gradient recomputes, but no more than the forward pass once.
    let forward_flops = cost(&f).unwrap().entry().unwrap().flops;
    assert!(report.recomputed_flops > 0 && report.recomputed_flops <= forward_flops, "{report}");
    let mut rng = Rng::new(7);
    for _ in 0..3 {
        let args = random_inputs(f.entry().unwrap(), &mut rng, false);
        let want = eval_entry(&base, &args, &EvalOptions::default()).unwrap();
        let got = eval_entry(&fitted, &args, &EvalOptions::default()).unwrap();
        assert_eq!(want.len(), LAYERS + 1);
        assert_eq!(bits(&want), bits(&got), "the checkpointed gradient differs");
    }
}

#[test]
fn value_and_grad_fits_too() {
    let f = chain();
    let wrt = all_params();
    let p = peak(&value_and_grad(&f, &wrt, false).unwrap());
    let (fitted, report) = value_and_grad_with_budget(&f, &wrt, false, p / 3).unwrap();
    assert!(peak(&fitted) <= p / 3, "{report}");
    let args = random_inputs(f.entry().unwrap(), &mut Rng::new(3), false);
    let want = eval_entry(&value_and_grad(&f, &wrt, false).unwrap(), &args, &EvalOptions::default()).unwrap();
    let got = eval_entry(&fitted, &args, &EvalOptions::default()).unwrap();
    assert_eq!(bits(&want), bits(&got));
}

#[test]
fn a_budget_that_fits_already_changes_nothing() {
    let f = chain();
    let base = grad(&f, &all_params(), false).unwrap();
    let (same, report) = grad_with_budget(&f, &all_params(), false, peak(&base)).unwrap();
    assert_eq!(same, base);
    assert_eq!((report.rematerialized, report.recomputed_flops), (0, 0));
}

#[test]
fn an_impossible_budget_names_the_best_peak() {
    let f = chain();
    // The arguments alone (51 params) take more than this.
    let err = grad_with_budget(&f, &all_params(), false, 1000).unwrap_err().to_string();
    assert!(err.contains("no plan fits the budget of 1000 bytes"), "{err}");
    assert!(err.contains("the best peak found is"), "{err}");
    let best: u64 = err
        .split("the best peak found is ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("a number after 'the best peak found is'");
    assert!(best > 1000 && best < peak(&grad(&f, &all_params(), false).unwrap()), "{err}");
}

/// The chain as a scan of 50 steps: the budget is met by checkpointing the scan.
#[test]
fn a_scan_is_fitted_by_its_checkpoint_interval() {
    let f = {
        let m = parse(
            "func @f(%c: f32[256], %as: f32[50]) -> (f32[]) {
  %cn: f32[256] = scan[body=@b, length=50, num_consts=0, num_carry=1](%c, %as)
  %s: f32[] = reduce_sum[axes=[0]](%cn)
  return %s
}
func @b(%c: f32[256], %a: f32[]) -> (f32[256]) {
  %bb: f32[256] = broadcast_in_dim[shape=[256], dims=[]](%a)
  %m: f32[256] = mul(%c, %bb)
  %t: f32[256] = tanh(%m)
  return %t
}",
        )
        .unwrap();
        verify(&m).unwrap();
        m
    };
    let wrt = Wrt::Params(vec![0, 1]);
    let base = grad(&f, &wrt, false).unwrap();
    let p = peak(&base);
    let (fitted, report) = grad_with_budget(&f, &wrt, false, p / 4).unwrap();
    assert!(peak(&fitted) <= p / 4, "{report}");
    assert!(report.scan_checkpoint.is_some(), "{report}");
    let args = random_inputs(f.entry().unwrap(), &mut Rng::new(11), false);
    let want = eval_entry(&base, &args, &EvalOptions::default()).unwrap();
    let got = eval_entry(&fitted, &args, &EvalOptions::default()).unwrap();
    assert_eq!(bits(&want), bits(&got));
}
