//! Fuzzing on stable Rust with a bounded budget: a seeded, reproducible loop (the
//! generator's `Rng`, no fuzzing framework needed) feeds damaged input to
//!
//! - the parser: random bytes over the IR alphabet, and valid IR text (generated
//!   modules and the `ir/` corpus) damaged by `mutate_text` and by number swaps
//!   (0, -1, huge, NaN, ...);
//! - the verifier: parsed-but-ill-typed modules (types, operands and results changed
//!   in the data structure, operands out of range included);
//! - the `.npy` and `.npz` readers: truncated files, lying headers, huge shapes, bad
//!   dtypes, random bytes;
//! - the pipeline parse → verify → jvp, vjp, vmap, opt, fuse → JIT compile → run on
//!   whatever parses and verifies, with a small allocation budget and fuel.
//!
//! Every input runs under `catch_unwind`; a panic fails the test with the input
//! printed (`{:?}`), ready to save under `ir/fuzz/` (replayed by
//! `fuzz_regressions_replay_without_panics`). Each target runs on a thread with the
//! default 2 MiB stack, and a watchdog fails the test (naming the input) when one
//! input takes over a minute. Cases: `FERRAX_CASES` (default below), first seed
//! `FERRAX_SEED`.

use crate::support::{eval_options, jit_options, no_panic};
use ferrax_ir::array::{Array, Budget, npy, npz};
use ferrax_ir::testing::{GenConfig, Rng, cases, first_seed, mutate_text, random_inputs, random_module};
use ferrax_ir::{DType, Module, Type, Value, parse, print, verify};
use ferrax_transform::{Wrt, jvp, opt, vjp, vmap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest one input may take before the watchdog calls it a hang.
const HANG: Duration = Duration::from_secs(60);

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ir")
}

/// The `.fx` texts of the corpus (parse, eval, vjp, ... and the fuzz regressions).
fn corpus_texts() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["parse", "eval", "verify", "jvp", "vjp", "vmap", "opt", "fuse", "fuzz"] {
        let Ok(entries) = std::fs::read_dir(corpus_dir().join(dir)) else { continue };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("a directory entry").path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "fx")) {
            out.push(std::fs::read_to_string(&path).expect("a readable corpus file"));
        }
    }
    out
}

/// Runs `body(seed, current)` for every seed on a thread with the default stack; the
/// body stores the input it is working on in `current` so a hang or panic names it.
fn fuzz(name: &str, default_cases: usize, body: fn(u64, &Mutex<String>) -> Result<(), String>) {
    let current = Arc::new(Mutex::new(String::new()));
    let first = first_seed();
    let n = cases(default_cases) as u64;
    let progress = Arc::new(Mutex::new((0u64, Instant::now())));
    let worker = {
        let (current, progress) = (current.clone(), progress.clone());
        std::thread::Builder::new()
            .name(format!("fuzz {name}"))
            .stack_size(2 << 20)
            .spawn(move || -> Result<(), String> {
                for seed in first..first + n {
                    *progress.lock().unwrap() = (seed, Instant::now());
                    match no_panic(|| body(seed, &current)) {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => return Err(format!("seed {seed}: {e}")),
                        Err(panic) => {
                            let input = current.lock().map(|s| s.clone()).unwrap_or_default();
                            return Err(format!("seed {seed}: panic: {panic}\ninput: {input:?}"));
                        }
                    }
                }
                Ok(())
            })
            .expect("a thread")
    };
    while !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(50));
        let (seed, since) = *progress.lock().unwrap();
        if since.elapsed() > HANG {
            let input = current.lock().map(|s| s.clone()).unwrap_or_default();
            panic!("{name}: seed {seed} runs for over {HANG:?} (a hang?)\ninput: {input:?}");
        }
    }
    match worker.join() {
        Ok(Ok(())) => eprintln!("{name}: {n} inputs, no panic"),
        Ok(Err(e)) => panic!("{name}: {e}"),
        Err(_) => panic!("{name}: the worker thread died (stack overflow is an abort, so this was a panic)"),
    }
}

/// Replaces a number in `text` by an awkward one.
fn swap_number(text: &str, rng: &mut Rng) -> String {
    let digits: Vec<usize> = text.char_indices().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
    if digits.is_empty() {
        return text.to_string();
    }
    let start = rng.pick(&digits);
    let end = text[start..].find(|c: char| !c.is_ascii_digit()).map_or(text.len(), |e| start + e);
    let new = rng.pick(&[
        "0",
        "1",
        "-1",
        "2",
        "255",
        "65536",
        "2147483647",
        "-2147483648",
        "4294967296",
        "99999999999999999999999",
        "1e308",
        "nan",
        "-0.0",
        "3",
    ]);
    format!("{}{new}{}", &text[..start], &text[end..])
}

/// A damaged IR text: a generated module or a corpus file, mutated.
fn damaged_text(seed: u64, corpus: &[String]) -> String {
    let mut rng = Rng::new(seed);
    let base = if rng.chance(50) || corpus.is_empty() {
        print(&random_module(seed, &GenConfig::default()))
    } else {
        corpus[rng.below(corpus.len())].clone()
    };
    let mut text = base;
    for _ in 0..1 + rng.below(3) {
        text = if rng.chance(40) { swap_number(&text, &mut rng) } else { mutate_text(&text, &mut rng) };
    }
    text
}

