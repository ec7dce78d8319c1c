//! The cheap-gradient principle: `grad(f)` costs a small constant times `f`.
//!
//! Two measures are bounded, after `dce`:
//!
//! - work, from the cost model (`ferrax_transform::cost`): flops plus
//!   [`TRANSCENDENTAL_WEIGHT`] per element of a transcendental primitive, with the
//!   bodies of `scan` and `while` multiplied by their trip counts (`length`,
//!   `max_iters`) and a `cond` costing its dearest branch. `grad(f)` (which includes
//!   the forward pass) may do at most [`WORK_FACTOR`]·work(f) + [`WORK_SLACK`]. This is
//!   JAX's cheap-gradient principle, after Griewank and Walther: reverse mode costs a
//!   bounded multiple of the function (about 3 to 5 in their operation-count model);
//!   the factor here leaves room for the derivative rules' own arithmetic (the
//!   dearest single rules, `pow`'s and `atan2`'s, do about 4 times their primitive);
//! - structure: at most 4n + 12 equations in the entry where f has n (bodies each once,
//!   by their own Funcs), which catches a rule that emits many free equations (data
//!   movement costs no flops).
//!
//! Checked for every Func of the `ir/eval` corpus with one float result (summed to a
//! scalar first when it is not one) and a float parameter, for every case of the
//! autodiff table likewise, and for generated smooth programs (loops with trip counts,
//! every differentiable primitive), differentiating every float parameter. Modules
//! with an unbounded `while` are skipped and counted, since reverse mode needs
//! `max_iters` there.
//!
//! Known violations are listed in [`OVER_BUDGET`] (equations) and [`OVER_WORK`] (work)
//! by primitive, with the reason: a Func over a bound that uses one of them is reported
//! (printed) rather than failed, and an entry that no longer causes a violation fails
//! the test, so the lists only shrink. Corpus Funcs that reverse mode rejects by
//! definition (as JAX does) are listed in [`NOT_DIFFERENTIABLE`] and must keep failing.

use ferrax_ir::testing::{GenConfig, random_module};
use ferrax_ir::{Func, Module};
use ferrax_tests::{summed, table};
use ferrax_transform::{Wrt, cost, dce, grad};
use std::path::Path;

/// Primitives whose derivative alone costs more than the bound's slack, so that a
/// Func using them can exceed 4n + 12, with the reason.
/// `reduce_prod`'s zero-safe rule (about 20 equations for the product of the others)
/// is the likeliest next entry.
const OVER_BUDGET: [(&str, &str); 3] = [
    (
        "eigh",
        "its jvp rebuilds the symmetric tangent from one triangle, forms vᵀ·da·v and v·(F∘S) and the gap matrix F \
         from the eigenvalues: about 30 equations for one (as in JAX, an eigendecomposition is outside the \
         structural bound)",
    ),
    (
        "qr",
        "its jvp solves with r, forms qᵀ·da·r⁻¹ and its skew part, and for a full q of a tall matrix adds an LU \
         solve with q₁₁ − I and four more products (JAX's rule): 20 to 60 equations for one (as in JAX, a \
         factorisation is outside the structural bound)",
    ),
    (
        "svd",
        "its jvp forms uᵀ·da·v, the gap matrix F from the singular values, both vectors' tangents and, for a \
         rectangle, the projection outside the thin factor: about 40 equations for one (as in JAX, a \
         factorisation is outside the structural bound)",
    ),
];

/// Corpus Funcs that reverse mode rejects by definition, as JAX does, with the reason:
/// a listed Func whose grad succeeds fails the test.
const NOT_DIFFERENTIABLE: [(&str, &str); 2] = [
    ("linalg_svd.fx: @wide_full", "the singular vectors of a non-square matrix with full_matrices=true"),
    ("linalg_svd.fx: @empty", "the singular vectors of a non-square (empty) matrix with full_matrices=true"),
];

