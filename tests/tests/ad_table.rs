//! The primitive table (`ferrax_tests::table`) drives generic checks of forward and
//! reverse mode, in f64 and (for the smooth rows of `F32_PRIMS`) in f32 with f32
//! tolerances, on shapes that include size-0 operands:
//!
//! - `check_grads` at order 2 (so order 1 too): jvp against central differences, vjp
//!   by the adjoint identity `<u, J v> = <Jᵀ u, v>`, then both again on the jvp and
//!   on the vjp; reverse mode is skipped, visibly, for the rows that say why;
//! - for rows whose derivative is zero (comparisons, `argmax`, `iota`,
//!   `random_bits`, `stop_gradient`...), the jvp's output tangents and the vjp's
//!   cotangents are exactly zero, and the jvp never reads its tangents (symbolic zeros);
//! - every transformed module passes the verifier, and `linearize` then `transpose`
//!   agree with `jvp` and `vjp`;
//! - the table has a row for every primitive, so a new primitive without one fails, and
//!   it keeps its f32 rows, size-0 cases, a `cond` on a computed predicate and
//!   non-leading batch axes of `dot_general` and `gather`.

use ferrax_ir::array::Data;
use ferrax_ir::{Array, DType, EvalOptions, Module, Type, eval_entry, verify};
use ferrax_tests::{Expect, Instance, Reverse, Row, SplitMix, all_primitive_names, table};
use ferrax_transform::{Modes, Wrt, check_grads, dce, grad, jvp, linearize, transpose, vjp};
use std::collections::BTreeSet;

fn instances(row: &Row) -> Vec<Instance> {
    row.instances().unwrap_or_else(|e| panic!("{e}"))
}

fn run(module: &Module, args: &[Array]) -> Result<Vec<Array>, String> {
    eval_entry(module, args, &EvalOptions::default()).map_err(|e| e.to_string())
}

fn float_param_count(module: &Module) -> usize {
    module.entry().map_or(0, |f| f.param_types().iter().filter(|t| t.dtype.is_float()).count())
}

/// A float array of type `ty` with the given values (rounded for f32).
fn float_array(ty: &Type, values: Vec<f64>) -> Array {
    let data = match ty.dtype {
        DType::F32 => Data::F32(values.into_iter().map(|v| v as f32).collect()),
        _ => Data::F64(values),
    };
    Array::new(ty.shape.clone(), data).unwrap()
}

/// Random arrays of the types of the float parameters (tangents) or float results
/// (cotangents) of `module`'s entry.
fn directions(module: &Module, results: bool, rng: &mut SplitMix) -> Vec<Array> {
    let f = module.entry().expect("entry");
    let types = if results { f.result_types.clone() } else { f.param_types() };
    types
        .iter()
        .filter(|t| t.dtype.is_float())
        .map(|t| {
            let n: usize = t.shape.iter().product();
            float_array(t, (0..n).map(|_| rng.range(-1.0, 1.0)).collect())
        })
        .collect()
}

/// True when the module computes in f32 (an f32 parameter or result).
fn is_f32(module: &Module) -> bool {
    let f = module.entry().expect("entry");
    f.param_types().iter().chain(&f.result_types).any(|t| t.dtype == DType::F32)
}

/// The tolerance of comparisons between two passes that compute the same values in
/// possibly another order: a few ulps of the dtype.
fn pass_tolerance(module: &Module) -> f64 {
    if is_f32(module) { 1e-5 } else { 1e-12 }
}

/// The list of every primitive that the row check below relies on is complete: every
/// op of every family has a sample.
#[test]
fn every_op_has_a_sample() {
    let missing = ferrax_tests::missing_samples();
    assert!(missing.is_empty(), "ops without a sample in ferrax_tests::all_primitives: {missing:?}");
}

