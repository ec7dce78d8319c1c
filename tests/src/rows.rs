//! The rows of the primitive table: one per primitive (a few have two), grouped by
//! family.

use super::*;

// ---- templates ----

/// Scalar, size-1 axes, general: the shapes of the elementwise rows.
const ELEMENTWISE: [&str; 3] = ["[]", "[1,3]", "[2,3]"];

/// Size-0 operands, added to the smooth elementwise rows: every derivative is empty,
/// and the passes must still produce (and run) well-typed programs.
const EMPTY: [&str; 2] = ["[0]", "[2,0]"];

/// Step and tolerances of the f32 rows: a step of 1e-3 keeps the rounding error of a
/// central difference (about 2^-24·|f|/1e-3 ≈ 6e-5·|f|) well below the tolerance.
pub const F32_TOLERANCE: Tolerance = Tolerance { eps: 1e-3, atol: 2e-3, rtol: 2e-3 };

fn unary(op: &str) -> String {
    format!(
        "func @f(%x: f64{{s}}) -> (f64{{s}}) {{
  %y: f64{{s}} = {op}(%x)
  return %y
}}
"
    )
}

fn binary(op: &str) -> String {
    format!(
        "func @f(%x: f64{{s}}, %y: f64{{s}}) -> (f64{{s}}) {{
  %z: f64{{s}} = {op}(%x, %y)
  return %z
}}
"
    )
}

fn compare(op: &str) -> String {
    format!(
        "func @f(%x: f64{{s}}, %y: f64{{s}}) -> (f64{{s}}) {{
  %b: bool{{s}} = {op}(%x, %y)
  %z: f64{{s}} = convert[dtype=f64](%b)
  return %z
}}
"
    )
}

fn logical(op: &str) -> String {
    format!(
        "func @f(%x: f64{{s}}, %y: f64{{s}}, %w: f64{{s}}) -> (f64{{s}}) {{
  %a: bool{{s}} = lt(%x, %y)
  %b: bool{{s}} = lt(%y, %w)
  %c: bool{{s}} = {op}(%a, %b)
  %d: f64{{s}} = convert[dtype=f64](%c)
  %i: i32{{s}} = convert[dtype=i32](%a)
  %j: i32{{s}} = convert[dtype=i32](%b)
  %k: i32{{s}} = {op}(%i, %j)
  %l: f64{{s}} = convert[dtype=f64](%k)
  %z: f64{{s}} = add(%d, %l)
  return %z
}}
"
    )
}

fn reduce(op: &str) -> String {
    format!(
        "func @f(%x: f64{{s}}) -> (f64{{o}}) {{
  %y: f64{{o}} = {op}[axes={{axes}}](%x)
  %z: f64{{o}} = mul(%y, %y)
  return %z
}}
"
    )
}

fn arg_reduce(op: &str) -> String {
    format!(
        "func @f(%x: f64{{s}}) -> (f64{{o}}) {{
  %i: i32{{o}} = {op}[axis={{axis}}, index_dtype=i32](%x)
  %z: f64{{o}} = convert[dtype=f64](%i)
  return %z
}}
"
    )
}

/// A one-operand structural primitive `{op}` from `{s}` to `{o}`, then a square (so
/// that second derivatives are not trivially zero).
const STRUCTURAL: &str = "func @f(%x: f64{s}) -> (f64{o}) {
  %y: f64{o} = {op}(%x)
  %z: f64{o} = mul(%y, %y)
  return %z
}
";

fn structural(op_with_attrs: &str) -> String {
    STRUCTURAL.replace("{op}", op_with_attrs)
}

/// The table: one row per primitive of the IR (see the crate docs).
pub fn table() -> Vec<Row> {
    let mut rows = Vec::new();
    rows.extend(unary_rows());
    rows.extend(binary_rows());
    rows.extend(structural_rows());
    rows.extend(index_rows());
    rows.extend(reduction_rows());
    rows.extend(crate::linalg_rows::linalg_rows());
    rows.extend(control_rows());
    rows.extend(crate::implicit_rows::implicit_rows());
    rows.extend(crate::conv_rows::conv_rows());
    rows.extend(crate::window_rows::window_rows());
    let f32_rows = f32_rows(&rows);
    rows.extend(f32_rows);
    rows
}

/// The primitives that also get an f32 row (every smooth family: unary, binary,
/// structural, indexing, reductions, dot, control and custom rules).
pub const F32_PRIMS: [&str; 42] = [
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "tan",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "erf",
    "integer_pow",
    "add",
    "mul",
    "div",
    "pow",
    "max",
    "atan2",
    "select",
    "clamp",
    "broadcast_in_dim",
    "transpose",
    "pad",
    "gather",
    "scatter_add",
    "dot_general",
    "conv_general_dilated",
    "reduce_sum",
    "reduce_max",
    "cumsum",
    "cummax",
    "call",
    "cond",
    "while",
    "scan",
    "custom_jvp",
    "custom_vjp",
    "remat",
    "dynamic_update_slice",
    "reduce_window",
    "select_and_gather_add",
    "select_and_scatter_add",
];

