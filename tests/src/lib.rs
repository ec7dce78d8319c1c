//! Shared material of the end-to-end tests in `tests/tests/`: the primitive table of
//! the autodiff checks.
//!
//! The table ([`table`]) has one [`Row`] per primitive of DESIGN section 2.2 (a few
//! primitives have two, when one Func cannot show everything). A row holds:
//!
//! - an IR text template of a module whose entry uses the primitive, in f64, with
//!   `{name}` placeholders (shapes, attributes);
//! - its cases: the values of the placeholders, covering a scalar, size-1 axes and a
//!   general shape wherever the primitive allows;
//! - a [`Domain`] per entry parameter, from which the inputs are drawn (positive for
//!   `log`, apart for `max`, integers for indices...);
//! - what the checks expect ([`Expect`]) and whether reverse mode is checked
//!   ([`Reverse`]; skipped rows say why).
//!
//! [`all_primitives`] lists every primitive, from the op families' `ALL` lists and one
//! sample of every other variant of [`Prim`]; a test compares it with the table, so a
//! new primitive without a row fails.

use ferrax_ir::prim::{ArgOp, BinaryOp, CompareOp, ReduceOp, UnaryOp};
use ferrax_ir::{Array, DType, Module, Prim, Shape, Type};
use ferrax_transform::Tolerance;

/// Where the values of a parameter are drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    /// Uniform in [-2, 2].
    Real,
    /// Uniform in `[lo, hi]`.
    Interval(f64, f64),
    /// Uniform in [0.5, 2.5]: `log`, `sqrt`, `rsqrt`, the base of `pow`.
    Positive,
    /// Magnitude uniform in [0.5, 2], either sign: denominators, `abs`, `sign`,
    /// negative powers.
    NonZero,
    /// Like [`Domain::NonZero`], with the first element exactly 0 (the special point
    /// of `reduce_prod`'s rule).
    NonZeroWithZero,
    /// `k + u` for an integer k in [-2, 2] and u uniform in [0.15, 0.35]: at least 0.15
    /// away from every integer and half-integer (`floor`, `ceil`, `round`, conversion
    /// to `i32`).
    OffInteger,
    /// `k + offset` for an integer k in [-2, 2].
    IntegerPlus(f64),
    /// A shuffle of `0.37 (k - n/2) + offset`, k < n: no two elements within 0.37 of
    /// each other, and none within 0.09 of an element of another `Distinct` array
    /// whose offset differs by 0.09 to 0.28 (maxima, minima, comparisons, clamping).
    Distinct(f64),
    /// This value everywhere.
    Fixed(f64),
    /// `i32` uniform in `[lo, hi]`: indices (out-of-range ones exercise clamping).
    Index(i32, i32),
    /// Random bools.
    Bool,
    /// Any `i32` (PRNG keys).
    Bits,
}

/// What the generic checks expect of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A differentiable function: jvp against central differences and vjp by the
    /// adjoint identity, at orders 1 and 2.
    Smooth,
    /// A function whose derivative is zero wherever it is defined (comparisons,
    /// `argmax`, `floor`, `random_bits`... seen through `convert`): the same checks,
    /// and the jvp's output tangents and the vjp's cotangents are exactly zero.
    Zero,
    /// A derivative that is zero by definition although the function is not constant
    /// (`stop_gradient`): finite differences disagree on purpose, so only the
    /// exact-zero checks apply.
    ZeroByDefinition,
}

/// Whether the reverse-mode checks of a row run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reverse {
    /// vjp is checked (adjoint identity, order 1 and 2).
    Checked,
    /// Forward mode only, for this reason (printed by the tests).
    Skipped(&'static str),
}

