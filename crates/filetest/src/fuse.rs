//! The `fuse` subtest: the canonical text of the fused module (kernels and schedule),
//! a check that it keeps the kernel contract, and a check that it computes
//! bit-identical results (NaN payloads aside) to the original.
//!
//! A file holds a module; after its entry Func, a `; fuse:` line starts a block holding
//! the canonical text of `ferrax_fuse::fuse(module)`, one `; `-prefixed line each, a
//! blank line as `;`. An optional `; launches: N` line states the number of launches of
//! the fused entry. Optional `; in: TYPE = [values]` lines give the arguments of one
//! run; the modules are also run on drawn and on special-valued arguments.
//! [`check_fuse_on_corpus`] applies the checks to every Func of the corpus and to its
//! `jvp`, `vjp`, `grad`, `hvp` and `vmap`, fused directly and after `opt`.

use crate::ad::{SplitMix, draw};
use crate::eval::parse_array;
use crate::expect::{directive, func_before, is_comment};
use crate::opt::{expect_block, same_on_runs, same_results, special};
use ferrax_array::Array;
use ferrax_ir::Module;

/// Checks a file; returns the blessed text when asked to and the block changed.
pub(crate) fn check(text: &str, bless: bool) -> Result<Option<String>, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{e}"))?;
    ferrax_ir::verify(&module).map_err(|e| format!(" {e}"))?;
    let entry = module.entry().ok_or(" has no Func")?;
    let lines: Vec<&str> = text.lines().collect();
    let (block, inputs, launches) = collect(&lines)?;
    let at = block.0 + 1;
    if func_before(&module, &spans, at).as_deref() != Some(entry.name.as_str()) {
        return Err(format!("{at}: the '; fuse:' block must follow the entry Func @{}", entry.name));
    }
    let fused = ferrax_fuse::fuse(&module).map_err(|e| format!("{at}: fuse fails: {e}"))?;
    let actual = ferrax_ir::print(&fused);
    let reparsed = ferrax_ir::parse(&actual).map_err(|e| format!("{at}: the printed module does not parse: {e}"))?;
    ferrax_fuse::check_schedule(&reparsed).map_err(|e| format!("{at}: the fused module breaks the contract: {e}"))?;
    if let Some((line, want)) = launches {
        let got = ferrax_fuse::kernel_count(&fused);
        if got != want {
            return Err(format!("{line}: {got} launches, the file states {want}"));
        }
    }
    same_on_runs(at, &module, &fused, 0xF05E, inputs)?;
    expect_block(at, &lines, block, &actual, &format!("the fused @{}", entry.name), bless)
}

/// The block's line range, the `; in:` arguments and the `; launches:` line.
fn collect(lines: &[&str]) -> Result<((usize, usize), Vec<Array>, Option<(usize, usize)>), String> {
    let mut block = None;
    let mut inputs = Vec::new();
    let mut launches = None;
    let mut i = 0;
    while i < lines.len() {
        let n = i + 1;
        if let Some(rest) = directive(lines[i], "fuse:") {
            if block.is_some() {
                return Err(format!("{n}: a second '; fuse:' block (a file has one)"));
            }
            if !rest.is_empty() {
                return Err(format!("{n}: nothing may follow '; fuse:' on its line"));
            }
            i += 1;
            while i < lines.len()
                && is_comment(lines[i])
                && directive(lines[i], "in:").is_none()
                && directive(lines[i], "launches:").is_none()
            {
                i += 1;
            }
            block = Some((n - 1, i));
            continue;
        }
        if let Some(value) = directive(lines[i], "in:") {
            inputs.push(parse_array(value).map_err(|e| format!("{n}: {e}"))?);
        }
        if let Some(value) = directive(lines[i], "launches:") {
            let count = value.trim().parse().map_err(|_| format!("{n}: '; launches:' needs a number"))?;
            launches = Some((n, count));
        }
        i += 1;
    }
    let block =
        block.ok_or(" has no '; fuse:' block (put a '; fuse:' line after the entry Func; FERRAX_BLESS=1 fills it)")?;
    Ok((block, inputs, launches))
}