/// f32 copies of the smooth rows of [`F32_PRIMS`]: the same templates and cases with
/// every f64 type in f32, checked with [`F32_TOLERANCE`]. Each case
/// binds `dtype=f32`, so its label (and its drawn inputs) differ from the f64 case's.
fn f32_rows(rows: &[Row]) -> Vec<Row> {
    rows.iter()
        .filter(|r| F32_PRIMS.contains(&r.prim) && r.expect == Expect::Smooth)
        .map(|r| {
            let cases = r
                .cases
                .iter()
                .map(|vars| {
                    let mut vars: Vec<(&'static str, String)> =
                        vars.iter().map(|(k, v)| (*k, v.replace("f64", "f32"))).collect();
                    vars.push(("dtype", "f32".to_string()));
                    vars
                })
                .collect();
            Row { template: r.template.replace("f64", "f32"), cases, tol: F32_TOLERANCE, ..r.clone() }
        })
        .collect()
}

fn unary_rows() -> Vec<Row> {
    use Domain::*;
    let smooth = |op: &'static str, domain: Domain| {
        Row::new(op, unary(op)).shapes(&ELEMENTWISE, &[]).shapes(&EMPTY, &[]).domains(&[domain])
    };
    let flat = |op: &'static str, domain: Domain| smooth(op, domain).expect(Expect::Zero);
    let predicate = |op: &'static str, body: &str| {
        let template = format!(
            "func @f(%x: f64{{s}}, %y: f64{{s}}) -> (f64{{s}}) {{
{body}
  %z: f64{{s}} = convert[dtype=f64](%n)
  return %z
}}
"
        );
        Row::new(op, template).shapes(&ELEMENTWISE, &[]).domains(&[Distinct(0.0), Distinct(0.1)]).expect(Expect::Zero)
    };
    vec![
        smooth("neg", Real),
        smooth("exp", Real),
        smooth("log", Positive),
        smooth("log1p", Interval(-0.5, 2.0)),
        smooth("expm1", Real),
        smooth("sin", Real),
        smooth("cos", Real),
        smooth("tan", Interval(-1.0, 1.0)),
        smooth("tanh", Real),
        smooth("logistic", Real),
        smooth("sqrt", Positive),
        smooth("rsqrt", Positive),
        smooth("abs", NonZero),
        flat("sign", NonZero),
        flat("floor", OffInteger),
        flat("ceil", OffInteger),
        flat("round", OffInteger),
        smooth("erf", Real),
        predicate("not", "  %b: bool{s} = lt(%x, %y)\n  %n: bool{s} = not(%b)"),
        predicate("is_finite", "  %q: f64{s} = div(%x, %y)\n  %n: bool{s} = is_finite(%q)"),
        Row::new(
            "integer_pow",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %y: f64{s} = integer_pow[y={y}](%x)
  return %y
}
",
        )
        .case(&[("s", "[]"), ("y", "2")])
        .case(&[("s", "[1,3]"), ("y", "3")])
        .case(&[("s", "[2,3]"), ("y", "-2")])
        .case(&[("s", "[2,3]"), ("y", "0")])
        .case(&[("s", "[]"), ("y", "1")])
        .case(&[("s", "[2]"), ("y", "-3")])
        .domains(&[NonZero]),
        // Through f32 and back (rounding: a larger step), from i32, and f64 to f64.
        Row::new(
            "convert",
            "func @f(%x: f64{s}, %i: i32{s}) -> (f64{s}) {
  %a: f32{s} = convert[dtype=f32](%x)
  %b: f64{s} = convert[dtype=f64](%a)
  %c: f64{s} = convert[dtype=f64](%i)
  %d: f64{s} = mul(%b, %c)
  %e: f64{s} = convert[dtype=f64](%d)
  %g: f64{s} = mul(%e, %x)
  return %g
}
",
        )
        .shapes(&ELEMENTWISE, &[])
        .domains(&[Real, Index(-3, 3)])
        .tolerance(1e-3, 1e-4, 1e-3),
        // To i32 and bool: piecewise constant.
        Row::new(
            "convert",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %a: i32{s} = convert[dtype=i32](%x)
  %b: f64{s} = convert[dtype=f64](%a)
  %c: bool{s} = convert[dtype=bool](%x)
  %d: f64{s} = convert[dtype=f64](%c)
  %e: f64{s} = add(%b, %d)
  return %e
}
",
        )
        .shapes(&ELEMENTWISE, &[])
        .domains(&[OffInteger])
        .expect(Expect::Zero),
        Row::new(
            "stop_gradient",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %y: f64{s} = stop_gradient(%x)
  %z: f64{s} = mul(%y, %y)
  return %z
}
",
        )
        .shapes(&ELEMENTWISE, &[])
        .expect(Expect::ZeroByDefinition),
        Row::new(
            "name",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %y: f64{s} = name[name=\"h\"](%x)
  %z: f64{s} = mul(%y, %x)
  return %z
}
",
        )
        .shapes(&ELEMENTWISE, &[]),
        // Offloaded values: read back by reload, or (as the identity) by anything.
        Row::new(
            "offload",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %h: f64{s} = offload(%x)
  %y: f64{s} = sin(%x)
  %r: f64{s} = reload(%h)
  %z: f64{s} = mul(%r, %y)
  %w: f64{s} = mul(%z, %h)
  return %w
}
",
        )
        .shapes(&ELEMENTWISE, &[]),
        Row::new(
            "reload",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %h: f64{s} = offload(%x)
  %a: f64{s} = reload(%h)
  %b: f64{s} = reload(%h)
  %z: f64{s} = mul(%a, %b)
  return %z
}
",
        )
        .shapes(&ELEMENTWISE, &[]),
    ]
}

