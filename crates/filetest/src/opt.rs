//! The `opt` subtest: the canonical text of the optimised module, and a check that it
//! computes bit-identical results (NaN payloads aside) to the original.
//!
//! A file holds a module; after its entry Func, a `; opt:` line starts a block holding
//! the canonical text of `ferrax_transform::opt(module)`, one `; `-prefixed line each,
//! a blank line as `;`. Optional `; in: TYPE = [values]` lines give the arguments of
//! one run; the modules are also run on arguments drawn deterministically and on
//! arguments made of special values (signed zeros, infinities, NaN, `i32` extremes).

use crate::ad::{SplitMix, draw, uncomment};
use crate::eval::parse_array;
use crate::expect::{directive, func_before, is_comment};
use ferrax_array::{Array, DType, Data};
use ferrax_ir::{EvalOptions, Module, Type};

/// Checks a file; returns the blessed text when asked to and the block changed.
pub(crate) fn check(text: &str, bless: bool) -> Result<Option<String>, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{e}"))?;
    ferrax_ir::verify(&module).map_err(|e| format!(" {e}"))?;
    let entry = module.entry().ok_or(" has no Func")?;
    let lines: Vec<&str> = text.lines().collect();
    let (block, inputs) = collect(&lines)?;
    let at = block.0 + 1;
    if func_before(&module, &spans, at).as_deref() != Some(entry.name.as_str()) {
        return Err(format!("{at}: the '; opt:' block must follow the entry Func @{}", entry.name));
    }
    let optimised = ferrax_transform::opt(&module).map_err(|e| format!("{at}: opt fails: {e}"))?;
    let actual = ferrax_ir::print(&optimised);
    let reparsed = ferrax_ir::parse(&actual).map_err(|e| format!("{at}: the printed module does not parse: {e}"))?;
    ferrax_ir::verify(&reparsed).map_err(|e| format!("{at}: the printed module does not verify: {e}"))?;
    same_on_runs(at, &module, &optimised, 0x0B7_5EED, inputs)?;
    expect_block(at, &lines, block, &actual, &format!("the optimised @{}", entry.name), bless)
}

/// Runs `before` and `after` on arguments drawn from `seed`, on special values and on
/// the file's `; in:` arguments (if any); an error names the first run that differs.
pub(crate) fn same_on_runs(
    at: usize,
    before: &Module,
    after: &Module,
    seed: u64,
    inputs: Vec<Array>,
) -> Result<(), String> {
    let types = before.entry().ok_or(" has no Func")?.param_types();
    let mut runs = vec![
        types.iter().map(|t| draw(t, &mut SplitMix(seed))).collect::<Vec<_>>(),
        types.iter().map(special).collect(),
    ];
    if !inputs.is_empty() {
        runs.push(inputs);
    }
    for (k, args) in runs.iter().enumerate() {
        same_results(before, after, args).map_err(|e| format!("{at}: run {k}: {e}"))?;
    }
    Ok(())
}

/// Compares `actual` with the expected block `block` of `lines`; with `bless`, returns
/// the file's text with the block replaced instead of an error naming `what`.
pub(crate) fn expect_block(
    at: usize,
    lines: &[&str],
    block: (usize, usize),
    actual: &str,
    what: &str,
    bless: bool,
) -> Result<Option<String>, String> {
    let expected: String = lines[block.0 + 1..block.1].iter().map(|l| format!("{}\n", uncomment(l))).collect();
    if actual.trim_end() == expected.trim_end() {
        return Ok(None);
    }
    if !bless {
        return Err(format!("{at}: {what} differs:\n{}", crate::diff(&expected, actual)));
    }
    let (start, end) = block;
    let mut blessed: Vec<String> = lines[..=start].iter().map(|l| l.to_string()).collect();
    blessed.extend(actual.trim_end().lines().map(|l| if l.is_empty() { ";".to_string() } else { format!("; {l}") }));
    blessed.extend(lines[end..].iter().map(|l| l.to_string()));
    Ok(Some(format!("{}\n", blessed.join("\n"))))
}

/// The block's line range and the `; in:` arguments.
fn collect(lines: &[&str]) -> Result<((usize, usize), Vec<Array>), String> {
    let mut block = None;
    let mut inputs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let n = i + 1;
        if let Some(rest) = directive(lines[i], "opt:") {
            if block.is_some() {
                return Err(format!("{n}: a second '; opt:' block (a file has one)"));
            }
            if !rest.is_empty() {
                return Err(format!("{n}: nothing may follow '; opt:' on its line"));
            }
            i += 1;
            while i < lines.len() && is_comment(lines[i]) && directive(lines[i], "in:").is_none() {
                i += 1;
            }
            block = Some((n - 1, i));
            continue;
        }
        if let Some(value) = directive(lines[i], "in:") {
            inputs.push(parse_array(value).map_err(|e| format!("{n}: {e}"))?);
        }
        i += 1;
    }
    let block =
        block.ok_or(" has no '; opt:' block (put a '; opt:' line after the entry Func; FERRAX_BLESS=1 fills it)")?;
    Ok((block, inputs))
}

