//! The primitive table (`ferrax_tests::table`) drives a generic check of the vmap
//! pass: for every case of every row, every assignment of batch axes to the entry's
//! parameters (unbatched, or batched at any of the `rank + 1` positions, not all
//! unbatched) and batch sizes 0, 1 and 3, the batched module (`ferrax_transform::vmap`)
//! run on a batch equals the original module run on each example, slice by slice.
//! The output's batch axis cycles through its positions too.
//!
//! Extra rows cover what the table's rows keep fixed: a `cond` whose predicate or
//! index is batched (both branches run, then a select), and `while` loops whose
//! predicate is batched, so that the lanes finish at different iterations. `scan`'s
//! row is batched in its carry only, its xs only, its consts only, and every mix.

use ferrax_ir::{Array, DType, EvalOptions, Module, Type, eval_entry, verify};
use ferrax_tests::{Domain, Instance, Row, SplitMix, draw, table};
use ferrax_transform::{dce, vmap};

/// Slice `index` of `array` along `axis` (the axis removed).
fn take(array: &Array, axis: usize, index: usize) -> Array {
    let shape = array.shape();
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let flat = (0..outer).flat_map(|o| (0..inner).map(move |j| (o * n + index) * inner + j));
    let mut sliced = shape.to_vec();
    sliced.remove(axis);
    Array::new(sliced.as_slice(), array.data().gather(flat)).expect("a slice of a valid array")
}

/// Equal dtypes and shapes, and values equal up to rounding (NaN equals NaN).
fn same(actual: &Array, expected: &Array) -> Result<(), String> {
    if actual.dtype() != expected.dtype() || actual.shape() != expected.shape() {
        return Err(format!(
            "got {}[{:?}], expected {}[{:?}]",
            actual.dtype(),
            actual.shape(),
            expected.dtype(),
            expected.shape()
        ));
    }
    for (i, (a, e)) in actual.to_f64_vec().into_iter().zip(expected.to_f64_vec()).enumerate() {
        let close = a == e || (a.is_nan() && e.is_nan()) || (a - e).abs() <= 1e-12 * (1.0 + e.abs());
        if !close {
            return Err(format!("element {i}: got {a}, expected {e}"));
        }
    }
    Ok(())
}

/// Every assignment of batch axes to parameters of these ranks, not all `None`.
fn axis_assignments(ranks: &[usize]) -> Vec<Vec<Option<usize>>> {
    let mut all: Vec<Vec<Option<usize>>> = vec![Vec::new()];
    for &rank in ranks {
        let choices: Vec<Option<usize>> = std::iter::once(None).chain((0..=rank).map(Some)).collect();
        all = all
            .into_iter()
            .flat_map(|prefix| choices.iter().map(move |&c| [prefix.clone(), vec![c]].concat()))
            .collect();
    }
    all.retain(|axes| axes.iter().any(Option::is_some));
    all
}

/// `ty` with a batch axis of `size` at `axis`.
fn batched_type(ty: &Type, axis: Option<usize>, size: usize) -> Type {
    let mut shape = ty.shape.to_vec();
    if let Some(a) = axis {
        shape.insert(a, size);
    }
    Type::new(ty.dtype, &shape)
}

fn run(module: &Module, args: &[Array]) -> Result<Vec<Array>, String> {
    eval_entry(module, args, &EvalOptions::default()).map_err(|e| e.to_string())
}

