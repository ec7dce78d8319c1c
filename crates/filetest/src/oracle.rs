//! The independent oracle of `ir/eval`: JAX's values of its single-op runs, committed
//! as `crates/filetest/fixtures/jax_eval.txt` by `fixtures/make_jax_fixture.py`.
//!
//! The expectations of `ir/eval` were blessed from the interpreter, so they show what
//! it does, not that it is right. Here every *single-op* run (a Func whose every
//! operand is a parameter or a `constant`, no control primitive, each equation with
//! one result or one of the factorisations and sorts of [`MULTI`]; runs with limits or an
//! expected error are left out, exactly as the script does) runs under the interpreter
//! and under the JIT with its default options, and each output is compared with JAX's
//! value under the [`Tolerance`] of the primitive that produced it. A covered run with
//! no fixture entry, a stale entry (its Func or inputs changed: the entry's hash no
//! longer matches) and an entry with no run all fail, so the fixture follows the corpus.
//! No Python runs at test time.

use crate::eval::{Run, collect_runs, parse_array};
use ferrax_array::{Array, DType, Data};
use ferrax_ir::prim::{LinalgOp, ReductionOp, UnaryOp, WindowOp, WindowReduce};
use ferrax_ir::{EvalOptions, Func, Prim, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The command that rewrites the fixture, for failure messages.
pub const REGENERATE: &str = ".venv/bin/python crates/filetest/fixtures/make_jax_fixture.py";

/// Ulps allowed between ferrax and JAX for an f32 transcendental (`exp log log1p expm1
/// sin cos tan tanh logistic rsqrt erf`, `pow`, `atan2`): ferrax's vectorised
/// routines are within 3 ulps of the correctly rounded value, and XLA's f32 routines
/// are not correctly rounded either (its `tanh` returns 1.0 from 7.9 on, 4 ulps off at
/// 8.0; its `erf` is 1-2 ulps off).
pub const TRANSCENDENTAL_ULPS_F32: u64 = 6;

/// Ulps allowed for an f64 transcendental: ferrax uses correctly rounded or 1-ulp
/// routines, XLA's f64 `exp` and `expm1` are 1-2 ulps off (`exp(1)` is 1 ulp high).
pub const TRANSCENDENTAL_ULPS_F64: u64 = 4;

/// How close a ferrax result must be to JAX's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// The same bits; any NaN matches any NaN, `-0.0` does not match `0.0`. Integer,
    /// bool and structural results, and every correctly rounded float operation
    /// (`add sub mul div sqrt rem`, rounding, `convert`, `max`, `min`, ...).
    Exact,
    /// At most this many units in the last place apart at the result's dtype (the
    /// distance between the bit patterns, ordered, with `-0.0` and `0.0` one point).
    /// A NaN or an infinity matches only itself.
    Ulps(u64),
    /// A float sum of `terms` rounded terms (`reduce_sum`, `cumsum`, `dot_general`,
    /// `conv_general_dilated`;
    /// a product of a dot counts one more): `|a - b| <= 2·terms·u·m`, where `u` is the
    /// unit roundoff (2^-24, 2^-53) and `m` is the same operation on the absolute
    /// values (the fixture's `mag` line). Any summation order, ferrax's blocked one or
    /// XLA's, is within `terms·u·m` of the exact sum, so neither order is assumed. Where
    /// `m` or a result is not finite, the results must be the same.
    Sum {
        /// The terms of each output element's sum.
        terms: u64,
    },
    /// A float product of `factors` rounded factors (`reduce_prod`): at most
    /// `2·(factors - 1) + 1` ulps apart, as each side rounds `factors - 1` times.
    Product {
        /// The factors of each output element's product.
        factors: u64,
    },
    /// Norm-wise, for the factorisations with several results (`eigh`, `lu`, `qr`,
    /// `svd`): at most `ulps` units in the last place of the array's largest finite
    /// magnitude (JAX's), since their rounding errors are relative to the matrix's norm,
    /// not to each element. Eigenvectors and singular vectors are first matched up to
    /// each vector's sign (see [`align_signs`]).
    NormWise {
        /// Ulps of the largest magnitude.
        ulps: u64,
    },
}

/// Sums and products of finite operands whose intermediate values overflow (or, for
/// products, underflow) depend on the order of the operations, which neither side
/// fixes: `1e308 + 1e308 - 1e308 - 1e308` is `inf` left to right and `0` pairwise. Such
/// an element (finite operands, and a result or the magnitude not finite, or a product
/// of zero) is not judged; [`Coverage::unbounded`] counts them.
fn order_dependent(tol: Tolerance, finite_operands: bool, x: f64, y: f64, m: f64) -> bool {
    finite_operands
        && match tol {
            Tolerance::Sum { .. } => !x.is_finite() || !y.is_finite() || !m.is_finite(),
            Tolerance::Product { .. } => !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0,
            Tolerance::Exact | Tolerance::Ulps(_) | Tolerance::NormWise { .. } => false,
        }
}

