//! Driver tests on small modules built by hand. They use only the structural,
//! indexing and structured primitives, so they do not depend on the arithmetic rules.

use super::*;
use crate::prim::ScanParams;
use crate::prim::{ControlOp, IndexOp, ShapeOp};
use crate::{DType, Eqn, Func, Prim, Shape, Type, Value};
use smallvec::SmallVec;

fn t(dtype: DType, shape: &[usize]) -> Type {
    Type::new(dtype, shape)
}

fn i32_() -> Type {
    Type::scalar(DType::I32)
}

fn f32s(shape: &[usize], values: &[f32]) -> Array {
    Array::from_f32(shape, values.to_vec()).unwrap()
}

fn opts() -> EvalOptions {
    EvalOptions { budget: Budget::new(1 << 24), fuel: None, ..Default::default() }
}

/// Builds a Func equation by equation.
struct B(Func);

impl B {
    fn new(name: &str, params: &[Type]) -> (B, Vec<Value>) {
        let mut f = Func::new(name);
        f.params = params.iter().map(|ty| f.new_value(ty.clone())).collect();
        let params = f.params.clone();
        (B(f), params)
    }

    fn op(&mut self, prim: Prim, inputs: &[Value], outs: &[Type]) -> Vec<Value> {
        let outputs: SmallVec<[Value; 2]> = outs.iter().map(|ty| self.0.new_value(ty.clone())).collect();
        self.0.eqns.push(Eqn { prim, inputs: inputs.into(), outputs: outputs.clone(), loc: None });
        outputs.to_vec()
    }

    fn op1(&mut self, prim: Prim, inputs: &[Value], out: Type) -> Value {
        self.op(prim, inputs, &[out])[0]
    }

    fn constant(&mut self, value: Array) -> Value {
        let ty = t(value.dtype(), value.shape());
        let shape = value.shape().into();
        self.op1(Prim::Shape(ShapeOp::Constant { value, shape }), &[], ty)
    }

    /// `table[i]` for an i32[] index (clamped): the successor, predicate and lookup
    /// tables the loop tests use instead of arithmetic.
    fn lookup(&mut self, table: Value, i: Value) -> Value {
        let ty = self.0.ty(table).clone();
        self.op1(
            Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }),
            &[table, i],
            Type::new(ty.dtype, &ty.shape[1..]),
        )
    }

    fn ret(mut self, results: &[Value]) -> Func {
        self.0.result_types = results.iter().map(|&v| self.0.ty(v).clone()).collect();
        self.0.results = results.to_vec();
        self.0
    }
}

fn module(funcs: Vec<Func>) -> Module {
    let mut m = Module::new();
    for f in funcs {
        m.push(f);
    }
    m
}

fn succ_table(n: i32) -> Array {
    Array::from_i32(&[n as usize], (1..=n).collect()).unwrap()
}

/// `@succ(i) = i + 1` (for i < 16) via a lookup table.
fn succ_func() -> Func {
    let (mut b, p) = B::new("succ", &[i32_()]);
    let table = b.constant(succ_table(16));
    let next = b.lookup(table, p[0]);
    b.ret(&[next])
}

/// `@less(i) = i < n` (for 0 <= i < 16) via a lookup table.
fn less_func(name: &str, n: usize) -> Func {
    let (mut b, p) = B::new(name, &[i32_()]);
    let table = b.constant(Array::from_bool(&[16], (0..16).map(|i| i < n).collect()).unwrap());
    let go = b.lookup(table, p[0]);
    b.ret(&[go])
}

fn err_of(r: Result<Vec<Array>, Error>) -> (Place, String) {
    match r {
        Err(Error::Eval { place, message }) => (place, message),
        other => panic!("expected an evaluation error, got {other:?}"),
    }
}

fn at(func: &str, eqn: usize, prim: &str) -> Place {
    Place { func: func.into(), eqn: Some(eqn), prim: Some(prim.into()) }
}