/// Checks one instance under every assignment of batch axes and every batch size;
/// returns the number of batched modules checked, or the first failures.
fn check_instance(row: &Row, inst: &Instance) -> Result<usize, Vec<String>> {
    let entry = inst.module.entry().expect("an entry");
    let params = entry.param_types();
    let ranks: Vec<usize> = params.iter().map(Type::rank).collect();
    let out_ranks: Vec<usize> = entry.result_types.iter().map(Type::rank).collect();
    let mut failures = Vec::new();
    let mut count = 0;
    for (c, axes) in axis_assignments(&ranks).into_iter().enumerate() {
        for size in [0usize, 1, 3] {
            // The output's batch axis: cycles through positions (all outputs alike).
            let min_rank = out_ranks.iter().copied().min().unwrap_or(0);
            let out_axis = (c + size) % (min_rank + 1);
            let label = format!("{} with in_axes {axes:?}, axis_size {size}, out_axes [{out_axis}]", inst.label);
            let in_axes: Vec<Option<isize>> = axes.iter().map(|a| a.map(|a| a as isize)).collect();
            let batched = match vmap(&inst.module, &in_axes, &[out_axis as isize], size) {
                Ok(m) => dce(&m),
                Err(e) => {
                    failures.push(format!("{label}: vmap fails: {e}"));
                    continue;
                }
            };
            if let Err(e) = verify(&batched) {
                failures
                    .push(format!("{label}: the batched module does not verify: {e}\n{}", ferrax_ir::print(&batched)));
                continue;
            }
            count += 1;
            let mut rng = SplitMix::seeded(&label);
            let args: Vec<Array> = params
                .iter()
                .zip(&axes)
                .enumerate()
                .map(|(i, (ty, &axis))| match axis {
                    None => inst.args[i].clone(),
                    Some(_) => draw(row.domain(i), &batched_type(ty, axis, size), &mut rng).expect("a drawable domain"),
                })
                .collect();
            let outs = match run(&batched, &args) {
                Ok(outs) => outs,
                Err(e) => {
                    failures.push(format!("{label}: the batched module fails: {e}\n{}", ferrax_ir::print(&batched)));
                    continue;
                }
            };
            for (k, (out, ty)) in outs.iter().zip(&entry.result_types).enumerate() {
                let expected = batched_type(ty, Some(out_axis), size);
                if out.shape() != expected.shape.as_slice() || out.dtype() != ty.dtype {
                    failures.push(format!(
                        "{label}: output {k} is {}[{:?}], expected {expected}",
                        out.dtype(),
                        out.shape()
                    ));
                }
            }
            for b in 0..size {
                let example: Vec<Array> = args
                    .iter()
                    .zip(&axes)
                    .map(|(a, &axis)| axis.map_or_else(|| a.clone(), |x| take(a, x, b)))
                    .collect();
                let expected = run(&inst.module, &example).unwrap_or_else(|e| panic!("{label}: example {b}: {e}"));
                for (k, (out, e)) in outs.iter().zip(&expected).enumerate() {
                    if out.shape().get(out_axis) != Some(&size) {
                        continue;
                    }
                    if let Err(why) = same(&take(out, out_axis, b), e) {
                        failures
                            .push(format!("{label}: output {k}, example {b}: {why}\n{}", ferrax_ir::print(&batched)));
                    }
                }
            }
            if failures.len() > 3 {
                return Err(failures);
            }
        }
    }
    if failures.is_empty() { Ok(count) } else { Err(failures) }
}

