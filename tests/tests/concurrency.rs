//! Concurrency: compiled functions are `Send + Sync`
//! and calls from many threads at once give the sequential results, on several
//! generated programs; compiling from 8 threads at once (different and identical
//! modules) is safe and deterministic; `JitCache` stays bounded under concurrent
//! lookups and accounts for every one (hits + misses, each miss with its reason); and
//! executables whose launches are split across the JIT's pool (large elementwise
//! kernels and outer-axis reductions with `threads >= 2`) or cut into chunks (full
//! reductions of at least 32,768 elements, `kernel/chunked.rs`), called from 8 threads
//! at once, give the bits of a single-threaded executable, and the interpreter's where
//! every operation is exact.

use crate::support::{jit_options, same_bits};
use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{Array, Module, parse};
use ferrax_jit::{Executable, JitCache, JitOptions, Miss, compile};
use std::sync::Arc;

const THREADS: usize = 8;

/// Generated modules that compile and run (with their inputs), from consecutive seeds.
fn programs(n: usize) -> Vec<(u64, Module, Vec<Vec<Array>>)> {
    let config = GenConfig::default();
    let mut out = Vec::new();
    let mut seed = 0;
    while out.len() < n {
        seed += 1;
        let m = random_module(seed, &config);
        let Ok(exe) = compile(&m, &jit_options()) else { continue };
        let mut rng = Rng::new(seed);
        let inputs: Vec<Vec<Array>> = (0..4).map(|_| random_inputs(m.entry().unwrap(), &mut rng, true)).collect();
        if inputs.iter().all(|a| exe.call(a).is_ok()) {
            out.push((seed, m, inputs));
        }
    }
    out
}

#[test]
fn eight_threads_calling_one_executable_get_the_sequential_results() {
    for (seed, m, inputs) in programs(24) {
        let exe = Arc::new(compile(&m, &jit_options()).unwrap());
        let want: Vec<Vec<Array>> = inputs.iter().map(|a| exe.call(a).unwrap()).collect();
        let inputs = Arc::new(inputs);
        let want = Arc::new(want);
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (exe, inputs, want) = (exe.clone(), inputs.clone(), want.clone());
                std::thread::spawn(move || {
                    for round in 0..20 {
                        let k = (t + round) % inputs.len();
                        let got = exe.call(&inputs[k]).map_err(|e| e.to_string())?;
                        same_bits(&got, &want[k]).map_err(|e| format!("thread {t}, input {k}: {e}"))?;
                    }
                    Ok::<(), String>(())
                })
            })
            .collect();
        for h in handles {
            h.join().expect("no panic").unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
}

