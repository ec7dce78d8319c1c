//! Runs every example under `examples/` (their `main`s check their own numbers and
//! return an error when one is wrong), so that `cargo test` keeps them working.

#[path = "../examples/quickstart.rs"]
mod quickstart;

#[path = "../examples/per_example_grads.rs"]
mod per_example_grads;

#[path = "../examples/physics.rs"]
mod physics;

#[path = "../examples/custom_rules.rs"]
mod custom_rules;

#[path = "../examples/snapshot.rs"]
mod snapshot;

#[path = "../examples/newton_cg.rs"]
mod newton_cg;

#[path = "../examples/mlp.rs"]
mod mlp;

#[path = "../examples/mixed_precision.rs"]
mod mixed_precision;

#[test]
fn mlp_runs() {
    mlp::main().unwrap();
}

#[test]
fn mixed_precision_runs() {
    mixed_precision::main().unwrap();
}

#[test]
fn newton_cg_runs() {
    newton_cg::main().unwrap();
}

#[test]
fn quickstart_runs() {
    quickstart::main().unwrap();
}

#[test]
fn per_example_grads_runs() {
    per_example_grads::main().unwrap();
}

#[test]
fn physics_runs() {
    physics::main().unwrap();
}

#[test]
fn custom_rules_runs() {
    custom_rules::main().unwrap();
}

#[test]
fn snapshot_runs() {
    snapshot::main().unwrap();
}

#[path = "../examples/offload.rs"]
mod offload;

#[test]
fn offload_runs() {
    offload::main_with(&["--small".to_string()]).unwrap();
}

#[path = "../examples/newton_krylov.rs"]
mod newton_krylov;

#[test]
fn newton_krylov_runs() {
    newton_krylov::main().unwrap();
}

#[path = "../examples/ntk.rs"]
mod ntk;

#[test]
fn ntk_runs() {
    ntk::main().unwrap();
}

#[path = "../examples/implicit_layer.rs"]
mod implicit_layer;

#[test]
fn implicit_layer_runs() {
    implicit_layer::main().unwrap();
}

#[path = "../examples/transformer.rs"]
mod transformer;

#[path = "../examples/cnn.rs"]
mod cnn;

#[test]
fn cnn_runs() {
    cnn::main_with(&["--small".to_string()]).unwrap();
}

#[test]
fn transformer_runs() {
    transformer::main_with(&["--small".to_string()]).unwrap();
}

#[path = "../examples/data_parallel.rs"]
mod data_parallel;

/// 2 and 3 worker threads, and ZeRO-1 on 3 and 4, end with the parameters of one worker
/// on the whole batch after 24 steps (3 epochs of 8 global batches), to rounding: the
/// mean of the shards' mean gradients is the batch's mean gradient.
#[test]
fn data_parallel_matches_one_worker() {
    let run = |workers: &str, zero: bool| {
        let mut args: Vec<String> = ["--workers", workers, "--epochs", "3", "--quiet"].map(String::from).to_vec();
        if zero {
            args.push("--zero".into());
        }
        data_parallel::main_with(&args).unwrap().1
    };
    let one = run("1", false);
    for (workers, zero) in [("2", false), ("3", false), ("3", true), ("4", true)] {
        let got = run(workers, zero);
        for (k, (a, b)) in got.iter().zip(&one).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                "{workers} workers, zero {zero}: parameter {k}: {a} vs {b}"
            );
        }
    }
    // The full run trains: its loss falls below half its start.
    let (curve, _) = data_parallel::main_with(&["--quiet".to_string()]).unwrap();
    assert!(curve[curve.len() - 1] < 0.5 * curve[0], "{curve:?}");
}
