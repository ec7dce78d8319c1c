//! The primitive table's smooth rows (those of `F32_PRIMS`) in bf16 and f16: each f64
//! case with every f64 type made 16-bit and its inputs rounded to it.
//!
//! - forward mode: the 16-bit jvp's tangents against central differences of the same
//!   computation in f64 (on the rounded inputs), compared norm-wise,
//!   ‖got − want‖ ≤ tol·‖want‖ + tol·‖t‖·scale, with `tol` a small multiple of the
//!   16-bit epsilon (element-wise comparisons fail near zero);
//! - reverse mode: the adjoint identity `<u, J v> = <Jᵀ u, v>` between the 16-bit jvp and
//!   vjp, to the same tolerance;
//! - the JIT against the interpreter on the 16-bit jvp, bit for bit on the exact rows
//!   and norm-wise on the others.

use ferrax_ir::array::Data;
use ferrax_ir::{Array, DType, EvalOptions, Module, eval_entry, parse, verify};
use ferrax_tests::{Expect, F32_PRIMS, Instance, Reverse, SplitMix, table};
use ferrax_transform::{Wrt, jvp, vjp};

/// `a` in `dtype` if it is f64 (rounded once), else unchanged.
fn narrow(a: &Array, dtype: DType) -> Array {
    match a.dtype() {
        DType::F64 => Array::new(a.shape(), Data::from_f64s(dtype, &a.to_f64_vec())).unwrap(),
        _ => a.clone(),
    }
}

/// `a` in f64 if it is a 16-bit float (exactly), else unchanged.
fn widen(a: &Array) -> Array {
    match a.dtype().is_half() {
        true => Array::new(a.shape(), Data::F64(a.to_f64_vec())).unwrap(),
        false => a.clone(),
    }
}

