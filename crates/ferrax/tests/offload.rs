//! Activation offloading through the API: `checkpoint(f).policy(RematPolicy::Offload)`
//! keeps a region's residuals in a spill file between the forward and the backward pass.
//!
//! Checked here: gradients bit-identical with and without offloading (interpreter and
//! JIT); the spill directory is the caller's, and no file is left in it after a call,
//! whether the call succeeded or failed between the passes; a spill directory that
//! cannot be created is a clean error; the JIT's workspace shrinks by the residuals it
//! no longer holds; the cost model reports the bytes offloaded.

use ferrax::ir::EvalOptions;
use ferrax::transforms::{RematPolicy, checkpoint};
use ferrax::{Array, JitOptions, Tensor, Type, fori_loop, grad, jit_module, jit_with, make_ir};
use std::path::{Path, PathBuf};

const LAYERS: usize = 12;
const WIDTH: usize = 16;
const BATCH: usize = 128;

/// A deep narrow tanh network (residuals, not parameters, dominate its memory); each layer in its own `remat` region under `policy`
/// (no region without one). With `loop_after`, a 4-step loop follows the layers, so
/// the backward pass starts with 4 loop iterations (a place to fail between the passes).
fn loss(policy: Option<RematPolicy>, loop_after: bool) -> impl Fn(Vec<Tensor>) -> Tensor + Clone {
    move |p: Vec<Tensor>| {
        let layer = |(h, w): (Tensor, Tensor)| h.matmul(&w).tanh();
        let mut h = p[0].clone();
        for w in &p[1..] {
            h = match &policy {
                Some(policy) => checkpoint(layer).policy(policy.clone()).apply(&(h, w.clone())),
                None => layer((h, w.clone())),
            };
        }
        if loop_after {
            h = fori_loop(0, 4, |_, h: Tensor| (&h * 0.9).sin(), &h);
        }
        (&h * &h).sum_all()
    }
}

fn args() -> Vec<Array> {
    let x: Vec<f32> = (0..BATCH * WIDTH).map(|i| (i as f32 * 0.37).sin()).collect();
    let mut args = vec![Array::from_f32(&[BATCH, WIDTH], x).unwrap()];
    for l in 0..LAYERS {
        let w: Vec<f32> = (0..WIDTH * WIDTH).map(|i| ((i * 7 + l * 13) as f32 * 0.11).cos() * 0.3).collect();
        args.push(Array::from_f32(&[WIDTH, WIDTH], w).unwrap());
    }
    args
}

fn types() -> Vec<Type> {
    args().iter().map(|a| Type::new(a.dtype(), a.shape())).collect()
}

fn bits(arrays: &[Array]) -> Vec<Vec<u64>> {
    arrays.iter().map(|a| a.to_f64_vec().into_iter().map(f64::to_bits).collect()).collect()
}

/// A fresh, empty directory for one test's spill files (not created: the run creates it).
fn spill_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrax-offload-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The files in `dir` (none if it does not exist).
fn files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default()
}

fn jit_options(dir: &Path) -> JitOptions {
    JitOptions { spill_dir: Some(dir.to_path_buf()), ..JitOptions::default() }
}

/// The gradient module of `loss(policy)`.
fn grad_module(policy: Option<RematPolicy>, loop_after: bool) -> ferrax::Module {
    let text = make_ir(grad(loss(policy, loop_after)), &types()).unwrap();
    ferrax::ir::parse(&text).unwrap()
}