fn binary_rows() -> Vec<Row> {
    use Domain::*;
    let row = |op: &'static str, x: Domain, y: Domain| {
        Row::new(op, binary(op)).shapes(&ELEMENTWISE, &[]).shapes(&EMPTY, &[]).domains(&[x, y])
    };
    let mut rows = vec![
        row("add", Real, Real),
        row("sub", Real, Real),
        row("mul", Real, Real),
        row("div", Real, NonZero),
        // x / y stays 0.19 or more away from the integers (where rem jumps).
        row("rem", IntegerPlus(0.3), Interval(0.95, 1.05)),
        row("pow", Positive, Real),
        row("max", Distinct(0.0), Distinct(0.1)),
        row("min", Distinct(0.0), Distinct(0.1)),
        row("atan2", Real, Positive),
    ];
    for op in ["and", "or"] {
        rows.push(
            Row::new(op, logical(op))
                .shapes(&ELEMENTWISE, &[])
                .domains(&[Distinct(0.0), Distinct(0.1), Distinct(0.2)])
                .expect(Expect::Zero),
        );
    }
    for op in CompareOp::ALL {
        rows.push(
            Row::new(op.name(), compare(op.name()))
                .shapes(&ELEMENTWISE, &[])
                .domains(&[Distinct(0.0), Distinct(0.1)])
                .expect(Expect::Zero),
        );
    }
    rows.push(
        Row::new(
            "select",
            "func @f(%p: bool{s}, %x: f64{s}, %y: f64{s}) -> (f64{s}) {
  %z: f64{s} = select(%p, %x, %y)
  %w: f64{s} = mul(%z, %x)
  return %w
}
",
        )
        .shapes(&ELEMENTWISE, &[])
        .domains(&[Bool, Real, Real]),
    );
    rows.push(
        Row::new(
            "clamp",
            "func @f(%lo: f64{s}, %x: f64{s}, %hi: f64{s}) -> (f64{s}) {
  %y: f64{s} = clamp(%lo, %x, %hi)
  %z: f64{s} = mul(%y, %x)
  return %z
}
",
        )
        .shapes(&["[]", "[1,3]", "[2,3]", "[7]"], &[])
        .domains(&[Fixed(-0.6), Distinct(0.05), Fixed(0.6)]),
    );
    rows
}

