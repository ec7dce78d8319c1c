//! Concurrency (DESIGN section 7, "Threads"): compiled functions are `Send + Sync`
//! and calls from many threads at once give the sequential results, on several
//! generated programs; compiling from 8 threads at once (different and identical
//! modules) is safe and deterministic; `JitCache` stays bounded under concurrent
//! lookups and accounts for every one (hits + misses, each miss with its reason).

mod support;

use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{Array, Module, parse};
use ferrax_jit::{Executable, JitCache, JitOptions, Miss, compile};
use std::sync::Arc;
use support::{jit_options, same_bits};

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
