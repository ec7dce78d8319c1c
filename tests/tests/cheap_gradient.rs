//! The cheap-gradient principle, structurally (DESIGN section 3): after `dce`,
//! `grad(f)` has at most 4n + 12 equations where f has n.
//!
//! Checked for every Func of the `ir/eval` corpus with one float result (summed to a
//! scalar first when it is not one) and a float parameter, and for every case of the
//! autodiff table likewise, differentiating every float parameter. Control flow is
//! included (the equations of the entry are counted, bodies each once, by their own
//! Funcs); modules with an unbounded `while` are skipped and counted, since reverse
//! mode needs `max_iters` there.
//!
//! Known violations are listed in [`OVER_BUDGET`] by primitive, with the reason: a Func
//! over the bound that uses one of them is reported (printed) rather than failed, and
//! an entry that no longer causes a violation fails the test, so the list only shrinks.

use ferrax_ir::{Func, Module};
use ferrax_tests::{summed, table};
use ferrax_transform::{Wrt, dce, grad};
use std::path::Path;

/// Primitives whose derivative alone costs more than the bound's slack, so that a
/// Func using them can exceed 4n + 12, with the reason.
const OVER_BUDGET: [(&str, &str); 1] = [(
    "reduce_prod",
    "the zero-safe rule, exact to second order at zeros, emits about 20 equations for the product of the others",
)];

/// What happened to one Func.
enum Outcome {
    /// Checked: n, and the equations of the gradient.
    Checked(usize, usize),
    /// Over the bound, but it uses these primitives of [`OVER_BUDGET`]: the message.
    Known(Vec<&'static str>, String),
    /// Skipped: it has control flow.
    Control,
    /// Not a candidate: no single float result, or no float parameter.
    NotScalarFloat,
}

/// Checks the bound for the entry of `module`; `Err` says by how much it is broken.
fn check(module: &Module, label: &str) -> Result<Outcome, String> {
    module.entry().ok_or("empty module")?;
    if has_unbounded_while(module) {
        return Ok(Outcome::Control);
    }
    let Some(f) = summed(module) else {
        return Ok(Outcome::NotScalarFloat);
    };
    let entry = f.entry().ok_or("empty module")?;
    let floats: Vec<usize> =
        entry.param_types().iter().enumerate().filter(|(_, t)| t.dtype.is_float()).map(|(i, _)| i).collect();
    if floats.is_empty() {
        return Ok(Outcome::NotScalarFloat);
    }
    let g = grad(&f, &Wrt::Params(floats), false).map_err(|e| format!("{label}: grad: {e}"))?;
    let g = dce(&g);
    ferrax_ir::verify(&g).map_err(|e| format!("{label}: grad output: {e}"))?;
    let n = entry.eqns.len();
    let m = g.entry().map_or(0, |e| e.eqns.len());
    if m > 4 * n + 12 {
        let shared = m - duplicate_constants(g.entry().unwrap());
        let message = format!(
            "{label}: grad has {m} equations ({shared} with equal constants shared), f has {n}: 4n + 12 = {}",
            4 * n + 12
        );
        let known: Vec<&str> =
            OVER_BUDGET.iter().map(|(p, _)| *p).filter(|p| entry.eqns.iter().any(|e| e.prim.name() == *p)).collect();
        if !known.is_empty() {
            return Ok(Outcome::Known(known, message));
        }
        return Err(format!("{message}\n{}", ferrax_ir::print(&g)));
    }
    Ok(Outcome::Checked(n, m))
}

/// The `constant` equations of `f` equal to an earlier one (same value and type).
fn duplicate_constants(f: &Func) -> usize {
    let mut seen: Vec<(&ferrax_ir::Prim, &ferrax_ir::Type)> = Vec::new();
    let mut duplicates = 0;
    for e in f.eqns.iter().filter(|e| e.prim.name() == "constant") {
        let key = (&e.prim, f.ty(e.outputs[0]));
        if seen.contains(&key) {
            duplicates += 1;
        } else {
            seen.push(key);
        }
    }
    duplicates
}

/// A `while` without `max_iters` in the entry or a Func it reaches (no reverse mode
/// through it).
fn has_unbounded_while(module: &Module) -> bool {
    let mut stack: Vec<&str> = module.entry().map(|f| f.name.as_str()).into_iter().collect();
    let mut seen: Vec<&str> = Vec::new();
    while let Some(name) = stack.pop() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let Some(f) = module.func(name) else { continue };
        for e in &f.eqns {
            if matches!(e.prim, ferrax_ir::Prim::While { max_iters: None, .. }) {
                return true;
            }
            stack.extend(e.prim.callees());
        }
    }
    false
}