/// Runs `fuse` (directly, and after `opt`) on every Func of the well-formed corpus
/// files (each Func in turn as the entry) and on its `jvp`, `vjp`, `grad`, `hvp` and
/// `vmap` (every parameter batched on axis 0, batch 2) where they apply; checks that
/// the fused module keeps the kernel contract and gives bit-identical results on drawn
/// and special-valued arguments. Returns the number of modules checked.
pub fn check_fuse_on_corpus() -> Result<usize, String> {
    let mut count = 0;
    let mut failures = Vec::new();
    for dir in ["eval", "jvp", "vjp", "vmap", "opt", "fuse"] {
        let dir = crate::corpus_dir().join(dir);
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut paths: Vec<std::path::PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.retain(|p| p.extension().is_some_and(|e| e == "fx"));
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let Ok(module) = ferrax_ir::parse(&text) else { continue };
            if ferrax_ir::verify(&module).is_err() {
                continue;
            }
            for name in module.funcs.keys() {
                let mut reordered = Module::new();
                reordered.push(module.funcs[name].clone());
                for func in module.funcs.values().filter(|f| &f.name != name) {
                    reordered.push(func.clone());
                }
                for (k, variant) in variants(&reordered).into_iter().enumerate() {
                    let Some(variant) = variant else { continue };
                    count += 1;
                    if let Err(e) = fuse_keeps_results(&variant) {
                        failures.push(format!("{}: @{name} (variant {k}): {e}", path.display()));
                    }
                }
            }
        }
    }
    if failures.is_empty() { Ok(count) } else { Err(failures.join("\n")) }
}

/// The module itself, its `jvp`, `vjp`, `grad`, `hvp` and `vmap`, where they apply.
fn variants(module: &Module) -> Vec<Option<Module>> {
    let wrt = ferrax_transform::Wrt::Default;
    let entry = module.entry();
    let n_params = entry.map_or(0, |f| f.params.len());
    let n_results = entry.map_or(0, |f| f.results.len());
    vec![
        Some(module.clone()),
        ferrax_transform::jvp(module, &wrt).ok(),
        ferrax_transform::vjp(module, &wrt).ok(),
        ferrax_transform::grad(module, &wrt, false).ok(),
        ferrax_transform::hvp(module, &wrt).ok(),
        ferrax_transform::vmap(module, &vec![Some(0); n_params], &vec![0; n_results], 2).ok(),
    ]
}

/// `fuse(module)` and `fuse(opt(module))` keep the contract and the results.
pub fn fuse_keeps_results(module: &Module) -> Result<(), String> {
    let fused = ferrax_fuse::fuse(module).map_err(|e| format!("fuse fails: {e}"))?;
    ferrax_fuse::check_schedule(&fused).map_err(|e| format!("the fused module breaks the contract: {e}"))?;
    let optimised = ferrax_transform::opt(module).map_err(|e| format!("opt fails: {e}"))?;
    let opt_fused = ferrax_fuse::fuse(&optimised).map_err(|e| format!("fuse after opt fails: {e}"))?;
    ferrax_fuse::check_schedule(&opt_fused).map_err(|e| format!("opt + fuse breaks the contract: {e}"))?;
    let types = module.entry().ok_or("no entry")?.param_types();
    let drawn: Vec<Array> = types.iter().map(|t| draw(t, &mut SplitMix(0xF0_5E))).collect();
    let special: Vec<Array> = types.iter().map(special).collect();
    for args in [&drawn, &special] {
        same_results(module, &fused, args)?;
        same_results(&optimised, &opt_fused, args).map_err(|e| format!("after opt: {e}"))?;
    }
    Ok(())
}
