//! The `eval` subtest: run Funcs on the inputs of their `; run` blocks and compare
//! the outputs, printed as `ferrax run` prints them.

use crate::expect::{directive, func_before, is_comment};
use ferrax_array::{Array, DType, Data, Shape};
use ferrax_ir::attr::parse_float;
use ferrax_ir::{EvalOptions, Module, SourceMap};

/// A `; run` block: its line range and inputs.
pub(crate) struct Run {
    /// 0-based index of the `; run` line.
    pub start: usize,
    /// 0-based index one past the block's last line.
    pub end: usize,
    pub func: String,
    pub inputs: Vec<Array>,
    pub fuel: Option<u64>,
    pub max_bytes: Option<u64>,
    /// The expectation lines (`out0: ...`, `error: ...`), without their `;`.
    pub expected: Vec<String>,
}

/// Checks a file; returns the blessed text when asked to and something changed.
pub(crate) fn check(text: &str, bless: bool) -> Result<Option<String>, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{e}"))?;
    ferrax_ir::verify(&module).map_err(|e| format!(" {e}"))?;
    let lines: Vec<&str> = text.lines().collect();
    let runs = collect_runs(&lines, &module, &spans)?;
    if runs.is_empty() {
        return Err(" has no '; run' block".into());
    }
    let mut failures = Vec::new();
    let mut jit_failures = Vec::new();
    let mut blessed: Vec<String> = Vec::new();
    let mut next_line = 0;
    for run in &runs {
        let actual = execute(&module, run);
        if let Err(e) = jit_agrees(&module, run) {
            jit_failures.push(format!("{}: @{} under the JIT: {e}", run.start + 1, run.func));
        }
        if actual != run.expected {
            failures.push(format!(
                "{}: @{} gave other results:\n{}",
                run.start + 1,
                run.func,
                crate::diff(&run.expected.join("\n"), &actual.join("\n"))
            ));
        }
        blessed.extend(lines[next_line..run.start].iter().map(|l| l.to_string()));
        let kept = lines[run.start..run.end].iter().filter(|l| !is_expectation(l));
        blessed.extend(kept.map(|l| l.to_string()));
        blessed.extend(actual.iter().map(|l| format!("; {l}")));
        next_line = run.end;
    }
    blessed.extend(lines[next_line..].iter().map(|l| l.to_string()));
    conclude(failures, jit_failures, bless, format!("{}\n", blessed.join("\n")))
}

/// What a checked file comes to: `Ok(None)` when everything agrees, the rewritten text
/// when blessing fixes the expectations, else the report. Bless writes the
/// interpreter's results, so it refuses a file where the JIT disagrees with the
/// interpreter: which backend is wrong is for a person to find out, and blessing would
/// drop the disagreement from view.
fn conclude(
    failures: Vec<String>,
    jit_failures: Vec<String>,
    bless: bool,
    blessed: String,
) -> Result<Option<String>, String> {
    if !jit_failures.is_empty() {
        let mut report = Vec::new();
        if bless {
            report.push(
                " FERRAX_BLESS refused: the JIT disagrees with the interpreter, whose results it would write".into(),
            );
        }
        report.extend(jit_failures);
        report.extend(failures);
        return Err(report.join("\n"));
    }
    match (failures.is_empty(), bless) {
        (true, _) => Ok(None),
        (false, true) => Ok(Some(blessed)),
        (false, false) => Err(failures.join("\n")),
    }
}

fn is_expectation(line: &str) -> bool {
    let rest = line.trim_start().trim_start_matches(';').trim_start();
    rest.starts_with("error:") || (rest.starts_with("out") && rest.contains(':'))
}

