//! `ferrax::jit`: compiled closures match `ferrax::eval`, compile once per signature,
//! and compose with `grad` and `vmap`.

use ferrax::{Array, Tensor, grad, jit, jit_module, vmap};

fn v(values: &[f32]) -> Array {
    Array::from_f32(&[values.len()], values.to_vec()).unwrap()
}

fn model(p: [Tensor; 2]) -> Tensor {
    let [w, x] = p;
    (&w * &x).tanh().sum_all()
}

#[test]
fn a_jitted_closure_matches_eval_and_compiles_once_per_signature() {
    let f = jit(model);
    let args = [v(&[0.5, -1.0, 2.0]), v(&[1.0, 0.25, -0.75])];
    let want = ferrax::eval(model, &args).unwrap();
    assert_eq!(f.call(&args).unwrap(), want);
    assert_eq!(
        f.call(&[v(&[1.0, 1.0, 1.0]), v(&[2.0, 2.0, 2.0])]).unwrap(),
        ferrax::eval(model, &[v(&[1.0, 1.0, 1.0]), v(&[2.0, 2.0, 2.0])]).unwrap()
    );
    assert_eq!(f.compiles(), 1, "a second call with the same types compiles nothing");
    f.call(&[v(&[1.0, 2.0]), v(&[3.0, 4.0])]).unwrap();
    assert_eq!(f.compiles(), 2, "a new signature compiles again");
}

#[test]
fn jit_composes_with_grad_and_vmap() {
    let g = grad(model);
    let jg = jit(|p: [Tensor; 2]| g.apply(&p));
    let args = [v(&[0.5, -1.0, 2.0]), v(&[1.0, 0.25, -0.75])];
    let want = g.call(&args).unwrap();
    let got = jg.call(&args).unwrap();
    for (w, a) in want.iter().zip(&got) {
        ferrax_jit::policy::agree(std::slice::from_ref(w), std::slice::from_ref(a), false).unwrap();
    }
    let per_row = |x: Tensor| (&x * &x).sum_all();
    let jv = jit(|x: Tensor| vmap(per_row).apply::<_, Tensor>(&x));
    let xs = Array::from_f32(&[2, 3], vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.0]).unwrap();
    let got = jv.call(&xs).unwrap();
    assert_eq!(got, Array::from_f32(&[2], vec![14.0, 1.25]).unwrap());
}

#[test]
fn jit_module_compiles_ahead_of_time() {
    let t = ferrax::Type::new(ferrax::DType::F32, &[3]);
    let module = ferrax::trace(model, &[t.clone(), t]).unwrap();
    let exe = jit_module(&module).unwrap();
    let args = [v(&[0.5, -1.0, 2.0]), v(&[1.0, 0.25, -0.75])];
    assert_eq!(exe.call(&args).unwrap(), vec![ferrax::eval(model, &args).unwrap()]);
    assert!(exe.call(&[v(&[1.0])]).is_err());
}

/// Compiles only if the wrappers of a `Send + Sync` closure are `Send + Sync`.
#[test]
fn transform_wrappers_of_thread_safe_closures_are_send_and_sync() {
    fn shared<T: Send + Sync>(_: &T) {}
    let f = |x: Tensor| x.sin();
    shared(&jit(f));
    shared(&grad(f));
    shared(&ferrax::value_and_grad(f));
    shared(&vmap(f));
    shared(&ferrax::jacfwd(f));
    shared(&ferrax::jacrev(f));
    shared(&ferrax::hessian(f));
    shared(&ferrax::custom_jvp(f, |x: Tensor, t: Tensor| (x.sin(), &x.cos() * &t)));
    shared(&ferrax::custom_vjp(f, |x: Tensor| (x.sin(), x.cos()), |c: Tensor, g: Tensor| &c * &g));
    let g = grad(f);
    shared(&jit(move |x: Tensor| g.apply(&x)));
    use ferrax::transforms as t;
    shared(&t::jvp(f));
    shared(&t::vjp(f));
    shared(&t::hvp(f));
    shared(&t::linearize(f));
    shared(&t::checkpoint(f));
    let (_, linear) = t::linearize(f).call(&ferrax::Array::scalar(1.0f64)).unwrap();
    shared(&linear);
}

#[test]
fn threads_share_one_jit_and_each_signature_compiles_once() {
    let f = jit(model);
    let short = [v(&[0.5, -1.0]), v(&[1.0, 0.25])];
    let long = [v(&[0.5, -1.0, 2.0, 3.0]), v(&[1.0, 0.25, -0.75, 0.5])];
    let (want_short, want_long) = (ferrax::eval(model, &short).unwrap(), ferrax::eval(model, &long).unwrap());
    let barrier = std::sync::Barrier::new(8);
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (f, short, long, barrier) = (&f, &short, &long, &barrier);
            let (want_short, want_long) = (&want_short, &want_long);
            scope.spawn(move || {
                // Every thread starts at once, so they race for the first compile of each.
                barrier.wait();
                for k in 0..20 {
                    if (t + k) % 2 == 0 {
                        assert_eq!(&f.call(short).unwrap(), want_short);
                    } else {
                        assert_eq!(&f.call(long).unwrap(), want_long);
                    }
                }
            });
        }
    });
    assert_eq!(f.compiles(), 2, "two signatures, each traced and compiled once");
}

#[test]
fn lower_then_compile_ahead_of_time_with_a_checked_signature() {
    use ferrax::{DType, Type};
    let f = jit(model);
    let spec = [Type::new(DType::F32, &[3]), Type::new(DType::F32, &[3])];
    let lowered = f.lower(&spec).unwrap();
    let text = lowered.to_string();
    assert!(text.starts_with("func @main(%0: f32[3], %1: f32[3]) -> (f32[])"), "{text}");
    assert!(text.contains("tanh") && !text.contains("loc("), "{text}");
    assert!(format!("{lowered:#}").contains("tests/jit.rs:"), "{lowered:#}");
    let compiled = lowered.compile().unwrap();
    assert_eq!(compiled.signature(), &spec);
    let args = [v(&[0.5, -1.0, 2.0]), v(&[1.0, 0.25, -0.75])];
    assert_eq!(compiled.call(&args).unwrap(), ferrax::eval(model, &args).unwrap());
    assert_eq!(f.compiles(), 0, "lowering does not fill the call cache");
    let err = compiled.call(&[v(&[1.0, 2.0]), v(&[3.0, 4.0])]).unwrap_err().to_string();
    assert!(err.contains("tests/jit.rs:") && err.contains("argument leaf 0 is f32[2]"), "{err}");
    assert!(err.contains("its signature has f32[3]"), "{err}");
    let err = compiled.call(&[v(&[1.0, 2.0, 3.0])]).unwrap_err().to_string();
    assert!(err.contains("1 argument leaves given, its signature has 2"), "{err}");
}