fn run(module: &Module, args: &[Array]) -> Result<Vec<Array>, String> {
    eval_entry(module, args, &EvalOptions::default()).map_err(|e| e.to_string())
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The f64 cases of the smooth rows that have 16-bit copies.
fn cases() -> Vec<Instance> {
    table()
        .into_iter()
        .filter(|r| F32_PRIMS.contains(&r.prim) && r.expect == Expect::Smooth && r.reverse == Reverse::Checked)
        .flat_map(|r| r.instances().unwrap_or_else(|e| panic!("{e}")))
        .filter(|inst| !inst.text.contains("f32") && inst.text.contains("f64"))
        .collect()
}

/// `a <= b`, false when either is NaN (so a NaN difference fails a check).
fn within(a: f64, b: f64) -> bool {
    a.partial_cmp(&b).is_some_and(|o| o.is_le())
}

/// One case in `dtype`; `Err` says what failed.
fn check(inst: &Instance, dtype: DType, rng: &mut SplitMix) -> Result<(), String> {
    let text = inst.text.replace("f64", dtype.name());
    let m16 = parse(&text).map_err(|e| format!("parse: {e}"))?;
    verify(&m16).map_err(|e| format!("verify: {e}"))?;
    let args16: Vec<Array> = inst.args.iter().map(|a| narrow(a, dtype)).collect();
    if args16.iter().any(|a| a.to_f64_vec().iter().any(|x| !x.is_finite())) {
        return Ok(()); // an input past the 16-bit range: nothing to compare
    }
    let args64: Vec<Array> = args16.iter().map(widen).collect();
    let eps = match dtype {
        DType::BF16 => 2f64.powi(-7),
        _ => 2f64.powi(-10),
    };
    let tol = 4.0 * eps;
    // Tangents: one per float parameter, small values exact in the 16-bit type.
    let entry = m16.entry().ok_or("no entry")?;
    let floats: Vec<usize> = (0..entry.params.len()).filter(|&i| args16[i].dtype().is_float()).collect();
    let tangents16: Vec<Array> = floats
        .iter()
        .map(|&i| {
            let n = args16[i].len();
            let values: Vec<f64> = (0..n).map(|_| (rng.range(-1.0, 1.0) * 64.0).round() / 64.0).collect();
            Array::new(args16[i].shape(), Data::from_f64s(dtype, &values)).unwrap()
        })
        .collect();
    let j16 = jvp(&m16, &Wrt::Default).map_err(|e| format!("jvp: {e}"))?;
    let mut jvp_args = args16.clone();
    jvp_args.extend(tangents16.iter().cloned());
    let out = run(&j16, &jvp_args).map_err(|e| format!("jvp eval: {e}"))?;
    let n_out = entry.results.len();
    let got: Vec<f64> = out[n_out..].iter().flat_map(Array::to_f64_vec).collect();
    // Central differences of the f64 computation along the same tangent.
    let h = 1e-6;
    let shifted = |sign: f64| -> Result<Vec<f64>, String> {
        let mut a = args64.clone();
        for (k, &i) in floats.iter().enumerate() {
            let moved: Vec<f64> =
                a[i].to_f64_vec().iter().zip(tangents16[k].to_f64_vec()).map(|(x, t)| x + sign * h * t).collect();
            a[i] = Array::new(a[i].shape(), Data::F64(moved)).unwrap();
        }
        let r = run(&inst.module, &a)?;
        Ok(r.iter().filter(|x| x.dtype().is_float()).flat_map(Array::to_f64_vec).collect())
    };
    let (up, down) = (shifted(1.0)?, shifted(-1.0)?);
    let want: Vec<f64> = up.iter().zip(&down).map(|(u, d)| (u - d) / (2.0 * h)).collect();
    if got.len() != want.len() {
        return Err(format!("jvp gives {} tangent elements, the differences {}", got.len(), want.len()));
    }
    let scale = norm(&want).max(norm(&tangents16.iter().flat_map(Array::to_f64_vec).collect::<Vec<_>>()));
    let diff: Vec<f64> = got.iter().zip(&want).map(|(g, w)| g - w).collect();
    if !within(norm(&diff), tol * scale) {
        return Err(format!("jvp: ‖{got:?} − {want:?}‖ = {} > {tol}·{scale}", norm(&diff)));
    }
    // The adjoint identity: <u, J v> = <Jᵀ u, v>.
    let v16 = vjp(&m16, &Wrt::Default).map_err(|e| format!("vjp: {e}"))?;
    let float_outs: Vec<&Array> = out[..n_out].iter().filter(|a| a.dtype().is_float()).collect();
    let cotangents: Vec<Array> = float_outs
        .iter()
        .map(|a| {
            let values: Vec<f64> = (0..a.len()).map(|_| (rng.range(-1.0, 1.0) * 64.0).round() / 64.0).collect();
            Array::new(a.shape(), Data::from_f64s(a.dtype(), &values)).unwrap()
        })
        .collect();
    let mut vjp_args = args16.clone();
    vjp_args.extend(cotangents.iter().cloned());
    let back = run(&v16, &vjp_args).map_err(|e| format!("vjp eval: {e}"))?;
    let u: Vec<f64> = cotangents.iter().flat_map(Array::to_f64_vec).collect();
    let v: Vec<f64> = tangents16.iter().flat_map(Array::to_f64_vec).collect();
    let jt_u: Vec<f64> = back[n_out..].iter().flat_map(Array::to_f64_vec).collect();
    let (left, right) = (dot(&u, &got), dot(&jt_u, &v));
    let size = norm(&u) * norm(&got) + norm(&jt_u) * norm(&v);
    if !within((left - right).abs(), tol * size.max(f64::MIN_POSITIVE)) {
        return Err(format!("adjoint identity: <u, Jv> = {left}, <Jᵀu, v> = {right}"));
    }
    // The JIT on the jvp, against the interpreter.
    let exe = ferrax_jit::compile(&j16, &Default::default()).map_err(|e| format!("jit: {e}"))?;
    let jitted = exe.call(&jvp_args).map_err(|e| format!("jit call: {e}"))?;
    for (a, b) in jitted.iter().zip(&out) {
        let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
        let d: Vec<f64> =
            x.iter().zip(&y).map(|(p, q)| if p == q || (p.is_nan() && q.is_nan()) { 0.0 } else { p - q }).collect();
        if !within(norm(&d), 4.0 * eps * norm(&y).max(1.0)) {
            return Err(format!("jit vs interpreter: {x:?} vs {y:?}"));
        }
    }
    Ok(())
}

fn check_all(dtype: DType) {
    let mut rng = SplitMix::seeded(dtype.name());
    let mut failures = Vec::new();
    let all = cases();
    for inst in &all {
        if let Err(e) = check(inst, dtype, &mut rng) {
            failures.push(format!("{} in {dtype}: {e}", inst.label));
        }
    }
    println!("{} cases checked in {dtype}", all.len());
    assert!(all.len() > 30, "only {} cases", all.len());
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn bf16_rows() {
    check_all(DType::BF16);
}

#[test]
fn f16_rows() {
    check_all(DType::F16);
}