pub(crate) fn collect_runs(lines: &[&str], module: &Module, spans: &SourceMap) -> Result<Vec<Run>, String> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(options) = directive(lines[i], "run") else {
            i += 1;
            continue;
        };
        let start = i;
        let func = func_before(module, spans, start + 1).ok_or(format!("{}: '; run' before any Func", start + 1))?;
        let (fuel, max_bytes) = run_options(options).map_err(|e| format!("{}: {e}", start + 1))?;
        let mut run = Run { start, end: start + 1, func, inputs: vec![], fuel, max_bytes, expected: vec![] };
        i += 1;
        while i < lines.len() && is_comment(lines[i]) && directive(lines[i], "run").is_none() {
            if let Some(value) = directive(lines[i], "in:") {
                run.inputs.push(parse_array(value).map_err(|e| format!("{}: {e}", i + 1))?);
            } else if is_expectation(lines[i]) {
                run.expected.push(lines[i].trim_start().trim_start_matches(';').trim().to_string());
            } else {
                break;
            }
            i += 1;
        }
        run.end = i;
        runs.push(run);
    }
    Ok(runs)
}

/// `; run` may carry `fuel=N` and `max_bytes=N`.
fn run_options(text: &str) -> Result<(Option<u64>, Option<u64>), String> {
    let (mut fuel, mut max_bytes) = (None, None);
    for word in text.split_whitespace() {
        let (key, value) = word.split_once('=').ok_or(format!("bad run option '{word}'"))?;
        let value: u64 = value.parse().map_err(|_| format!("bad number in '{word}'"))?;
        match key {
            "fuel" => fuel = Some(value),
            "max_bytes" => max_bytes = Some(value),
            _ => return Err(format!("unknown run option '{key}'")),
        }
    }
    Ok((fuel, max_bytes))
}

/// Runs a block and prints its outputs (`out0: ...`) or its error (`error: ...`).
fn execute(module: &Module, run: &Run) -> Vec<String> {
    let mut options = EvalOptions { fuel: run.fuel, ..EvalOptions::default() };
    if let Some(max) = run.max_bytes {
        options.budget = ferrax_array::Budget::new(max);
    }
    match ferrax_ir::eval(module, &run.func, &run.inputs, &options) {
        Ok(outputs) => outputs.iter().enumerate().map(|(i, a)| format!("out{i}: {}", a.describe(None))).collect(),
        Err(e) => vec![format!("error: {e}")],
    }
}

/// Runs a block under the JIT too and compares with the interpreter under the
/// exactness policy (`ferrax_jit::policy`, documented in ir/README.md). Both must fail
/// or both succeed; only a budget (`max_bytes`) run may fail under just one backend,
/// since the interpreter counts live buffers and the JIT its whole planned workspace.
fn jit_agrees(module: &Module, run: &Run) -> Result<(), String> {
    let mut options = EvalOptions { fuel: run.fuel, ..EvalOptions::default() };
    if let Some(max) = run.max_bytes {
        options.budget = ferrax_array::Budget::new(max);
    }
    let expected = ferrax_ir::eval(module, &run.func, &run.inputs, &options);
    let jit_options = ferrax_jit::JitOptions { fuel: run.fuel, max_bytes: run.max_bytes, ..Default::default() };
    let actual = ferrax_jit::compile_func(module, &run.func, &jit_options).and_then(|exe| exe.call(&run.inputs));
    match (expected, actual) {
        (Ok(e), Ok(a)) => ferrax_jit::policy::agree_for(module, &run.func, &run.inputs, &e, &a),
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(_)) | (Err(_), Ok(_)) if run.max_bytes.is_some() => Ok(()),
        (Ok(_), Err(e)) => Err(format!("failed where the interpreter did not: {e}")),
        (Err(e), Ok(_)) => Err(format!("succeeded where the interpreter failed ({e})")),
    }
}