/// Every primitive's row of the property table agrees with what its table rows do:
/// an elementwise primitive keeps its operands' shape, a primitive with flops charged
/// per output element has an output, and every operand of a row is in the
/// primitive's declared domain.
#[test]
fn every_primitive_has_a_consistent_property_row() {
    use ferrax_ir::prim::{Class, Flops};
    let mut problems = Vec::new();
    for row in table() {
        for inst in instances(&row) {
            for func in inst.module.funcs.values() {
                for e in func.eqns.iter().filter(|e| e.prim.name() == row.prim) {
                    let props = e.prim.props();
                    let out = &func.value_types[e.outputs[0].index()];
                    if let Some(&x) = e.inputs.first() {
                        let x = &func.value_types[x.index()];
                        if !props.domain.accepts(x.dtype) {
                            problems.push(format!("{}: {x} is outside the domain {:?}", inst.label, props.domain));
                        }
                        if props.class == Class::Elementwise && x.shape != out.shape {
                            problems.push(format!("{}: elementwise but {x} -> {out}", inst.label));
                        }
                    }
                    if matches!(props.flops, Flops::Bodies) != e.prim.callees().iter().any(|_| true) {
                        problems.push(format!(
                            "{}: flops {:?} vs callees {:?}",
                            inst.label,
                            props.flops,
                            e.prim.callees()
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_primitive_has_a_row() {
    let rows: BTreeSet<&str> = table().iter().map(|r| r.prim).collect();
    // A collective means nothing until vmap binds its axis, so its derivative rules
    // are checked against binding first in tests/tests/collectives.rs, not here.
    let collective = |p: &&str| ferrax_tests::COLLECTIVES.contains(p);
    let all: BTreeSet<&str> = all_primitive_names().into_iter().filter(|p| !collective(p)).collect();
    let missing: Vec<&&str> = all.difference(&rows).collect();
    let unknown: Vec<&&str> = rows.difference(&all).collect();
    assert!(missing.is_empty(), "primitives without a row in the autodiff table: {missing:?}");
    assert!(unknown.is_empty(), "rows of the autodiff table that name no primitive: {unknown:?}");
}

/// Every case parses, verifies and uses its row's primitive; every row covers a
/// scalar, a size-1 axis and a general shape (except what the primitive rules out).
#[test]
fn every_row_instantiates_and_covers_its_shapes() {
    // These need an axis (or two: matrices), so they have no rank-0 operand or result.
    const NEED_AN_AXIS: [&str; 15] = [
        "concatenate",
        "conv_general_dilated",
        "iota",
        "cumsum",
        "cummax",
        "cummin",
        "sort",
        "top_k",
        "cholesky",
        "triangular_solve",
        "eigh",
        "lu",
        "custom_linear_solve",
        "qr",
        "svd",
    ];
    let mut problems = Vec::new();
    for row in table() {
        assert!(!row.cases.is_empty(), "row {} has no case", row.prim);
        let (mut scalar, mut unit, mut general) = (false, false, false);
        for inst in instances(&row) {
            let uses = inst.module.funcs.values().flat_map(|f| &f.eqns).any(|e| e.prim.name() == row.prim);
            if !uses {
                problems.push(format!("{}: the module does not use {}", inst.label, row.prim));
            }
            let entry = inst.module.entry().unwrap();
            let types = entry.param_types().into_iter().chain(entry.result_types.iter().cloned());
            for ty in types.filter(|t| t.dtype.is_float()) {
                scalar |= ty.rank() == 0;
                unit |= ty.shape.contains(&1);
                general |= ty.rank() >= 1 && ty.shape.iter().all(|&d| d > 1);
            }
        }
        if !(scalar || NEED_AN_AXIS.contains(&row.prim)) || !unit || !general {
            problems.push(format!("{}: shapes cover scalar {scalar}, size-1 axes {unit}, general {general}", row.prim));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Checks one case; `Err` says what failed.
fn check_instance(row: &Row, inst: &Instance) -> Result<(), String> {
    let reverse = row.reverse == Reverse::Checked;
    let fail = |what: &str, e: String| format!("{}: {what}: {e}\n{}", inst.label, inst.text);
    // The passes' outputs verify.
    let j = jvp(&inst.module, &Wrt::Default).map_err(|e| fail("jvp", e.to_string()))?;
    verify(&j).map_err(|e| fail("jvp output", e.to_string()))?;
    if reverse {
        let v = vjp(&inst.module, &Wrt::Default).map_err(|e| fail("vjp", e.to_string()))?;
        verify(&v).map_err(|e| fail("vjp output", e.to_string()))?;
        check_linearize(inst).map_err(|e| fail("linearize and transpose", e))?;
    }
    if row.expect != Expect::ZeroByDefinition {
        let modes = if reverse { Modes::Both } else { Modes::Fwd };
        check_grads(&inst.module, &inst.args, 2, modes, row.tol).map_err(|e| fail("check_grads", e))?;
    }
    if row.expect != Expect::Smooth {
        check_exact_zero(inst, reverse).map_err(|e| fail("zero derivative", e))?;
    }
    Ok(())
}

/// `linearize` and `transpose` verify and agree with `jvp` and `vjp`: the primal part
/// gives the outputs, the linear part on its residuals the jvp's tangents, and its
/// transpose the vjp's cotangents (up to rounding: the passes may order sums
/// differently).
fn check_linearize(inst: &Instance) -> Result<(), String> {
    let mut rng = SplitMix::seeded(&inst.label);
    let n_out = inst.module.entry().unwrap().results.len();
    let l = linearize(&inst.module, &Wrt::Default).map_err(|e| e.to_string())?;
    verify(&l).map_err(|e| format!("linearize output: {e}"))?;
    let t = transpose(&l).map_err(|e| e.to_string())?;
    verify(&t).map_err(|e| format!("transpose output: {e}"))?;
    let mut primal = run(&l, &inst.args)?;
    let residuals = primal.split_off(n_out);
    let outs = run(&inst.module, &inst.args)?;
    let tol = pass_tolerance(&inst.module);
    let close = |a: &[Array], b: &[Array], what: &str| -> Result<(), String> {
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            if x.shape() != y.shape() || !x.allclose(y, tol, tol) {
                return Err(format!("{what} {k}: {x:?} vs {y:?}"));
            }
        }
        Ok(())
    };
    close(&primal, &outs, "linearize: output")?;
    // The linear part against the jvp.
    let linear = l.funcs.values().find(|f| f.attr("residuals").is_some()).ok_or("no linear Func")?;
    let tangents = directions(&inst.module, false, &mut rng);
    let mut args = residuals.clone();
    args.extend(tangents.iter().cloned());
    let from_linear = ferrax_ir::eval(&l, &linear.name, &args, &EvalOptions::default()).map_err(|e| e.to_string())?;
    let mut jvp_args = inst.args.clone();
    jvp_args.extend(tangents);
    let from_jvp = run(&jvp(&inst.module, &Wrt::Default).map_err(|e| e.to_string())?, &jvp_args)?.split_off(n_out);
    close(&from_linear, &from_jvp, "linear part vs jvp: tangent")?;
    // Its transpose against the vjp.
    let cotangents = directions(&inst.module, true, &mut rng);
    let mut args = residuals;
    args.extend(cotangents.iter().cloned());
    let from_transpose = run(&t, &args)?;
    let mut vjp_args = inst.args.clone();
    vjp_args.extend(cotangents);
    let from_vjp = run(&vjp(&inst.module, &Wrt::Default).map_err(|e| e.to_string())?, &vjp_args)?.split_off(n_out);
    close(&from_transpose, &from_vjp, "transpose vs vjp: cotangent")
}

/// The jvp's output tangents along random directions, and (if `reverse`) the vjp's
/// cotangents for random output cotangents, are exactly zero.
fn check_exact_zero(inst: &Instance, reverse: bool) -> Result<(), String> {
    let mut rng = SplitMix::seeded(&inst.label);
    let n_out = inst.module.entry().unwrap().results.len();
    let j = jvp(&inst.module, &Wrt::Default).map_err(|e| e.to_string())?;
    let mut args = inst.args.clone();
    args.extend(directions(&inst.module, false, &mut rng));
    // Symbolic zeros: after dce, nothing reads the tangent parameters.
    let pruned = dce(&j);
    let entry = pruned.entry().unwrap();
    let tangent_params = &entry.params[inst.args.len()..];
    let reads = entry.eqns.iter().flat_map(|e| e.inputs.iter()).chain(&entry.results);
    if let Some(p) = reads.into_iter().find(|v| tangent_params.contains(v)) {
        return Err(format!("jvp: the tangent parameter {p} is read\n{}", ferrax_ir::print(&pruned)));
    }
    let out = run(&j, &args)?;
    for (k, t) in out[n_out..].iter().enumerate() {
        if let Some(x) = t.to_f64_vec().into_iter().find(|x| *x != 0.0) {
            return Err(format!("jvp: tangent of output {k} has a non-zero element {x}"));
        }
    }
    if reverse {
        let v = vjp(&inst.module, &Wrt::Default).map_err(|e| e.to_string())?;
        let mut args = inst.args.clone();
        args.extend(directions(&inst.module, true, &mut rng));
        let out = run(&v, &args)?;
        assert_eq!(out.len() - n_out, float_param_count(&inst.module));
        for (k, ct) in out[n_out..].iter().enumerate() {
            if let Some(x) = ct.to_f64_vec().into_iter().find(|x| *x != 0.0) {
                return Err(format!("vjp: cotangent of float parameter {k} has a non-zero element {x}"));
            }
        }
    }
    Ok(())
}

/// Runs the checks of the rows `pick` selects, reporting every failure at once.
fn check_rows(pick: impl Fn(&Row) -> bool) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in table().into_iter().filter(|r| pick(r)) {
        if let Reverse::Skipped(reason) = row.reverse {
            println!("row {}: reverse-mode checks skipped: {reason}", row.prim);
        }
        for inst in instances(&row) {
            checked += 1;
            if let Err(e) = check_instance(&row, &inst) {
                failures.push(e);
            }
            if let Reverse::Skipped(_) = row.reverse
                && vjp(&inst.module, &Wrt::Default).is_ok()
            {
                println!("note: {}: vjp succeeds now; its row could check reverse mode", inst.label);
            }
        }
    }
    println!("{checked} cases checked");
    assert!(failures.is_empty(), "{} failing cases:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// The op families whose rows `check_rows` splits the checks by (tests run in
/// parallel).
fn family(row: &Row) -> &'static str {
    let unary = ferrax_ir::prim::UnaryOp::from_name(row.prim).is_some();
    let binary = ferrax_ir::prim::BinaryOp::from_name(row.prim).is_some()
        || ferrax_ir::prim::CompareOp::from_name(row.prim).is_some();
    match row.prim {
        _ if unary => "unary",
        "integer_pow" | "convert" | "stop_gradient" | "name" => "unary",
        _ if binary => "binary",
        "select" | "clamp" => "binary",
        "call"
        | "cond"
        | "while"
        | "scan"
        | "custom_jvp"
        | "custom_vjp"
        | "remat"
        | "custom_linear_solve"
        | "custom_root" => "control",
        "dynamic_slice" | "dynamic_update_slice" | "gather" | "scatter_add" | "dot_general" => "index",
        "cholesky" | "triangular_solve" | "eigh" | "lu" | "qr" | "svd" => "linalg",
        _ => "structural",
    }
}

#[test]
fn unary_rows() {
    check_rows(|r| family(r) == "unary");
}

#[test]
fn binary_rows() {
    check_rows(|r| family(r) == "binary");
}

#[test]
fn structural_and_reduction_rows() {
    check_rows(|r| family(r) == "structural");
}

#[test]
fn indexing_and_dot_general_rows() {
    check_rows(|r| family(r) == "index");
}

#[test]
fn linalg_rows() {
    check_rows(|r| family(r) == "linalg");
}

#[test]
fn control_rows() {
    check_rows(|r| family(r) == "control");
}

/// `grad` of the rows with one float output, summed to a scalar, is the vjp with a
/// cotangent of ones (and verifies).
#[test]
fn grad_of_the_summed_rows_is_the_vjp_of_ones() {
    let mut failures = Vec::new();
    for row in table().into_iter().filter(|r| r.reverse == Reverse::Checked) {
        for inst in instances(&row) {
            let entry = inst.module.entry().unwrap();
            if entry.result_types.len() != 1 || !entry.result_types[0].dtype.is_float() {
                continue;
            }
            let summed = ferrax_tests::summed(&inst.module).unwrap();
            let floats: Vec<usize> = (0..entry.params.len()).filter(|&i| inst.args[i].dtype().is_float()).collect();
            let g =
                grad(&summed, &Wrt::Params(floats.clone()), false).unwrap_or_else(|e| panic!("{}: {e}", inst.label));
            verify(&g).unwrap_or_else(|e| panic!("{}: {e}", inst.label));
            let grads = run(&g, &inst.args).unwrap();
            let v = vjp(&inst.module, &Wrt::Default).unwrap();
            let mut args = inst.args.clone();
            let ty = &entry.result_types[0];
            args.push(float_array(ty, vec![1.0; ty.shape.iter().product()]));
            let cts = run(&v, &args).unwrap().split_off(1);
            let tol = pass_tolerance(&inst.module);
            for (k, (a, b)) in grads.iter().zip(&cts).enumerate() {
                if !a.allclose(b, tol, tol) {
                    failures.push(format!("{}: gradient {k}: {:?} vs {:?}", inst.label, a, b));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checks are not vacuous: a row expecting the wrong derivative fails them.
#[test]
fn the_checks_catch_wrong_derivatives() {
    let wrong = |row: Row| {
        // A size-0 case has no derivative to be wrong about.
        let nonempty = |inst: &Instance| inst.args.iter().all(|a| !a.is_empty());
        for inst in instances(&row).into_iter().filter(nonempty) {
            assert!(check_instance(&row, &inst).is_err(), "{}: a wrong expectation passed the checks", inst.label);
        }
    };
    let sg = table().into_iter().find(|r| r.prim == "stop_gradient").unwrap();
    wrong(sg.expect(Expect::Smooth));
    let sin = table().into_iter().find(|r| r.prim == "sin").unwrap();
    wrong(sin.expect(Expect::Zero));
    // A custom_jvp rule that is not the derivative of its function (3x instead of 2x).
    let cj = table().into_iter().find(|r| r.prim == "custom_jvp").unwrap();
    let template = cj.template.replace("constant[value=2]", "constant[value=3]");
    wrong(Row { template, ..cj });
}

/// The table keeps what the generic checks need to reach: f32 rows (with reverse mode)
/// for every smooth family, size-0 operands, a `cond` whose branch depends on a
/// parameter, and batch axes of `dot_general` and `gather` that are not leading.
#[test]
fn the_table_covers_f32_size_zero_computed_predicates_and_inner_batch_axes() {
    let rows = table();
    let mut f32_prims = BTreeSet::new();
    let mut empty_prims = BTreeSet::new();
    let (mut computed_cond, mut dot_inner_batch, mut gather_inner_batch) = (false, false, false);
    for row in &rows {
        for inst in instances(row) {
            let entry = inst.module.entry().unwrap();
            if is_f32(&inst.module) {
                assert_eq!(row.tol, ferrax_tests::F32_TOLERANCE, "{}: an f32 case with f64 tolerances", inst.label);
                if row.reverse == Reverse::Checked {
                    f32_prims.insert(row.prim);
                }
            }
            let types = entry.param_types().into_iter().chain(entry.result_types.iter().cloned());
            if types.filter(|t| t.dtype.is_float()).any(|t| t.shape.contains(&0)) {
                empty_prims.insert(row.prim);
            }
            for eqn in &entry.eqns {
                match &eqn.prim {
                    ferrax_ir::Prim::Control(ferrax_ir::prim::ControlOp::Cond { .. }) => {
                        let selector = eqn.inputs[0];
                        computed_cond |= entry.eqns.iter().any(|e| {
                            e.outputs.contains(&selector)
                                && !matches!(e.prim, ferrax_ir::Prim::Shape(ferrax_ir::prim::ShapeOp::Constant { .. }))
                        });
                    }
                    ferrax_ir::Prim::Linalg(ferrax_ir::prim::LinalgOp::DotGeneral(d)) => {
                        let leading = |b: &[usize]| b.iter().enumerate().all(|(i, &a)| a == i);
                        dot_inner_batch |= !leading(&d.lhs_batch) || !leading(&d.rhs_batch);
                    }
                    ferrax_ir::Prim::Index(ferrax_ir::prim::IndexOp::Gather { axis, batch_dims }) => {
                        gather_inner_batch |= *axis > *batch_dims && *batch_dims > 0
                    }
                    _ => {}
                }
            }
        }
    }
    for prim in [
        "exp",
        "log",
        "tan",
        "pow",
        "atan2",
        "dot_general",
        "gather",
        "reduce_max",
        "scan",
        "cond",
        "while",
        "custom_vjp",
    ] {
        assert!(f32_prims.contains(prim), "no f32 row checks reverse mode through {prim}: {f32_prims:?}");
    }
    for prim in
        ["sin", "div", "max", "reduce_sum", "reduce_prod", "dot_general", "gather", "concatenate", "pad", "cumsum"]
    {
        assert!(empty_prims.contains(prim), "no size-0 case of {prim}: {empty_prims:?}");
    }
    assert!(computed_cond, "no cond row computes its predicate");
    assert!(dot_inner_batch, "no dot_general row has a batch axis that is not leading");
    assert!(gather_inner_batch, "no gather row indexes an axis past a free axis after its batch axes");
}
