//! The interpreter's driver: runs a Func equation by equation, holding values in an
//! environment indexed by [`Value`], dropping each value after its last use, checking
//! the budget before every result is created, and dispatching each primitive to its
//! family's evaluation rule.

use super::release::Releases;
use super::value::{Ledger, Val, Vals};
use super::{EvalOptions, MAX_CALL_DEPTH};
use crate::prim::{ControlOp, Flops};
use crate::prim::{binary, conv, index, linalg, random, reduce, shape, sort, unary};
use crate::spill::SpillFile;
use crate::{Eqn, Error, Func, Module, Place, Prim, Type, Value};
use ferrax_array::{Array, Budget, DType, Data};
use smallvec::SmallVec;
use std::rc::Rc;

/// Where an equation is; turned into a [`Place`] only when there is an error.
#[derive(Clone, Copy, Debug)]
pub(super) struct At<'f> {
    func: &'f str,
    eqn: usize,
    prim: &'static str,
}

impl At<'_> {
    /// An evaluation error at this equation.
    pub(super) fn err(self, message: impl Into<String>) -> Error {
        let place = Place { func: self.func.to_string(), eqn: Some(self.eqn), prim: Some(self.prim.to_string()) };
        Error::eval(place, message)
    }
}

/// An evaluation error in `func`, outside any equation.
fn func_err(func: &str, message: impl Into<String>) -> Error {
    Error::eval(Place { func: func.to_string(), eqn: None, prim: None }, message)
}

/// Checks that `args` match the parameters of `func`, naming the first that does not.
pub(super) fn check_args<'x>(func: &Func, args: impl ExactSizeIterator<Item = &'x Array>) -> Result<(), String> {
    let name = &func.name;
    if args.len() != func.params.len() {
        let n = func.params.len();
        return Err(format!("@{name} takes {n} argument{}, got {}", if n == 1 { "" } else { "s" }, args.len()));
    }
    for (i, (&p, a)) in func.params.iter().zip(args).enumerate() {
        let ty = func.value_type(p).ok_or_else(|| format!("parameter {p} of @{name} has no type"))?;
        if a.dtype() != ty.dtype || a.shape() != &ty.shape[..] {
            let got = Type::new(a.dtype(), a.shape());
            return Err(format!("argument {i} of @{name}: expected {ty}, got {got}"));
        }
    }
    Ok(())
}

/// One run of a module: the budget, the fuel, the call depth and the live bytes.
pub(super) struct Interp<'m> {
    pub(super) module: &'m Module,
    pub(super) budget: Budget,
    pub(super) ledger: Ledger,
    fuel: Option<u64>,
    iterations: u64,
    depth: usize,
    plans: Vec<Option<Rc<Releases>>>,
    spill_dir: Option<std::path::PathBuf>,
    /// The run's spill file, created by the first `offload` (removed with the run).
    spill: Option<SpillFile>,
    /// The place in the spill file of each `offload` equation (by Func index and
    /// equation), taken at its first run and overwritten at the next ones.
    spill_places: std::collections::HashMap<(usize, usize), u64>,
}