/// Parses `f32[2,2] = [1.0, 2.0, 3.0, 4.0]` (the `ferrax run` output format).
pub(crate) fn parse_array(text: &str) -> Result<Array, String> {
    let (ty, values) = text.split_once('=').ok_or(format!("expected 'dtype[dims] = [values]', got '{text}'"))?;
    let (dtype, dims) = ty.trim().split_once('[').ok_or(format!("bad type '{}'", ty.trim()))?;
    let dtype = DType::from_name(dtype).ok_or(format!("unknown dtype '{dtype}'"))?;
    let dims = dims.strip_suffix(']').ok_or(format!("bad type '{}'", ty.trim()))?;
    let shape: Shape = dims
        .split(',')
        .filter(|d| !d.trim().is_empty())
        .map(|d| d.trim().parse::<usize>().map_err(|_| format!("bad dimension '{d}'")))
        .collect::<Result<_, _>>()?;
    let values = values.trim();
    let values = values.strip_prefix('[').and_then(|v| v.strip_suffix(']')).ok_or(format!("bad values '{values}'"))?;
    let items: Vec<&str> = values.split(',').map(str::trim).filter(|v| !v.is_empty()).collect();
    let bad = |v: &str| format!("'{v}' is not a {dtype} value");
    let data = match dtype {
        DType::F32 => {
            Data::F32(items.iter().map(|v| parse_float::<f32>(v).ok_or_else(|| bad(v))).collect::<Result<_, _>>()?)
        }
        DType::F64 => {
            Data::F64(items.iter().map(|v| parse_float::<f64>(v).ok_or_else(|| bad(v))).collect::<Result<_, _>>()?)
        }
        DType::I32 => Data::I32(items.iter().map(|v| v.parse().map_err(|_| bad(v))).collect::<Result<_, _>>()?),
        DType::Bool => Data::Bool(items.iter().map(|v| v.parse().map_err(|_| bad(v))).collect::<Result<_, _>>()?),
        // Read as f32 and rounded once, as the IR reads 16-bit literals.
        DType::BF16 | DType::F16 => {
            let wide: Vec<f32> =
                items.iter().map(|v| parse_float::<f32>(v).ok_or_else(|| bad(v))).collect::<Result<_, _>>()?;
            Data::narrow_half(&wide, dtype).ok_or_else(|| bad("16-bit"))?
        }
    };
    Array::new(shape, data).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bless_refuses_a_file_where_the_jit_disagrees() {
        let stale = || vec!["5: @f gave other results".to_string()];
        let jit = || vec!["5: @f under the JIT: element 0: 1.0 vs 2.0".to_string()];
        let text = || "func @f() -> () {\n  return\n}\n".to_string();
        // Without a JIT disagreement, bless rewrites the expectations.
        assert_eq!(conclude(stale(), vec![], true, text()), Ok(Some(text())));
        assert_eq!(conclude(vec![], vec![], true, text()), Ok(None));
        assert!(conclude(stale(), vec![], false, text()).is_err());
        // With one, bless fails with both reports, whatever the expectations say.
        let refused = conclude(stale(), jit(), true, text()).unwrap_err();
        assert!(refused.contains("refused") && refused.contains("under the JIT") && refused.contains("other results"));
        assert!(conclude(vec![], jit(), true, text()).unwrap_err().contains("refused"));
        assert!(!conclude(vec![], jit(), false, text()).unwrap_err().contains("refused"));
    }

    /// The whole path where the backends agree: bless rewrites a wrong expectation
    /// (the refusal itself is [`conclude`]'s, tested above).
    #[test]
    fn bless_rewrites_a_file_where_the_backends_agree() {
        let text = "func @f(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = neg(%x)\n  return %y\n}\n; run\n; in: f32[2] = [1.0, 2.0]\n; out0: f32[2] = [0.0, 0.0]\n";
        assert!(check(text, false).unwrap_err().contains("other results"));
        let blessed = check(text, true).unwrap().expect("a rewritten file");
        assert!(blessed.contains("; out0: f32[2] = [-1.0, -2.0]"), "{blessed}");
        assert_eq!(check(&blessed, false), Ok(None));
    }

    #[test]
    fn parses_arrays() {
        let a = parse_array("f32[2,2] = [1.0, -2.5, inf, nan]").unwrap();
        assert_eq!(a.shape(), &[2, 2]);
        assert_eq!(a.describe(None), "f32[2,2] = [1.0, -2.5, inf, nan]");
        assert_eq!(parse_array("bool[] = [true]").unwrap(), Array::scalar_bool(true));
        assert_eq!(parse_array("i32[0] = []").unwrap().len(), 0);
        assert!(parse_array("i32[2] = [1]").is_err());
        assert!(parse_array("q8[2] = [1, 2]").is_err());
    }
}