/// The tolerance of the result of equation `eqn_index` of `func`, by primitive
/// (documented on [`Tolerance`]).
pub fn tolerance_of(func: &Func, eqn_index: usize) -> Tolerance {
    let eqn = &func.eqns[eqn_index];
    let dtype = func.value_types[eqn.outputs[0].index()].dtype;
    let transcendental = match dtype {
        DType::F32 => Tolerance::Ulps(TRANSCENDENTAL_ULPS_F32),
        DType::F64 => Tolerance::Ulps(TRANSCENDENTAL_ULPS_F64),
        // Computed in f32 and rounded once: within one unit of the 16-bit type.
        DType::BF16 | DType::F16 => Tolerance::Ulps(1),
        DType::I32 | DType::Bool => return Tolerance::Exact,
    };
    let extent = |axes: &[usize], of: Value| -> u64 {
        let shape = &func.value_types[of.index()].shape;
        axes.iter().map(|&a| shape[a] as u64).product()
    };
    match &eqn.prim {
        // x^0, x^1, x^2 and x^-1 round at most once, correctly. A longer product of n
        // factors (and a reciprocal for y < 0) is within (n - 1 + [y < 0])·u of the
        // exact power whatever the order of its multiplications, on either side.
        Prim::Unary(UnaryOp::IntegerPow { y }) if !matches!(y, -1..=2) => {
            let roundings = u64::from(y.unsigned_abs()) - 1 + u64::from(*y < 0);
            Tolerance::Ulps(2 * roundings + 1)
        }
        Prim::Unary(op) => match op.name() {
            "exp" | "log" | "log1p" | "expm1" | "sin" | "cos" | "tan" | "tanh" | "logistic" | "rsqrt" | "erf" => {
                transcendental
            }
            _ => Tolerance::Exact,
        },
        Prim::Binary(op) if matches!(op.name(), "pow" | "atan2") => transcendental,
        Prim::Reduction(ReductionOp::Reduce { op, axes }) => match op.name() {
            "reduce_sum" => Tolerance::Sum { terms: extent(axes, eqn.inputs[0]) },
            // A product of n factors rounds n - 1 times on each side.
            "reduce_prod" => Tolerance::Product { factors: extent(axes, eqn.inputs[0]) },
            _ => Tolerance::Exact,
        },
        Prim::Reduction(ReductionOp::Cumsum { axis, .. }) => Tolerance::Sum { terms: extent(&[*axis], eqn.inputs[0]) },
        // A window's sum has at most its taps as terms; a scattered element at most
        // one term per source element.
        Prim::Window(WindowOp::ReduceWindow { op: WindowReduce::Sum, window }) => {
            Tolerance::Sum { terms: window.dimensions.iter().map(|&d| d as u64).product() }
        }
        Prim::Window(WindowOp::SelectAndScatterAdd { .. }) => {
            Tolerance::Sum { terms: func.value_types[eqn.inputs[0].index()].shape.iter().map(|&d| d as u64).product() }
        }
        Prim::Linalg(LinalgOp::DotGeneral(dims)) => {
            Tolerance::Sum { terms: extent(&dims.lhs_contract, eqn.inputs[0]) + 1 }
        }
        // Each output element sums the kernel's taps times its input features per group.
        Prim::Conv(_) => {
            let lhs = &func.value_types[eqn.inputs[0].index()];
            let rhs = eqn.inputs.get(1).map(|v| &func.value_types[v.index()]);
            Tolerance::Sum { terms: eqn.prim.contracted_size(lhs, rhs) + 1 }
        }
        // A factorisation or substitution over n rows rounds O(n) times per element, in
        // an order each side chooses (ferrax's reference works in f64 and rounds once);
        // on the corpus's well-conditioned matrices that stays within 4(n + 1) ulps.
        Prim::Linalg(LinalgOp::Cholesky | LinalgOp::TriangularSolve(_)) => {
            let n = func.value_types[eqn.inputs[0].index()].shape.last().copied().unwrap_or(0) as u64;
            Tolerance::Ulps(4 * (n + 1))
        }
        // A decomposition of an m×n matrix by orthogonal transformations or pivoted
        // elimination errs by O(max(m, n)) ulps of its norm in each element, in an order
        // each side chooses; measured on the corpus: at most 8 ulps apart even element by
        // element (both backends, f32 and f64), so 8(n + 1) ulps of the largest
        // magnitude leaves room for bigger matrices.
        Prim::Linalg(LinalgOp::Eigh(_) | LinalgOp::Lu | LinalgOp::Qr(_) | LinalgOp::Svd(_)) => {
            let shape = &func.value_types[eqn.inputs[0].index()].shape;
            let n = shape.iter().rev().take(2).copied().max().unwrap_or(0) as u64;
            Tolerance::NormWise { ulps: 8 * (n + 1) }
        }
        _ => Tolerance::Exact,
    }
}

