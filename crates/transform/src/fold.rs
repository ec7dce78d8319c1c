//! Constant folding: an equation whose inputs are all `constant`s and whose results
//! have at most [`FOLD_LIMIT`] elements each is run on the reference interpreter (a
//! one-equation Func) and replaced by `constant`s. A uniform result stays a splat (a
//! rank-0 value), so `broadcast`-like shapes do not turn into long literals.
//!
//! An elementwise equation whose inputs are all uniform constants (splats) is folded
//! whatever its size: it is evaluated once on rank-0 operands and becomes a splat of
//! the result shape (elementwise primitives compute each element alone, so this is
//! exact).
//!
//! Equations that name other Funcs (`call`, `scan`, `while`, ...) are left alone: they
//! may run long and `inline_calls` exposes what a `call` computes anyway. So are
//! equations without inputs (`iota`, `constant`): nothing would be gained. An equation
//! whose evaluation fails (the interpreter's own limits) stays as it is, so that the
//! failure, if any, still happens when the program runs.

use ferrax_ir::array::{Array, Data};
use ferrax_ir::prim::Prim;
use ferrax_ir::{Eqn, Error, EvalOptions, Func, Module, Type, Value};

/// The largest result (in elements) that folding turns into a literal.
pub const FOLD_LIMIT: usize = 64;

/// The largest constant operand (in elements) folding expands from a splat.
const EXPAND_LIMIT: usize = 1 << 12;

/// The module with constant equations evaluated in every Func.
pub fn fold(module: &Module) -> Result<Module, Error> {
    let mut out = Module::new();
    for func in module.funcs.values() {
        out.push(fold_func(func)?);
    }
    Ok(out)
}

/// `func` with every foldable equation replaced by constants.
pub(crate) fn fold_func(func: &Func) -> Result<Func, Error> {
    let mut out = func.clone();
    let mut constants: Vec<Option<Array>> = vec![None; func.value_types.len()];
    let mut splats: Vec<Option<Array>> = vec![None; func.value_types.len()];
    for eqn in out.eqns.iter_mut() {
        if let Some((value, shape)) = eqn.prim.literal() {
            if let Some(&o) = eqn.outputs.first() {
                splats[o.index()] = if value.rank() == 0 { Some(value.clone()) } else { uniform(value) };
            }
            let n: usize = shape.iter().product();
            if let (Some(&o), true) = (eqn.outputs.first(), n <= EXPAND_LIMIT)
                && let Ok(full) = expand(value, shape)
            {
                constants[o.index()] = Some(full);
            }
            continue;
        }
        if eqn.inputs.is_empty() || !eqn.prim.callees().is_empty() {
            continue;
        }
        let scalar_args: Option<Vec<Array>> = eqn.inputs.iter().map(|v| splats[v.index()].clone()).collect();
        if let (true, Some(args), [o]) = (elementwise(&eqn.prim), scalar_args, eqn.outputs.as_slice()) {
            let ty = func.ty(*o).clone();
            let types: Vec<Type> = eqn.inputs.iter().map(|&v| Type::scalar(func.ty(v).dtype)).collect();
            if let Ok(results) = evaluate(&eqn.prim, &types, &[Type::scalar(ty.dtype)], &args)
                && let [value] = results.as_slice()
                && value.dtype() == ty.dtype
            {
                eqn.prim = Prim::constant(value.clone(), ty.shape.clone());
                eqn.inputs.clear();
                splats[o.index()] = Some(value.clone());
                if ty.element_count().is_some_and(|n| n <= EXPAND_LIMIT) {
                    constants[o.index()] = expand(value, &ty.shape).ok();
                }
                continue;
            }
        }
        let Some(args) = eqn.inputs.iter().map(|v| constants[v.index()].clone()).collect::<Option<Vec<Array>>>() else {
            continue;
        };
        let small = eqn.outputs.iter().all(|&o| func.ty(o).element_count().is_some_and(|n| n <= FOLD_LIMIT));
        if !small || eqn.outputs.len() != 1 {
            continue;
        }
        let in_types: Vec<Type> = eqn.inputs.iter().map(|&v| func.ty(v).clone()).collect();
        let out_types: Vec<Type> = eqn.outputs.iter().map(|&v| func.ty(v).clone()).collect();
        let Ok(results) = evaluate(&eqn.prim, &in_types, &out_types, &args) else {
            continue;
        };
        let (o, result) = (eqn.outputs[0], &results[0]);
        let ty = func.ty(o);
        if result.dtype() != ty.dtype || result.shape() != ty.shape.as_slice() {
            return Err(crate::error(
                &func.name,
                format!("folding {}: the result is not of type {ty}", eqn.prim.name()),
            ));
        }
        eqn.prim = Prim::constant(literal(result), ty.shape.clone());
        eqn.inputs.clear();
        splats[o.index()] = uniform(result);
        constants[o.index()] = Some(result.clone());
    }
    Ok(out)
}

/// True for the primitives that compute each element of the result from the same
/// element of each operand alone.
fn elementwise(prim: &Prim) -> bool {
    match prim {
        Prim::Unary(_) => !prim.props().identity,
        Prim::Binary(_) | Prim::Compare(_) | Prim::Ternary(_) => true,
        _ => false,
    }
}

/// Runs `prim` alone on `args`, as a one-equation Func of the given types.
fn evaluate(prim: &Prim, in_types: &[Type], out_types: &[Type], args: &[Array]) -> Result<Vec<Array>, Error> {
    let mut one = Func::new("fold");
    let params: Vec<Value> = in_types.iter().map(|t| one.new_value(t.clone())).collect();
    let outputs: Vec<Value> = out_types.iter().map(|t| one.new_value(t.clone())).collect();
    one.params = params.clone();
    one.result_types = outputs.iter().map(|&v| one.ty(v).clone()).collect();
    one.results = outputs.clone();
    one.eqns.push(Eqn { prim: prim.clone(), inputs: params.into(), outputs: outputs.into(), loc: None });
    let mut module = Module::new();
    module.push(one);
    ferrax_ir::eval_entry(&module, args, &EvalOptions::default())
}

/// A constant's value at its full shape.
pub(crate) fn expand(value: &Array, shape: &[usize]) -> Result<Array, Error> {
    if value.shape() == shape {
        return Ok(value.clone());
    }
    let n: usize = shape.iter().product();
    let data = value.data().gather(std::iter::repeat_n(0, n));
    Ok(Array::new(shape, data)?)
}

/// The literal for `result`: a rank-0 splat when every element has the same bits.
pub(crate) fn literal(result: &Array) -> Array {
    match uniform(result) {
        Some(first) => first,
        None => result.clone(),
    }
}

/// The single element of `array` as a rank-0 array, when all its elements have the
/// same bits (and there is at least one).
pub(crate) fn uniform(array: &Array) -> Option<Array> {
    fn same<T: Copy>(v: &[T], bits: impl Fn(T) -> u64) -> bool {
        v.first().is_some_and(|&f| v.iter().all(|&x| bits(x) == bits(f)))
    }
    let ok = match array.data() {
        Data::Bool(v) => same(v, u64::from),
        Data::I32(v) => same(v, |x| x as u32 as u64),
        Data::BF16(v) => same(v, |x| u64::from(x.to_bits())),
        Data::F16(v) => same(v, |x| u64::from(x.to_bits())),
        Data::F32(v) => same(v, |x| u64::from(x.to_bits())),
        Data::F64(v) => same(v, f64::to_bits),
    };
    ok.then(|| Array::new(&[] as &[usize], array.data().gather(std::iter::once(0))).ok()).flatten()
}