/// The module with `name` moved first (the entry), the other Funcs after it.
fn with_entry(module: &Module, name: &str) -> Module {
    let mut out = Module::new();
    out.push(module.funcs[name].clone());
    for (other, func) in &module.funcs {
        if other != name {
            out.push(func.clone());
        }
    }
    out
}

#[derive(Default)]
struct Tally {
    checked: usize,
    control: usize,
    other: usize,
    worst: Option<(f64, String)>,
    known: Vec<String>,
    culprits: std::collections::BTreeSet<&'static str>,
    failures: Vec<String>,
}

impl Tally {
    fn add(&mut self, outcome: Result<Outcome, String>, label: &str) {
        match outcome {
            Ok(Outcome::Checked(n, m)) => {
                self.checked += 1;
                let ratio = m as f64 / n.max(1) as f64;
                if self.worst.as_ref().is_none_or(|(r, _)| ratio > *r) {
                    self.worst = Some((ratio, format!("{label} (n = {n}, grad {m})")));
                }
            }
            Ok(Outcome::Known(prims, message)) => {
                self.checked += 1;
                self.culprits.extend(prims);
                self.known.push(message);
            }
            Ok(Outcome::Control) => self.control += 1,
            Ok(Outcome::NotScalarFloat) => self.other += 1,
            Err(e) => self.failures.push(e),
        }
    }

    fn report(&self, what: &str) {
        println!(
            "{what}: {} Funcs checked, {} skipped (unbounded while), {} without a float result or float parameter",
            self.checked, self.control, self.other
        );
        if let Some((ratio, label)) = &self.worst {
            println!("{what}: largest grad/f ratio {ratio:.2} at {label}");
        }
        for message in &self.known {
            println!("{what}: known violation (see OVER_BUDGET): {message}");
        }
        assert!(self.failures.is_empty(), "{}", self.failures.join("\n\n"));
    }
}

fn corpus_tally() -> Tally {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ir/eval");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "fx"));
    files.sort();
    assert!(files.len() > 20, "the corpus at {} has only {} files", dir.display(), files.len());
    let mut tally = Tally::default();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let module = ferrax_ir::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for name in module.funcs.keys() {
            let label = format!("{}: @{name}", path.file_name().unwrap().to_string_lossy());
            tally.add(check(&with_entry(&module, name), &label), &label);
        }
    }
    tally
}

fn table_tally() -> Tally {
    let mut tally = Tally::default();
    for row in table() {
        for inst in row.instances().unwrap() {
            tally.add(check(&inst.module, &inst.label), &inst.label);
        }
    }
    tally
}

#[test]
fn grad_of_every_straight_line_corpus_func_is_cheap() {
    let tally = corpus_tally();
    tally.report("ir/eval corpus");
    assert!(tally.checked >= 20, "only {} corpus Funcs were checked", tally.checked);
}

#[test]
fn grad_of_every_straight_line_table_case_is_cheap() {
    table_tally().report("autodiff table");
}

/// Every entry of [`OVER_BUDGET`] still causes a violation (remove it when it does not).
#[test]
fn the_over_budget_list_is_current() {
    let mut culprits = corpus_tally().culprits;
    culprits.extend(table_tally().culprits);
    for (prim, reason) in OVER_BUDGET {
        println!("over budget: {prim}: {reason}");
        assert!(culprits.contains(prim), "{prim} no longer breaks the bound: remove it from OVER_BUDGET");
    }
}
