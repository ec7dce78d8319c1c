//! The `jvp` and `vjp` subtests: the canonical text of the transformed module, and a
//! numerical check of the derivatives.
//!
//! A file holds a module; after its entry Func, a `; jvp:` (or `; vjp:`) line starts a
//! block holding the canonical text of `dce(jvp(module, wrt))` (or `vjp`), one
//! `; `-prefixed line each, a blank line as `;`. Optional lines outside the block:
//! `; wrt: 0,1` (the parameters to differentiate; default every float parameter) and
//! `; in: TYPE = [values]`, one per parameter, the point of the numerical check
//! (default: values drawn deterministically, floats in [-1, 1), integers in [0, 4)).
//!
//! Checked: the transformed module verifies, prints as the block says and reads back
//! to the same text; [`ferrax_transform::check_grads`] accepts the entry at the point
//! (order 1: forward mode against central differences for `jvp`, and also the adjoint
//! identity for `vjp`); and the printed module, run at the point, agrees with the
//! transform over every float parameter (so a `wrt` subset is checked as well).

use crate::eval::parse_array;
use crate::expect::{directive, func_before, is_comment};
use ferrax_array::{Array, DType, Data};
use ferrax_ir::{EvalOptions, Func, Module, Type};
use ferrax_transform::{Modes, Tolerance, Wrt};

/// Which transform a file checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Forward mode, `; jvp:` blocks.
    Jvp,
    /// Reverse mode, `; vjp:` blocks.
    Vjp,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Jvp => "jvp",
            Mode::Vjp => "vjp",
        }
    }

    fn block_directive(self) -> &'static str {
        match self {
            Mode::Jvp => "jvp:",
            Mode::Vjp => "vjp:",
        }
    }

    fn transform(self, module: &Module, wrt: &Wrt) -> Result<Module, ferrax_ir::Error> {
        match self {
            Mode::Jvp => ferrax_transform::jvp(module, wrt),
            Mode::Vjp => ferrax_transform::vjp(module, wrt),
        }
    }
}

/// The expectations of a file.
struct Spec {
    /// 0-based index of the block's directive line, and one past its last line.
    block: (usize, usize),
    /// The block's text, uncommented.
    expected: String,
    /// The `; wrt:` list, if any.
    wrt: Option<Vec<usize>>,
    /// The `; in:` arguments, if any.
    inputs: Vec<Array>,
}

/// Checks a file; returns the blessed text when asked to and the block changed.
pub(crate) fn check(text: &str, mode: Mode, bless: bool) -> Result<Option<String>, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{e}"))?;
    ferrax_ir::verify(&module).map_err(|e| format!(" {e}"))?;
    let entry = module.entry().ok_or(" has no Func")?;
    let lines: Vec<&str> = text.lines().collect();
    let spec = collect(&lines, mode)?;
    let at = spec.block.0 + 1;
    if func_before(&module, &spans, at).as_deref() != Some(entry.name.as_str()) {
        return Err(format!(
            "{at}: the '; {}' block must follow the entry Func @{}",
            mode.block_directive(),
            entry.name
        ));
    }
    let wrt = spec.wrt.clone().map_or(Wrt::Default, Wrt::Params);
    let transformed = mode.transform(&module, &wrt).map_err(|e| format!("{at}: {} fails: {e}", mode.name()))?;
    let transformed = ferrax_transform::dce(&transformed);
    ferrax_ir::verify(&transformed).map_err(|e| format!("{at}: the {} module does not verify: {e}", mode.name()))?;
    let actual = ferrax_ir::print(&transformed);
    let reparsed = ferrax_ir::parse(&actual).map_err(|e| format!("{at}: the printed module does not parse: {e}"))?;
    if ferrax_ir::print(&reparsed) != actual {
        return Err(format!("{at}: the printed {} module is not a fixed point of printing", mode.name()));
    }
    let args = arguments(entry, &spec.inputs).map_err(|e| format!("{at}: {e}"))?;
    numerical_check(&module, &transformed, &args, mode, spec.wrt.as_deref())
        .map_err(|e| format!("{at}: @{} fails the numerical check: {e}", entry.name))?;
    if actual.trim_end() == spec.expected.trim_end() {
        return Ok(None);
    }
    if !bless {
        return Err(format!(
            "{at}: the {} of @{} differs:\n{}",
            mode.name(),
            entry.name,
            crate::diff(&spec.expected, &actual)
        ));
    }
    let (start, end) = spec.block;
    let mut blessed: Vec<String> = lines[..=start].iter().map(|l| l.to_string()).collect();
    blessed.extend(actual.trim_end().lines().map(|l| if l.is_empty() { ";".to_string() } else { format!("; {l}") }));
    blessed.extend(lines[end..].iter().map(|l| l.to_string()));
    Ok(Some(format!("{}\n", blessed.join("\n"))))
}