#[test]
fn call_runs_the_callee() {
    let (mut b, p) = B::new("main", &[t(DType::F32, &[3])]);
    let r = b.op1(Prim::Control(ControlOp::Call { func: "rev".into() }), &[p[0]], t(DType::F32, &[3]));
    let main = b.ret(&[r, p[0]]);
    let (mut b, p) = B::new("rev", &[t(DType::F32, &[3])]);
    let r = b.op1(Prim::Shape(ShapeOp::Rev { axes: vec![0] }), &[p[0]], t(DType::F32, &[3]));
    let m = module(vec![main, b.ret(&[r])]);
    let x = f32s(&[3], &[1.0, 2.0, 3.0]);
    let out = eval_entry(&m, std::slice::from_ref(&x), &opts()).unwrap();
    assert_eq!(out, vec![f32s(&[3], &[3.0, 2.0, 1.0]), x.clone()]);
    assert_eq!(eval(&m, "rev", std::slice::from_ref(&x), &opts()).unwrap()[0], out[0]);
}

/// `@pick(sel, x) = cond[branches](sel, x)` with branches returning 10*k + x.
fn cond_module(selector: Type, n: usize) -> Module {
    let (mut b, p) = B::new("pick", &[selector, i32_()]);
    let branches: Vec<String> = (0..n).map(|k| format!("b{k}")).collect();
    let r = b.op1(Prim::Control(ControlOp::Cond { branches: branches.clone() }), &p, i32_());
    let mut funcs = vec![b.ret(&[r])];
    for (k, name) in branches.iter().enumerate() {
        let (mut b, p) = B::new(name, &[i32_()]);
        let table = b.constant(Array::from_i32(&[3], (0..3).map(|x| 10 * k as i32 + x).collect()).unwrap());
        let y = b.lookup(table, p[0]);
        funcs.push(b.ret(&[y]));
    }
    module(funcs)
}

#[test]
fn cond_with_index_clamps() {
    let m = cond_module(i32_(), 3);
    let run = |k: i32| eval_entry(&m, &[Array::scalar_i32(k), Array::scalar_i32(2)], &opts()).unwrap();
    assert_eq!(run(0), vec![Array::scalar_i32(2)]);
    assert_eq!(run(1), vec![Array::scalar_i32(12)]);
    assert_eq!(run(2), vec![Array::scalar_i32(22)]);
    assert_eq!(run(7), vec![Array::scalar_i32(22)]);
    assert_eq!(run(-4), vec![Array::scalar_i32(2)]);
    assert_eq!(run(i32::MIN), vec![Array::scalar_i32(2)]);
}

#[test]
fn cond_with_bool() {
    let m = cond_module(Type::scalar(DType::Bool), 2);
    let run = |p: bool| eval_entry(&m, &[Array::scalar_bool(p), Array::scalar_i32(1)], &opts()).unwrap();
    assert_eq!(run(false), vec![Array::scalar_i32(1)]);
    assert_eq!(run(true), vec![Array::scalar_i32(11)]);
}

/// `@count(i) = while[cond=@less, body=@succ, max_iters](i)`.
fn while_module(n: usize, max_iters: Option<usize>) -> Module {
    let (mut b, p) = B::new("count", &[i32_()]);
    let prim = Prim::Control(ControlOp::While { cond: "less".into(), body: "succ".into(), max_iters });
    let r = b.op1(prim, &p, i32_());
    module(vec![b.ret(&[r]), less_func("less", n), succ_func()])
}

#[test]
fn while_runs_until_false() {
    let m = while_module(5, None);
    assert_eq!(eval_entry(&m, &[Array::scalar_i32(0)], &opts()).unwrap(), vec![Array::scalar_i32(5)]);
    assert_eq!(eval_entry(&m, &[Array::scalar_i32(9)], &opts()).unwrap(), vec![Array::scalar_i32(9)]);
    let bounded = while_module(5, Some(10));
    assert_eq!(eval_entry(&bounded, &[Array::scalar_i32(0)], &opts()).unwrap(), vec![Array::scalar_i32(5)]);
}