/// Primitives whose derivative can cost more than [`WORK_FACTOR`] times their own
/// work, with the reason. `broadcast_in_dim` counts only where f broadcasts to more
/// elements than WORK_FACTOR times its whole work (see [`discards_a_broadcast`]).
const OVER_WORK: [(&str, &str); 7] = [
    (
        "lu",
        "a factorisation is outside the structural bound (as in JAX): its jvp gathers the tangent's rows, solves \
         two triangular systems and multiplies by both factors, about 4n³ flops against the factor's 2n³/3",
    ),
    (
        "cholesky",
        "a factorisation is outside the structural bound (as in JAX): its jvp solves two triangular systems and \
         multiplies by the factor, about 3n³ flops against the factor's n³/3",
    ),
    (
        "triangular_solve",
        "outside the structural bound (as in JAX): the derivative in the matrix adds a product and another solve",
    ),
    (
        "reduce_prod",
        "the zero-safe rule computes the product of the others by prefix and suffix products and a second-order \
         fix-up at zeros: about 12 flops per element against 1",
    ),
    (
        "broadcast_in_dim",
        "its transpose sums the cotangent over the broadcast axes, one flop per broadcast element, while the \
         broadcast itself is free data movement: a function that broadcasts and then keeps a slice pays for the \
         whole sum in its gradient (as in JAX)",
    ),
    (
        "reduce_window",
        "sum pooling's transpose (JAX's rule) sums the windows of the cotangent spread out by the strides: one \
         window per operand element, against the forward's one per result element, so a stride s over d axes \
         costs up to s^d times the forward's flops",
    ),
    (
        "conv_general_dilated",
        "its transposes (JAX's rules) are convolutions over the dilated cotangent or input: a forward with          strides or dilation becomes a transpose that also multiplies the holes' zeros and the padding, so a          kernel dilation d or stride s costs up to d (or s) times the forward's flops per axis",
    ),
];

/// True when `f` has a `broadcast_in_dim` to more elements than `WORK_FACTOR · work`:
/// most of the broadcast is discarded, and its transpose's sum is what grad pays.
fn discards_a_broadcast(f: &Module, work: u64) -> bool {
    f.funcs.values().any(|func| {
        func.eqns.iter().any(|e| {
            matches!(e.prim, ferrax_ir::Prim::Shape(ferrax_ir::prim::ShapeOp::BroadcastInDim { .. }))
                && func.ty(e.outputs[0]).element_count().is_some_and(|n| n as u64 > WORK_FACTOR * work)
        })
    })
}

/// Flops charged per element of a transcendental primitive (on top of the one flop the
/// cost model counts): a vectorised `exp`, `log` or `sin` costs 10 to 20 arithmetic
/// operations.
const TRANSCENDENTAL_WEIGHT: u64 = 10;

/// The bound's factor: work(grad f) ≤ WORK_FACTOR · work(f) + WORK_SLACK.
const WORK_FACTOR: u64 = 5;

/// The bound's additive slack, for tiny functions: the seed cotangent and the scalar
/// bookkeeping of a few equations.
const WORK_SLACK: u64 = 16;

/// The work of a module's entry: flops plus the weighted transcendentals.
fn work(module: &Module) -> Result<u64, String> {
    let report = cost(module).map_err(|e| format!("cost: {e}"))?;
    let entry = report.entry().ok_or("cost: no entry")?;
    Ok(entry.flops + TRANSCENDENTAL_WEIGHT * entry.transcendentals)
}