fn structural_rows() -> Vec<Row> {
    use Domain::*;
    vec![
        Row::new("broadcast_in_dim", structural("broadcast_in_dim[shape={o}, dims={dims}]"))
            .case(&[("s", "[]"), ("o", "[]"), ("dims", "[]")])
            .case(&[("s", "[]"), ("o", "[2,3]"), ("dims", "[]")])
            .case(&[("s", "[1,3]"), ("o", "[2,3]"), ("dims", "[0,1]")])
            .case(&[("s", "[3]"), ("o", "[2,3,1]"), ("dims", "[1]")])
            .case(&[("s", "[2,1]"), ("o", "[2,4]"), ("dims", "[0,1]")]),
        Row::new("reshape", structural("reshape[shape={o}]"))
            .case(&[("s", "[]"), ("o", "[1,1]")])
            .case(&[("s", "[1,3]"), ("o", "[3]")])
            .case(&[("s", "[2,3]"), ("o", "[3,2]")])
            .case(&[("s", "[2,3]"), ("o", "[6]")]),
        Row::new("transpose", structural("transpose[perm={perm}]"))
            .case(&[("s", "[]"), ("o", "[]"), ("perm", "[]")])
            .case(&[("s", "[1,3]"), ("o", "[3,1]"), ("perm", "[1,0]")])
            .case(&[("s", "[2,3,4]"), ("o", "[4,2,3]"), ("perm", "[2,0,1]")]),
        Row::new("rev", structural("rev[axes={axes}]"))
            .case(&[("s", "[]"), ("o", "[]"), ("axes", "[]")])
            .case(&[("s", "[1,3]"), ("o", "[1,3]"), ("axes", "[0,1]")])
            .case(&[("s", "[2,3]"), ("o", "[2,3]"), ("axes", "[1]")]),
        Row::new("slice", structural("slice[start={start}, limit={limit}, strides={strides}]"))
            .case(&[("s", "[]"), ("o", "[]"), ("start", "[]"), ("limit", "[]"), ("strides", "[]")])
            .case(&[("s", "[1,3]"), ("o", "[1,2]"), ("start", "[0,1]"), ("limit", "[1,3]"), ("strides", "[1,1]")])
            .case(&[("s", "[4,5]"), ("o", "[2,3]"), ("start", "[1,0]"), ("limit", "[4,5]"), ("strides", "[2,2]")]),
        Row::new(
            "pad",
            "func @f(%x: f64{s}, %p: f64[]) -> (f64{o}) {
  %y: f64{o} = pad[low={low}, high={high}, interior={interior}](%x, %p)
  %z: f64{o} = mul(%y, %y)
  return %z
}
",
        )
        .case(&[("s", "[]"), ("o", "[]"), ("low", "[]"), ("high", "[]"), ("interior", "[]")])
        .case(&[("s", "[1,3]"), ("o", "[2,4]"), ("low", "[1,0]"), ("high", "[0,-1]"), ("interior", "[0,1]")])
        .case(&[("s", "[2,3]"), ("o", "[3,5]"), ("low", "[-1,2]"), ("high", "[1,0]"), ("interior", "[1,0]")])
        .case(&[("s", "[3]"), ("o", "[1]"), ("low", "[-2]"), ("high", "[0]"), ("interior", "[0]")])
        // An empty operand: every element is the padding value.
        .case(&[("s", "[0]"), ("o", "[3]"), ("low", "[1]"), ("high", "[2]"), ("interior", "[0]")]),
        Row::new(
            "concatenate",
            "func @f(%x: f64{a}, %y: f64{b}) -> (f64{o}) {
  %c: f64{o} = concatenate[axis={axis}](%x, %y, %x)
  %z: f64{o} = mul(%c, %c)
  return %z
}
",
        )
        .case(&[("a", "[1]"), ("b", "[1]"), ("o", "[3]"), ("axis", "0")])
        .case(&[("a", "[1,3]"), ("b", "[2,3]"), ("o", "[4,3]"), ("axis", "0")])
        .case(&[("a", "[2,1]"), ("b", "[2,3]"), ("o", "[2,5]"), ("axis", "1")])
        .case(&[("a", "[0,3]"), ("b", "[2,3]"), ("o", "[2,3]"), ("axis", "0")]),
        // iota as a coefficient, and alone (no tangent at all).
        Row::new(
            "iota",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %i: f64{s} = iota[dtype=f64, shape={s}, dim={dim}]()
  %j: i32{s} = iota[dtype=i32, shape={s}, dim={dim}]()
  %k: f64{s} = convert[dtype=f64](%j)
  %y: f64{s} = mul(%x, %i)
  %z: f64{s} = add(%y, %k)
  %w: f64{s} = mul(%z, %x)
  return %w
}
",
        )
        .case(&[("s", "[1]"), ("dim", "0")])
        .case(&[("s", "[1,3]"), ("dim", "1")])
        .case(&[("s", "[2,3]"), ("dim", "0")]),
        Row::new(
            "iota",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %i: f64{s} = iota[dtype=f64, shape={s}, dim={dim}]()
  return %i
}
",
        )
        .case(&[("s", "[1]"), ("dim", "0")])
        .case(&[("s", "[2,3]"), ("dim", "1")])
        .expect(Expect::Zero),
        Row::new(
            "constant",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %c: f64{s} = constant[value={v}]()
  %y: f64{s} = mul(%x, %c)
  %z: f64{s} = add(%y, %c)
  %w: f64{s} = mul(%z, %x)
  return %w
}
",
        )
        .case(&[("s", "[]"), ("v", "1.5")])
        .case(&[("s", "[1,3]"), ("v", "[0.5, -1, 2]")])
        .case(&[("s", "[2,3]"), ("v", "-0.75")]),
        Row::new(
            "random_bits",
            "func @f(%x: f64{s}, %k: i32[2]) -> (f64{s}) {
  %b: i32{s} = random_bits[shape={s}](%k)
  %c: f64{s} = convert[dtype=f64](%b)
  %u: f64{s} = constant[value=4.656612873077393e-10]()
  %d: f64{s} = mul(%c, %u)
  %e: f64{s} = mul(%d, %x)
  return %e
}
",
        )
        .shapes(&ELEMENTWISE, &[])
        .domains(&[Real, Bits]),
        Row::new(
            "random_bits",
            "func @f(%x: f64{s}, %k: i32[2]) -> (f64{s}) {
  %b: i32{s} = random_bits[shape={s}](%k)
  %c: f64{s} = convert[dtype=f64](%b)
  return %c
}
",
        )
        .shapes(&ELEMENTWISE, &[])
        .domains(&[Real, Bits])
        .expect(Expect::Zero),
    ]
}