#[test]
fn while_max_iters_cuts_short() {
    let m = while_module(5, Some(3));
    assert_eq!(eval_entry(&m, &[Array::scalar_i32(0)], &opts()).unwrap(), vec![Array::scalar_i32(3)]);
    let none = while_module(5, Some(0));
    assert_eq!(eval_entry(&none, &[Array::scalar_i32(0)], &opts()).unwrap(), vec![Array::scalar_i32(0)]);
}

#[test]
fn while_with_several_carries() {
    // carry (i, acc: f32[4], x: f32[]): acc[i] = x; i += 1; while i < 3.
    let carry = [i32_(), t(DType::F32, &[4]), Type::scalar(DType::F32)];
    let (mut b, p) = B::new("fill", &carry);
    let prim = Prim::Control(ControlOp::While { cond: "cond".into(), body: "body".into(), max_iters: None });
    let r = b.op(prim, &p, &carry);
    let main = b.ret(&r);
    let (mut b, p) = B::new("cond", &carry);
    let table = b.constant(Array::from_bool(&[5], vec![true, true, true, false, false]).unwrap());
    let go = b.lookup(table, p[0]);
    let cond = b.ret(&[go]);
    let (mut b, p) = B::new("body", &carry);
    let x1 = b.op1(Prim::Shape(ShapeOp::Reshape { shape: Shape::from(&[1][..]) }), &[p[2]], t(DType::F32, &[1]));
    let acc = b.op1(Prim::Index(IndexOp::DynamicUpdateSlice), &[p[1], x1, p[0]], t(DType::F32, &[4]));
    let table = b.constant(succ_table(8));
    let i = b.lookup(table, p[0]);
    let body = b.ret(&[i, acc, p[2]]);
    let m = module(vec![main, cond, body]);
    let args = [Array::scalar_i32(0), f32s(&[4], &[0.0; 4]), Array::scalar_f32(7.0)];
    let out = eval_entry(&m, &args, &opts()).unwrap();
    assert_eq!(out, vec![Array::scalar_i32(3), f32s(&[4], &[7.0, 7.0, 7.0, 0.0]), Array::scalar_f32(7.0)]);
}

/// `@run(succ: i32[16], i: i32[], acc: f32[L], xs: f32[L]) = scan(...)`: the body writes
/// x into acc[i], counts i up (through the const table), and emits y = i.
fn scan_module(length: usize, reverse: bool) -> Module {
    let l = length;
    let ops = [t(DType::I32, &[16]), i32_(), t(DType::F32, &[l]), t(DType::F32, &[l])];
    let (mut b, p) = B::new("run", &ops);
    let params = ScanParams { body: "step".into(), length, num_consts: 1, num_carry: 2, reverse, checkpoint: Some(2) };
    let r = b.op(Prim::Control(ControlOp::Scan(params)), &p, &[i32_(), t(DType::F32, &[l]), t(DType::I32, &[l])]);
    let main = b.ret(&r);
    let (mut b, p) = B::new("step", &[t(DType::I32, &[16]), i32_(), t(DType::F32, &[l]), Type::scalar(DType::F32)]);
    let x1 = b.op1(Prim::Shape(ShapeOp::Reshape { shape: Shape::from(&[1][..]) }), &[p[3]], t(DType::F32, &[1]));
    let acc = b.op1(Prim::Index(IndexOp::DynamicUpdateSlice), &[p[2], x1, p[1]], t(DType::F32, &[l]));
    let i = b.lookup(p[0], p[1]);
    let body = b.ret(&[i, acc, p[1]]);
    module(vec![main, body])
}

fn scan_args(xs: &[f32]) -> Vec<Array> {
    let l = xs.len();
    vec![succ_table(16), Array::scalar_i32(0), f32s(&[l], &vec![0.0; l]), f32s(&[l], xs)]
}

