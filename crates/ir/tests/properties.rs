//! Property tests on generated modules (the `testing` generator): print/parse round
//! trip, the verifier accepts them, the interpreter runs them, and damaged text never
//! makes parse, verify or the interpreter panic. A failure prints the seed and the
//! module as IR text, ready to paste into the `ir/` corpus.
//!
//! `FERRAX_PROPTEST_CASES` sets the number of seeds (default 300) and
//! `FERRAX_GEN_SCALE` the size of the modules, for long soak runs.

use ferrax_ir::testing::{GenConfig, Rng, mutate_text, random_inputs, random_module};
use ferrax_ir::{EvalOptions, array::Budget};
use std::panic::{AssertUnwindSafe, catch_unwind};

fn cases() -> u64 {
    std::env::var("FERRAX_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(300)
}

fn limits() -> EvalOptions {
    EvalOptions { budget: Budget::new(64 << 20), fuel: Some(100_000), ..Default::default() }
}

fn is_limit(error: &ferrax_ir::Error) -> bool {
    let text = error.to_string();
    text.contains("out of fuel") || text.contains("allocation budget")
}

/// Runs `check` and turns a panic into a report naming the seed and the text.
fn no_panic(seed: u64, text: &str, check: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(check)).is_err() {
        panic!("seed {seed} panicked on this module:\n{text}");
    }
}

#[test]
fn generated_modules_round_trip_verify_and_run() {
    let config = GenConfig::from_env();
    for seed in 0..cases() {
        let module = random_module(seed, &config);
        let text = ferrax_ir::print(&module);
        ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let parsed = ferrax_ir::parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(format!("{parsed:?}"), format!("{module:?}"), "seed {seed}: parse(print(m)) != m\n{text}");
        assert_eq!(ferrax_ir::print(&parsed), text, "seed {seed}: printing is not a fixed point");
        let entry = module.entry().expect("an entry Func");
        let inputs = random_inputs(entry, &mut Rng::new(seed), true);
        no_panic(seed, &text, || {
            let outputs = match ferrax_ir::eval_entry(&module, &inputs, &limits()) {
                Ok(outputs) => outputs,
                // Nested loops of large generated modules may hit the limits: that is the
                // limits working, not a failure.
                Err(e) if is_limit(&e) => return,
                Err(e) => panic!("seed {seed}: a generated module failed to run: {e}\n{text}"),
            };
            assert_eq!(outputs.len(), entry.results.len());
            for (output, ty) in outputs.iter().zip(&entry.result_types) {
                assert_eq!((output.dtype(), output.shape()), (ty.dtype, ty.shape.as_slice()), "seed {seed}");
            }
        });
    }
}

#[test]
fn damaged_text_never_panics() {
    let config = GenConfig::from_env();
    for seed in 0..cases() {
        let text = ferrax_ir::print(&random_module(seed, &config));
        let mut rng = Rng::new(seed.wrapping_mul(31).wrapping_add(7));
        for _ in 0..4 {
            let damaged = mutate_text(&text, &mut rng);
            no_panic(seed, &damaged, || {
                let Ok(module) = ferrax_ir::parse(&damaged) else { return };
                if ferrax_ir::verify(&module).is_err() {
                    return;
                }
                if let Some(entry) = module.entry() {
                    let inputs = random_inputs(entry, &mut Rng::new(seed), true);
                    let _ = ferrax_ir::eval_entry(&module, &inputs, &limits());
                }
            });
        }
    }
}

#[test]
fn arbitrary_bytes_never_panic_the_parser() {
    let mut rng = Rng::new(42);
    for case in 0..2000u64 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        no_panic(case, &text, || {
            let _ = ferrax_ir::parse(&text);
        });
    }
}