impl<'m> Interp<'m> {
    /// A fresh run of `module`.
    pub(super) fn new(module: &'m Module, options: &EvalOptions) -> Interp<'m> {
        Interp {
            module,
            budget: options.budget,
            ledger: Ledger::default(),
            fuel: options.fuel,
            iterations: 0,
            depth: 0,
            plans: vec![None; module.funcs.len()],
            spill_dir: options.spill_dir.clone(),
            spill: None,
            spill_places: std::collections::HashMap::new(),
        }
    }

    /// Runs `name` on `args`: checks the arguments and that they fit the budget.
    pub(super) fn run(&mut self, name: &str, args: &[Array]) -> Result<Vec<Array>, Error> {
        let (index, _, func) =
            self.module.funcs.get_full(name).ok_or_else(|| func_err(name, "no such Func in the module"))?;
        check_args(func, args.iter()).map_err(|m| func_err(name, m))?;
        let bytes = args.iter().try_fold(0u64, |acc, a| acc.checked_add(a.byte_len()));
        let bytes = bytes.ok_or_else(|| func_err(name, "the arguments' sizes overflow"))?;
        self.budget.check(0, bytes, &format!("the arguments of @{name}")).map_err(|e| func_err(name, e.to_string()))?;
        let _arguments = self.ledger.ticket(bytes);
        self.depth = 1;
        let outs = self.run_func(index, args.iter().map(Val::Arg).collect())?;
        Ok(outs.into_iter().map(Val::into_array).collect())
    }

    /// Calls the Func `name` from the equation at `at`.
    pub(super) fn call<'a>(&mut self, at: At<'_>, name: &str, args: Vec<Val<'a>>) -> Result<Vals<'a>, Error> {
        let (index, _, func) =
            self.module.funcs.get_full(name).ok_or_else(|| at.err(format!("@{name} is not a Func of the module")))?;
        check_args(func, args.iter().map(Val::array)).map_err(|m| at.err(m))?;
        if self.depth >= MAX_CALL_DEPTH {
            return Err(at.err(format!("calls are nested more than {MAX_CALL_DEPTH} deep (calling @{name})")));
        }
        self.depth += 1;
        let outs = self.run_func(index, args);
        self.depth -= 1;
        outs
    }

    /// Counts one loop iteration against the fuel.
    pub(super) fn tick(&mut self, at: At<'_>) -> Result<(), Error> {
        if let Some(left) = self.fuel.as_mut() {
            if *left == 0 {
                return Err(at.err(format!("out of fuel after {} loop iterations", self.iterations)));
            }
            *left -= 1;
        }
        self.iterations += 1;
        Ok(())
    }

    /// The last-use plan of the Func at `index`, computed once per run.
    fn plan(&mut self, index: usize, func: &Func) -> Rc<Releases> {
        match self.plans.get_mut(index) {
            Some(Some(plan)) => Rc::clone(plan),
            Some(slot) => Rc::clone(slot.insert(Rc::new(Releases::new(func)))),
            None => Rc::new(Releases::new(func)),
        }
    }

    /// Runs the Func at `index` on arguments already checked against its parameters.
    fn run_func<'a>(&mut self, index: usize, args: Vec<Val<'a>>) -> Result<Vals<'a>, Error> {
        let module = self.module;
        let (_, func) = module.funcs.get_index(index).ok_or_else(|| func_err("?", "no such Func"))?;
        let plan = self.plan(index, func);
        let mut env = Env { name: &func.name, slots: (0..func.value_types.len()).map(|_| None).collect() };
        for (&p, arg) in func.params.iter().zip(args) {
            env.define(p, Held::Val(arg)).map_err(|m| func_err(&func.name, m))?;
        }
        env.release(&plan.dead_params);
        for (i, eqn) in func.eqns.iter().enumerate() {
            let at = At { func: &func.name, eqn: i, prim: eqn.prim.name() };
            let inputs: SmallVec<[Val<'a>; 4]> =
                eqn.inputs.iter().map(|&v| self.fetch(at, &env, v)).collect::<Result<_, _>>()?;
            env.release(plan.last_inputs.get(i).map_or(&[][..], |v| v));
            let outputs: SmallVec<[Held<'a>; 2]> = if eqn.prim.is_offload() {
                smallvec::smallvec![self.offload(at, (index, i), func, eqn, &inputs)?]
            } else {
                self.eval_eqn(at, func, eqn, inputs)?.into_iter().map(Held::Val).collect()
            };
            if outputs.len() != eqn.outputs.len() {
                return Err(at.err(format!("produced {} results for {} outputs", outputs.len(), eqn.outputs.len())));
            }
            for (&v, val) in eqn.outputs.iter().zip(outputs) {
                env.define(v, val).map_err(|m| at.err(m))?;
            }
            env.release(plan.dead_outputs.get(i).map_or(&[][..], |v| v));
        }
        let end = At { func: &func.name, eqn: func.eqns.len(), prim: "return" };
        let results: Vals<'a> = func.results.iter().map(|&v| self.fetch(end, &env, v)).collect::<Result<_, _>>()?;
        check_results(func, &results).map_err(|m| func_err(&func.name, m))?;
        Ok(results)
    }