#[test]
fn scan_forward_and_reverse() {
    let xs = [1.0, 2.0, 3.0];
    let fwd = eval_entry(&scan_module(3, false), &scan_args(&xs), &opts()).unwrap();
    assert_eq!(fwd[0], Array::scalar_i32(3));
    assert_eq!(fwd[1], f32s(&[3], &xs));
    assert_eq!(fwd[2], Array::from_i32(&[3], vec![0, 1, 2]).unwrap());
    // Reverse: step k reads xs[2 - k] and its y lands at index 2 - k.
    let rev = eval_entry(&scan_module(3, true), &scan_args(&xs), &opts()).unwrap();
    assert_eq!(rev[0], Array::scalar_i32(3));
    assert_eq!(rev[1], f32s(&[3], &[3.0, 2.0, 1.0]));
    assert_eq!(rev[2], Array::from_i32(&[3], vec![2, 1, 0]).unwrap());
}

#[test]
fn scan_of_length_zero() {
    let out = eval_entry(&scan_module(0, false), &scan_args(&[]), &opts()).unwrap();
    assert_eq!(out, vec![Array::scalar_i32(0), f32s(&[0], &[]), Array::from_i32(&[0], vec![]).unwrap()]);
}

#[test]
fn scan_nested_in_cond() {
    let mut m = scan_module(3, true);
    let ops: Vec<Type> = m.entry().unwrap().param_types();
    let results = m.entry().unwrap().result_types.clone();
    let mut with_sel = vec![Type::scalar(DType::Bool)];
    with_sel.extend(ops.iter().cloned());
    let (mut b, p) = B::new("outer", &with_sel);
    let r = b.op(Prim::Control(ControlOp::Cond { branches: vec!["skip".into(), "run".into()] }), &p, &results);
    let outer = b.ret(&r);
    let (mut b, p) = B::new("skip", &ops);
    let zeros = b.op1(
        Prim::Shape(ShapeOp::Slice { start: vec![0], limit: vec![3], strides: vec![1] }),
        &[p[0]],
        t(DType::I32, &[3]),
    );
    let skip = b.ret(&[p[1], p[3], zeros]);
    let mut funcs = vec![outer, skip];
    funcs.extend(m.funcs.drain(..).map(|(_, f)| f));
    let m = module(funcs);
    let mut args = vec![Array::scalar_bool(true)];
    args.extend(scan_args(&[1.0, 2.0, 3.0]));
    let ran = eval_entry(&m, &args, &opts()).unwrap();
    assert_eq!(ran[1], f32s(&[3], &[3.0, 2.0, 1.0]));
    assert_eq!(ran[2], Array::from_i32(&[3], vec![2, 1, 0]).unwrap());
    args[0] = Array::scalar_bool(false);
    let skipped = eval_entry(&m, &args, &opts()).unwrap();
    assert_eq!(skipped[1], f32s(&[3], &[1.0, 2.0, 3.0]));
    assert_eq!(skipped[2], Array::from_i32(&[3], vec![1, 2, 3]).unwrap());
}

#[test]
fn custom_rules_and_remat_run_their_func() {
    let x = t(DType::F32, &[2]);
    let (mut b, p) = B::new("main", std::slice::from_ref(&x));
    let a = b.op1(
        Prim::Control(ControlOp::Remat { func: "rev".into(), policy: crate::prim::RematPolicy::Nothing }),
        &p,
        x.clone(),
    );
    let c = b.op1(Prim::Control(ControlOp::CustomJvp { func: "rev".into(), jvp: "nope".into() }), &[a], x.clone());
    let prim = Prim::Control(ControlOp::CustomVjp { func: "rev".into(), fwd: "nope".into(), bwd: "nope".into() });
    let d = b.op1(prim, &[c], x.clone());
    let main = b.ret(&[d]);
    let (mut b, p) = B::new("rev", std::slice::from_ref(&x));
    let r = b.op1(Prim::Shape(ShapeOp::Rev { axes: vec![0] }), &p, x.clone());
    let m = module(vec![main, b.ret(&[r])]);
    let out = eval_entry(&m, &[f32s(&[2], &[1.0, 2.0])], &opts()).unwrap();
    assert_eq!(out, vec![f32s(&[2], &[2.0, 1.0])]);
}