fn index_rows() -> Vec<Row> {
    use Domain::*;
    vec![
        Row::new(
            "dynamic_slice",
            "func @f(%x: f64{s}{iparams}) -> (f64{o}) {
  %y: f64{o} = dynamic_slice[sizes={o}](%x{iargs})
  %z: f64{o} = mul(%y, %y)
  return %z
}
",
        )
        .case(&[("s", "[]"), ("o", "[]"), ("iparams", ""), ("iargs", "")])
        .case(&[("s", "[1,3]"), ("o", "[1,2]"), ("iparams", ", %i: i32[], %j: i32[]"), ("iargs", ", %i, %j")])
        .case(&[("s", "[4,5]"), ("o", "[2,3]"), ("iparams", ", %i: i32[], %j: i32[]"), ("iargs", ", %i, %j")])
        .case(&[("s", "[6]"), ("o", "[2]"), ("iparams", ", %i: i32[]"), ("iargs", ", %i")])
        .domains(&[Real, Index(-1, 5)]),
        Row::new(
            "dynamic_update_slice",
            "func @f(%x: f64{s}, %u: f64{o}{iparams}) -> (f64{s}) {
  %y: f64{s} = dynamic_update_slice(%x, %u{iargs})
  %z: f64{s} = mul(%y, %y)
  return %z
}
",
        )
        .case(&[("s", "[]"), ("o", "[]"), ("iparams", ""), ("iargs", "")])
        .case(&[("s", "[1,3]"), ("o", "[1,2]"), ("iparams", ", %i: i32[], %j: i32[]"), ("iargs", ", %i, %j")])
        .case(&[("s", "[4,5]"), ("o", "[2,3]"), ("iparams", ", %i: i32[], %j: i32[]"), ("iargs", ", %i, %j")])
        .case(&[("s", "[6]"), ("o", "[2]"), ("iparams", ", %i: i32[]"), ("iargs", ", %i")])
        .domains(&[Real, Real, Index(-1, 5)]),
        Row::new(
            "gather",
            "func @f(%x: f64{s}, %idx: i32{i}) -> (f64{o}) {
  %y: f64{o} = gather[axis={axis}, batch_dims={b}](%x, %idx)
  %z: f64{o} = mul(%y, %y)
  return %z
}
",
        )
        .case(&[("s", "[3]"), ("i", "[]"), ("o", "[]"), ("axis", "0"), ("b", "0")])
        .case(&[("s", "[1,3]"), ("i", "[4]"), ("o", "[1,4]"), ("axis", "1"), ("b", "0")])
        .case(&[("s", "[4,3]"), ("i", "[2,2]"), ("o", "[2,2,3]"), ("axis", "0"), ("b", "0")])
        .case(&[("s", "[2,4]"), ("i", "[2,3]"), ("o", "[2,3]"), ("axis", "1"), ("b", "1")])
        // The indexed axis after a free axis, past the batch axes; two batch axes.
        .case(&[("s", "[2,3,4]"), ("i", "[2,5]"), ("o", "[2,3,5]"), ("axis", "2"), ("b", "1")])
        .case(&[("s", "[2,3,4,2]"), ("i", "[2,3,2]"), ("o", "[2,3,4,2]"), ("axis", "3"), ("b", "2")])
        // No indices; and an empty operand axis that is not indexed.
        .case(&[("s", "[4,3]"), ("i", "[0]"), ("o", "[0,3]"), ("axis", "0"), ("b", "0")])
        .case(&[("s", "[4,0]"), ("i", "[2]"), ("o", "[2,0]"), ("axis", "0"), ("b", "0")])
        .domains(&[Real, Index(-1, 4)]),
        Row::new(
            "scatter_add",
            "func @f(%x: f64{s}, %idx: i32{i}, %u: f64{o}) -> (f64{s}) {
  %y: f64{s} = scatter_add[axis={axis}, batch_dims={b}](%x, %idx, %u)
  %z: f64{s} = mul(%y, %y)
  return %z
}
",
        )
        .case(&[("s", "[3]"), ("i", "[]"), ("o", "[]"), ("axis", "0"), ("b", "0")])
        .case(&[("s", "[1,3]"), ("i", "[4]"), ("o", "[1,4]"), ("axis", "1"), ("b", "0")])
        .case(&[("s", "[4,3]"), ("i", "[2,2]"), ("o", "[2,2,3]"), ("axis", "0"), ("b", "0")])
        .case(&[("s", "[2,4]"), ("i", "[2,3]"), ("o", "[2,3]"), ("axis", "1"), ("b", "1")])
        .case(&[("s", "[2,3,4]"), ("i", "[2,5]"), ("o", "[2,3,5]"), ("axis", "2"), ("b", "1")])
        .case(&[("s", "[2,3,4,2]"), ("i", "[2,3,2]"), ("o", "[2,3,4,2]"), ("axis", "3"), ("b", "2")])
        .case(&[("s", "[4,3]"), ("i", "[0]"), ("o", "[0,3]"), ("axis", "0"), ("b", "0")])
        .domains(&[Real, Index(-1, 4), Real]),
        Row::new(
            "dot_general",
            "func @f(%a: f64{l}, %b: f64{r}) -> (f64{o}) {
  %c: f64{o} = dot_general[lhs_contract={lc}, rhs_contract={rc}, lhs_batch={lb}, rhs_batch={rb}](%a, %b)
  return %c
}
",
        )
        .case(&[("l", "[]"), ("r", "[]"), ("o", "[]"), ("lc", "[]"), ("rc", "[]"), ("lb", "[]"), ("rb", "[]")])
        .case(&[("l", "[3]"), ("r", "[3]"), ("o", "[]"), ("lc", "[0]"), ("rc", "[0]"), ("lb", "[]"), ("rb", "[]")])
        .case(&[("l", "[2,3]"), ("r", "[3]"), ("o", "[2]"), ("lc", "[1]"), ("rc", "[0]"), ("lb", "[]"), ("rb", "[]")])
        .case(&[
            ("l", "[1,3]"),
            ("r", "[3,1]"),
            ("o", "[3,3]"),
            ("lc", "[0]"),
            ("rc", "[1]"),
            ("lb", "[]"),
            ("rb", "[]"),
        ])
        .case(&[
            ("l", "[2,1,3]"),
            ("r", "[2,3,4]"),
            ("o", "[2,1,4]"),
            ("lc", "[2]"),
            ("rc", "[1]"),
            ("lb", "[0]"),
            ("rb", "[0]"),
        ])
        .case(&[
            ("l", "[3,2]"),
            ("r", "[2,3]"),
            ("o", "[2,2]"),
            ("lc", "[0]"),
            ("rc", "[1]"),
            ("lb", "[]"),
            ("rb", "[]"),
        ])
        // Batch axes that are not leading: in the middle of both operands, and last
        // of one and first of the other.
        .case(&[
            ("l", "[3,2,4]"),
            ("r", "[4,2,5]"),
            ("o", "[2,3,5]"),
            ("lc", "[2]"),
            ("rc", "[0]"),
            ("lb", "[1]"),
            ("rb", "[1]"),
        ])
        .case(&[
            ("l", "[3,4,2]"),
            ("r", "[2,4]"),
            ("o", "[2,3]"),
            ("lc", "[1]"),
            ("rc", "[1]"),
            ("lb", "[2]"),
            ("rb", "[0]"),
        ])
        // Two batch axes, in swapped order on the rhs.
        .case(&[
            ("l", "[2,3,4]"),
            ("r", "[4,3,2]"),
            ("o", "[2,3]"),
            ("lc", "[2]"),
            ("rc", "[0]"),
            ("lb", "[0,1]"),
            ("rb", "[2,1]"),
        ])
        // Size 0: an empty contraction (a zero result) and an empty free axis.
        .case(&[
            ("l", "[2,0]"),
            ("r", "[0,3]"),
            ("o", "[2,3]"),
            ("lc", "[1]"),
            ("rc", "[0]"),
            ("lb", "[]"),
            ("rb", "[]"),
        ])
        .case(&[
            ("l", "[0,3]"),
            ("r", "[3,2]"),
            ("o", "[0,2]"),
            ("lc", "[1]"),
            ("rc", "[0]"),
            ("lb", "[]"),
            ("rb", "[]"),
        ]),
    ]
}

