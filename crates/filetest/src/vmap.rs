//! The `vmap` subtest: the canonical text of the batched module, and a check of its
//! results against the original module run on each example, slice by slice.
//!
//! A file holds a module; after its entry Func, a `; vmap:` line starts a block holding
//! the canonical text of `dce(vmap(module, in_axes, out_axes, axis_size))`, one
//! `; `-prefixed line each, a blank line as `;`. Lines outside the block: `; in_axes:
//! 0,none` (one entry per parameter: an axis, negative from the end, or `none`) and
//! `; axis_size: N` are required; `; out_axes: 0` (one axis, or one per output;
//! default 0) and `; in: TYPE = [values]` lines (the batched arguments; default: values
//! drawn deterministically) are optional.

use crate::ad::{SplitMix, agree, draw, run, uncomment};
use crate::eval::parse_array;
use crate::expect::{directive, func_before, is_comment};
use ferrax_array::Array;
use ferrax_ir::{Module, Type};

/// The expectations of a file.
struct Spec {
    block: (usize, usize),
    expected: String,
    in_axes: Vec<Option<isize>>,
    out_axes: Vec<isize>,
    axis_size: usize,
    inputs: Vec<Array>,
}

const OPTIONS: [&str; 4] = ["in_axes:", "out_axes:", "axis_size:", "in:"];

/// Checks a file; returns the blessed text when asked to and the block changed.
pub(crate) fn check(text: &str, bless: bool) -> Result<Option<String>, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{e}"))?;
    ferrax_ir::verify(&module).map_err(|e| format!(" {e}"))?;
    let entry = module.entry().ok_or(" has no Func")?;
    let lines: Vec<&str> = text.lines().collect();
    let spec = collect(&lines)?;
    let at = spec.block.0 + 1;
    if func_before(&module, &spans, at).as_deref() != Some(entry.name.as_str()) {
        return Err(format!("{at}: the '; vmap:' block must follow the entry Func @{}", entry.name));
    }
    let batched = ferrax_transform::vmap(&module, &spec.in_axes, &spec.out_axes, spec.axis_size)
        .map_err(|e| format!("{at}: vmap fails: {e}"))?;
    let batched = ferrax_transform::dce(&batched);
    ferrax_ir::verify(&batched).map_err(|e| format!("{at}: the vmap module does not verify: {e}"))?;
    let actual = ferrax_ir::print(&batched);
    let reparsed = ferrax_ir::parse(&actual).map_err(|e| format!("{at}: the printed module does not parse: {e}"))?;
    if ferrax_ir::print(&reparsed) != actual {
        return Err(format!("{at}: the printed vmap module is not a fixed point of printing"));
    }
    against_loop(&module, &reparsed, &spec).map_err(|e| format!("{at}: @{}: {e}", entry.name))?;
    if actual.trim_end() == spec.expected.trim_end() {
        return Ok(None);
    }
    if !bless {
        return Err(format!("{at}: the vmap of @{} differs:\n{}", entry.name, crate::diff(&spec.expected, &actual)));
    }
    let (start, end) = spec.block;
    let mut blessed: Vec<String> = lines[..=start].iter().map(|l| l.to_string()).collect();
    blessed.extend(actual.trim_end().lines().map(|l| if l.is_empty() { ";".to_string() } else { format!("; {l}") }));
    blessed.extend(lines[end..].iter().map(|l| l.to_string()));
    Ok(Some(format!("{}\n", blessed.join("\n"))))
}

