//! Generated programs: every value of the entry of `ferrax_ir::testing::random_module`
//! whose computation is kernel-able (kernel primitives only, at most one reduction, an
//! elementwise epilogue) becomes a one-result kernel, compiled and compared with the
//! interpreter bit for bit on the scalar path (fma off; reductions keep the interpreter's
//! order and the math stand-in calls the same functions), and on the vector path too except
//! for reassociated float sums and products (then within a relative tolerance).

use super::support::{close, compile, interp, run, same_bits};
use crate::kernel::{KernelOptions, is_kernel_prim};
use ferrax_ir::prim::ReduceOp;
use ferrax_ir::prim::ReductionOp;
use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{AttrValue, Func, Module, Prim, Value};

/// The kernel computing `v` from the params of `entry`, or `None` if it is not kernel-able.
fn kernel_for(entry: &Func, v: Value) -> Option<Func> {
    let mut needed = vec![false; entry.value_types.len()];
    needed[v.index()] = true;
    let mut eqns = Vec::new();
    for eqn in entry.eqns.iter().rev() {
        if eqn.outputs.iter().any(|o| needed[o.index()]) {
            eqn.inputs.iter().for_each(|i| needed[i.index()] = true);
            eqns.push(eqn.clone());
        }
    }
    eqns.reverse();
    if !eqns.iter().all(|e| is_kernel_prim(&e.prim)) {
        return None;
    }
    let reductions = eqns
        .iter()
        .filter(|e| {
            matches!(
                e.prim,
                Prim::Reduction(ReductionOp::Reduce { .. }) | Prim::Reduction(ReductionOp::ArgReduce { .. })
            )
        })
        .count();
    if reductions > 1 {
        return None;
    }
    let mut f = entry.clone();
    f.name = "k".into();
    f.attrs = vec![("kind".into(), AttrValue::Str("fusion".into()))];
    f.eqns = eqns;
    f.results = vec![v];
    f.result_types = vec![entry.ty(v).clone()];
    Some(f)
}

#[test]
fn random_kernels_match_the_interpreter() {
    let config = GenConfig::default();
    let opts = KernelOptions { fma: false, simd: false, dump: false, precise_math: true, tiles: true };
    let (mut compiled, mut rejected) = (0usize, 0usize);
    for seed in 0..150u64 {
        let module = random_module(seed, &config);
        let entry = module.entry().unwrap();
        let mut rng = Rng::new(seed);
        let args = random_inputs(entry, &mut rng, true);
        let values: Vec<Value> = entry.eqns.iter().flat_map(|e| e.outputs.iter().copied()).collect();
        for v in values {
            let Some(k) = kernel_for(entry, v) else { continue };
            let mut m = Module::new();
            m.push(k);
            if ferrax_ir::verify(&m).is_err() {
                continue;
            }
            // As `jit::compile` does before fusion: 16-bit arithmetic computes in f32.
            let c = match compile(&crate::legalize::half_to_f32(&m), &opts) {
                Ok(c) => c,
                Err(e) => {
                    // Only contract violations (a non-elementwise epilogue, an empty
                    // argmax axis) may be refused.
                    let msg = e.to_string();
                    assert!(msg.contains("epilogue") || msg.contains("empty axis"), "seed {seed}: {msg}");
                    rejected += 1;
                    continue;
                }
            };
            let got = run(&c, &m, &args, &[]);
            let want = interp(&m, &args);
            let text = ferrax_ir::print(&m);
            assert!(
                same_bits(&got[0], &want[0]),
                "seed {seed}\n{text}\njit:    {}\ninterp: {}",
                got[0].describe(Some(64)),
                want[0].describe(Some(64))
            );
            // The vector path: identical except where it reassociates a float sum/product.
            let v = compile(&crate::legalize::half_to_f32(&m), &KernelOptions { simd: true, ..opts.clone() }).unwrap();
            let got = run(&v, &m, &args, &[]);
            let reassoc = m.entry().unwrap().eqns.iter().any(|e| {
                matches!(e.prim, Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum | ReduceOp::Prod, .. }))
                    && m.entry().unwrap().ty(e.inputs[0]).dtype.is_float()
            });
            let ok = if reassoc { close(&got[0], &want[0], 1e-4) } else { same_bits(&got[0], &want[0]) };
            assert!(
                ok,
                "seed {seed} (simd)\n{text}\njit:    {}\ninterp: {}",
                got[0].describe(Some(64)),
                want[0].describe(Some(64))
            );
            compiled += 1;
        }
    }
    assert!(compiled > 300, "only {compiled} kernels compiled ({rejected} refused)");
    eprintln!("{compiled} random kernels matched, {rejected} refused by the contract");
}