#[test]
fn gradients_are_bit_identical_with_and_without_offloading() {
    let dir = spill_dir("bits");
    let args = args();
    let plain = grad(loss(None, false)).call(&args).unwrap();
    let remat = grad(loss(Some(RematPolicy::Nothing), false)).call(&args).unwrap();
    assert_eq!(bits(&remat), bits(&plain));

    // The interpreter, on the module, with the spill directory chosen here.
    let module = grad_module(Some(RematPolicy::Offload), false);
    let text = ferrax::ir::print(&module);
    assert!(text.contains("offload(") && text.contains("reload("), "{text}");
    let options = EvalOptions { spill_dir: Some(dir.clone()), ..EvalOptions::default() };
    let offloaded = ferrax::ir::eval_entry(&module, &args, &options).unwrap();
    assert_eq!(bits(&offloaded), bits(&plain));
    assert!(dir.exists(), "the run did not create the spill directory");
    assert_eq!(files_in(&dir), Vec::<PathBuf>::new(), "spill files left after the interpreter's run");

    // The JIT, with and without offloading: the same bits.
    let jit_plain = jit_with(grad(loss(None, false)), jit_options(&dir)).call(&args).unwrap();
    let jit_offloaded = jit_with(grad(loss(Some(RematPolicy::Offload), false)), jit_options(&dir)).call(&args).unwrap();
    assert_eq!(bits(&jit_offloaded), bits(&jit_plain));
    assert_eq!(files_in(&dir), Vec::<PathBuf>::new(), "spill files left after the JIT's call");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_spill_file_survives_a_failure_between_the_passes() {
    let dir = spill_dir("failure");
    let module = grad_module(Some(RematPolicy::Offload), true);
    let args = args();
    // The forward pass takes the loop's 4 iterations; the backward pass's loop fails at
    // its first, after every offload wrote to the spill file.
    let options = EvalOptions { fuel: Some(4), spill_dir: Some(dir.clone()), ..EvalOptions::default() };
    let err = ferrax::ir::eval_entry(&module, &args, &options).unwrap_err().to_string();
    assert!(err.contains("out of fuel"), "{err}");
    assert!(dir.exists(), "the forward pass did not offload");
    assert_eq!(files_in(&dir), Vec::<PathBuf>::new(), "a spill file outlived the failed run");

    let jit = JitOptions { fuel: Some(4), ..jit_options(&dir) };
    let exe = ferrax_jit::compile(&module, &jit).unwrap().call(&args).unwrap_err().to_string();
    assert!(exe.contains("out of fuel"), "{exe}");
    assert_eq!(files_in(&dir), Vec::<PathBuf>::new(), "a spill file outlived the failed JIT call");

    // With fuel for both loops, the same module runs.
    let enough = EvalOptions { fuel: Some(8), spill_dir: Some(dir.clone()), ..EvalOptions::default() };
    ferrax::ir::eval_entry(&module, &args, &enough).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_spill_directory_that_cannot_be_created_is_a_clean_error() {
    let file = std::env::temp_dir().join(format!("ferrax-offload-test-plainfile-{}", std::process::id()));
    std::fs::write(&file, b"a file, not a directory").unwrap();
    let dir = file.join("spill");
    let module = grad_module(Some(RematPolicy::Offload), false);
    let options = EvalOptions { spill_dir: Some(dir.clone()), ..EvalOptions::default() };
    let err = ferrax::ir::eval_entry(&module, &args(), &options).unwrap_err().to_string();
    assert!(err.contains("cannot create the spill directory") && err.contains("plainfile"), "{err}");
    assert!(err.contains("offload"), "the error names the equation: {err}");
    let err = jit_with(grad(loss(Some(RematPolicy::Offload), false)), jit_options(&dir))
        .call(&args())
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot create the spill directory"), "{err}");
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn offloading_shrinks_the_memory_the_gradient_holds() {
    let plain = grad_module(None, false);
    let offloaded = grad_module(Some(RematPolicy::Offload), false);
    // The JIT's workspace: the residuals no longer occupy it between the passes.
    let ws = |m: &ferrax::Module| jit_module(m).unwrap().workspace_bytes();
    let (ws_plain, ws_offloaded) = (ws(&plain), ws(&offloaded));
    let residual = BATCH * WIDTH * 4;
    assert!(
        ws_offloaded + (LAYERS / 2) * residual <= ws_plain,
        "workspace {ws_offloaded} bytes offloaded vs {ws_plain} without"
    );
    // The cost model: what is offloaded, and a lower peak.
    let cost = |m: &ferrax::Module| ferrax_transform::cost(m).unwrap().entry().unwrap().clone();
    let (c_plain, c_offloaded) = (cost(&plain), cost(&offloaded));
    assert_eq!(c_plain.offloaded_bytes, 0);
    assert!(c_offloaded.offloaded_bytes >= (LAYERS as u64) * residual as u64, "{c_offloaded}");
    assert!(c_offloaded.peak_live_bytes < c_plain.peak_live_bytes, "{c_offloaded}\nvs\n{c_plain}");
}

/// The fused schedule walks the gradients in the order reverse mode computes them (the
/// last layer's first), so each layer's cotangent dies at its layer: without
/// offloading, the workspace holds the forward values and a few buffers more, not a
/// cotangent per layer besides (which it did when the walk started from the first
/// parameter's gradient: twice the residuals).
#[test]
fn the_backward_pass_frees_each_cotangent_at_its_layer() {
    let ws = jit_module(&grad_module(None, false)).unwrap().workspace_bytes();
    let residual = BATCH * WIDTH * 4;
    assert!(ws <= (LAYERS + 4) * residual, "workspace {ws} bytes for {LAYERS} layers of {residual}-byte residuals");
}

/// Under `jit`, a `remat` region's recomputation stays a recomputation: the backward
/// pass reads its saved inputs through a guard, so the optimiser's common-subexpression
/// elimination cannot merge the recomputed values with the forward pass's (which kept
/// every forward value alive, as if there were no checkpoint).
#[test]
fn checkpointing_saves_memory_under_jit() {
    let sine = |remat: bool| {
        move |p: Vec<Tensor>| {
            let layer = |(h, w): (Tensor, Tensor)| h.matmul(&w).sin().sin();
            let mut h = p[0].clone();
            for w in &p[1..] {
                h = if remat { checkpoint(layer).apply(&(h, w.clone())) } else { layer((h, w.clone())) };
            }
            (&h * &h).sum_all()
        }
    };
    let ws = |remat: bool| {
        let text = make_ir(grad(sine(remat)), &types()).unwrap();
        jit_module(&ferrax::ir::parse(&text).unwrap()).unwrap().workspace_bytes()
    };
    let (plain, remat) = (ws(false), ws(true));
    let residual = BATCH * WIDTH * 4;
    // Each layer saves its input, sin(h W) and cos... three values without the
    // checkpoint, its input alone with it.
    assert!(remat + LAYERS * residual <= plain, "workspace {remat} bytes with checkpoints vs {plain} without");
    let args = args();
    let bits_of = |remat: bool| bits(&jit_with(grad(sine(remat)), JitOptions::default()).call(&args).unwrap());
    assert_eq!(bits_of(true), bits_of(false));
}