/// What the oracle covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Files of `ir/eval` with at least one covered run.
    pub files: usize,
    /// Covered runs.
    pub runs: usize,
    /// Output elements compared (each against the interpreter and the JIT).
    pub values: usize,
    /// Float elements compared under a tolerance rather than bit for bit.
    pub tolerant: usize,
    /// Comparisons (interpreter and JIT) of elements of sums and products left unjudged because their value depends on the
    /// order of the operations (see `order_dependent`).
    pub unbounded: usize,
    /// The largest distance in ulps seen, by `backend primitive dtype` (for the
    /// tolerant comparisons).
    pub worst: BTreeMap<String, u64>,
}

/// One run's entry in the fixture.
#[derive(Debug)]
struct Entry {
    hash: String,
    outs: BTreeMap<usize, Array>,
    mags: BTreeMap<usize, Array>,
    used: bool,
}

/// The fixture, keyed by (file, Func, ordinal of the run among the Func's runs).
#[derive(Debug, Default)]
pub struct Fixture {
    entries: BTreeMap<(String, String, usize), Entry>,
}

impl Fixture {
    /// Reads the committed fixture.
    pub fn load() -> Result<Fixture, String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jax_eval.txt");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Fixture::parse(&text).map_err(|e| format!("{}:{e}", path.display()))
    }

    /// Parses the fixture's text (format in `make_jax_fixture.py`).
    pub fn parse(text: &str) -> Result<Fixture, String> {
        let mut fixture = Fixture::default();
        let mut current: Option<(String, String, usize)> = None;
        for (n, line) in text.lines().enumerate() {
            let at = |e: String| format!("{}: {e}", n + 1);
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (tag, rest) = line.split_once(' ').ok_or_else(|| at(format!("bad line '{line}'")))?;
            if tag == "run" {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let [file, func, ordinal, hash] = words[..] else {
                    return Err(at(format!("expected 'run FILE @FUNC K HASH', got '{line}'")));
                };
                let func = func.strip_prefix('@').ok_or_else(|| at(format!("bad Func '{func}'")))?;
                let ordinal = ordinal.parse().map_err(|_| at(format!("bad run number '{ordinal}'")))?;
                let key = (file.to_string(), func.to_string(), ordinal);
                let entry = Entry { hash: hash.to_string(), outs: BTreeMap::new(), mags: BTreeMap::new(), used: false };
                if fixture.entries.insert(key.clone(), entry).is_some() {
                    return Err(at(format!("a second entry for {file} @{func} run {ordinal}")));
                }
                current = Some(key);
                continue;
            }
            let key = current.as_ref().ok_or_else(|| at("a value before any 'run' line".into()))?;
            let entry = fixture.entries.get_mut(key).ok_or_else(|| at("no entry".into()))?;
            let (map, index) = if let Some(i) = tag.strip_prefix("out") {
                (&mut entry.outs, i)
            } else if let Some(i) = tag.strip_prefix("mag") {
                (&mut entry.mags, i)
            } else {
                return Err(at(format!("unknown line '{tag}'")));
            };
            let index: usize = index.parse().map_err(|_| at(format!("bad output number in '{tag}'")))?;
            map.insert(index, parse_array(rest).map_err(at)?);
        }
        Ok(fixture)
    }
}

/// Checks every single-op run of `ir/eval` against the committed fixture.
pub fn check_jax_fixture() -> Result<Coverage, String> {
    let mut fixture = Fixture::load()?;
    let dir = crate::corpus_dir().join("eval");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fx"))
        .collect();
    paths.sort();
    let mut files = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        files.push((name, text));
    }
    check_files(&files, &mut fixture)
}

/// Checks the single-op runs of `files` (name, text) against `fixture`; every entry of
/// the fixture must be used.
pub fn check_files(files: &[(String, String)], fixture: &mut Fixture) -> Result<Coverage, String> {
    let mut coverage = Coverage::default();
    let mut failures = Vec::new();
    for (name, text) in files {
        match check_file(name, text, fixture, &mut coverage) {
            Ok(true) => coverage.files += 1,
            Ok(false) => {}
            Err(e) => failures.push(e),
        }
    }
    for ((file, func, k), entry) in &fixture.entries {
        if !entry.used {
            failures.push(format!(
                "the fixture has an entry for {file} @{func} run {k}, which is not a single-op run of ir/eval; \
                 regenerate it with `{REGENERATE}`"
            ));
        }
    }
    if failures.is_empty() { Ok(coverage) } else { Err(failures.join("\n")) }
}

