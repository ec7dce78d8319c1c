//! The rows of the factorisations and solves (`cholesky`, `triangular_solve`, `eigh`,
//! `lu`, `qr`, `svd`): their operands are built inside each program so that every draw
//! is well posed, a positive definite matrix `x·xᵀ + diag(d)` (d in [3, 4]) for
//! `cholesky`, a triangle with a diagonal away from zero for the solve, separated
//! spectra for `eigh` and `svd`, a dominant diagonal for `lu` and `qr`, and the checks
//! are those of every row.

use super::*;
use Domain::{Distinct, Interval, Real};

/// `cholesky` of `x·xᵀ + diag(d)`, batched over the leading axes of `{s}`. The factor
/// reads the lower triangle only, so a finite difference in any direction of `d`'s
/// or `x`'s elements agrees with the jvp, which symmetrises from that triangle.
const CHOLESKY: &str = "func @f(%x: f64{s}, %d: f64{s}) -> (f64{s}) {
  %g: f64{s} = dot_general[lhs_contract=[{c}], rhs_contract=[{c}], lhs_batch={b}, rhs_batch={b}](%x, %x)
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %dd: f64{s} = select(%m, %d, %z)
  %a: f64{s} = add(%g, %dd)
  %l: f64{s} = cholesky(%a)
  return %l
}
";

/// `triangular_solve` of a matrix whose read triangle is `x` with `d` (in [4, 5]) added
/// on the diagonal (so the diagonal lies in [2, 7]), against `b`.
const SOLVE: &str = "func @f(%x: f64{s}, %d: f64{s}, %b: f64{t}) -> (f64{t}) {
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %dd: f64{s} = select(%m, %d, %z)
  %a: f64{s} = add(%x, %dd)
  %y: f64{t} = triangular_solve[left_side={left}, lower={lower}, transpose_a={trans}, unit_diagonal={unit}](%a, %b)
  return %y
}
";

/// `eigh` of `diag(3·d) + 0.02·(x + xᵀ)`: eigenvalues at least about 0.6 apart (`d` is
/// [`Domain::Distinct`], 0.37 apart), so the eigenvectors are differentiable; the
/// results are the eigenvalues and `v∘v`, which an eigenvector's sign does not change.
const EIGH: &str = "func @f(%x: f64{s}, %d: f64{s}) -> (f64{s}, f64{w}) {
  %xt: f64{s} = transpose[perm={perm}](%x)
  %y: f64{s} = add(%x, %xt)
  %k: f64{s} = constant[value=0.02]()
  %p: f64{s} = mul(%y, %k)
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %three: f64{s} = constant[value=3.0]()
  %d3: f64{s} = mul(%d, %three)
  %dd: f64{s} = select(%m, %d3, %z)
  %a: f64{s} = add(%p, %dd)
  %v: f64{s}, %w: f64{w} = eigh[lower={lower}](%a)
  %vv: f64{s} = mul(%v, %v)
  return %vv, %w
}
";

/// `lu` of `rev(x + diag(5·d))` over the rows (d in [1, 2], on the main diagonal of the
/// rectangle): diagonally dominant before the reversal, so partial pivoting swaps rows
/// at fixed places, away from any tie. `{s}` square, tall and wide matrices; `{k}` has
/// `min(m, n)` pivots, `{w}` `m` rows.
const LU: &str = "func @f(%x: f64{s}, %d: f64{s}) -> (f64{s}) {
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %five: f64{s} = constant[value=5.0]()
  %d5: f64{s} = mul(%d, %five)
  %dd: f64{s} = select(%m, %d5, %z)
  %a: f64{s} = add(%x, %dd)
  %ar: f64{s} = rev[axes=[{r}]](%a)
  %lu: f64{s}, %p: i32{k}, %q: i32{w} = lu(%ar)
  return %lu
}
";

/// `qr` of `0.3·x + diag(d)` (d in [3, 4] on the main diagonal of the rectangle):
/// every Householder head stays near its positive diagonal entry, so the factors' signs
/// cannot flip under a small step and `q` and `r` themselves are smooth (each is
/// returned). `{full}` covers the reduced and complete modes, `{s}` square, tall and
/// wide matrices.
const QR: &str = "func @f(%x: f64{s}, %d: f64{s}) -> (f64{q}, f64{rr}) {
  %k: f64{s} = constant[value=0.3]()
  %xs: f64{s} = mul(%x, %k)
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %dd: f64{s} = select(%m, %d, %z)
  %a: f64{s} = add(%xs, %dd)
  %q: f64{q}, %rr: f64{rr} = qr[full_matrices={full}](%a)
  return %q, %rr
}
";