/// What happened to one Func.
enum Outcome {
    /// Checked: n, the equations of the gradient, and the work of both.
    Checked(usize, usize, u64, u64),
    /// Over a bound (`"equations"` or `"work"`), but it uses these primitives of that
    /// bound's list: the message.
    Known(&'static str, Vec<&'static str>, String),
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
    let uses = |list: &[(&'static str, &str)]| -> Vec<&'static str> {
        list.iter()
            .map(|(p, _)| *p)
            .filter(|p| f.funcs.values().flat_map(|q| &q.eqns).any(|e| e.prim.name() == *p))
            .collect()
    };
    let (work_f, work_g) =
        (work(&f).map_err(|e| format!("{label}: {e}"))?, work(&g).map_err(|e| format!("{label}: {e}"))?);
    if work_g > WORK_FACTOR * work_f + WORK_SLACK {
        let message = format!(
            "{label}: grad does {work_g} units of work, f {work_f}: {WORK_FACTOR}·work + {WORK_SLACK} = {}",
            WORK_FACTOR * work_f + WORK_SLACK
        );
        let mut known = uses(&OVER_WORK);
        known.retain(|&p| p != "broadcast_in_dim" || discards_a_broadcast(&f, work_f));
        if !known.is_empty() {
            return Ok(Outcome::Known("work", known, message));
        }
        return Err(format!("{message}\n{}", ferrax_ir::print(&g)));
    }
    if m > 4 * n + 12 {
        let shared = m - duplicate_constants(g.entry().unwrap());
        let message = format!(
            "{label}: grad has {m} equations ({shared} with equal constants shared), f has {n}: 4n + 12 = {}",
            4 * n + 12
        );
        let known = uses(&OVER_BUDGET);
        if !known.is_empty() {
            return Ok(Outcome::Known("equations", known, message));
        }
        return Err(format!("{message}\n{}", ferrax_ir::print(&g)));
    }
    Ok(Outcome::Checked(n, m, work_f, work_g))
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
            if matches!(e.prim, ferrax_ir::Prim::Control(ferrax_ir::prim::ControlOp::While { max_iters: None, .. })) {
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
    worst_work: Option<(f64, String)>,
    /// Checked Funcs whose work includes a loop run more than once.
    loops: usize,
    known: Vec<String>,
    /// `(bound, primitive)` pairs of the known violations seen.
    culprits: std::collections::BTreeSet<(&'static str, &'static str)>,
    failures: Vec<String>,
}

impl Tally {
    fn add(&mut self, outcome: Result<Outcome, String>, label: &str) {
        match outcome {
            Ok(Outcome::Checked(n, m, work_f, work_g)) => {
                self.checked += 1;
                let ratio = m as f64 / n.max(1) as f64;
                if self.worst.as_ref().is_none_or(|(r, _)| ratio > *r) {
                    self.worst = Some((ratio, format!("{label} (n = {n}, grad {m})")));
                }
                let ratio = work_g as f64 / work_f.max(1) as f64;
                if work_f >= WORK_SLACK && self.worst_work.as_ref().is_none_or(|(r, _)| ratio > *r) {
                    self.worst_work = Some((ratio, format!("{label} (work {work_f}, grad {work_g})")));
                }
            }
            Ok(Outcome::Known(bound, prims, message)) => {
                self.checked += 1;
                self.culprits.extend(prims.into_iter().map(|p| (bound, p)));
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
            println!("{what}: largest grad/f ratio of equations {ratio:.2} at {label}");
        }
        if let Some((ratio, label)) = &self.worst_work {
            println!("{what}: largest grad/f ratio of work {ratio:.2} at {label} (work ≥ {WORK_SLACK})");
        }
        for message in &self.known {
            println!("{what}: known violation (see OVER_BUDGET and OVER_WORK): {message}");
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
            let outcome = check(&with_entry(&module, name), &label);
            if NOT_DIFFERENTIABLE.iter().any(|(l, _)| *l == label) {
                // Listed: grad must fail (else the entry is stale).
                if outcome.is_ok() {
                    tally.failures.push(format!("{label} is in NOT_DIFFERENTIABLE, but its grad succeeds now"));
                }
                continue;
            }
            tally.add(outcome, &label);
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

/// Generated smooth programs: loops (`scan`, bounded `while`) with their trip counts,
/// `cond`, custom rules and every differentiable primitive.
fn generated_tally() -> Tally {
    let config = GenConfig { smooth: true, special_values: false, ..GenConfig::default() };
    let mut tally = Tally::default();
    for seed in 0..300 {
        let module = random_module(seed, &config);
        let label = format!("generated seed {seed}");
        tally.loops += has_loop_run_more_than_once(&module) as usize;
        tally.add(check(&module, &label), &label);
    }
    tally
}

/// A `scan` of length ≥ 2 or a `while` with `max_iters` ≥ 2 anywhere in the module.
fn has_loop_run_more_than_once(module: &Module) -> bool {
    module.funcs.values().flat_map(|f| &f.eqns).any(|e| match &e.prim {
        ferrax_ir::Prim::Control(ferrax_ir::prim::ControlOp::Scan(p)) => p.length >= 2,
        ferrax_ir::Prim::Control(ferrax_ir::prim::ControlOp::While { max_iters: Some(n), .. }) => *n >= 2,
        _ => false,
    })
}

#[test]
fn grad_of_every_corpus_func_is_cheap() {
    let tally = corpus_tally();
    tally.report("ir/eval corpus");
    assert!(tally.checked >= 20, "only {} corpus Funcs were checked", tally.checked);
}

#[test]
fn grad_of_every_table_case_is_cheap() {
    table_tally().report("autodiff table");
}

#[test]
fn grad_of_generated_programs_is_cheap() {
    let tally = generated_tally();
    tally.report("generated smooth programs");
    assert!(tally.checked >= 200, "only {} generated programs were checked", tally.checked);
    assert!(tally.loops >= 30, "only {} generated programs loop more than once", tally.loops);
}

/// The work measure multiplies loop bodies by their trip counts (it is not a count of
/// equations): a scan of 64 steps does 64 times the work of one step, and so does its
/// gradient, which stays within the bound.
#[test]
fn work_counts_loop_bodies_times_their_trip_counts() {
    let text = |length: usize| {
        format!(
            "func @f(%c: f64[8], %xs: f64[{length},8]) -> (f64[]) {{
  %cf: f64[8], %ys: f64[{length},8] = scan[body=@body, length={length}, num_carry=1](%c, %xs)
  %s: f64[] = reduce_sum[axes=[0]](%cf)
  return %s
}}
func @body(%c: f64[8], %x: f64[8]) -> (f64[8], f64[8]) {{
  %a: f64[8] = mul(%c, %x)
  %b: f64[8] = sin(%a)
  %n: f64[8] = add(%b, %c)
  return %n, %a
}}
"
        )
    };
    let one = ferrax_ir::parse(&text(1)).unwrap();
    let many = ferrax_ir::parse(&text(64)).unwrap();
    let body = work(&one).unwrap() - 8;
    assert_eq!(work(&many).unwrap(), 64 * body + 8, "the scan's work is not its body's times 64");
    match check(&many, "scan of 64").unwrap() {
        Outcome::Checked(_, _, _, work_g) => {
            assert!(work_g > 64 * body, "grad's work {work_g} does not count the backward loop's 64 steps")
        }
        _ => panic!("the scan of 64 steps was not checked"),
    }
}

/// Every entry of [`OVER_BUDGET`] and [`OVER_WORK`] still causes a violation (remove
/// it when it does not).
#[test]
fn the_over_budget_lists_are_current() {
    let mut culprits = corpus_tally().culprits;
    culprits.extend(table_tally().culprits);
    culprits.extend(generated_tally().culprits);
    for (bound, list) in [("equations", &OVER_BUDGET[..]), ("work", &OVER_WORK[..])] {
        for (prim, reason) in list {
            println!("over the {bound} bound: {prim}: {reason}");
            assert!(culprits.contains(&(bound, *prim)), "{prim} no longer breaks the {bound} bound: remove it");
        }
    }
}