/// The primitives with several results that the fixture covers (the script's `MULTI`).
const MULTI: [&str; 6] = ["eigh", "lu", "qr", "svd", "sort", "top_k"];

/// True when every equation of `func` has one result (or is one of [`MULTI`]), is no
/// control primitive and reads only parameters and `constant` results (so each output
/// is one primitive applied to the inputs).
pub fn single_op(func: &Func) -> bool {
    let mut leaves: Vec<Value> = func.params.clone();
    for eqn in &func.eqns {
        // Structured primitives are exactly those that run Funcs.
        let control = !eqn.prim.callees().is_empty();
        let results_ok = eqn.outputs.len() == 1 || MULTI.contains(&eqn.prim.name());
        if !results_ok || control || eqn.inputs.iter().any(|v| !leaves.contains(v)) {
            return false;
        }
        if eqn.prim.name() == "constant" {
            leaves.push(eqn.outputs[0]);
        }
    }
    !func.eqns.is_empty()
}

/// FNV-1a, 64 bits: the script computes the same.
fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The hash of a run: the Func's lines, header to closing brace, and the run's `; in:`
/// values, each trimmed and followed by a newline.
fn run_hash(lines: &[&str], header: usize, run: &Run) -> String {
    let mut text = String::new();
    for line in &lines[header..] {
        text.push_str(line.trim());
        text.push('\n');
        if line.split(';').next().unwrap_or("").trim() == "}" {
            break;
        }
    }
    for line in &lines[run.start + 1..run.end] {
        if let Some(value) = crate::expect::directive(line, "in:") {
            text.push_str(value);
            text.push('\n');
        }
    }
    fnv1a(&text)
}

/// Checks one file; returns whether it had a covered run.
fn check_file(name: &str, text: &str, fixture: &mut Fixture, coverage: &mut Coverage) -> Result<bool, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{name}: {e}"))?;
    let lines: Vec<&str> = text.lines().collect();
    let runs = collect_runs(&lines, &module, &spans).map_err(|e| format!("{name}:{e}"))?;
    let mut ordinals: BTreeMap<&str, usize> = BTreeMap::new();
    let mut executables: BTreeMap<String, ferrax_jit::Executable> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut covered = false;
    for run in &runs {
        let ordinal = ordinals.entry(run.func.as_str()).or_insert(0);
        *ordinal += 1;
        let func = module.func(&run.func).ok_or_else(|| format!("{name}: no Func @{}", run.func))?;
        let expects_error = run.expected.iter().any(|l| l.starts_with("error:"));
        if !single_op(func) || run.fuel.is_some() || run.max_bytes.is_some() || expects_error {
            continue;
        }
        covered = true;
        coverage.runs += 1;
        let at = format!("{name}:{}: @{} (run {ordinal})", run.start + 1, run.func);
        let key = (name.to_string(), run.func.clone(), *ordinal);
        let Some(entry) = fixture.entries.get_mut(&key) else {
            failures.push(format!("{at}: no entry in the JAX fixture; regenerate it with `{REGENERATE}`"));
            continue;
        };
        entry.used = true;
        let header = spans.func_pos(&run.func).map_or(0, |(l, _)| l - 1);
        if entry.hash != run_hash(&lines, header, run) {
            failures.push(format!(
                "{at}: the Func or its inputs changed since the JAX fixture was made; regenerate it with `{REGENERATE}`"
            ));
            continue;
        }
        for (backend, outputs) in run_backends(&module, run, &mut executables) {
            match outputs {
                Ok(outputs) => failures.extend(compare_outputs(&at, backend, &outputs, entry, func, run, coverage)),
                Err(e) => failures.push(format!("{at}: {e}")),
            }
        }
    }
    if failures.is_empty() { Ok(covered) } else { Err(failures.join("\n")) }
}