/// Finds the block, the `; wrt:` line and the `; in:` lines.
fn collect(lines: &[&str], mode: Mode) -> Result<Spec, String> {
    let block_name = mode.block_directive();
    let mut block: Option<(usize, usize)> = None;
    let mut wrt = None;
    let mut inputs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = directive(line, block_name) {
            if block.is_some() {
                return Err(format!("{}: a second '; {block_name}' block (a file has one)", i + 1));
            }
            if !rest.is_empty() {
                return Err(format!("{}: nothing may follow '; {block_name}' on its line", i + 1));
            }
            let start = i;
            i += 1;
            while i < lines.len()
                && is_comment(lines[i])
                && !is_option(lines[i])
                && directive(lines[i], block_name).is_none()
            {
                i += 1;
            }
            block = Some((start, i));
            continue;
        }
        if let Some(list) = directive(line, "wrt:") {
            if wrt.is_some() {
                return Err(format!("{}: a second '; wrt:' line", i + 1));
            }
            wrt = Some(parse_wrt(list).map_err(|e| format!("{}: {e}", i + 1))?);
        } else if let Some(value) = directive(line, "in:") {
            inputs.push(parse_array(value).map_err(|e| format!("{}: {e}", i + 1))?);
        }
        i += 1;
    }
    let Some(block) = block else {
        return Err(format!(
            " has no '; {block_name}' block (put a '; {block_name}' line after the entry Func; FERRAX_BLESS=1 fills it)"
        ));
    };
    let expected = lines[block.0 + 1..block.1].iter().map(|l| format!("{}\n", uncomment(l))).collect();
    Ok(Spec { block, expected, wrt, inputs })
}

/// `; wrt:` and `; in:` lines end a block (as does a non-comment line, or another
/// block's directive).
fn is_option(line: &str) -> bool {
    directive(line, "wrt:").is_some() || directive(line, "in:").is_some()
}

fn parse_wrt(list: &str) -> Result<Vec<usize>, String> {
    list.split(',')
        .map(|s| s.trim().parse::<usize>().map_err(|_| format!("bad parameter index '{}' in '; wrt:'", s.trim())))
        .collect()
}

pub(crate) fn uncomment(line: &str) -> &str {
    let rest = line.trim_start().strip_prefix(';').unwrap_or(line);
    rest.strip_prefix(' ').unwrap_or(rest)
}

/// The `; in:` arguments, checked against the entry's parameters, or drawn ones.
fn arguments(entry: &Func, given: &[Array]) -> Result<Vec<Array>, String> {
    let types = entry.param_types();
    if given.is_empty() {
        let mut rng = SplitMix(0xF11E_7E57);
        return Ok(types.iter().map(|t| draw(t, &mut rng)).collect());
    }
    if given.len() != types.len() {
        return Err(format!(
            "@{} takes {} arguments but {} '; in:' lines are given",
            entry.name,
            types.len(),
            given.len()
        ));
    }
    for (i, (a, t)) in given.iter().zip(&types).enumerate() {
        if a.dtype() != t.dtype || a.shape() != t.shape.as_slice() {
            return Err(format!(
                "'; in:' line {i} is {}[{}], but the parameter is {t}",
                a.dtype(),
                ferrax_array::format_dims(a.shape())
            ));
        }
    }
    Ok(given.to_vec())
}

/// An argument of type `t`: floats uniform in [-1, 1), integers in [0, 4), bools fair.
pub(crate) fn draw(t: &Type, rng: &mut SplitMix) -> Array {
    let n: usize = t.shape.iter().product();
    let data = match t.dtype {
        DType::F32 => Data::F32((0..n).map(|_| (rng.uniform() * 2.0 - 1.0) as f32).collect()),
        DType::F64 => Data::F64((0..n).map(|_| rng.uniform() * 2.0 - 1.0).collect()),
        DType::I32 => Data::I32((0..n).map(|_| (rng.uniform() * 4.0) as i32).collect()),
        DType::Bool => Data::Bool((0..n).map(|_| rng.uniform() < 0.5).collect()),
        DType::BF16 | DType::F16 => {
            Data::from_f64s(t.dtype, &(0..n).map(|_| rng.uniform() * 2.0 - 1.0).collect::<Vec<_>>())
        }
    };
    Array::new(t.shape.clone(), data).unwrap_or_else(|_| Array::scalar_f64(0.0))
}

