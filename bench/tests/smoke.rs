//! Every ferrax workload once at small sizes: the jitted results must agree with
//! ferrax's interpreter under the harness's own correctness gate, and the compile path
//! the harness times must produce an executable of the program's types.

use ferrax_bench::data::{Inputs, Scale, generate};
use ferrax_bench::gate::{Comparison, compare_all};
use ferrax_bench::run::{compile, interp_results, jit_results, types_of};
use ferrax_bench::workloads::{all, select};

#[test]
fn every_workload_matches_the_interpreter_at_small_scale() {
    let mut inputs = Inputs::from_arrays(generate(Scale::Small).unwrap());
    let workloads = all();
    assert_eq!(workloads.len(), 16);
    for w in &workloads {
        let args = (w.args)(&mut inputs).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let got = jit_results(w, &args).unwrap_or_else(|e| panic!("{}: jit: {e}", w.name));
        let want = interp_results(w, &args).unwrap_or_else(|e| panic!("{}: interpreter: {e}", w.name));
        assert!(!got.is_empty(), "{}: no results", w.name);
        let comparisons = compare_all(&got, &want, w.reductions);
        assert!(comparisons.iter().all(Comparison::passed), "{}: {comparisons:?}", w.name);
        let types = types_of(&args);
        let (exe, consts, _) = compile(w, &types).unwrap_or_else(|e| panic!("{}: compile: {e}", w.name));
        assert_eq!(&exe.param_types()[..types.len()], &types[..], "{}", w.name);
        assert_eq!(exe.param_types().len(), types.len() + consts.len(), "{}", w.name);
        let result_types = types_of(&got);
        assert_eq!(exe.result_types(), &result_types[..], "{}", w.name);
    }
}

#[test]
fn a_wrong_result_fails_the_gate() {
    let mut inputs = Inputs::from_arrays(generate(Scale::Small).unwrap());
    let w = select(&["dispatch".to_string()]).unwrap().remove(0);
    let args = (w.args)(&mut inputs).unwrap();
    let got = jit_results(&w, &args).unwrap();
    // x * 2 + 1 against x * 2 + 1.01: beyond f32 tolerance.
    let shifted: Vec<f32> = got[0].as_f32().unwrap().iter().map(|v| v + 0.01).collect();
    let wrong = vec![ferrax::Array::from_f32(got[0].shape(), shifted).unwrap()];
    assert!(!compare_all(&got, &wrong, &[]).iter().all(Comparison::passed));
}

#[test]
fn selection_by_id_and_name() {
    let names = |only: &[&str]| -> Vec<&'static str> {
        let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
        select(&only).unwrap().iter().map(|w| w.name).collect()
    };
    assert_eq!(names(&["W2"]), ["rosenbrock_grad", "hvp_rosenbrock"]);
    assert_eq!(names(&["w5,mlp_grad"]), ["mlp_grad", "dispatch"]);
    assert_eq!(names(&[]).len(), 16);
    assert_eq!(names(&["W8"]), ["cnn_grad"]);
    assert_eq!(names(&["W9"]), ["transformer_grad"]);
    assert_eq!(names(&["W7"]), ["mlp_grad_bf16"]);
    assert_eq!(names(&["W10"]), ["linalg_grad", "linalg_cg_grad"]);
    assert_eq!(names(&["W12"]), ["onehot_xent_grad", "vmap_hvp"]);
    assert!(select(&["W11".to_string()]).is_err());
}

/// W11 at small scale: two workers' averaged loss and gradients pass the gate against
/// one worker's, and the run reports its figures.
#[test]
fn data_parallel_runs_at_small_scale() {
    let mut inputs = Inputs::from_arrays(generate(Scale::Small).unwrap());
    assert!(ferrax_bench::w11_data_parallel::run(&mut inputs, Some(3)).unwrap());
}