/// The outputs of `run` under the interpreter and under the JIT, each with its backend's
/// name; the JIT compiles a Func once and keeps it in `executables` for its later runs.
fn run_backends(
    module: &ferrax_ir::Module,
    run: &Run,
    executables: &mut BTreeMap<String, ferrax_jit::Executable>,
) -> [(&'static str, Result<Vec<Array>, String>); 2] {
    let interp = ferrax_ir::eval(module, &run.func, &run.inputs, &EvalOptions::default())
        .map_err(|e| format!("the interpreter failed: {e}"));
    let jit = match executables.get(&run.func) {
        Some(exe) => exe.call(&run.inputs),
        None => ferrax_jit::compile_func(module, &run.func, &ferrax_jit::JitOptions::default()).and_then(|exe| {
            let out = exe.call(&run.inputs);
            executables.insert(run.func.clone(), exe);
            out
        }),
    }
    .map_err(|e| format!("the JIT failed: {e}"));
    [("interpreter", interp), ("JIT", jit)]
}

/// Compares one backend's `outputs` of `run` (of `func`, described by `at`) with the
/// fixture's `entry` under each output's tolerance, adding what was compared to
/// `coverage` (values once, from the interpreter). Returns the failures.
fn compare_outputs(
    at: &str,
    backend: &str,
    outputs: &[Array],
    entry: &Entry,
    func: &Func,
    run: &Run,
    coverage: &mut Coverage,
) -> Vec<String> {
    if outputs.len() != entry.outs.len() {
        return vec![format!("{at}: {} outputs, the fixture has {}", outputs.len(), entry.outs.len())];
    }
    let mut failures = Vec::new();
    for (i, (got, want)) in outputs.iter().zip(entry.outs.values()).enumerate() {
        let producer = func.eqns.iter().position(|e| e.outputs.contains(&func.results[i]));
        let tol = producer.map_or(Tolerance::Exact, |k| tolerance_of(func, k));
        let mag = entry.mags.get(&i);
        if matches!(tol, Tolerance::Sum { .. }) != mag.is_some() {
            failures.push(format!("{at}: out{i} needs a 'mag{i}' line exactly when it is a float sum"));
            continue;
        }
        if backend == "interpreter" {
            coverage.values += got.len();
            if tol != Tolerance::Exact {
                coverage.tolerant += got.len();
            }
        }
        let finite_operands = producer.is_some_and(|k| {
            func.eqns[k].inputs.iter().all(|v| match func.params.iter().position(|p| p == v) {
                Some(j) => run.inputs[j].to_f64_vec().iter().all(|x| x.is_finite()),
                None => true,
            })
        });
        let aligned = producer.map(|k| align_signs(&func.eqns[k], func.results[i], got, want));
        let want = aligned.as_ref().unwrap_or(want);
        match agree(got, want, tol, mag, finite_operands) {
            Ok((ulps, unbounded)) if tol != Tolerance::Exact => {
                coverage.unbounded += unbounded;
                let prim = producer.map_or("parameter", |k| func.eqns[k].prim.name());
                let worst = coverage.worst.entry(format!("{backend} {prim} {}", got.dtype())).or_insert(0);
                *worst = (*worst).max(ulps);
            }
            Ok(_) => {}
            Err(e) => failures.push(format!("{at}: out{i} under the {backend} ({tol:?}) differs from JAX: {e}")),
        }
    }
    failures
}

/// Compares a ferrax result with JAX's under `tol` (`mag`: the sum's magnitudes).
/// `finite_operands`: every float operand of the equation is finite (module docs of
/// `order_dependent`). Returns the largest distance in ulps between finite elements and
/// the number of elements left unjudged.
pub fn agree(
    got: &Array,
    want: &Array,
    tol: Tolerance,
    mag: Option<&Array>,
    finite_operands: bool,
) -> Result<(u64, usize), String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Err(format!("{}[{:?}] where JAX has {}[{:?}]", got.dtype(), got.shape(), want.dtype(), want.shape()));
    }
    let mags = mag.map(Array::to_f64_vec);
    if mags.as_ref().is_some_and(|m| m.len() != got.len()) {
        return Err("the fixture's magnitudes do not match the result's shape".into());
    }
    let (unit, ordered): (f64, Vec<(i64, i64, f64, f64)>) = match (got.data(), want.data()) {
        (Data::F32(a), Data::F32(b)) => (
            f64::from(f32::EPSILON) / 2.0,
            a.iter().zip(b).map(|(x, y)| (ordered_f32(*x), ordered_f32(*y), f64::from(*x), f64::from(*y))).collect(),
        ),
        (Data::F64(a), Data::F64(b)) => {
            (f64::EPSILON / 2.0, a.iter().zip(b).map(|(x, y)| (ordered_f64(*x), ordered_f64(*y), *x, *y)).collect())
        }
        (Data::BF16(a), Data::BF16(b)) => (
            f64::from(ferrax_ir::array::bf16::EPSILON) / 2.0,
            a.iter()
                .zip(b)
                .map(|(x, y)| (ordered_u16(x.to_bits()), ordered_u16(y.to_bits()), f64::from(*x), f64::from(*y)))
                .collect(),
        ),
        (Data::F16(a), Data::F16(b)) => (
            f64::from(ferrax_ir::array::f16::EPSILON) / 2.0,
            a.iter()
                .zip(b)
                .map(|(x, y)| (ordered_u16(x.to_bits()), ordered_u16(y.to_bits()), f64::from(*x), f64::from(*y)))
                .collect(),
        ),
        (a, b) if a == b => return Ok((0, 0)),
        (a, b) => {
            let i = (0..a.len()).find(|&i| a.get_f64(i) != b.get_f64(i)).unwrap_or(0);
            return Err(format!("element {i}: {} where JAX has {}", got.format_element(i), want.format_element(i)));
        }
    };
    let scale = ordered.iter().map(|&(_, _, _, y)| y).filter(|y| y.is_finite()).fold(0.0, |m: f64, y| m.max(y.abs()));
    let (mut worst, mut unbounded) = (0, 0);
    for (i, &(a, b, x, y)) in ordered.iter().enumerate() {
        let same = (x.is_nan() && y.is_nan()) || (x.to_bits() == y.to_bits()) || (x == y && x != 0.0);
        let m = mags.as_ref().map_or(f64::NAN, |m| m[i]);
        if !same && order_dependent(tol, finite_operands, x, y, m) {
            unbounded += 1;
            continue;
        }
        let ok = same
            || match tol {
                Tolerance::Exact => false,
                _ if !x.is_finite() || !y.is_finite() => false,
                Tolerance::Ulps(k) => a.abs_diff(b) <= k,
                Tolerance::Sum { terms } => m.is_finite() && (x - y).abs() <= 2.0 * terms as f64 * unit * m,
                Tolerance::Product { factors } => a.abs_diff(b) <= 2 * factors.saturating_sub(1) + 1,
                Tolerance::NormWise { ulps } => (x - y).abs() <= ulps as f64 * 2.0 * unit * scale,
            };
        if !ok {
            return Err(format!(
                "element {i}: {} where JAX has {} ({} ulps apart)",
                got.format_element(i),
                want.format_element(i),
                a.abs_diff(b)
            ));
        }
        if x.is_finite() && y.is_finite() {
            worst = worst.max(a.abs_diff(b));
        }
    }
    Ok((worst, unbounded))
}