/// Random bytes drawn mostly from the IR's alphabet.
fn random_text(rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"func @%:()[]{},=->\"\n 0123456789.-abcdefxyz_f32f64i32bool return call cond while scan";
    let n = rng.below(200);
    let bytes: Vec<u8> =
        (0..n).map(|_| if rng.chance(90) { rng.pick(ALPHABET) } else { rng.next_u64() as u8 }).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

thread_local! {
    static CORPUS: Vec<String> = corpus_texts();
}

/// Parses `text`; on success verifies it, and when it verifies runs the pipeline.
fn parse_verify_pipeline(text: &str, seed: u64, pipeline: bool) -> Result<(), String> {
    let Ok(module) = parse(text) else { return Ok(()) };
    if verify(&module).is_err() || !pipeline {
        return Ok(());
    }
    run_pipeline(&module, seed)
}

/// Transforms `module` every way and runs what comes out on the JIT and the
/// interpreter; errors are fine, results that do not verify are not.
fn run_pipeline(module: &Module, seed: u64) -> Result<(), String> {
    let Some(entry) = module.entry() else { return Ok(()) };
    let n_params = entry.params.len();
    let n_results = entry.results.len();
    let mut programs = vec![module.clone()];
    let transformed = [
        jvp(module, &Wrt::Default),
        vjp(module, &Wrt::Default),
        vmap(module, &vec![Some(0); n_params], &vec![0; n_results], 2),
        opt(module),
        ferrax_fuse::fuse(module),
    ];
    for t in transformed.into_iter().flatten() {
        verify(&t).map_err(|e| format!("a transform's result does not verify: {e}\n{}", print(&t)))?;
        programs.push(t);
    }
    let mut rng = Rng::new(seed);
    for p in &programs {
        let Some(f) = p.entry() else { continue };
        // Random arguments only when they are small (a huge declared shape is for the
        // budget checks of compile and call, not for this process's memory).
        let small = f.param_types().iter().all(|t| t.element_count().is_some_and(|n| n <= 1 << 16));
        let args = if small { random_inputs(f, &mut rng, true) } else { Vec::new() };
        let _ = ferrax_ir::eval_entry(p, &args, &eval_options());
        if let Ok(exe) = ferrax_jit::compile(p, &jit_options()) {
            let _ = exe.call(&args);
        }
    }
    Ok(())
}

#[test]
fn parser_survives_random_and_damaged_text() {
    fuzz("parser", 3000, |seed, current| {
        let mut rng = Rng::new(seed);
        let text = if rng.chance(30) { random_text(&mut rng) } else { CORPUS.with(|c| damaged_text(seed, c)) };
        *current.lock().unwrap() = text.clone();
        parse_verify_pipeline(&text, seed, false)
    });
}

#[test]
fn pipeline_survives_damaged_programs() {
    fuzz("pipeline", 400, |seed, current| {
        // Damage until something parses and verifies (at most 20 tries).
        for attempt in 0..20u64 {
            let s = seed.wrapping_mul(20).wrapping_add(attempt);
            let text = CORPUS.with(|c| damaged_text(s, c));
            let Ok(module) = parse(&text) else { continue };
            if verify(&module).is_err() {
                continue;
            }
            *current.lock().unwrap() = text;
            return run_pipeline(&module, s);
        }
        Ok(())
    });
}

/// An ill-typed variant of a generated module, changed in the data structure.
fn ill_typed(seed: u64) -> Module {
    let mut rng = Rng::new(seed);
    let mut module = random_module(seed, &GenConfig::default());
    let n_funcs = module.funcs.len();
    let func = &mut module.funcs[rng.below(n_funcs)];
    let n_values = func.value_types.len() as u32;
    for _ in 0..1 + rng.below(2) {
        match rng.below(6) {
            0 if n_values > 0 => {
                let v = rng.below(n_values as usize);
                let dtype = rng.pick(&DType::ALL);
                let rank = rng.below(3);
                func.value_types[v] = Type::new(dtype, &vec![rng.below(4); rank]);
            }
            1 if !func.eqns.is_empty() => {
                let k = rng.below(func.eqns.len());
                if !func.eqns[k].inputs.is_empty() {
                    let i = rng.below(func.eqns[k].inputs.len());
                    // Sometimes past the last value.
                    func.eqns[k].inputs[i] = Value(rng.below(n_values as usize + 3) as u32);
                }
            }
            2 if !func.eqns.is_empty() => {
                let k = rng.below(func.eqns.len());
                func.eqns[k].inputs.pop();
            }
            3 if !func.results.is_empty() => {
                func.result_types.pop();
            }
            4 if !func.eqns.is_empty() => {
                let (a, b) = (rng.below(func.eqns.len()), rng.below(func.eqns.len()));
                func.eqns.swap(a, b);
            }
            _ => {
                func.params.push(Value(n_values + rng.below(3) as u32));
            }
        }
    }
    module
}

#[test]
fn verifier_survives_ill_typed_modules() {
    fuzz("verifier", 3000, |seed, current| {
        let module = ill_typed(seed);
        *current.lock().unwrap() = format!("{module:?}");
        let _ = no_panic(|| print(&module)).map_err(|e| format!("print panics: {e}"))?;
        if verify(&module).is_ok() {
            // A change that kept the module well typed: it must run like any other.
            run_pipeline(&module, seed)?;
        }
        Ok(())
    });
}

/// A damaged `.npy` file.
fn damaged_npy(rng: &mut Rng) -> Vec<u8> {
    let array = match rng.below(4) {
        0 => Array::from_f32(&[2, 3], vec![1.0; 6]),
        1 => Array::from_f64(&[4], vec![0.5; 4]),
        2 => Array::from_i32(&[3, 1], vec![7; 3]),
        _ => Array::from_bool(&[2], vec![true, false]),
    }
    .expect("a valid array");
    let mut bytes = npy::write(&array);
    match rng.below(6) {
        0 => bytes.truncate(rng.below(bytes.len())),
        1 => {
            let header_end = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
            let header = String::from_utf8_lossy(&bytes[..header_end]).into_owned();
            let lie = rng.pick(&[
                "(99999999999, 99999999999)",
                "(4611686018427387904,)",
                "(-1, 3)",
                "(0,)",
                "()",
                "(3, 2, 1, 1, 1, 1)",
                "(18446744073709551615,)",
                "(2,",
            ]);
            let start = header.find("'shape': ").map_or(0, |i| i + 9);
            let end = header[start..].find(')').map_or(header.len(), |e| start + e + 1);
            let mut new = format!("{}{lie}{}", &header[..start], &header[end..]).into_bytes();
            new.extend_from_slice(&bytes[header_end..]);
            bytes = new;
        }
        2 => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let dtype = rng.pick(&["'>f4'", "'<f2'", "'|O'", "'<c16'", "'<i8'", "''", "'<U3'", "'|b1'"]);
            let replaced = ["'<f4'", "'<f8'", "'<i4'", "'|b1'"].iter().fold(text, |t, d| t.replace(d, dtype));
            bytes = replaced.into_bytes();
        }
        3 if bytes.len() > 10 => {
            // The header length field.
            let (a, b) = (rng.next_u64() as u8, rng.next_u64() as u8);
            bytes[8] = a;
            bytes[9] = b;
            if rng.chance(30) {
                bytes[6] = rng.pick(&[2, 3, 4, 0]);
            }
        }
        4 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next_u64() as u8;
            }
        }
        _ => bytes = (0..rng.below(64)).map(|_| rng.next_u64() as u8).collect(),
    }
    bytes
}