    /// Evaluates one equation on its input values.
    fn eval_eqn<'a>(
        &mut self,
        at: At<'_>,
        func: &Func,
        eqn: &Eqn,
        xs: SmallVec<[Val<'a>; 4]>,
    ) -> Result<Vals<'a>, Error> {
        let leaf = |f: &dyn Fn(&[&Array]) -> Result<Array, String>| self.leaf(at, func, eqn, &xs, f);
        match &eqn.prim {
            // The identities of the property table (`stop_gradient`, `name`, `offload`,
            // `reload`) pass their value through; `run_func` keeps offloaded values out
            // of memory.
            Prim::Unary(_) if eqn.prim.props().identity => identity(at, xs),
            Prim::Name { .. } | Prim::Memory(_) => identity(at, xs),
            Prim::Unary(op) => leaf(&|a| unary::eval(*op, a)),
            Prim::Binary(op) => leaf(&|a| binary::eval(*op, a)),
            Prim::Compare(op) => leaf(&|a| binary::eval_comparison(*op, a)),
            Prim::Ternary(op) => leaf(&|a| binary::eval_ternary(*op, a)),
            Prim::Shape(op) => leaf(&|a| shape::eval(op, a)),
            Prim::Index(op) => leaf(&|a| index::eval(op, a)),
            Prim::Reduction(op) => leaf(&|a| reduce::eval(op, a)),
            Prim::Linalg(op) if eqn.outputs.len() > 1 => self.leaves(at, func, eqn, &xs, &|a| linalg::eval_all(op, a)),
            Prim::Linalg(op) => leaf(&|a| linalg::eval(op, a)),
            Prim::Random(op) => leaf(&|a| random::eval(op, a)),
            Prim::Sort(op) => self.leaves(at, func, eqn, &xs, &|a| sort::eval(*op, a)),
            Prim::Control(op) => self.control(at, op, xs.into_vec()),
            Prim::Conv(op) => leaf(&|a| conv::eval(op, a)),
            Prim::Window(op) => leaf(&|a| crate::prim::window::eval(op, a)),
            Prim::Collective(op) => leaf(&|_| Err(crate::prim::collective::unbound(op))),
        }
    }

    /// Runs a structured op: its Funcs through the interpreter.
    fn control<'a>(&mut self, at: At<'_>, op: &ControlOp, xs: Vec<Val<'a>>) -> Result<Vals<'a>, Error> {
        match op {
            ControlOp::Cond { branches } => self.cond(at, branches, xs),
            ControlOp::While { cond, body, max_iters } => self.while_loop(at, cond, body, *max_iters, xs),
            ControlOp::Scan(params) => self.scan(at, params, xs),
            // A call, and the custom rules and remat regions: the Func computing the value.
            other => match other.primal() {
                Some(func) => self.call(at, func, xs),
                None => Err(at.err(format!("{} runs no Func in its place", other.name()))),
            },
        }
    }

    /// Evaluates a primitive with one result computed by `f`: checks the budget for the
    /// result's declared type first, and the computed array against that type after.
    #[inline(never)] // keeps the dispatcher's stack frame small (see loops.rs)
    fn leaf<'a>(
        &self,
        at: At<'_>,
        func: &Func,
        eqn: &Eqn,
        xs: &[Val<'a>],
        f: &dyn Fn(&[&Array]) -> Result<Array, String>,
    ) -> Result<Vals<'a>, Error> {
        let [out] = eqn.outputs[..] else {
            return Err(at.err(format!("has {} outputs, expected 1", eqn.outputs.len())));
        };
        let ty = func.value_type(out).ok_or_else(|| at.err(format!("{out} has no type")))?;
        let bytes = ty.byte_size().map_err(|e| at.err(e.to_string()))?;
        self.reserve(at, bytes, || format!("the result {out}: {ty}"))?;
        let refs: SmallVec<[&Array; 4]> = xs.iter().map(Val::array).collect();
        let array = match eqn.prim.props().flops {
            // Data movement keeps 16-bit elements as they are.
            Flops::None => f(&refs),
            _ => compute_widened(&refs, ty.dtype, f),
        }
        .map_err(|m| at.err(m))?;
        if array.dtype() != ty.dtype || array.shape() != &ty.shape[..] {
            let got = Type::new(array.dtype(), array.shape());
            return Err(at.err(format!("produced {got} but {out} is declared {ty}")));
        }
        Ok(smallvec::smallvec![Val::new(self.ledger.buf(array))])
    }

    /// Evaluates a primitive with several results computed by `f` (the sort family,
    /// which moves data and so sees 16-bit elements as they are, and the linear algebra,
    /// f32/f64 only: no widening either way): checks the budget for every declared
    /// result first, and each computed array against its type after.
    #[inline(never)]
    fn leaves<'a>(
        &self,
        at: At<'_>,
        func: &Func,
        eqn: &Eqn,
        xs: &[Val<'a>],
        f: &dyn Fn(&[&Array]) -> Result<Vec<Array>, String>,
    ) -> Result<Vals<'a>, Error> {
        let mut types = Vec::with_capacity(eqn.outputs.len());
        let mut bytes = 0u64;
        for &out in &eqn.outputs {
            let ty = func.value_type(out).ok_or_else(|| at.err(format!("{out} has no type")))?;
            bytes = bytes.saturating_add(ty.byte_size().map_err(|e| at.err(e.to_string()))?);
            types.push((out, ty));
        }
        self.reserve(at, bytes, || format!("the {} results", eqn.outputs.len()))?;
        let refs: SmallVec<[&Array; 4]> = xs.iter().map(Val::array).collect();
        let arrays = f(&refs).map_err(|m| at.err(m))?;
        if arrays.len() != types.len() {
            return Err(at.err(format!("produced {} results, expected {}", arrays.len(), types.len())));
        }
        let mut vals = Vals::new();
        for (array, (out, ty)) in arrays.into_iter().zip(types) {
            if array.dtype() != ty.dtype || array.shape() != &ty.shape[..] {
                let got = Type::new(array.dtype(), array.shape());
                return Err(at.err(format!("produced {got} but {out} is declared {ty}")));
            }
            vals.push(Val::new(self.ledger.buf(array)));
        }
        Ok(vals)
    }

    /// The value `v` of `env`, read back from the spill file if it was offloaded.
    fn fetch<'a>(&mut self, at: At<'_>, env: &Env<'_, 'a>, v: Value) -> Result<Val<'a>, Error> {
        match env.get(v).map_err(|m| at.err(m))? {
            Held::Val(val) => Ok(val),
            Held::Spilled { offset, ty } => {
                let bytes = ty.byte_size().map_err(|e| at.err(e.to_string()))?;
                self.reserve(at, bytes, || format!("{v}: {ty} read back from the spill file"))?;
                let spill = self
                    .spill
                    .as_mut()
                    .ok_or_else(|| at.err(format!("{v} was offloaded, but no spill file exists")))?;
                let array = spill.read_array(offset, &ty).map_err(|m| at.err(m))?;
                Ok(Val::new(self.ledger.buf(array)))
            }
        }
    }

    /// `offload(x)`: writes `x` to the place of equation `key` in the run's spill file
    /// (created on first use) and keeps only where it is. The place is reused when the
    /// equation runs again: an offloaded value never outlives the run of its Func (an
    /// equation or a return reading it reads it back), and a Func is never re-entered.
    fn offload<'a>(
        &mut self,
        at: At<'_>,
        key: (usize, usize),
        func: &Func,
        eqn: &Eqn,
        xs: &[Val<'a>],
    ) -> Result<Held<'a>, Error> {
        let ([x], [out]) = (xs, &eqn.outputs[..]) else {
            return Err(at.err(crate::prim::arity(1, xs.len())));
        };
        let ty = func.value_type(*out).ok_or_else(|| at.err(format!("{out} has no type")))?.clone();
        let spill = match &mut self.spill {
            Some(spill) => spill,
            slot @ None => {
                let dir = crate::spill::spill_dir(self.spill_dir.as_deref());
                slot.insert(SpillFile::create(&dir).map_err(|m| at.err(m))?)
            }
        };
        let place = self.spill_places.get(&key).copied();
        let offset = spill.write_array(place, x.array()).map_err(|m| at.err(m))?;
        self.spill_places.insert(key, offset);
        Ok(Held::Spilled { offset, ty })
    }

    /// Checks that `bytes` more can be live, naming `what()` otherwise (formatted only
    /// on error, so the check costs nothing per equation).
    pub(super) fn reserve(&self, at: At<'_>, bytes: u64, what: impl FnOnce() -> String) -> Result<(), Error> {
        let live = self.ledger.live();
        match live.checked_add(bytes) {
            Some(total) if total <= self.budget.max_bytes => Ok(()),
            _ => Err(at.err(self.budget.check(live, bytes, &what()).err().map_or_else(String::new, |e| e.to_string()))),
        }
    }
}