#[test]
fn eight_threads_compiling_at_once_is_safe() {
    let progs = Arc::new(programs(12));
    // Sequential results, one compile per program.
    let want: Vec<Vec<Array>> =
        progs.iter().map(|(_, m, inputs)| compile(m, &jit_options()).unwrap().call(&inputs[0]).unwrap()).collect();
    let want = Arc::new(want);
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (progs, want) = (progs.clone(), want.clone());
            std::thread::spawn(move || {
                // Threads t and t+4 compile the same modules; the others differ.
                for k in (t % 4..progs.len()).step_by(4) {
                    let (seed, m, inputs) = &progs[k];
                    let exe = compile(m, &jit_options()).map_err(|e| format!("seed {seed}: {e}"))?;
                    let got = exe.call(&inputs[0]).map_err(|e| e.to_string())?;
                    same_bits(&got, &want[k]).map_err(|e| format!("thread {t}, seed {seed}: {e}"))?;
                }
                Ok::<(), String>(())
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic").unwrap_or_else(|e| panic!("{e}"));
    }
}

fn scaled(k: usize) -> Module {
    parse(&format!(
        "func @f(%x: f32[4]) -> (f32[4]) {{\n  %c: f32[4] = constant[value={k}.0]()\n  %y: f32[4] = mul(%x, %c)\n  return %y\n}}\n"
    ))
    .unwrap()
}

#[test]
fn the_cache_is_bounded_and_accounts_for_every_lookup_from_threads() {
    let cache = Arc::new(JitCache::new(3, JitOptions::default()));
    let lookups_per_thread = 30;
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                let x = Array::from_f32(&[4], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
                for i in 0..lookups_per_thread {
                    let k = (t * 7 + i) % 5;
                    let exe: Arc<Executable> = cache.get(&scaled(k)).unwrap();
                    let y = exe.call(std::slice::from_ref(&x)).unwrap();
                    let want: Vec<f32> = [1.0, 2.0, 3.0, 4.0].iter().map(|v| v * k as f32).collect();
                    assert_eq!(y[0].as_f32().unwrap(), want.as_slice(), "thread {t}: module {k}");
                    assert!(cache.len() <= 3);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic");
    }
    let stats = cache.stats();
    assert!(cache.len() <= 3);
    assert_eq!(stats.hits + stats.misses.len() as u64, (THREADS * lookups_per_thread) as u64, "{stats:?}");
    // Five modules of one entry and one signature: after the first, a miss is a
    // changed body.
    assert!(stats.misses.iter().all(|m| matches!(m, Miss::NewModule | Miss::ModuleChanged)), "{stats:?}");
    assert!(stats.misses.len() >= 5);
    // Every stored executable came from a miss (concurrent misses of one module store
    // it once, so there may be fewer).
    assert!(stats.evictions + cache.len() as u64 <= stats.misses.len() as u64, "{stats:?}");
}

/// Eight threads missing the same module at once leave one entry, not eight.
#[test]
fn concurrent_misses_of_one_module_store_it_once() {
    for _ in 0..5 {
        let cache = Arc::new(JitCache::new(4, JitOptions::default()));
        let barrier = Arc::new(std::sync::Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (cache, barrier) = (cache.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    cache.get(&scaled(3)).unwrap();
                })
            })
            .collect();
        for h in handles {
            h.join().expect("no panic");
        }
        assert_eq!(cache.len(), 1);
        let stats = cache.stats();
        assert_eq!(stats.hits + stats.misses.len() as u64, THREADS as u64);
        assert_eq!(stats.evictions, 0);
    }
}

/// Miss reasons from threads: each thread changes its own entry's argument type.
#[test]
fn miss_reasons_are_reported_from_threads() {
    let cache = Arc::new(JitCache::new(64, JitOptions::default()));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                for n in [2, 3] {
                    let m = parse(&format!(
                        "func @g{t}(%x: f32[{n}]) -> (f32[{n}]) {{\n  %y: f32[{n}] = neg(%x)\n  return %y\n}}\n"
                    ))
                    .unwrap();
                    cache.get(&m).unwrap();
                    cache.get(&m).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic");
    }
    let stats = cache.stats();
    assert_eq!(stats.hits, THREADS as u64 * 2, "{stats:?}");
    assert_eq!(stats.misses.iter().filter(|m| **m == Miss::NewModule).count(), THREADS, "{stats:?}");
    assert_eq!(stats.misses.iter().filter(|m| matches!(m, Miss::ArgType { index: 0, .. })).count(), THREADS);
}

/// Deterministic f32 values in [-5, 5) (a multiplicative hash of the index).
fn f32_values(shape: &[usize], salt: u64) -> Array {
    let n: usize = shape.iter().product();
    let values = (0..n as u64).map(|i| ((i * 2_654_435_761 + salt * 97) % 10_007) as f32 / 1000.0 - 5.0).collect();
    Array::from_f32(shape, values).unwrap()
}

/// Deterministic i32 values in [-1000, 1000].
fn i32_values(shape: &[usize], salt: u64) -> Array {
    let n: usize = shape.iter().product();
    let values = (0..n as u64).map(|i| ((i * 7919 + salt * 31) % 2001) as i32 - 1000).collect();
    Array::from_i32(shape, values).unwrap()
}

