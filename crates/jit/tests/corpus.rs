//! Every Func with `; run` inputs in the `ir/` corpus, and the jvp, vjp (grad) and
//! vmap programs of `ir/{jvp,vjp,vmap,opt}`, run under the JIT and agree with the
//! interpreter under the exactness policy (`ferrax_jit::policy`).

use ferrax_ir::{Array, EvalOptions, Module};
use ferrax_jit::{JitOptions, compile_func, policy};
use std::path::PathBuf;

/// Loops on random inputs may not end: both backends stop after this many iterations.
const FUEL: u64 = 2000;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ir")
}

/// Draws arguments for every parameter of `func` (deterministic, small values).
fn args_for(module: &Module, func: &str, seed: u64) -> Vec<Array> {
    let mut rng = ferrax_ir::testing::Rng::new(seed);
    module.func(func).map(|f| ferrax_ir::testing::random_inputs(f, &mut rng, false)).unwrap_or_default()
}

/// Runs `func` on both backends; returns a description of a disagreement.
fn compare(module: &Module, func: &str, args: &[Array]) -> Result<bool, String> {
    let expected = ferrax_ir::eval(module, func, args, &EvalOptions { fuel: Some(FUEL), ..EvalOptions::default() });
    let exe = compile_func(module, func, &JitOptions { fuel: Some(FUEL), ..JitOptions::default() })
        .map_err(|e| format!("compile: {e}"))?;
    let actual = exe.call(args);
    match (expected, actual) {
        (Ok(e), Ok(a)) => {
            policy::agree_for(module, func, args, &e, &a)?;
            Ok(true)
        }
        (Err(_), Err(_)) => Ok(false),
        (Ok(_), Err(e)) => Err(format!("the JIT failed where the interpreter did not: {e}")),
        // Fusion never materialises a view (a huge broadcast read at one element), so the
        // JIT may stay within an allocation budget the interpreter exceeds.
        (Err(e), Ok(_)) if e.to_string().contains("allocation budget") => Ok(false),
        (Err(e), Ok(_)) => Err(format!("the JIT succeeded where the interpreter failed: {e}")),
    }
}

#[test]
fn every_corpus_func_agrees_with_the_interpreter() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for dir in ["eval", "jvp", "vjp", "vmap", "opt", "fuse"] {
        let mut paths: Vec<_> = std::fs::read_dir(corpus().join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "fx")) {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(module) = ferrax_ir::parse(&text) else { continue };
            if ferrax_ir::verify(&module).is_err() {
                continue;
            }
            for name in module.funcs.keys() {
                let args = args_for(&module, name, 7);
                let t = std::time::Instant::now();
                match compare(&module, name, &args) {
                    Ok(true) => ran += 1,
                    Ok(false) => {}
                    Err(e) => failures.push(format!("{}: @{name}: {e}", path.display())),
                }
                if t.elapsed().as_secs() > 2 {
                    eprintln!("slow: {} @{name} {:?}", path.display(), t.elapsed());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of the corpus Funcs disagree:\n{}", failures.len(), failures.join("\n"));
    assert!(ran > 100, "only {ran} Funcs ran");
}

/// `module` with Func `name` moved first (the entry transforms act on).
fn with_entry(module: &Module, name: &str) -> Module {
    let mut out = Module::new();
    out.push(module.funcs[name].clone());
    for f in module.funcs.values().filter(|f| f.name != name) {
        out.push(f.clone());
    }
    out
}

#[test]
fn transforms_of_corpus_funcs_agree_with_the_interpreter() {
    use ferrax_transform::{Wrt, grad, hvp, jvp, vmap};
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut paths: Vec<_> = std::fs::read_dir(corpus().join("eval")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "fx")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(module) = ferrax_ir::parse(&text) else { continue };
        if ferrax_ir::verify(&module).is_err() {
            continue;
        }
        for name in module.funcs.keys() {
            let m = with_entry(&module, name);
            let n = m.funcs[0].params.len();
            let transformed = [
                ("jvp", jvp(&m, &Wrt::Default)),
                ("grad", grad(&m, &Wrt::Default, false)),
                ("hvp", hvp(&m, &Wrt::Default)),
                ("vmap", vmap(&m, &vec![Some(0); n], &vec![0; m.funcs[0].results.len()], 3)),
            ];
            for (pass, t) in transformed {
                let Ok(t) = t else { continue };
                let entry = t.funcs[0].name.clone();
                let args = args_for(&t, &entry, 11);
                match compare(&t, &entry, &args) {
                    Ok(true) => ran += 1,
                    Ok(false) => {}
                    Err(e) => failures.push(format!("{}: {pass} of @{name}: {e}", path.display())),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} transformed Funcs disagree:\n{}", failures.len(), failures.join("\n"));
    assert!(ran > 100, "only {ran} transformed Funcs ran");
}
