//! Budgeted checkpointing through the closure API: the gradient of a 50-layer tanh
//! chain fitted to a quarter of its unconstrained peak, with the same values.

use ferrax::{Array, Tensor, grad, value_and_grad};

const LAYERS: usize = 50;

fn chain(p: Vec<Tensor>) -> Tensor {
    let mut h = p[0].clone();
    for a in &p[1..] {
        h = (&h * a).tanh();
    }
    h.sum([0])
}

fn args() -> Vec<Array> {
    let x: Vec<f32> = (0..256).map(|i| (i as f32 * 0.37).sin()).collect();
    let mut args = vec![Array::from_f32(&[256], x).unwrap()];
    args.extend((0..LAYERS).map(|i| Array::scalar_f32(0.8 + 0.01 * i as f32)));
    args
}

fn bits(arrays: &[Array]) -> Vec<Vec<u64>> {
    arrays.iter().map(|a| a.to_f64_vec().into_iter().map(f64::to_bits).collect()).collect()
}

#[test]
fn grad_with_max_bytes_fits_a_quarter_of_the_peak() {
    let args = args();
    let plain = grad(chain).call(&args).unwrap();
    // An unlimited budget reports the unconstrained peak and changes nothing.
    let unlimited = grad(chain).with_max_bytes(u64::MAX);
    assert_eq!(bits(&unlimited.call(&args).unwrap()), bits(&plain));
    let p = unlimited.checkpoint_report().expect("a report").unconstrained_peak;
    let fitted = grad(chain).with_max_bytes(p / 4);
    let g = fitted.call(&args).unwrap();
    let report = fitted.checkpoint_report().expect("a report");
    assert!(report.peak <= p / 4 && report.rematerialized > 0, "{report}");
    assert_eq!(bits(&g), bits(&plain));

    let vg = value_and_grad(chain).with_max_bytes(p / 4);
    let (value, g2) = vg.call(&args).unwrap();
    let (value_plain, _) = value_and_grad(chain).call(&args).unwrap();
    assert_eq!(bits(&[value]), bits(&[value_plain]));
    assert_eq!(bits(&g2), bits(&plain));
}

#[test]
fn an_impossible_budget_is_an_error() {
    let err = grad(chain).with_max_bytes(64).call(&args()).unwrap_err().to_string();
    assert!(err.contains("the best peak found is"), "{err}");
}