/// Calls `text`'s entry, compiled with `threads: 4`, from 8 threads at once (each
/// several times, all released together): every call must give the bits of the same
/// module compiled with one thread; and the outputs listed in `exact` must have the
/// interpreter's bits.
fn called_from_eight_threads(text: &str, args: Vec<Array>, exact: &[usize]) {
    let m = parse(text).unwrap();
    let single = JitOptions { threads: 1, ..JitOptions::default() };
    let want = compile(&m, &single).unwrap().call(&args).unwrap();
    let interp = ferrax_ir::eval_entry(&m, &args, &ferrax_ir::EvalOptions::default()).unwrap();
    for &i in exact {
        same_bits(&want[i..=i], &interp[i..=i]).unwrap_or_else(|e| panic!("one thread vs the interpreter: {e}"));
    }
    let exe = Arc::new(compile(&m, &JitOptions { threads: 4, ..JitOptions::default() }).unwrap());
    let (args, want) = (Arc::new(args), Arc::new(want));
    let barrier = Arc::new(std::sync::Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (exe, args, want, barrier) = (exe.clone(), args.clone(), want.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                for round in 0..3 {
                    let got = exe.call(&args).map_err(|e| e.to_string())?;
                    same_bits(&got, &want).map_err(|e| format!("thread {t}, round {round}: {e}"))?;
                }
                Ok::<(), String>(())
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic").unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Elementwise kernels and row reductions over 1024×1024 elements: each launch's
/// estimated work (elements × equations, over 2·10^6, `exec::split::SPLIT_WORK`) splits
/// its outer loop across the pool. |x| by max and neg, sqrt, max and i32 sums are exact,
/// so the interpreter's bits are the reference too.
#[test]
fn split_launches_called_from_eight_threads_are_exact() {
    let text = "func @split(%x: f32[1024,1024], %k: i32[1024,1024]) -> (f32[1024,1024], f32[1024], i32[1024], i32[]) {
  %n: f32[1024,1024] = neg(%x)
  %a: f32[1024,1024] = max(%x, %n)
  %r: f32[1024,1024] = sqrt(%a)
  %m: f32[1024] = reduce_max[axes=[1]](%r)
  %s: i32[1024] = reduce_sum[axes=[1]](%k)
  %t: i32[] = reduce_sum[axes=[0,1]](%k)
  return %r, %m, %s, %t
}
";
    called_from_eight_threads(text, vec![f32_values(&[1024, 1024], 1), i32_values(&[1024, 1024], 2)], &[0, 1, 2, 3]);
}

/// Split launches of inexact kernels (vectorised tanh and exp, f32 row sums): the
/// split never changes an element's arithmetic, so every thread gets the one-thread bits.
#[test]
fn split_inexact_launches_called_from_eight_threads_match_one_thread() {
    let text = "func @split(%x: f32[1024,1024]) -> (f32[1024,1024], f32[1024]) {
  %t: f32[1024,1024] = tanh(%x)
  %e: f32[1024,1024] = exp(%t)
  %s: f32[1024] = reduce_sum[axes=[1]](%e)
  return %t, %s
}
";
    called_from_eight_threads(text, vec![f32_values(&[1024, 1024], 3)], &[]);
}

/// Full reductions of 100,003 elements (more than 2·16,384, `kernel/chunked.rs`): fixed
/// chunks reduced on the pool, then combined in chunk order, so the bits do not depend
/// on the threads or on concurrent callers. Max, min and i32 sums are exact; the f32
/// sum is compared with the one-thread executable only (its order is the chunks').
#[test]
fn chunked_full_reductions_called_from_eight_threads_match_one_thread() {
    let n = 100_003;
    let text = format!(
        "func @full(%x: f32[{n}], %k: i32[{n}]) -> (f32[], f32[], f32[], i32[], i32[]) {{
  %s: f32[] = reduce_sum[axes=[0]](%x)
  %hi: f32[] = reduce_max[axes=[0]](%x)
  %lo: f32[] = reduce_min[axes=[0]](%x)
  %t: i32[] = reduce_sum[axes=[0]](%k)
  %u: i32[] = reduce_max[axes=[0]](%k)
  return %s, %hi, %lo, %t, %u
}}
"
    );
    called_from_eight_threads(&text, vec![f32_values(&[n], 4), i32_values(&[n], 5)], &[1, 2, 3, 4]);
}

/// A chunked full reduction of a 2-D operand (cut along its first axis), the shape of
/// a loss over a batch: 256×200 f32 (51,200 elements), with an elementwise prologue.
#[test]
fn chunked_matrix_reductions_called_from_eight_threads_match_one_thread() {
    let text = "func @loss(%x: f32[256,200], %y: f32[256,200]) -> (f32[], f32[]) {
  %d: f32[256,200] = sub(%x, %y)
  %a: f32[256,200] = abs(%d)
  %s: f32[] = reduce_sum[axes=[0,1]](%a)
  %m: f32[] = reduce_max[axes=[0,1]](%a)
  return %s, %m
}
";
    called_from_eight_threads(text, vec![f32_values(&[256, 200], 6), f32_values(&[256, 200], 7)], &[1]);
}