/// Tolerances of the check: the defaults for f64, looser when a float parameter or
/// result is f32.
fn tolerance(f: &Func) -> Tolerance {
    let types = f.param_types().into_iter().chain(f.result_types.iter().cloned());
    if types.into_iter().any(|t| t.dtype == DType::F32) {
        Tolerance { eps: 1e-3, atol: 1e-2, rtol: 1e-2 }
    } else {
        Tolerance::default()
    }
}

/// `check_grads` at order 1, then the printed module against the transform over
/// every float parameter at the same point.
fn numerical_check(
    module: &Module,
    printed: &Module,
    args: &[Array],
    mode: Mode,
    wrt: Option<&[usize]>,
) -> Result<(), String> {
    let entry = module.entry().ok_or("no entry")?;
    let tol = tolerance(entry);
    let modes = match mode {
        Mode::Jvp => Modes::Fwd,
        Mode::Vjp => Modes::Both,
    };
    ferrax_transform::check_grads(module, args, 1, modes, tol)?;
    let float: Vec<usize> = (0..entry.params.len()).filter(|&i| entry.ty(entry.params[i]).dtype.is_float()).collect();
    let wrt: Vec<usize> = wrt.map_or_else(|| float.clone(), <[usize]>::to_vec);
    let full = mode.transform(module, &Wrt::Default).map_err(|e| e.to_string())?;
    let mut rng = SplitMix(0xD1_5EC7);
    let n_out = entry.results.len();
    match mode {
        Mode::Jvp => {
            // Tangents for the wrt parameters; zero for the other float parameters.
            let mut tangents: Vec<Array> = float.iter().map(|&i| zeros_like(&args[i])).collect();
            let mut printed_args = args.to_vec();
            for &i in &wrt {
                let v = random_like(&args[i], &mut rng);
                printed_args.push(v.clone());
                if let Some(slot) = float.iter().position(|&f| f == i) {
                    tangents[slot] = v;
                }
            }
            let mut full_args = args.to_vec();
            full_args.extend(tangents);
            let got = run(printed, &printed_args)?;
            let want = run(&full, &full_args)?;
            agree(&got, &want, "the printed jvp vs the jvp over every float parameter")
        }
        Mode::Vjp => {
            let cotangents: Vec<Array> =
                entry.result_types.iter().filter(|t| t.dtype.is_float()).map(|t| draw(t, &mut rng)).collect();
            let mut call_args = args.to_vec();
            call_args.extend(cotangents);
            let got = run(printed, &call_args)?;
            let all = run(&full, &call_args)?;
            let mut want: Vec<Array> = all[..n_out].to_vec();
            for &i in &wrt {
                let slot = float.iter().position(|&f| f == i).ok_or(format!("wrt index {i} is not a float"))?;
                want.push(all[n_out + slot].clone());
            }
            agree(&got, &want, "the printed vjp vs the vjp over every float parameter")
        }
    }
}

pub(crate) fn run(module: &Module, args: &[Array]) -> Result<Vec<Array>, String> {
    ferrax_ir::eval_entry(module, args, &EvalOptions::default()).map_err(|e| e.to_string())
}

/// The results agree in number, types and values (to rounding: the two modules may
/// add the same terms in another order).
pub(crate) fn agree(got: &[Array], want: &[Array], what: &str) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} results vs {}", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if g.dtype() != w.dtype() || g.shape() != w.shape() {
            return Err(format!("{what}: result {k} has another type"));
        }
        for (i, (a, b)) in g.to_f64_vec().iter().zip(w.to_f64_vec()).enumerate() {
            let close = a == &b || (a - b).abs() <= 1e-12 + 1e-9 * b.abs().max(a.abs()) || (a.is_nan() && b.is_nan());
            if !close {
                return Err(format!("{what}: result {k}, element {i}: {a} vs {b}"));
            }
        }
    }
    Ok(())
}

fn zeros_like(a: &Array) -> Array {
    let data = match a.dtype() {
        DType::F32 => Data::F32(vec![0.0; a.len()]),
        _ => Data::F64(vec![0.0; a.len()]),
    };
    Array::new(a.shape(), data).unwrap_or_else(|_| Array::scalar_f64(0.0))
}

/// A float array like `a` with values in [-1, 1).
fn random_like(a: &Array, rng: &mut SplitMix) -> Array {
    let data = match a.dtype() {
        DType::F32 => Data::F32((0..a.len()).map(|_| (rng.uniform() * 2.0 - 1.0) as f32).collect()),
        _ => Data::F64((0..a.len()).map(|_| rng.uniform() * 2.0 - 1.0).collect()),
    };
    Array::new(a.shape(), data).unwrap_or_else(|_| Array::scalar_f64(0.0))
}