/// A value of a Func during a run: in memory, or offloaded to the spill file.
#[derive(Clone, Debug)]
enum Held<'a> {
    Val(Val<'a>),
    /// Appended to the run's spill file at `offset`.
    Spilled {
        offset: u64,
        ty: Type,
    },
}

/// The values of a Func, by [`Value`] index.
struct Env<'f, 'a> {
    name: &'f str,
    slots: Vec<Option<Held<'a>>>,
}

impl<'a> Env<'_, 'a> {
    fn get(&self, v: Value) -> Result<Held<'a>, String> {
        match self.slots.get(v.index()) {
            Some(Some(val)) => Ok(val.clone()),
            Some(None) => Err(format!("{v} is used before it is defined (or after its last use)")),
            None => Err(format!("{v} is not a value of @{}", self.name)),
        }
    }

    fn define(&mut self, v: Value, val: Held<'a>) -> Result<(), String> {
        let name = self.name;
        let slot = self.slots.get_mut(v.index()).ok_or_else(|| format!("{v} is not a value of @{name}"))?;
        *slot = Some(val);
        Ok(())
    }

    fn release(&mut self, values: &[Value]) {
        for v in values {
            if let Some(slot) = self.slots.get_mut(v.index()) {
                *slot = None;
            }
        }
    }
}

