//! The rows of the implicitly differentiated primitives (`custom_linear_solve`,
//! `custom_root`). Their solvers are exact to rounding (dense triangular solves, a
//! Newton iteration run to convergence), so finite differences of the primal agree
//! with the implicit-function-theorem derivatives the rules give.

use super::*;
use Domain::{Interval, Real};

/// A lower-triangular system `(tril(x) + diag(d))·y = b` (d in [4, 5]) solved by
/// `triangular_solve`, with its transpose solve: not symmetric, so reverse mode builds
/// the transposed matvec. The solvers also return an auxiliary i32 (a stand-in for an
/// iteration count), which has no derivative.
const TRIANGULAR: &str = "func @f(%x: f64{s}, %d: f64{s}, %b: f64{t}) -> (f64{t}) {
  %i: i32{s} = iota[dtype=i32, shape={s}, dim=0]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim=1]()
  %low: bool{s} = ge(%i, %j)
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %xl: f64{s} = select(%low, %x, %z)
  %dd: f64{s} = select(%m, %d, %z)
  %a: f64{s} = add(%xl, %dd)
  %y: f64{t}, %n: i32[] = custom_linear_solve[matvec=@mv, solve=@sv, transpose_solve=@tsv, num_consts=1](%a, %b)
  %w: f64{t} = mul(%y, %y)
  return %w
}
func @mv(%a: f64{s}, %x: f64{t}) -> (f64{t}) {
  %y: f64{t} = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %x)
  return %y
}
func @sv(%a: f64{s}, %b: f64{t}) -> (f64{t}, i32[]) {
  %x: f64{t} = triangular_solve[left_side=true, lower=true](%a, %b)
  %n: i32[] = constant[value=1]()
  return %x, %n
}
func @tsv(%a: f64{s}, %b: f64{t}) -> (f64{t}, i32[]) {
  %x: f64{t} = triangular_solve[left_side=true, lower=true, transpose_a=true](%a, %b)
  %n: i32[] = constant[value=2]()
  return %x, %n
}
";

/// A positive definite system `(x·xᵀ + diag(d))·y = b` (d in [3, 4]) solved through its
/// Cholesky factor, declared symmetric.
const SYMMETRIC: &str = "func @f(%x: f64{s}, %d: f64{s}, %b: f64{t}) -> (f64{t}) {
  %g: f64{s} = dot_general[lhs_contract=[1], rhs_contract=[1]](%x, %x)
  %i: i32{s} = iota[dtype=i32, shape={s}, dim=0]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim=1]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %dd: f64{s} = select(%m, %d, %z)
  %a: f64{s} = add(%g, %dd)
  %y: f64{t} = custom_linear_solve[matvec=@mv, solve=@sv, symmetric=true, num_consts=1](%a, %b)
  %w: f64{t} = sin(%y)
  return %w
}
func @mv(%a: f64{s}, %x: f64{t}) -> (f64{t}) {
  %y: f64{t} = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %x)
  return %y
}
func @sv(%a: f64{s}, %b: f64{t}) -> (f64{t}) {
  %l: f64{s} = cholesky(%a)
  %u: f64{t} = triangular_solve[left_side=true, lower=true](%l, %b)
  %x: f64{t} = triangular_solve[left_side=true, lower=true, transpose_a=true](%l, %u)
  return %x
}
";

/// The root of `x³ + x - c` (increasing, so one real root), found by 40 Newton steps
/// from `x0`; the tangent solve divides by `f'(x) = 3x² + 1`. The root does not depend
/// on `x0`, which the checks see as a zero derivative. The solver also reports its step
/// count, an auxiliary result.
const ROOT: &str = "func @f(%c: f64{s}, %x0: f64{s}) -> (f64{s}) {
  %r: f64{s}, %steps: i32[] = custom_root[f=@g, solve=@newton, tangent_solve=@ts, num_consts=1](%c, %x0)
  %o: f64{s} = mul(%r, %c)
  return %o
}
func @g(%c: f64{s}, %x: f64{s}) -> (f64{s}) {
  %x3: f64{s} = integer_pow[y=3](%x)
  %s: f64{s} = add(%x3, %x)
  %r: f64{s} = sub(%s, %c)
  return %r
}
func @newton(%c: f64{s}, %x0: f64{s}) -> (f64{s}, i32[]) {
  %x: f64{s} = scan[body=@step, length=40, num_consts=1, num_carry=1](%c, %x0)
  %steps: i32[] = constant[value=40]()
  return %x, %steps
}
func @step(%c: f64{s}, %x: f64{s}) -> (f64{s}) {
  %r: f64{s} = call[func=@g](%c, %x)
  %x2: f64{s} = mul(%x, %x)
  %three: f64{s} = constant[value=3.0]()
  %one: f64{s} = constant[value=1.0]()
  %d3: f64{s} = mul(%x2, %three)
  %d: f64{s} = add(%d3, %one)
  %q: f64{s} = div(%r, %d)
  %n: f64{s} = sub(%x, %q)
  return %n
}
func @ts(%c: f64{s}, %x: f64{s}, %rhs: f64{s}) -> (f64{s}) {
  %x2: f64{s} = mul(%x, %x)
  %three: f64{s} = constant[value=3.0]()
  %one: f64{s} = constant[value=1.0]()
  %d3: f64{s} = mul(%x2, %three)
  %d: f64{s} = add(%d3, %one)
  %dx: f64{s} = div(%rhs, %d)
  return %dx
}
";

/// The rows of `custom_linear_solve` and `custom_root`.
pub(crate) fn implicit_rows() -> Vec<Row> {
    vec![
        Row::new("custom_linear_solve", TRIANGULAR)
            .case(&[("s", "[1,1]"), ("t", "[1,1]")])
            .case(&[("s", "[3,3]"), ("t", "[3,2]")])
            .domains(&[Real, Interval(4.0, 5.0), Real]),
        Row::new("custom_linear_solve", SYMMETRIC)
            .case(&[("s", "[3,3]"), ("t", "[3,1]")])
            .case(&[("s", "[2,2]"), ("t", "[2,3]")])
            .domains(&[Real, Interval(3.0, 4.0), Real]),
        Row::new("custom_root", ROOT).shapes(&["[]", "[1,3]", "[2,2]"], &[]).domains(&[Real, Real]),
    ]
}