/// A small deterministic generator (SplitMix64), so that every run draws the same
/// points and directions.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: &str = "func @f(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = mul(%x, %x)\n  return %y\n}\n";

    #[test]
    fn bless_fills_an_empty_block_which_then_passes() {
        let text = format!("{SQUARE}; jvp:\n");
        assert!(check(&text, Mode::Jvp, false).unwrap_err().contains("the jvp of @f differs"));
        let blessed = check(&text, Mode::Jvp, true).unwrap().expect("a blessed text");
        assert!(blessed.contains("; func @f_jvp(%0: f64[2], %1: f64[2]) -> (f64[2], f64[2]) {"), "{blessed}");
        assert_eq!(check(&blessed, Mode::Jvp, false), Ok(None));
        let blessed = check(&format!("{SQUARE}; vjp:\n"), Mode::Vjp, true).unwrap().expect("a blessed text");
        assert_eq!(check(&blessed, Mode::Vjp, false), Ok(None));
    }

    #[test]
    fn a_wrong_derivative_fails_the_numerical_check() {
        // A custom_jvp rule that doubles the true derivative of x * x.
        let text = "func @f(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = custom_jvp[func=@sq, jvp=@sq_jvp](%x)\n  \
            return %y\n}\n; jvp:\n\nfunc @sq(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = mul(%x, %x)\n  return %y\n}\n\n\
            func @sq_jvp(%x: f64[2], %t: f64[2]) -> (f64[2], f64[2]) {\n  %y: f64[2] = mul(%x, %x)\n  \
            %four: f64[2] = constant[value=4.0]()\n  %d: f64[2] = mul(%four, %x)\n  %dt: f64[2] = mul(%d, %t)\n  \
            return %y, %dt\n}\n";
        for (mode, block) in [(Mode::Jvp, "; jvp:"), (Mode::Vjp, "; vjp:")] {
            let text = text.replace("; jvp:", block);
            let error = check(&text, mode, true).unwrap_err();
            assert!(
                error.contains("5: @f fails the numerical check: f: jvp of output 0 vs central differences"),
                "{error}"
            );
        }
    }

    #[test]
    fn malformed_expectations_are_reported() {
        let cases = [
            (SQUARE.to_string(), "has no '; jvp:' block"),
            (format!("{SQUARE}; jvp:\n; jvp:\n"), "a second '; jvp:' block"),
            (format!("{SQUARE}; jvp: now\n"), "nothing may follow"),
            (format!("{SQUARE}; wrt: 1\n; jvp:\n"), "jvp fails: in @f: wrt index 1 is out of range"),
            (format!("{SQUARE}; wrt: x\n; jvp:\n"), "5: bad parameter index 'x'"),
            (format!("{SQUARE}; in: f64[3] = [1.0, 2.0, 3.0]\n; jvp:\n"), "'; in:' line 0 is f64[3]"),
            (format!("{SQUARE}; in: f64[2] = [1.0, 2.0]\n; in: f64[2] = [1.0, 2.0]\n; jvp:\n"), "2 '; in:' lines"),
            (format!("; jvp:\n{SQUARE}"), "1: the '; jvp:' block must follow the entry Func @f"),
            (
                format!("{SQUARE}\nfunc @g(%x: f64[]) -> (f64[]) {{\n  return %x\n}}\n; jvp:\n"),
                "the '; jvp:' block must follow the entry Func @f",
            ),
        ];
        for (text, fragment) in cases {
            let error = check(&text, Mode::Jvp, true).unwrap_err();
            assert!(error.contains(fragment), "expected '{fragment}' in: {error}");
        }
    }

    #[test]
    fn drawn_arguments_are_deterministic_and_typed() {
        let module =
            ferrax_ir::parse("func @f(%a: f64[2], %b: f32[], %n: i32[3], %p: bool[2]) -> (f64[2]) {\n  return %a\n}\n")
                .unwrap();
        let entry = module.entry().unwrap();
        let args = arguments(entry, &[]).unwrap();
        assert_eq!(args, arguments(entry, &[]).unwrap());
        let types: Vec<String> = args.iter().map(|a| format!("{}{:?}", a.dtype(), a.shape())).collect();
        assert_eq!(types, ["f64[2]", "f32[]", "i32[3]", "bool[2]"]);
        assert!(args[0].to_f64_vec().iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(args[2].as_i32().unwrap().iter().all(|v| (0..4).contains(v)));
    }
}