#[test]
fn argument_errors_name_the_argument() {
    let (b, _) = B::new("f", &[t(DType::F32, &[2, 3]), i32_()]);
    let m = module(vec![b.ret(&[])]);
    let good = [f32s(&[2, 3], &[0.0; 6]), Array::scalar_i32(1)];
    assert_eq!(eval_entry(&m, &good, &opts()).unwrap(), vec![]);
    let (place, msg) = err_of(eval_entry(&m, &[good[0].clone(), good[1].clone(), good[1].clone()], &opts()));
    assert_eq!((place.func.as_str(), place.eqn, msg.as_str()), ("f", None, "@f takes 2 arguments, got 3"));
    let wrong_dtype = Array::from_f64(&[2, 3], vec![0.0; 6]).unwrap();
    let (_, msg) = err_of(eval_entry(&m, &[wrong_dtype, good[1].clone()], &opts()));
    assert_eq!(msg, "argument 0 of @f: expected f32[2,3], got f64[2,3]");
    let (_, msg) = err_of(eval_entry(&m, &[good[0].clone(), Array::from_i32(&[1], vec![1]).unwrap()], &opts()));
    assert_eq!(msg, "argument 1 of @f: expected i32[], got i32[1]");
    assert!(err_of(eval(&m, "g", &good, &opts())).1.contains("no such Func"));
    assert!(err_of(eval_entry(&Module::new(), &[], &opts())).1.contains("no Funcs"));
}

#[test]
fn budget_error_names_the_equation() {
    let (mut b, p) = B::new("big", &[t(DType::F32, &[1000])]);
    let y = b.op1(
        Prim::Shape(ShapeOp::BroadcastInDim { shape: Shape::from(&[1000, 1000][..]), dims: vec![1] }),
        &p,
        t(DType::F32, &[1000, 1000]),
    );
    let m = module(vec![b.ret(&[y])]);
    let x = f32s(&[1000], &[1.0; 1000]);
    let small = EvalOptions { budget: Budget::new(1 << 20), fuel: None, ..Default::default() };
    let (place, msg) = err_of(eval_entry(&m, std::slice::from_ref(&x), &small));
    assert_eq!(place, at("big", 0, "broadcast_in_dim"));
    assert!(msg.contains("needs 4004000 live bytes, over the allocation budget of 1048576 bytes"), "{msg}");
    let (place, msg) =
        err_of(eval_entry(&m, &[x], &EvalOptions { budget: Budget::new(100), fuel: None, ..Default::default() }));
    assert_eq!((place.eqn, msg.contains("the arguments of @big")), (None, true), "{msg}");
}

#[test]
fn budget_counts_only_live_buffers() {
    // A chain of 10 revs of f32[1000]: at most the argument, one input and one output
    // are live at once (12000 bytes), although 44000 bytes are created in all.
    let x = t(DType::F32, &[1000]);
    let (mut b, p) = B::new("chain", std::slice::from_ref(&x));
    let mut v = p[0];
    for _ in 0..10 {
        v = b.op1(Prim::Shape(ShapeOp::Rev { axes: vec![0] }), &[v], x.clone());
    }
    let unused = b.op1(Prim::Shape(ShapeOp::Rev { axes: vec![0] }), &p, x.clone());
    let _ = unused;
    let m = module(vec![b.ret(&[v])]);
    let arg = [f32s(&[1000], &[1.5; 1000])];
    let fits = EvalOptions { budget: Budget::new(12000), fuel: None, ..Default::default() };
    assert_eq!(eval_entry(&m, &arg, &fits).unwrap(), arg.to_vec());
    let tight = EvalOptions { budget: Budget::new(11999), fuel: None, ..Default::default() };
    assert_eq!(err_of(eval_entry(&m, &arg, &tight)).0, at("chain", 1, "rev"));
}