/// Finds the block and the option lines.
fn collect(lines: &[&str]) -> Result<Spec, String> {
    let mut block: Option<(usize, usize)> = None;
    let (mut in_axes, mut out_axes, mut axis_size) = (None, None, None);
    let mut inputs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let n = i + 1;
        if let Some(rest) = directive(line, "vmap:") {
            if block.is_some() {
                return Err(format!("{n}: a second '; vmap:' block (a file has one)"));
            }
            if !rest.is_empty() {
                return Err(format!("{n}: nothing may follow '; vmap:' on its line"));
            }
            i += 1;
            while i < lines.len()
                && is_comment(lines[i])
                && !OPTIONS.iter().any(|o| directive(lines[i], o).is_some())
                && directive(lines[i], "vmap:").is_none()
            {
                i += 1;
            }
            block = Some((n - 1, i));
            continue;
        }
        if let Some(list) = directive(line, "in_axes:") {
            let parsed = list
                .split(',')
                .map(|a| match a.trim() {
                    "none" => Ok(None),
                    s => s.parse::<isize>().map(Some).map_err(|_| format!("{n}: bad axis '{s}' in '; in_axes:'")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            if in_axes.replace(parsed).is_some() {
                return Err(format!("{n}: a second '; in_axes:' line"));
            }
        } else if let Some(list) = directive(line, "out_axes:") {
            let parsed = list
                .split(',')
                .map(|a| {
                    a.trim().parse::<isize>().map_err(|_| format!("{n}: bad axis '{}' in '; out_axes:'", a.trim()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if out_axes.replace(parsed).is_some() {
                return Err(format!("{n}: a second '; out_axes:' line"));
            }
        } else if let Some(size) = directive(line, "axis_size:") {
            let parsed = size.parse::<usize>().map_err(|_| format!("{n}: bad '; axis_size:' '{size}'"))?;
            if axis_size.replace(parsed).is_some() {
                return Err(format!("{n}: a second '; axis_size:' line"));
            }
        } else if let Some(value) = directive(line, "in:") {
            inputs.push(parse_array(value).map_err(|e| format!("{n}: {e}"))?);
        }
        i += 1;
    }
    let block =
        block.ok_or(" has no '; vmap:' block (put a '; vmap:' line after the entry Func; FERRAX_BLESS=1 fills it)")?;
    let in_axes = in_axes.ok_or(" has no '; in_axes:' line")?;
    let axis_size = axis_size.ok_or(" has no '; axis_size:' line")?;
    let expected = lines[block.0 + 1..block.1].iter().map(|l| format!("{}\n", uncomment(l))).collect();
    Ok(Spec { block, expected, in_axes, out_axes: out_axes.unwrap_or_else(|| vec![0]), axis_size, inputs })
}

/// Slice `index` of `array` along `axis`.
fn take(array: &Array, axis: usize, index: usize) -> Array {
    let shape = array.shape();
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let flat = (0..outer).flat_map(|o| (0..inner).map(move |j| (o * n + index) * inner + j));
    let mut sliced = shape.to_vec();
    sliced.remove(axis);
    Array::new(sliced.as_slice(), array.data().gather(flat)).unwrap_or_else(|_| Array::scalar_f64(0.0))
}

/// A possibly negative axis of a value of `rank`.
fn resolve(axis: isize, rank: usize) -> usize {
    if axis < 0 { (axis + rank as isize).max(0) as usize } else { axis as usize }
}

/// Runs the batched module on the batched arguments and the original on each example;
/// slice `b` of every output must equal the original's output on example `b`.
fn against_loop(module: &Module, batched: &Module, spec: &Spec) -> Result<(), String> {
    let entry = module.entry().ok_or("no entry")?;
    let bentry = batched.entry().ok_or("no entry")?;
    let types: Vec<Type> = bentry.param_types();
    let args = if spec.inputs.is_empty() {
        let mut rng = SplitMix(0x7A_B47C);
        types.iter().map(|t| draw(t, &mut rng)).collect()
    } else {
        if spec.inputs.len() != types.len() {
            return Err(format!(
                "@{} takes {} arguments but {} '; in:' lines are given",
                bentry.name,
                types.len(),
                spec.inputs.len()
            ));
        }
        for (i, (a, t)) in spec.inputs.iter().zip(&types).enumerate() {
            if a.dtype() != t.dtype || a.shape() != t.shape.as_slice() {
                return Err(format!("'; in:' line {i} does not have the batched parameter's type {t}"));
            }
        }
        spec.inputs.clone()
    };
    let outs = run(batched, &args)?;
    let axes: Vec<Option<usize>> =
        spec.in_axes.iter().zip(&entry.param_types()).map(|(a, t)| a.map(|a| resolve(a, t.rank() + 1))).collect();
    for b in 0..spec.axis_size {
        let example: Vec<Array> =
            args.iter().zip(&axes).map(|(a, axis)| axis.map_or_else(|| a.clone(), |x| take(a, x, b))).collect();
        let want = run(module, &example)?;
        let got: Vec<Array> = outs
            .iter()
            .enumerate()
            .map(|(k, o)| {
                let axis = if spec.out_axes.len() == 1 { spec.out_axes[0] } else { spec.out_axes[k] };
                take(o, resolve(axis, o.rank()), b)
            })
            .collect();
        agree(&got, &want, &format!("example {b} of the batched module vs the module on that example"))?;
    }
    Ok(())
}