/// Why the unbounded `while` row checks forward mode only.
pub const UNBOUNDED_WHILE: &str =
    "reverse mode through a while needs max_iters (DESIGN 2.2); the error itself is tested in crates/transform";

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The primitive's name in the text form.
    pub prim: &'static str,
    /// The module's text, with `{name}` placeholders.
    pub template: String,
    /// The placeholders' values, one list per case.
    pub cases: Vec<Vec<(&'static str, String)>>,
    /// One domain per entry parameter; parameters past the end use the last one.
    pub domains: Vec<Domain>,
    /// What the checks expect.
    pub expect: Expect,
    /// Whether reverse mode is checked.
    pub reverse: Reverse,
    /// Step and tolerances of the finite-difference checks.
    pub tol: Tolerance,
}

/// A case of a row, ready to run.
#[derive(Clone, Debug)]
pub struct Instance {
    /// `prim{placeholder=value, ...}`, for messages.
    pub label: String,
    /// The module's text.
    pub text: String,
    /// The parsed and verified module.
    pub module: Module,
    /// Arguments of the entry, drawn from the row's domains.
    pub args: Vec<Array>,
}

impl Row {
    /// A row of `prim` with `template`, no cases yet, smooth, reverse mode checked,
    /// default tolerances.
    pub fn new(prim: &'static str, template: impl Into<String>) -> Row {
        Row {
            prim,
            template: template.into(),
            cases: Vec::new(),
            domains: vec![Domain::Real],
            expect: Expect::Smooth,
            reverse: Reverse::Checked,
            tol: Tolerance::default(),
        }
    }