/// `svd` of `diag(3·d) + 0.1·x`, `d` ([`Domain::Distinct`] around 2, one value per
/// singular value, `{w}`) placed on the main diagonal of the rectangle (broadcast along
/// `{along}`): singular values at least about 1 apart and above 2, so the vectors are
/// differentiable. The results are `u∘u`, `s` and `vt∘vt`, which a pair's sign does not
/// change.
const SVD: &str = "func @f(%x: f64{s}, %d: f64{w}) -> (f64{u}, f64{w}, f64{v}) {
  %k: f64{s} = constant[value=0.1]()
  %xs: f64{s} = mul(%x, %k)
  %three: f64{w} = constant[value=3.0]()
  %d3: f64{w} = mul(%d, %three)
  %db: f64{s} = broadcast_in_dim[shape={s}, dims={dims}](%d3)
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %dd: f64{s} = select(%m, %db, %z)
  %a: f64{s} = add(%xs, %dd)
  %uu: f64{u}, %sv: f64{w}, %vt: f64{v} = svd[full_matrices={full}](%a)
  %u2: f64{u} = mul(%uu, %uu)
  %v2: f64{v} = mul(%vt, %vt)
  return %u2, %sv, %v2
}
";

/// `svd` without vectors, of the same matrices as [`SVD`]; then `s²`.
const SVD_VALUES: &str = "func @f(%x: f64{s}, %d: f64{w}) -> (f64{w}) {
  %k: f64{s} = constant[value=0.1]()
  %xs: f64{s} = mul(%x, %k)
  %three: f64{w} = constant[value=3.0]()
  %d3: f64{w} = mul(%d, %three)
  %db: f64{s} = broadcast_in_dim[shape={s}, dims={dims}](%d3)
  %i: i32{s} = iota[dtype=i32, shape={s}, dim={r}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={c}]()
  %m: bool{s} = eq(%i, %j)
  %z: f64{s} = constant[value=0.0]()
  %dd: f64{s} = select(%m, %db, %z)
  %a: f64{s} = add(%xs, %dd)
  %sv: f64{w} = svd[full_matrices={full}, compute_uv=false](%a)
  %s2: f64{w} = mul(%sv, %sv)
  return %s2
}
";

