use ferrax::{Array, DType, Tensor, Type, grad, jit, make_ir, vmap};

fn main() -> Result<(), ferrax::Error> {
    // An ordinary closure over symbolic tensors.
    let f = |x: Tensor| x.powi(2) * x.sin();

    // Its derivative, evaluated at 3: 6 sin 3 + 9 cos 3.
    let slope = grad(f).call(&Array::scalar(3.0f64))?;
    assert!((slope.to_f64_vec()[0] - (6.0 * 3f64.sin() + 9.0 * 3f64.cos())).abs() < 1e-12);

    // The derivative compiled to native code (traced and compiled once per argument types).
    let fast = jit(grad(f));
    let same = fast.call(&Array::scalar(3.0f64))?;
    assert!((same.to_f64_vec()[0] - slope.to_f64_vec()[0]).abs() < 1e-12);

    // The same function over a batch, without a loop.
    let ys: Array = vmap(f).call(&Array::from(vec![0.0f64, 1.0, 2.0]))?;
    println!("{ys}"); // array([0.        , 0.84147098, 3.63718971])

    // The IR of the gradient, with the source line of every equation.
    println!("{}", make_ir(grad(f), &Type::scalar(DType::F64))?);
    Ok(())
}