/// Checks the values a Func returns against its declared result types.
fn check_results(func: &Func, results: &[Val<'_>]) -> Result<(), String> {
    let got: Vec<Type> = results.iter().map(|v| Type::new(v.array().dtype(), v.array().shape())).collect();
    if got == func.result_types {
        Ok(())
    } else {
        Err(format!(
            "returns {} but is declared to return {}",
            crate::format_types(&got),
            crate::format_types(&func.result_types)
        ))
    }
}

/// `stop_gradient` and `name`: the operand itself, shared.
fn identity<'a>(at: At<'_>, xs: SmallVec<[Val<'a>; 4]>) -> Result<Vals<'a>, Error> {
    match <[Val<'a>; 1]>::try_from(xs.into_vec()) {
        Ok([x]) => Ok(smallvec::smallvec![x]),
        Err(xs) => Err(at.err(crate::prim::arity(1, xs.len()))),
    }
}

/// Arithmetic on the 16-bit floats: the operands widened to f32 (exactly), `f` computed
/// in f32, and a result declared 16-bit rounded once to nearest even. Without 16-bit
/// operands or result this is `f` itself.
fn compute_widened(
    inputs: &[&Array],
    declared: DType,
    f: &dyn Fn(&[&Array]) -> Result<Array, String>,
) -> Result<Array, String> {
    if !declared.is_half() && !inputs.iter().any(|a| a.dtype().is_half()) {
        return f(inputs);
    }
    let widened: SmallVec<[std::borrow::Cow<'_, Array>; 4]> = inputs
        .iter()
        .map(|a| match a.data().widen_half() {
            Some(wide) => Array::new(a.shape(), Data::F32(wide)).map(std::borrow::Cow::Owned),
            None => Ok(std::borrow::Cow::Borrowed(*a)),
        })
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let refs: SmallVec<[&Array; 4]> = widened.iter().map(|a| a.as_ref()).collect();
    let out = f(&refs)?;
    match out.data() {
        Data::F32(v) if declared.is_half() => {
            let narrowed = Data::narrow_half(v, declared).unwrap_or_else(|| Data::F32(v.clone()));
            Array::new(out.shape(), narrowed).map_err(|e| e.to_string())
        }
        _ => Ok(out),
    }
}
