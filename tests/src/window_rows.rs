//! The rows of the window family (`reduce_window` sum/max/min, `select_and_gather_add`,
//! `select_and_scatter_add`). Max and min pooling are smooth only away from ties, so
//! their selecting operands are drawn distinct; no case has a window over padding or
//! holes alone (its max would be -inf, which finite differences cannot take).

use super::*;
use Domain::{Distinct, Interval, Real};

/// `{w}`: the window attributes of a case; `{s}` the operand's shape, `{o}` the
/// windows' shape.
const REDUCE: &str = "func @f(%x: f64{s}) -> (f64{o}) {
  %i: f64[] = constant[value={init}]()
  %y: f64{o} = reduce_window[op=\"{op}\", {w}](%x, %i)
  %z: f64{o} = mul(%y, %y)
  return %z
}
";

const GATHER: &str = "func @f(%t: f64{s}, %x: f64{s}) -> (f64{o}) {
  %y: f64{o} = select_and_gather_add[select=\"{sel}\", {w}](%t, %x)
  %z: f64{o} = mul(%y, %y)
  return %z
}
";

const SCATTER: &str = "func @f(%t: f64{o}, %x: f64{s}) -> (f64{s}) {
  %y: f64{s} = select_and_scatter_add[select=\"{sel}\", {w}](%t, %x)
  %z: f64{s} = mul(%y, %y)
  return %z
}
";

/// `(s, o, w)`: a scalar, size-1 axes, strides with padding, base and window dilation
/// together, a 3-D window, and an empty operand.
const CASES: [(&str, &str, &str); 6] = [
    ("[]", "[]", "window_dimensions=[]"),
    ("[1,3]", "[1,2]", "window_dimensions=[1,2]"),
    ("[4,5]", "[2,4]", "window_dimensions=[2,3], window_strides=[2,1], padding=[[1,0],[0,1]]"),
    (
        "[3,4]",
        "[4,2]",
        "window_dimensions=[2,2], window_strides=[1,2], padding=[[0,0],[1,1]], base_dilation=[2,1], window_dilation=[1,2]",
    ),
    ("[2,3,4]", "[1,2,2]", "window_dimensions=[2,2,2], window_strides=[1,1,2]"),
    ("[2,0]", "[2,0]", "window_dimensions=[1,1]"),
];

fn cases(row: Row, extra: &[(&'static str, &str)]) -> Row {
    CASES.iter().fold(row, |row, (s, o, w)| {
        let mut vars = vec![("s", *s), ("o", *o), ("w", *w)];
        vars.extend_from_slice(extra);
        row.case(&vars)
    })
}

/// The window family's rows.
pub(crate) fn window_rows() -> Vec<Row> {
    let mut rows = vec![
        cases(Row::new("reduce_window", REDUCE), &[("op", "sum"), ("init", "0.0")]).domains(&[Interval(-0.5, 0.5)]),
    ];
    for (op, init) in [("max", "-inf"), ("min", "inf")] {
        rows.push(cases(Row::new("reduce_window", REDUCE), &[("op", op), ("init", init)]).domains(&[Distinct(0.0)]));
    }
    for sel in ["max", "min"] {
        rows.push(cases(Row::new("select_and_gather_add", GATHER), &[("sel", sel)]).domains(&[Real, Distinct(0.0)]));
        rows.push(cases(Row::new("select_and_scatter_add", SCATTER), &[("sel", sel)]).domains(&[Real, Distinct(0.0)]));
    }
    rows
}