#[test]
fn npy_and_npz_readers_survive_damaged_files() {
    fuzz("npy", 5000, |seed, current| {
        let mut rng = Rng::new(seed);
        let bytes = damaged_npy(&mut rng);
        *current.lock().unwrap() = format!("{bytes:?}");
        let budget = Budget::new(1 << 20);
        if let Ok(a) = npy::read(&bytes, &budget)
            && a.byte_len() > 1 << 20
        {
            return Err(format!("read {} bytes past a budget of 1 MiB", a.byte_len()));
        }
        // The same bytes as an entry of an .npz archive, and the archive damaged.
        let good = Array::from_f32(&[2], vec![1.0, 2.0]).expect("valid");
        let mut archive = npz::write(&[("a", &good)]).map_err(|e| e.to_string())?;
        if rng.chance(50) {
            let at = rng.below(archive.len());
            archive.truncate(at.max(1));
        } else {
            for _ in 0..1 + rng.below(6) {
                let at = rng.below(archive.len());
                archive[at] = rng.next_u64() as u8;
            }
        }
        let _ = npz::read(&archive, &budget);
        Ok(())
    });
}

/// Inputs that once crashed something (`ir/fuzz/*.fx`) run through the whole pipeline
/// without a panic.
#[test]
fn fuzz_regressions_replay_without_panics() {
    let dir = corpus_dir().join("fuzz");
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|d| d.map(|e| e.expect("an entry").path()).collect()).unwrap_or_default();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "fx")) {
        let text = std::fs::read_to_string(path).expect("readable");
        let started = Instant::now();
        no_panic(|| parse_verify_pipeline(&text, 1, true))
            .unwrap_or_else(|e| panic!("{}: panic: {e}", path.display()))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(started.elapsed() < HANG, "{}: takes {:?}", path.display(), started.elapsed());
        // Where the module verifies, the JIT agrees with the interpreter.
        if let Ok(module) = parse(&text)
            && verify(&module).is_ok()
        {
            for seed in 0..4 {
                let mut rng = Rng::new(seed);
                let args = random_inputs(module.entry().expect("an entry"), &mut rng, true);
                crate::support::jit_vs_interpreter(&module, &args)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }
    assert!(paths.len() >= 3, "the regressions in {} are missing", dir.display());
}