/// JAX's `want` for the result `value` of `eqn`, with each eigenvector (the columns of
/// `eigh`'s `v`) or singular vector (the columns of `svd`'s `u`, the rows of its `vt`)
/// negated where it points away from ferrax's `got` (a negative inner product): both are
/// right, LAPACK and ferrax fix the signs differently. The extra vectors of a full `u`
/// or `vt` are compared the same way, which holds where they are unique up to sign
/// (at most one extra vector, as in the corpus, or an identity on both sides). Other
/// results come back unchanged.
pub fn align_signs(eqn: &ferrax_ir::Eqn, value: Value, got: &Array, want: &Array) -> Array {
    let position = eqn.outputs.iter().position(|&o| o == value);
    let columns = match (&eqn.prim, position) {
        (Prim::Linalg(LinalgOp::Eigh(_)), Some(0)) => Some(true),
        (Prim::Linalg(LinalgOp::Svd(p)), Some(0)) if p.compute_uv => Some(true),
        (Prim::Linalg(LinalgOp::Svd(p)), Some(2)) if p.compute_uv => Some(false),
        _ => None,
    };
    let shape = want.shape();
    let (Some(columns), true) = (columns, shape.len() >= 2 && got.shape() == shape) else { return want.clone() };
    let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let (g, mut w) = (got.to_f64_vec(), want.to_f64_vec());
    let matrices = w.len().checked_div(rows * cols).unwrap_or(0);
    let (vectors, length) = if columns { (cols, rows) } else { (rows, cols) };
    for b in 0..matrices {
        for v in 0..vectors {
            let at = |k: usize| b * rows * cols + if columns { k * cols + v } else { v * cols + k };
            let dot: f64 = (0..length).map(|k| g[at(k)] * w[at(k)]).sum();
            if dot < 0.0 {
                (0..length).for_each(|k| w[at(k)] = -w[at(k)]);
            }
        }
    }
    let data = match want.dtype() {
        DType::F32 => Data::F32(w.into_iter().map(|x| x as f32).collect()),
        _ => Data::F64(w),
    };
    Array::new(shape, data).unwrap_or_else(|_| want.clone())
}

/// The position of `x` among the f32 values in increasing order, with both zeros at 0.
fn ordered_f32(x: f32) -> i64 {
    let bits = i64::from(x.to_bits() as i32);
    if bits < 0 { -(bits & 0x7fff_ffff) } else { bits }
}

/// The position of a 16-bit float (its bits) among the values of its type in
/// increasing order, with both zeros at 0.
fn ordered_u16(bits: u16) -> i64 {
    let magnitude = i64::from(bits & 0x7fff);
    if bits & 0x8000 != 0 { -magnitude } else { magnitude }
}