#[test]
fn fuel_bounds_loop_iterations() {
    let (mut b, p) = B::new("spin", &[i32_()]);
    let r = b.op1(
        Prim::Control(ControlOp::While { cond: "always".into(), body: "same".into(), max_iters: None }),
        &p,
        i32_(),
    );
    let spin = b.ret(&[r]);
    let (mut b, _) = B::new("always", &[i32_()]);
    let yes = b.constant(Array::scalar_bool(true));
    let always = b.ret(&[yes]);
    let (b, p) = B::new("same", &[i32_()]);
    let same = b.ret(&p);
    let m = module(vec![spin, always, same]);
    let fuel = EvalOptions { budget: Budget::new(1 << 20), fuel: Some(100), ..Default::default() };
    let (place, msg) = err_of(eval_entry(&m, &[Array::scalar_i32(0)], &fuel));
    assert_eq!((place, msg.as_str()), (at("spin", 0, "while"), "out of fuel after 100 loop iterations"));
    let scan = scan_module(3, false);
    let two = EvalOptions { budget: Budget::new(1 << 20), fuel: Some(2), ..Default::default() };
    assert!(err_of(eval_entry(&scan, &scan_args(&[1.0, 2.0, 3.0]), &two)).1.contains("after 2 loop"));
    let three = EvalOptions { budget: Budget::new(1 << 20), fuel: Some(3), ..Default::default() };
    assert!(eval_entry(&scan, &scan_args(&[1.0, 2.0, 3.0]), &three).is_ok());
}

/// `@f0` calls `@f1` ... calls `@f{n-1}`, which returns its argument.
fn chain_module(n: usize) -> Module {
    let funcs = (0..n).map(|k| {
        let (mut b, p) = B::new(&format!("f{k}"), &[i32_()]);
        let r = if k + 1 < n {
            b.op1(Prim::Control(ControlOp::Call { func: format!("f{}", k + 1) }), &p, i32_())
        } else {
            p[0]
        };
        b.ret(&[r])
    });
    module(funcs.collect())
}

#[test]
fn deep_nesting_is_an_error() {
    let ok = chain_module(MAX_CALL_DEPTH);
    assert_eq!(eval_entry(&ok, &[Array::scalar_i32(4)], &opts()).unwrap(), vec![Array::scalar_i32(4)]);
    let deep = chain_module(MAX_CALL_DEPTH + 1);
    let (place, msg) = err_of(eval_entry(&deep, &[Array::scalar_i32(4)], &opts()));
    assert_eq!(place, at(&format!("f{}", MAX_CALL_DEPTH - 1), 0, "call"));
    assert!(msg.contains("nested more than 256 deep"), "{msg}");
}

#[test]
fn malformed_modules_give_errors() {
    let (mut b, p) = B::new("bad", &[i32_()]);
    b.op1(Prim::Shape(ShapeOp::Rev { axes: vec![] }), &[Value(99)], i32_());
    let m = module(vec![b.ret(&p)]);
    let (place, msg) = err_of(eval_entry(&m, &[Array::scalar_i32(0)], &opts()));
    assert_eq!((place, msg.as_str()), (at("bad", 0, "rev"), "%99 is not a value of @bad"));
    let (mut b, p) = B::new("lies", &[i32_()]);
    b.op1(Prim::Shape(ShapeOp::Rev { axes: vec![] }), &p, t(DType::F32, &[]));
    let m = module(vec![b.ret(&p)]);
    let (_, msg) = err_of(eval_entry(&m, &[Array::scalar_i32(0)], &opts()));
    assert_eq!(msg, "produced i32[] but %1 is declared f32[]");
    let (mut b, p) = B::new("missing", &[i32_()]);
    b.op1(Prim::Control(ControlOp::Call { func: "nowhere".into() }), &p, i32_());
    let m = module(vec![b.ret(&p)]);
    assert!(err_of(eval_entry(&m, &[Array::scalar_i32(0)], &opts())).1.contains("@nowhere is not a Func"));
}