    /// Adds a case: placeholder values.
    pub fn case(mut self, vars: &[(&'static str, &str)]) -> Row {
        self.cases.push(vars.iter().map(|(k, v)| (*k, v.to_string())).collect());
        self
    }

    /// Adds one case per shape, binding `{s}` (with `extra` placeholders in each).
    pub fn shapes(mut self, shapes: &[&str], extra: &[(&'static str, &str)]) -> Row {
        for s in shapes {
            let mut vars = vec![("s", *s)];
            vars.extend_from_slice(extra);
            self = self.case(&vars);
        }
        self
    }

    /// Sets the parameters' domains.
    pub fn domains(mut self, domains: &[Domain]) -> Row {
        self.domains = domains.to_vec();
        self
    }

    /// Sets what the checks expect.
    pub fn expect(mut self, expect: Expect) -> Row {
        self.expect = expect;
        self
    }

    /// Checks forward mode only, for `reason`.
    pub fn forward_only(mut self, reason: &'static str) -> Row {
        self.reverse = Reverse::Skipped(reason);
        self
    }

    /// Sets the finite-difference step and tolerances.
    pub fn tolerance(mut self, eps: f64, atol: f64, rtol: f64) -> Row {
        self.tol = Tolerance { eps, atol, rtol };
        self
    }

    /// The domain of parameter `i`.
    pub fn domain(&self, i: usize) -> Domain {
        self.domains.get(i).or(self.domains.last()).copied().unwrap_or(Domain::Real)
    }

    /// Every case: rendered, parsed, verified, with arguments drawn from the domains
    /// (deterministically: the generator's seed is the case's label).
    pub fn instances(&self) -> Result<Vec<Instance>, String> {
        self.cases.iter().map(|vars| self.instance(vars)).collect()
    }

    fn instance(&self, vars: &[(&'static str, String)]) -> Result<Instance, String> {
        let bound: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let label = format!("{}{{{}}}", self.prim, bound.join(", "));
        let text = render(&self.template, vars).map_err(|e| format!("{label}: {e}"))?;
        let module = ferrax_ir::parse(&text).map_err(|e| format!("{label}: {e}\n{text}"))?;
        ferrax_ir::verify(&module).map_err(|e| format!("{label}: {e}\n{text}"))?;
        let entry = module.entry().ok_or_else(|| format!("{label}: empty module"))?;
        let mut rng = SplitMix::seeded(&label);
        let args = entry
            .param_types()
            .iter()
            .enumerate()
            .map(|(i, ty)| draw(self.domain(i), ty, &mut rng).map_err(|e| format!("{label}: parameter {i}: {e}")))
            .collect::<Result<_, _>>()?;
        Ok(Instance { label, text, module, args })
    }
}

/// `template` with every `{name}` of `vars` replaced; an error if a placeholder is left.
pub fn render(template: &str, vars: &[(&'static str, String)]) -> Result<String, String> {
    let mut text = template.to_string();
    for (name, value) in vars {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    // Func bodies open with `{` at the end of a line; a placeholder is `{word}`.
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices('{') {
        let rest = &text[i + 1..];
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !word.is_empty() && bytes.get(i + 1 + word.len()) == Some(&b'}') {
            return Err(format!("placeholder {{{word}}} has no value"));
        }
    }
    Ok(text)
}

/// An array of type `ty` with values from `domain`.
pub fn draw(domain: Domain, ty: &Type, rng: &mut SplitMix) -> Result<Array, String> {
    let n: usize = ty.shape.iter().product();
    let shape: &[usize] = &ty.shape;
    let floats = |values: Vec<f64>| -> Result<Array, String> {
        match ty.dtype {
            DType::F64 => Array::from_f64(shape, values),
            DType::F32 => Array::from_f32(shape, values.into_iter().map(|v| v as f32).collect()),
            other => return Err(format!("domain {domain:?} needs a float parameter, not {other}")),
        }
        .map_err(|e| e.to_string())
    };
    let integer = |rng: &mut SplitMix| rng.below(5) as f64 - 2.0;
    match domain {
        Domain::Real => floats((0..n).map(|_| rng.range(-2.0, 2.0)).collect()),
        Domain::Interval(lo, hi) => floats((0..n).map(|_| rng.range(lo, hi)).collect()),
        Domain::Positive => floats((0..n).map(|_| rng.range(0.5, 2.5)).collect()),
        Domain::NonZero | Domain::NonZeroWithZero => {
            let mut values: Vec<f64> = (0..n).map(|_| rng.range(0.5, 2.0) * rng.sign()).collect();
            if domain == Domain::NonZeroWithZero
                && let Some(first) = values.first_mut()
            {
                *first = 0.0;
            }
            floats(values)
        }
        Domain::OffInteger => floats((0..n).map(|_| integer(rng) + rng.range(0.15, 0.35)).collect()),
        Domain::IntegerPlus(offset) => floats((0..n).map(|_| integer(rng) + offset).collect()),
        Domain::Distinct(offset) => {
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            floats(order.iter().map(|&k| 0.37 * (k as f64 - (n / 2) as f64) + offset).collect())
        }
        Domain::Fixed(value) => floats(vec![value; n]),
        Domain::Index(lo, hi) => {
            if ty.dtype != DType::I32 {
                return Err(format!("domain {domain:?} needs an i32 parameter, not {}", ty.dtype));
            }
            let span = (i64::from(hi) - i64::from(lo) + 1).max(1) as u64;
            let values = (0..n).map(|_| (i64::from(lo) + rng.below(span) as i64) as i32).collect();
            Array::from_i32(shape, values).map_err(|e| e.to_string())
        }
        Domain::Bits => {
            if ty.dtype != DType::I32 {
                return Err(format!("domain {domain:?} needs an i32 parameter, not {}", ty.dtype));
            }
            Array::from_i32(shape, (0..n).map(|_| rng.next() as u32 as i32).collect()).map_err(|e| e.to_string())
        }
        Domain::Bool => {
            if ty.dtype != DType::Bool {
                return Err(format!("domain {domain:?} needs a bool parameter, not {}", ty.dtype));
            }
            Array::from_bool(shape, (0..n).map(|_| rng.below(2) == 1).collect()).map_err(|e| e.to_string())
        }
    }
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator seeded by a hash (FNV-1a) of `label`.
    pub fn seeded(label: &str) -> SplitMix {
        SplitMix(label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)))
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// -1.0 or 1.0.
    pub fn sign(&mut self) -> f64 {
        if self.next() & 1 == 0 { 1.0 } else { -1.0 }
    }
}

/// Every primitive of DESIGN 2.2: the op families' `ALL` lists, then one sample of
/// each other variant of [`Prim`] (samples' parameters are arbitrary).
pub fn all_primitives() -> Vec<Prim> {
    let mut all: Vec<Prim> = UnaryOp::ALL.into_iter().map(Prim::Unary).collect();
    all.extend(BinaryOp::ALL.into_iter().map(Prim::Binary));
    all.extend(CompareOp::ALL.into_iter().map(Prim::Compare));
    all.extend(ReduceOp::ALL.into_iter().map(|op| Prim::Reduce { op, axes: vec![] }));
    all.extend([ArgOp::Argmax, ArgOp::Argmin].map(|op| Prim::ArgReduce { op, axis: 0, index_dtype: DType::I32 }));
    let f = |name: &str| name.to_string();
    all.extend([
        Prim::IntegerPow { y: 2 },
        Prim::Convert { dtype: DType::F64 },
        Prim::StopGradient,
        Prim::Name { name: f("n") },
        Prim::Select,
        Prim::Clamp,
        Prim::BroadcastInDim { shape: Shape::new(), dims: vec![] },
        Prim::Reshape { shape: Shape::new() },
        Prim::Transpose { perm: vec![] },
        Prim::Rev { axes: vec![] },
        Prim::Slice { start: vec![], limit: vec![], strides: vec![] },
        Prim::Pad { low: vec![], high: vec![], interior: vec![] },
        Prim::Concatenate { axis: 0 },
        Prim::Iota { dtype: DType::I32, shape: Shape::from_slice(&[1]), dim: 0 },
        Prim::Constant { value: Array::scalar_f64(0.0), shape: Shape::new() },
        Prim::DynamicSlice { sizes: vec![] },
        Prim::DynamicUpdateSlice,
        Prim::Gather { axis: 0, batch_dims: 0 },
        Prim::ScatterAdd { axis: 0, batch_dims: 0 },
        Prim::Cumsum { axis: 0, reverse: false },
        Prim::DotGeneral(ferrax_ir::prim::DotDims {
            lhs_contract: vec![],
            rhs_contract: vec![],
            lhs_batch: vec![],
            rhs_batch: vec![],
        }),
        Prim::RandomBits { shape: Shape::new() },
        Prim::Call { func: f("g") },
        Prim::Cond { branches: vec![f("g")] },
        Prim::While { cond: f("c"), body: f("b"), max_iters: None },
        Prim::Scan(ferrax_ir::prim::ScanParams {
            body: f("b"),
            length: 1,
            num_consts: 0,
            num_carry: 0,
            reverse: false,
            checkpoint: None,
        }),
        Prim::CustomJvp { func: f("g"), jvp: f("j") },
        Prim::CustomVjp { func: f("g"), fwd: f("fw"), bwd: f("bw") },
        Prim::Remat { func: f("g"), policy: ferrax_ir::prim::RematPolicy::Nothing },
    ]);
    for prim in &all {
        // No wildcard arm: a new variant of `Prim` stops this crate from compiling
        // until a sample of it is listed above (and then the table test asks for
        // its row).
        match prim {
            Prim::Unary(_)
            | Prim::IntegerPow { .. }
            | Prim::Convert { .. }
            | Prim::StopGradient
            | Prim::Name { .. }
            | Prim::Binary(_)
            | Prim::Compare(_)
            | Prim::Select
            | Prim::Clamp
            | Prim::BroadcastInDim { .. }
            | Prim::Reshape { .. }
            | Prim::Transpose { .. }
            | Prim::Rev { .. }
            | Prim::Slice { .. }
            | Prim::Pad { .. }
            | Prim::Concatenate { .. }
            | Prim::Iota { .. }
            | Prim::Constant { .. }
            | Prim::DynamicSlice { .. }
            | Prim::DynamicUpdateSlice
            | Prim::Gather { .. }
            | Prim::ScatterAdd { .. }
            | Prim::Reduce { .. }
            | Prim::ArgReduce { .. }
            | Prim::Cumsum { .. }
            | Prim::DotGeneral(_)
            | Prim::RandomBits { .. }
            | Prim::Call { .. }
            | Prim::Cond { .. }
            | Prim::While { .. }
            | Prim::Scan(_)
            | Prim::CustomJvp { .. }
            | Prim::CustomVjp { .. }
            | Prim::Remat { .. } => {}
        }
    }
    all
}

/// The names of [`all_primitives`].
pub fn all_primitive_names() -> Vec<&'static str> {
    all_primitives().iter().map(Prim::name).collect()
}

// ---- templates ----

/// Scalar, size-1 axes, general: the shapes of the elementwise rows.
const ELEMENTWISE: [&str; 3] = ["[]", "[1,3]", "[2,3]"];

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

/// The table: one row per primitive of DESIGN 2.2 (see the crate docs).
pub fn table() -> Vec<Row> {
    let mut rows = Vec::new();
    rows.extend(unary_rows());
    rows.extend(binary_rows());
    rows.extend(structural_rows());
    rows.extend(index_rows());
    rows.extend(reduction_rows());
    rows.extend(control_rows());
    rows
}

fn unary_rows() -> Vec<Row> {
    use Domain::*;
    let smooth =
        |op: &'static str, domain: Domain| Row::new(op, unary(op)).shapes(&ELEMENTWISE, &[]).domains(&[domain]);
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
    ]
}

fn binary_rows() -> Vec<Row> {
    use Domain::*;
    let row =
        |op: &'static str, x: Domain, y: Domain| Row::new(op, binary(op)).shapes(&ELEMENTWISE, &[]).domains(&[x, y]);
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
        .case(&[("s", "[3]"), ("o", "[1]"), ("low", "[-2]"), ("high", "[0]"), ("interior", "[0]")]),
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
        .case(&[("a", "[2,1]"), ("b", "[2,3]"), ("o", "[2,5]"), ("axis", "1")]),
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
        rows.push(reduce_cases(Row::new(op.name(), reduce(op.name()))).domains(&[domain]));
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
            .case(&[("s", "[2,4]"), ("o", "[2,4]"), ("axis", "1"), ("rev", "true")]),
    );
    rows
}

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

/// `module` with its entry returning one float scalar: the sum of every element of
/// every float result (unchanged if it returns a single float scalar already; other
/// results are dropped); `None` if the entry has no float result.
pub fn summed(module: &Module) -> Option<Module> {
    let entry = module.entry()?;
    let floats: Vec<usize> = (0..entry.results.len()).filter(|&i| entry.result_types[i].dtype.is_float()).collect();
    let dtype = entry.result_types[*floats.first()?].dtype;
    if floats.len() == 1 && entry.results.len() == 1 && entry.result_types[0].rank() == 0 {
        return Some(module.clone());
    }
    let mut f = entry.clone();
    let eqn = |f: &mut ferrax_ir::Func, prim: Prim, input: &[ferrax_ir::Value], ty: Type| {
        let out = f.new_value(ty);
        let (inputs, outputs) = (input.iter().copied().collect(), [out].into_iter().collect());
        f.eqns.push(ferrax_ir::Eqn { prim, inputs, outputs, loc: None });
        out
    };
    let scalar = Type::scalar(dtype);
    let mut total = None;
    for i in floats {
        let (mut part, ty) = (entry.results[i], &entry.result_types[i]);
        if ty.dtype != dtype {
            part = eqn(&mut f, Prim::Convert { dtype }, &[part], ty.with_dtype(dtype));
        }
        if ty.rank() > 0 {
            let sum = Prim::Reduce { op: ReduceOp::Sum, axes: (0..ty.rank()).collect() };
            part = eqn(&mut f, sum, &[part], scalar.clone());
        }
        total = Some(match total {
            None => part,
            Some(sum) => eqn(&mut f, Prim::Binary(BinaryOp::Add), &[sum, part], scalar.clone()),
        });
    }
    f.results = vec![total?];
    f.result_types = vec![scalar];
    let mut out = Module::new();
    out.push(f);
    for other in module.funcs.values().skip(1) {
        out.push(other.clone());
    }
    Some(out)
}