fn reduction_rows() -> Vec<Row> {
    use Domain::*;
    let reduce_cases = |row: Row| {
        row.case(&[("s", "[]"), ("o", "[]"), ("axes", "[]")])
            .case(&[("s", "[1,3]"), ("o", "[1]"), ("axes", "[1]")])
            .case(&[("s", "[2,3]"), ("o", "[]"), ("axes", "[0,1]")])
            .case(&[("s", "[2,3,2]"), ("o", "[3]"), ("axes", "[0,2]")])
    };
    let mut rows = Vec::new();
    for op in ReduceOp::ALL {
        let domain = match op {
            ReduceOp::Sum => Real,
            ReduceOp::Max | ReduceOp::Min => Distinct(0.0),
            ReduceOp::Prod => NonZero,
        };
        let mut row = reduce_cases(Row::new(op.name(), reduce(op.name()))).domains(&[domain]);
        // Size 0: reducing the other axis gives an empty result; sum and product may
        // reduce the empty axis itself (to 0 and 1, with zero derivative). The max of
        // nothing is -inf, whose square is not differentiable.
        row = row.case(&[("s", "[0,3]"), ("o", "[0]"), ("axes", "[1]")]);
        if matches!(op, ReduceOp::Sum | ReduceOp::Prod) {
            row = row.case(&[("s", "[3,0]"), ("o", "[3]"), ("axes", "[1]")]);
        }
        rows.push(row);
    }
    // reduce_prod with a zero element: the rule must not divide by it.
    rows.push(
        Row::new("reduce_prod", reduce("reduce_prod"))
            .case(&[("s", "[]"), ("o", "[]"), ("axes", "[]")])
            .case(&[("s", "[4]"), ("o", "[]"), ("axes", "[0]")])
            .case(&[("s", "[1,3]"), ("o", "[1]"), ("axes", "[1]")])
            .case(&[("s", "[2,3]"), ("o", "[3]"), ("axes", "[0]")])
            .domains(&[NonZeroWithZero]),
    );
    for op in [ArgOp::Argmax, ArgOp::Argmin] {
        rows.push(
            Row::new(op.name(), arg_reduce(op.name()))
                .case(&[("s", "[3]"), ("o", "[]"), ("axis", "0")])
                .case(&[("s", "[1,3]"), ("o", "[1]"), ("axis", "1")])
                .case(&[("s", "[2,3]"), ("o", "[3]"), ("axis", "0")])
                .domains(&[Distinct(0.0)])
                .expect(Expect::Zero),
        );
    }
    rows.push(
        Row::new("cumsum", structural("cumsum[axis={axis}, reverse={rev}]"))
            .case(&[("s", "[1]"), ("o", "[1]"), ("axis", "0"), ("rev", "false")])
            .case(&[("s", "[1,3]"), ("o", "[1,3]"), ("axis", "1"), ("rev", "true")])
            .case(&[("s", "[2,3]"), ("o", "[2,3]"), ("axis", "0"), ("rev", "false")])
            .case(&[("s", "[2,4]"), ("o", "[2,4]"), ("axis", "1"), ("rev", "true")])
            .case(&[("s", "[2,0]"), ("o", "[2,0]"), ("axis", "1"), ("rev", "false")]),
    );
    // Running extremes on distinct values, so that no two inputs tie for a record.
    for op in ["cummax", "cummin"] {
        rows.push(
            Row::new(op, structural(&format!("{op}[axis={{axis}}, reverse={{rev}}]")))
                .case(&[("s", "[1]"), ("o", "[1]"), ("axis", "0"), ("rev", "false")])
                .case(&[("s", "[1,3]"), ("o", "[1,3]"), ("axis", "1"), ("rev", "true")])
                .case(&[("s", "[2,3]"), ("o", "[2,3]"), ("axis", "0"), ("rev", "false")])
                .case(&[("s", "[2,4,3]"), ("o", "[2,4,3]"), ("axis", "1"), ("rev", "true")])
                .case(&[("s", "[2,0]"), ("o", "[2,0]"), ("axis", "1"), ("rev", "false")])
                .domains(&[Domain::Distinct(0.0)]),
        );
    }
    // Sorting on distinct values, where it is a smooth permutation: `sort` of a key with
    // a second float operand carried along, and `top_k` with its indices dropped.
    rows.push(
        Row::new(
            "sort",
            "func @f(%x: f64{s}, %w: f64{s}) -> (f64{s}) {
  %y: f64{s}, %v: f64{s} = sort[dimension={axis}](%x, %w)
  %z: f64{s} = mul(%y, %v)
  return %z
}
",
        )
        .case(&[("s", "[1]"), ("axis", "0")])
        .case(&[("s", "[1,3]"), ("axis", "1")])
        .case(&[("s", "[2,3]"), ("axis", "0")])
        .case(&[("s", "[2,4,3]"), ("axis", "1")])
        .case(&[("s", "[2,0]"), ("axis", "1")])
        .domains(&[Domain::Distinct(0.0), Domain::Distinct(5.0)]),
    );
    rows.push(
        Row::new(
            "top_k",
            "func @f(%x: f64{s}) -> (f64{o}) {
  %y: f64{o}, %i: i32{o} = top_k[k={k}](%x)
  %z: f64{o} = mul(%y, %y)
  return %z
}
",
        )
        .case(&[("s", "[1]"), ("o", "[1]"), ("k", "1")])
        .case(&[("s", "[2,3]"), ("o", "[2,2]"), ("k", "2")])
        .case(&[("s", "[2,4]"), ("o", "[2,4]"), ("k", "4")])
        .case(&[("s", "[2,3]"), ("o", "[2,0]"), ("k", "0")])
        .domains(&[Domain::Distinct(0.0)]),
    );
    rows
}