fn check_rows(rows: &[Row]) {
    let mut failures = Vec::new();
    let mut count = 0;
    for row in rows {
        for inst in row.instances().unwrap_or_else(|e| panic!("{e}")) {
            match check_instance(row, &inst) {
                Ok(n) => count += n,
                Err(f) => failures.extend(f.into_iter().take(2)),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n\n{}", failures.len(), failures.join("\n\n"));
    assert!(count > 0);
}

/// The structured primitives.
const CONTROL: [&str; 9] =
    ["call", "cond", "while", "scan", "custom_jvp", "custom_vjp", "remat", "custom_linear_solve", "custom_root"];

#[test]
fn elementwise_rows() {
    let rows: Vec<Row> = table().into_iter().filter(|r| is_elementwise(r.prim)).collect();
    assert!(rows.len() > 30);
    check_rows(&rows);
}

#[test]
fn structural_index_and_reduction_rows() {
    let control = CONTROL;
    let rows: Vec<Row> =
        table().into_iter().filter(|r| !is_elementwise(r.prim) && !control.contains(&r.prim)).collect();
    check_rows(&rows);
}

#[test]
fn control_rows() {
    let control = CONTROL;
    let rows: Vec<Row> = table().into_iter().filter(|r| control.contains(&r.prim)).collect();
    // Every structured primitive has a row (some have several: bounded and unbounded
    // while, constant and computed cond, f32 copies).
    for prim in control {
        assert!(rows.iter().any(|r| r.prim == prim), "no row for {prim}");
    }
    assert!(rows.len() > control.len(), "{} control rows", rows.len());
    check_rows(&rows);
}

/// The smooth rows of `F32_PRIMS` in bf16 and f16: the batched module on a batch against
/// the module on each example, bit for bit (batching adds no arithmetic, so the 16-bit
/// roundings are the same ones).
#[test]
fn half_precision_rows() {
    let mut rows = Vec::new();
    for dtype in ["bf16", "f16"] {
        for row in
            table().into_iter().filter(|r| ferrax_tests::F32_PRIMS.contains(&r.prim) && !r.template.contains("f32"))
        {
            let cases = row
                .cases
                .iter()
                .map(|vars| {
                    let mut vars: Vec<(&'static str, String)> =
                        vars.iter().map(|(k, v)| (*k, v.replace("f64", dtype))).collect();
                    vars.push(("dtype", dtype.to_string()));
                    vars
                })
                .collect();
            rows.push(Row { template: row.template.replace("f64", dtype), cases, ..row.clone() });
        }
    }
    assert!(rows.len() > 60, "{} rows", rows.len());
    for row in &rows {
        for inst in row.instances().unwrap_or_else(|e| panic!("{e}")) {
            assert!(inst.text.contains("f16[") || inst.text.contains("bf16["), "{}", inst.text);
        }
    }
    check_rows(&rows);
}

fn is_elementwise(prim: &str) -> bool {
    use ferrax_ir::prim::{BinaryOp, CompareOp, UnaryOp};
    UnaryOp::MATH.iter().any(|op| op.name() == prim)
        || BinaryOp::ALL.iter().any(|op| op.name() == prim)
        || CompareOp::ALL.iter().any(|op| op.name() == prim)
        || ["integer_pow", "convert", "stop_gradient", "name", "select", "clamp"].contains(&prim)
}

/// `cond` with its predicate (bool) or index (i32, clamped) a parameter, so that it can
/// be batched: the lanes take different branches.
#[test]
fn cond_with_a_batched_predicate() {
    let template = "func @f(%p: {pt}[], %x: f64{s}, %w: f64{s}) -> (f64{s}, f64{s}) {
  %y: f64{s}, %v: f64{s} = cond[branches={branches}](%p, %x, %w)
  return %y, %v
}
func @b0(%a: f64{s}, %b: f64{s}) -> (f64{s}, f64{s}) {
  %c: f64{s} = sin(%a)
  %d: f64{s} = mul(%c, %b)
  return %d, %b
}
func @b1(%a: f64{s}, %b: f64{s}) -> (f64{s}, f64{s}) {
  %c: f64{s} = log(%a)
  %d: f64{s} = add(%c, %b)
  return %d, %a
}
func @b2(%a: f64{s}, %b: f64{s}) -> (f64{s}, f64{s}) {
  %c: f64{s} = constant[value=2]()
  return %c, %b
}
";
    let rows = [
        Row::new("cond", template)
            .case(&[("s", "[]"), ("pt", "bool"), ("branches", "[@b0, @b1]")])
            .case(&[("s", "[2,3]"), ("pt", "bool"), ("branches", "[@b0, @b1]")])
            .domains(&[Domain::Bool, Domain::Positive, Domain::Real]),
        // log of a negative number in the branch a lane does not take: its NaN must not
        // leak into that lane.
        Row::new("cond", template)
            .case(&[("s", "[2]"), ("pt", "i32"), ("branches", "[@b0, @b1, @b2]")])
            .case(&[("s", "[1,3]"), ("pt", "i32"), ("branches", "[@b2, @b0, @b1]")])
            .domains(&[Domain::Index(-1, 3), Domain::Real, Domain::Real]),
    ];
    check_rows(&rows);
}

/// `while` loops whose predicate depends on a batched value: each lane runs its own
/// number of iterations (a counter against a per-example bound; a float carry against
/// a threshold), bounded or not.
#[test]
fn while_with_a_batched_predicate() {
    let counted = "func @f(%n: i32[], %x: f64{s}) -> (i32[], f64{s}) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %m: i32[], %y: f64{s} = while[cond=@c, body=@b, max_iters={m}](%zero, %n, %x)
  return %i, %y
}
func @c(%i: i32[], %n: i32[], %y: f64{s}) -> (bool[]) {
  %p: bool[] = lt(%i, %n)
  return %p
}
func @b(%i: i32[], %n: i32[], %y: f64{s}) -> (i32[], i32[], f64{s}) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %s: f64{s} = sin(%y)
  %u: f64{s} = add(%s, %y)
  return %j, %n, %u
}
";
    let threshold = "func @f(%x: f64{s}, %r: f64[]) -> (f64{s}) {
  %y: f64{s}, %q: f64[] = while[cond=@c, body=@b, max_iters={m}](%x, %r)
  return %y
}
func @c(%y: f64{s}, %r: f64[]) -> (bool[]) {
  %s: f64[] = reduce_sum[axes={axes}](%y)
  %p: bool[] = lt(%s, %r)
  return %p
}
func @b(%y: f64{s}, %r: f64[]) -> (f64{s}, f64[]) {
  %h: f64{s} = constant[value=0.75]()
  %u: f64{s} = add(%y, %h)
  return %u, %r
}
";
    let rows = [
        Row::new("while", counted)
            .case(&[("s", "[]"), ("m", "none")])
            .case(&[("s", "[2,3]"), ("m", "none")])
            .case(&[("s", "[2]"), ("m", "2")])
            .domains(&[Domain::Index(-1, 4), Domain::Real]),
        Row::new("while", threshold)
            .case(&[("s", "[]"), ("axes", "[]"), ("m", "none")])
            .case(&[("s", "[2,2]"), ("axes", "[0,1]"), ("m", "none")])
            .case(&[("s", "[3]"), ("axes", "[0]"), ("m", "3")])
            .domains(&[Domain::Real, Domain::Interval(-1.0, 4.0)]),
    ];
    check_rows(&rows);
}

#[test]
fn axis_assignments_cover_every_position() {
    let all = axis_assignments(&[0, 2]);
    // (1 + 1) * (1 + 3) - 1 assignments.
    assert_eq!(all.len(), 7);
    assert!(all.contains(&vec![Some(0), None]) && all.contains(&vec![None, Some(2)]));
    let a = Array::from_f64(&[2, 3], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
    assert_eq!(take(&a, 1, 2), Array::from_f64(&[2], vec![2.0, 5.0]).unwrap());
    assert_eq!(take(&a, 0, 1).shape(), &[3]);
    let _ = DType::F64;
}