/// The position of `x` among the f64 values in increasing order, with both zeros at 0.
fn ordered_f64(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    if bits < 0 { -(bits & 0x7fff_ffff_ffff_ffff) } else { bits }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Array {
        Array::from_f32(&[v.len()], v.to_vec()).unwrap()
    }

    #[test]
    fn singular_vectors_are_matched_up_to_sign_and_compared_norm_wise() {
        let text = "func @f(%a: f64[2,2]) -> (f64[2,2], f64[2], f64[2,2]) {
  %u: f64[2,2], %s: f64[2], %vt: f64[2,2] = svd(%a)
  return %u, %s, %vt
}
";
        let module = ferrax_ir::parse(text).unwrap();
        let func = module.func("f").unwrap();
        let eqn = &func.eqns[0];
        let m = |v: [f64; 4]| Array::from_f64(&[2, 2], v.to_vec()).unwrap();
        // JAX's second column of u (and second row of vt) has the other sign.
        let ours = m([0.6, 0.8, 0.8, -0.6]);
        let jax_u = m([0.6, -0.8, 0.8, 0.6]);
        let aligned = align_signs(eqn, func.results[0], &ours, &jax_u);
        assert_eq!(aligned.to_f64_vec(), ours.to_f64_vec());
        let jax_vt = m([1.0, 0.0, 0.0, -1.0]);
        let aligned = align_signs(eqn, func.results[2], &m([1.0, 0.0, 0.0, 1.0]), &jax_vt);
        assert_eq!(aligned.to_f64_vec(), vec![1.0, 0.0, 0.0, 1.0]);
        // s is not a vector result: unchanged.
        let s = Array::from_f64(&[2], vec![2.0, -1.0]).unwrap();
        assert_eq!(align_signs(eqn, func.results[1], &s, &s), s);
        // Norm-wise: 1e-16 off a zero passes next to a 1.0, an element-wise bound would not.
        let tol = Tolerance::NormWise { ulps: 1 };
        let near = Array::from_f64(&[2], vec![1e-16, 1.0]).unwrap();
        let want = Array::from_f64(&[2], vec![0.0, 1.0]).unwrap();
        assert!(agree(&near, &want, tol, None, true).is_ok());
        assert!(agree(&near, &want, Tolerance::Ulps(4), None, true).is_err());
        let far = Array::from_f64(&[2], vec![1e-15, 1.0]).unwrap();
        assert!(agree(&far, &want, tol, None, true).is_err());
    }

    #[test]
    fn exact_means_bits() {
        let one_ulp_up = f32::from_bits(1.0f32.to_bits() + 1);
        assert!(agree(&f32s(&[1.0, f32::NAN]), &f32s(&[1.0, -f32::NAN]), Tolerance::Exact, None, false).is_ok());
        assert!(agree(&f32s(&[1.0]), &f32s(&[one_ulp_up]), Tolerance::Exact, None, false).is_err());
        assert!(agree(&f32s(&[-0.0]), &f32s(&[0.0]), Tolerance::Exact, None, false).is_err());
        assert!(agree(&f32s(&[f32::NAN]), &f32s(&[1.0]), Tolerance::Exact, None, false).is_err());
    }

    #[test]
    fn ulps_count_across_zero_and_stop_at_infinity() {
        let tiny = f32::from_bits(1);
        assert!(agree(&f32s(&[tiny]), &f32s(&[-tiny]), Tolerance::Ulps(2), None, false).is_ok());
        assert!(agree(&f32s(&[tiny]), &f32s(&[-tiny]), Tolerance::Ulps(1), None, false).is_err());
        let up4 = f32::from_bits(0.75f32.to_bits() + 4);
        assert!(agree(&f32s(&[up4]), &f32s(&[0.75]), Tolerance::Ulps(4), None, false).is_ok());
        assert!(agree(&f32s(&[up4]), &f32s(&[0.75]), Tolerance::Ulps(3), None, false).is_err());
        assert!(agree(&f32s(&[f32::MAX]), &f32s(&[f32::INFINITY]), Tolerance::Ulps(10), None, false).is_err());
        assert!(agree(&f32s(&[f32::NAN]), &f32s(&[0.0]), Tolerance::Ulps(u64::MAX), None, false).is_err());
    }

    #[test]
    fn sums_are_scaled_by_their_magnitude() {
        // 1 + 1e8 - 1e8 over 3 terms: the magnitude is 2e8 + 1, so a result of 0 (the
        // order that loses the 1) is as right as 1.
        let mag = Array::from_f64(&[1], vec![2.0e8 + 1.0]).unwrap();
        let tol = Tolerance::Sum { terms: 3 };
        assert!(agree(&f32s(&[0.0]), &f32s(&[1.0]), tol, Some(&mag), false).is_ok());
        let small = Array::from_f64(&[1], vec![3.0]).unwrap();
        assert!(agree(&f32s(&[0.0]), &f32s(&[1.0]), tol, Some(&small), false).is_err());
        let inf = Array::from_f64(&[1], vec![f64::INFINITY]).unwrap();
        assert!(agree(&f32s(&[f32::NAN]), &f32s(&[f32::NAN]), tol, Some(&inf), false).is_ok());
        assert!(agree(&f32s(&[f32::INFINITY]), &f32s(&[f32::NAN]), tol, Some(&inf), false).is_err());
    }

    #[test]
    fn overflow_of_finite_operands_is_left_unjudged() {
        let f64s = |v: &[f64]| Array::from_f64(&[v.len()], v.to_vec()).unwrap();
        let inf = f64s(&[f64::INFINITY]);
        let tol = Tolerance::Sum { terms: 4 };
        // 1e308 + 1e308 - 1e308 - 1e308: inf left to right, 0 pairwise.
        assert_eq!(agree(&f64s(&[0.0]), &inf, tol, Some(&inf), true), Ok((0, 1)));
        // With an infinite operand every order gives the same result.
        assert!(agree(&f64s(&[0.0]), &inf, tol, Some(&inf), false).is_err());
        let prod = Tolerance::Product { factors: 4 };
        assert_eq!(agree(&f64s(&[1.0]), &inf, prod, None, true), Ok((0, 1)));
        assert!(agree(&f64s(&[1.0]), &f64s(&[1.5]), prod, None, true).is_err());
    }

    #[test]
    fn integers_and_shapes_must_match() {
        let a = Array::from_i32(&[2], vec![1, 2]).unwrap();
        let b = Array::from_i32(&[2], vec![1, 3]).unwrap();
        assert!(agree(&a, &a, Tolerance::Exact, None, false).is_ok());
        assert!(agree(&a, &b, Tolerance::Exact, None, false).unwrap_err().contains("element 1"));
        assert!(agree(&f32s(&[1.0, 2.0]), &f32s(&[1.0]), Tolerance::Ulps(1), None, false).is_err());
    }

    const FILE: &str = "func @f(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = neg(%x)\n  return %y\n}\n; run\n; in: f32[2] = [1.0, -0.0]\n; out0: f32[2] = [-1.0, 0.0]\n";

    fn check(fixture_text: &str) -> Result<Coverage, String> {
        let mut fixture = Fixture::parse(fixture_text).unwrap();
        check_files(&[("neg.fx".to_string(), FILE.to_string())], &mut fixture)
    }

    fn hash() -> String {
        let lines: Vec<&str> = FILE.lines().collect();
        let (module, spans) = ferrax_ir::parse_with_spans(FILE).unwrap();
        let runs = collect_runs(&lines, &module, &spans).unwrap();
        run_hash(&lines, 0, &runs[0])
    }

    #[test]
    fn a_single_op_run_needs_a_current_entry() {
        let good = format!("run neg.fx @f 1 {}\nout0 f32[2] = [-1.0, 0.0]\n", hash());
        let coverage = check(&good).unwrap();
        assert_eq!((coverage.files, coverage.runs, coverage.values, coverage.tolerant), (1, 1, 2, 0));
        // A wrong value is caught under both backends.
        let wrong = format!("run neg.fx @f 1 {}\nout0 f32[2] = [-1.0, -0.0]\n", hash());
        let report = check(&wrong).unwrap_err();
        assert!(report.contains("interpreter") && report.contains("JIT"), "{report}");
        // No entry, a stale entry, an orphan entry.
        assert!(check("").unwrap_err().contains("no entry in the JAX fixture"));
        let stale = "run neg.fx @f 1 0000000000000000\nout0 f32[2] = [-1.0, 0.0]\n";
        assert!(check(stale).unwrap_err().contains("changed since"));
        let orphan = format!("{good}run neg.fx @f 2 {}\nout0 f32[2] = [-1.0, 0.0]\n", hash());
        assert!(check(&orphan).unwrap_err().contains("not a single-op run"));
    }

    #[test]
    fn the_criterion_admits_one_primitive_on_parameters_and_constants() {
        let one = ferrax_ir::parse(FILE).unwrap();
        assert!(single_op(one.entry().unwrap()));
        let chain = ferrax_ir::parse(
            "func @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = neg(%x)\n  %z: f32[2] = neg(%y)\n  return %z\n}\n",
        )
        .unwrap();
        assert!(!single_op(chain.entry().unwrap()));
        let constant = ferrax_ir::parse(
            "func @h(%x: f32[2]) -> (f32[2]) {\n  %c: f32[2] = constant[value=2.0]()\n  %z: f32[2] = mul(%x, %c)\n  return %z\n}\n",
        )
        .unwrap();
        assert!(single_op(constant.entry().unwrap()));
    }

    #[test]
    fn the_hash_is_the_scripts() {
        // Known answers of make_jax_fixture.py's fnv1a.
        assert_eq!(fnv1a(""), "cbf29ce484222325");
        assert_eq!(fnv1a("a\n"), "089bdc07b544e7b2");
    }
}