/// A bool predicate `%m < 0` (the computed `cond` row).
const LT_ZERO: [(&str, &str); 2] = [("pt", "bool"), ("sel", "lt(%m, %zero)")];

/// An i32 branch index `trunc(%m)` (the computed `cond` row).
const TO_INDEX: [(&str, &str); 2] = [("pt", "i32"), ("sel", "convert[dtype=i32](%m)")];

fn control_rows() -> Vec<Row> {
    vec![
        Row::new(
            "call",
            "func @f(%x: f64{s}, %w: f64{s}) -> (f64{s}) {
  %y: f64{s} = call[func=@g](%x, %w)
  %z: f64{s} = mul(%y, %x)
  return %z
}
func @g(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  %c: f64{s} = sin(%a)
  %d: f64{s} = mul(%c, %b)
  return %d
}
",
        )
        .shapes(&ELEMENTWISE, &[]),
        Row::new(
            "cond",
            "func @f(%x: f64{s}, %w: f64{s}) -> (f64{s}) {
  %p: {pt}[] = constant[value={p}]()
  %y: f64{s} = cond[branches={branches}](%p, %x, %w)
  %z: f64{s} = mul(%y, %x)
  return %z
}
func @b0(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  %c: f64{s} = sin(%a)
  %d: f64{s} = mul(%c, %b)
  return %d
}
func @b1(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  %c: f64{s} = mul(%a, %a)
  %d: f64{s} = add(%c, %b)
  return %d
}
func @b2(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  return %b
}
",
        )
        .case(&[("s", "[]"), ("pt", "bool"), ("p", "false"), ("branches", "[@b0, @b1]")])
        .case(&[("s", "[1,3]"), ("pt", "bool"), ("p", "true"), ("branches", "[@b0, @b1]")])
        .case(&[("s", "[2,3]"), ("pt", "i32"), ("p", "0"), ("branches", "[@b0, @b1, @b2]")])
        .case(&[("s", "[2,3]"), ("pt", "i32"), ("p", "7"), ("branches", "[@b0, @b1, @b2]")])
        .case(&[("s", "[2]"), ("pt", "i32"), ("p", "-1"), ("branches", "[@b1, @b2]")]),
        // The predicate computed from a differentiated parameter %q (0.2 to 0.8, moved by
        // {shift}): the branch taken depends on the input, %q's own derivative is zero,
        // and the other parameters' derivatives are those of the branch taken.
        Row::new(
            "cond",
            "func @f(%x: f64{s}, %w: f64{s}, %q: f64[]) -> (f64{s}) {
  %k: f64[] = constant[value={shift}]()
  %m: f64[] = add(%q, %k)
  %zero: f64[] = constant[value=0]()
  %p: {pt}[] = {sel}
  %y: f64{s} = cond[branches={branches}](%p, %x, %w)
  %z: f64{s} = mul(%y, %x)
  return %z
}
func @b0(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  %c: f64{s} = sin(%a)
  %d: f64{s} = mul(%c, %b)
  return %d
}
func @b1(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  %c: f64{s} = mul(%a, %a)
  %d: f64{s} = add(%c, %b)
  return %d
}
func @b2(%a: f64{s}, %b: f64{s}) -> (f64{s}) {
  %c: f64{s} = tanh(%b)
  %d: f64{s} = mul(%a, %c)
  return %d
}
",
        )
        .case(&[&[("s", "[]"), ("shift", "0"), ("branches", "[@b0, @b1]")][..], &LT_ZERO].concat())
        .case(&[&[("s", "[1,3]"), ("shift", "-1"), ("branches", "[@b0, @b1]")][..], &LT_ZERO].concat())
        .case(&[&[("s", "[2,3]"), ("shift", "1"), ("branches", "[@b0, @b1, @b2]")][..], &TO_INDEX].concat())
        .case(&[&[("s", "[2,3]"), ("shift", "2"), ("branches", "[@b0, @b1, @b2]")][..], &TO_INDEX].concat())
        .case(&[&[("s", "[2]"), ("shift", "0"), ("branches", "[@b0, @b1, @b2]")][..], &TO_INDEX].concat())
        .domains(&[Domain::Real, Domain::Real, Domain::Interval(0.2, 0.8)]),
        Row::new(
            "while",
            "func @f(%x: f64{s}, %w: f64{s}) -> (f64{s}) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %y: f64{s}, %v: f64{s} = while[cond=@c, body=@b, max_iters={m}](%zero, %x, %w)
  return %y
}
func @c(%i: i32[], %y: f64{s}, %v: f64{s}) -> (bool[]) {
  %n: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %n)
  return %p
}
func @b(%i: i32[], %y: f64{s}, %v: f64{s}) -> (i32[], f64{s}, f64{s}) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %s: f64{s} = sin(%y)
  %t: f64{s} = mul(%s, %v)
  %u: f64{s} = add(%t, %y)
  return %j, %u, %v
}
",
        )
        .case(&[("s", "[]"), ("m", "4")])
        .case(&[("s", "[1,3]"), ("m", "2")])
        .case(&[("s", "[2,3]"), ("m", "5")]),
        Row::new(
            "while",
            "func @f(%x: f64{s}, %w: f64{s}) -> (f64{s}) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %y: f64{s}, %v: f64{s} = while[cond=@c, body=@b, max_iters={m}](%zero, %x, %w)
  return %y
}
func @c(%i: i32[], %y: f64{s}, %v: f64{s}) -> (bool[]) {
  %n: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %n)
  return %p
}
func @b(%i: i32[], %y: f64{s}, %v: f64{s}) -> (i32[], f64{s}, f64{s}) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %s: f64{s} = sin(%y)
  %t: f64{s} = mul(%s, %v)
  %u: f64{s} = add(%t, %y)
  return %j, %u, %v
}
",
        )
        .case(&[("s", "[]"), ("m", "none")])
        .case(&[("s", "[1,3]"), ("m", "none")])
        .case(&[("s", "[2,3]"), ("m", "none")])
        .forward_only(UNBOUNDED_WHILE),
        Row::new(
            "scan",
            "func @f(%w: f64{s}, %c: f64{s}, %xs: f64{xs}) -> (f64{s}, f64{xs}) {
  %cf: f64{s}, %ys: f64{xs} = scan[body=@body, length=3, num_consts=1, num_carry=1, reverse={rev}, checkpoint={k}](%w, %c, %xs)
  return %cf, %ys
}
func @body(%w: f64{s}, %c: f64{s}, %x: f64{s}) -> (f64{s}, f64{s}) {
  %a: f64{s} = mul(%c, %w)
  %b: f64{s} = sin(%x)
  %n: f64{s} = add(%a, %b)
  %y: f64{s} = mul(%c, %x)
  return %n, %y
}
",
        )
        .case(&[("s", "[]"), ("xs", "[3]"), ("rev", "false"), ("k", "none")])
        .case(&[("s", "[1,2]"), ("xs", "[3,1,2]"), ("rev", "true"), ("k", "none")])
        .case(&[("s", "[2,3]"), ("xs", "[3,2,3]"), ("rev", "false"), ("k", "2")]),
        Row::new(
            "custom_jvp",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %y: f64{s} = custom_jvp[func=@sq, jvp=@sq_jvp](%x)
  %z: f64{s} = sin(%y)
  return %z
}
func @sq(%a: f64{s}) -> (f64{s}) {
  %y: f64{s} = mul(%a, %a)
  return %y
}
func @sq_jvp(%a: f64{s}, %t: f64{s}) -> (f64{s}, f64{s}) {
  %y: f64{s} = mul(%a, %a)
  %two: f64{s} = constant[value=2]()
  %d: f64{s} = mul(%two, %a)
  %e: f64{s} = mul(%d, %t)
  return %y, %e
}
",
        )
        .shapes(&ELEMENTWISE, &[]),
        Row::new(
            "custom_vjp",
            "func @f(%x: f64{s}) -> (f64{s}) {
  %y: f64{s} = custom_vjp[func=@cube, fwd=@cube_fwd, bwd=@cube_bwd](%x)
  %z: f64{s} = mul(%y, %x)
  return %z
}
func @cube(%a: f64{s}) -> (f64{s}) {
  %s: f64{s} = mul(%a, %a)
  %c: f64{s} = mul(%s, %a)
  return %c
}
func @cube_fwd(%a: f64{s}) -> (f64{s}, f64{s}) {
  %s: f64{s} = mul(%a, %a)
  %c: f64{s} = mul(%s, %a)
  return %c, %s
}
func @cube_bwd(%s: f64{s}, %g: f64{s}) -> (f64{s}) {
  %three: f64{s} = constant[value=3]()
  %t: f64{s} = mul(%three, %s)
  %u: f64{s} = mul(%t, %g)
  return %u
}
",
        )
        .shapes(&ELEMENTWISE, &[]),
        Row::new(
            "remat",
            "func @f(%w: f64{s}, %x: f64{s}) -> (f64{s}) {
  %y: f64{s} = remat[func=@region, policy=\"{policy}\"](%w, %x)
  %z: f64{s} = mul(%y, %w)
  return %z
}
func @region(%w: f64{s}, %x: f64{s}) -> (f64{s}) {
  %a: f64{s} = mul(%w, %x)
  %n: f64{s} = name[name=\"pre\"](%a)
  %t: f64{s} = tanh(%n)
  return %t
}
",
        )
        .case(&[("s", "[]"), ("policy", "nothing")])
        .case(&[("s", "[1,3]"), ("policy", "dots")])
        .case(&[("s", "[2,3]"), ("policy", "names:pre")]),
    ]
}