/// The rows of the linear-algebra family beyond `dot_general`.
pub(crate) fn linalg_rows() -> Vec<Row> {
    let mut rows = vec![
        Row::new("cholesky", CHOLESKY.to_string())
            .case(&[("s", "[1,1]"), ("b", "[]"), ("r", "0"), ("c", "1")])
            .case(&[("s", "[3,3]"), ("b", "[]"), ("r", "0"), ("c", "1")])
            .case(&[("s", "[2,3,3]"), ("b", "[0]"), ("r", "1"), ("c", "2")])
            .case(&[("s", "[0,2,2]"), ("b", "[0]"), ("r", "1"), ("c", "2")])
            .domains(&[Real, Interval(3.0, 4.0)]),
    ];
    let mut solve = Row::new("triangular_solve", SOLVE.to_string());
    for (left, lower, trans, unit) in [
        ("true", "true", "false", "false"),
        ("true", "false", "true", "false"),
        ("false", "true", "true", "false"),
        ("false", "false", "false", "true"),
    ] {
        let flags = [("left", left), ("lower", lower), ("trans", trans), ("unit", unit)];
        let t = if left == "true" { "[3,2]" } else { "[2,3]" };
        let mut case: Vec<(&'static str, &str)> = vec![("s", "[3,3]"), ("t", t), ("r", "0"), ("c", "1")];
        case.extend(flags);
        solve = solve.case(&case);
        let bt = if left == "true" { "[2,3,1]" } else { "[2,1,3]" };
        let mut batched: Vec<(&'static str, &str)> = vec![("s", "[2,3,3]"), ("t", bt), ("r", "1"), ("c", "2")];
        batched.extend(flags);
        solve = solve.case(&batched);
    }
    rows.push(solve.domains(&[Real, Interval(4.0, 5.0), Real]));
    rows.push(
        Row::new("eigh", EIGH.to_string())
            .case(&[("s", "[1,1]"), ("w", "[1]"), ("perm", "[1,0]"), ("r", "0"), ("c", "1"), ("lower", "true")])
            .case(&[("s", "[3,3]"), ("w", "[3]"), ("perm", "[1,0]"), ("r", "0"), ("c", "1"), ("lower", "false")])
            .case(&[("s", "[2,4,4]"), ("w", "[2,4]"), ("perm", "[0,2,1]"), ("r", "1"), ("c", "2"), ("lower", "true")])
            .domains(&[Real, Distinct(0.0)]),
    );
    rows.push(
        Row::new("lu", LU.to_string())
            .case(&[("s", "[1,1]"), ("k", "[1]"), ("w", "[1]"), ("r", "0"), ("c", "1")])
            .case(&[("s", "[3,3]"), ("k", "[3]"), ("w", "[3]"), ("r", "0"), ("c", "1")])
            .case(&[("s", "[2,4,4]"), ("k", "[2,4]"), ("w", "[2,4]"), ("r", "1"), ("c", "2")])
            .case(&[("s", "[4,2]"), ("k", "[2]"), ("w", "[4]"), ("r", "0"), ("c", "1")])
            .case(&[("s", "[2,4]"), ("k", "[2]"), ("w", "[2]"), ("r", "0"), ("c", "1")])
            .case(&[("s", "[2,5,3]"), ("k", "[2,3]"), ("w", "[2,5]"), ("r", "1"), ("c", "2")])
            .case(&[("s", "[2,3,5]"), ("k", "[2,3]"), ("w", "[2,3]"), ("r", "1"), ("c", "2")])
            .case(&[("s", "[3,0]"), ("k", "[0]"), ("w", "[3]"), ("r", "0"), ("c", "1")])
            .domains(&[Real, Interval(1.0, 2.0)]),
    );
    let mut qr = Row::new("qr", QR.to_string());
    for (shape, q, r, full) in [
        ("[1,1]", "[1,1]", "[1,1]", "true"),
        ("[3,3]", "[3,3]", "[3,3]", "true"),
        ("[4,2]", "[4,2]", "[2,2]", "false"),
        ("[4,2]", "[4,4]", "[4,2]", "true"),
        ("[2,4]", "[2,2]", "[2,4]", "false"),
    ] {
        qr = qr.case(&[("s", shape), ("q", q), ("rr", r), ("full", full), ("r", "0"), ("c", "1")]);
    }
    qr = qr.case(&[("s", "[2,3,2]"), ("q", "[2,3,2]"), ("rr", "[2,2,2]"), ("full", "false"), ("r", "1"), ("c", "2")]);
    rows.push(qr.domains(&[Real, Interval(3.0, 4.0)]));
    // (shape, u, s, vt, broadcast dims of d, full_matrices, row axis)
    let svd_cases = [
        ("[1,1]", "[1,1]", "[1]", "[1,1]", "[1]", "true", 0),
        ("[3,3]", "[3,3]", "[3]", "[3,3]", "[1]", "true", 0),
        ("[4,2]", "[4,2]", "[2]", "[2,2]", "[1]", "false", 0),
        ("[2,4]", "[2,2]", "[2]", "[2,4]", "[0]", "false", 0),
        ("[2,3,2]", "[2,3,2]", "[2,2]", "[2,2,2]", "[0,2]", "false", 1),
    ];
    let mut svd = Row::new("svd", SVD.to_string());
    let mut values = Row::new("svd", SVD_VALUES.to_string());
    for (shape, u, w, v, dims, full, r) in svd_cases {
        let (r, c) = (r.to_string(), (r + 1).to_string());
        let case = [("s", shape), ("u", u), ("w", w), ("v", v), ("dims", dims), ("full", full), ("r", &r), ("c", &c)];
        svd = svd.case(&case);
        // Without vectors any mode is differentiable: the full one on rectangles too.
        let mut values_case = case;
        values_case[5] = ("full", "true");
        values = values.case(&values_case);
    }
    rows.push(svd.domains(&[Real, Distinct(2.0)]));
    rows.push(values.domains(&[Real, Distinct(2.0)]));
    rows
}