/// An argument of type `t` cycling through special values.
pub(crate) fn special(t: &Type) -> Array {
    const FLOATS: [f64; 8] = [-0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0, -2.5, 1e300];
    const INTS: [i32; 5] = [0, 1, -1, i32::MIN, i32::MAX];
    let n: usize = t.shape.iter().product();
    let data = match t.dtype {
        DType::F32 => Data::F32((0..n).map(|i| FLOATS[i % FLOATS.len()] as f32).collect()),
        DType::F64 => Data::F64((0..n).map(|i| FLOATS[i % FLOATS.len()]).collect()),
        DType::I32 => Data::I32((0..n).map(|i| INTS[i % INTS.len()]).collect()),
        DType::Bool => Data::Bool((0..n).map(|i| i % 2 == 0).collect()),
        DType::BF16 | DType::F16 => {
            Data::from_f64s(t.dtype, &(0..n).map(|i| FLOATS[i % FLOATS.len()]).collect::<Vec<_>>())
        }
    };
    Array::new(t.shape.clone(), data).unwrap_or_else(|_| Array::scalar_f64(0.0))
}

/// Both modules run on `args` with the same outcome: the same bits in every result
/// (any NaN matches any NaN), or both fail.
pub(crate) fn same_results(module: &Module, optimised: &Module, args: &[Array]) -> Result<(), String> {
    // Enough for every terminating loop of the corpus; an unbounded one fails fast.
    let options = EvalOptions { fuel: Some(10_000), ..EvalOptions::default() };
    let want = ferrax_ir::eval_entry(module, args, &options);
    let got = ferrax_ir::eval_entry(optimised, args, &options);
    let (want, got) = match (want, got) {
        (Ok(w), Ok(g)) => (w, g),
        (Err(_), Err(_)) => return Ok(()),
        (Ok(_), Err(e)) => return Err(format!("the optimised module fails: {e}")),
        (Err(e), Ok(_)) => return Err(format!("the original fails ({e}) but the optimised module runs")),
    };
    if want.len() != got.len() {
        return Err(format!("{} results vs {}", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if g.dtype() != w.dtype() || g.shape() != w.shape() {
            return Err(format!("result {k} has another type"));
        }
        let differs = match (g.data(), w.data()) {
            (Data::F32(a), Data::F32(b)) => {
                a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()))
            }
            (Data::F64(a), Data::F64(b)) => {
                a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()))
            }
            (Data::BF16(a), Data::BF16(b)) => {
                a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()))
            }
            (Data::F16(a), Data::F16(b)) => {
                a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()))
            }
            (a, b) => (a != b).then_some(0),
        };
        if let Some(i) = differs {
            return Err(format!(
                "result {k}, element {i}: {} (optimised) vs {} (original)",
                g.format_element(i),
                w.format_element(i)
            ));
        }
    }
    Ok(())
}

/// Runs `opt` on every Func of the well-formed corpus files (each Func in turn as the
/// entry) and on its `jvp`, `vjp`, `grad`, `hvp` and `vmap` (every param batched, size
/// 2) where they apply, and checks that the optimised module gives bit-identical
/// results on drawn and special-valued arguments. Returns the number of modules checked.
pub fn check_opt_on_corpus() -> Result<usize, String> {
    let mut count = 0;
    let mut failures = Vec::new();
    for dir in ["eval", "jvp", "vjp", "vmap", "opt"] {
        let dir = crate::corpus_dir().join(dir);
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut paths: Vec<std::path::PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.retain(|p| p.extension().is_some_and(|e| e == "fx"));
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let Ok(module) = ferrax_ir::parse(&text) else { continue };
            for name in module.funcs.keys() {
                let mut reordered = Module::new();
                reordered.push(module.funcs[name].clone());
                for func in module.funcs.values().filter(|f| &f.name != name) {
                    reordered.push(func.clone());
                }
                let wrt = ferrax_transform::Wrt::Default;
                let batch = vec![Some(0); module.funcs[name].params.len()];
                let variants = [
                    Some(reordered.clone()),
                    ferrax_transform::jvp(&reordered, &wrt).ok(),
                    ferrax_transform::vjp(&reordered, &wrt).ok(),
                    ferrax_transform::grad(&reordered, &wrt, false).ok(),
                    ferrax_transform::hvp(&reordered, &wrt).ok(),
                    ferrax_transform::vmap(&reordered, &batch, &[0], 2).ok(),
                ];
                for (k, variant) in variants.into_iter().flatten().enumerate() {
                    count += 1;
                    if let Err(e) = opt_keeps_results(&variant) {
                        failures.push(format!("{}: @{name} (variant {k}): {e}", path.display()));
                    }
                }
            }
        }
    }
    if failures.is_empty() { Ok(count) } else { Err(failures.join("\n")) }
}

fn opt_keeps_results(module: &Module) -> Result<(), String> {
    let optimised = ferrax_transform::opt(module).map_err(|e| format!("opt fails: {e}"))?;
    let types = module.entry().ok_or("no entry")?.param_types();
    let drawn: Vec<Array> = types.iter().map(|t| draw(t, &mut SplitMix(0xC0_4B05))).collect();
    let special: Vec<Array> = types.iter().map(special).collect();
    same_results(module, &optimised, &drawn)?;
    same_results(module, &optimised, &special)
}
