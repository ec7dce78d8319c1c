//! Shared material of the end-to-end tests in `tests/tests/`: the primitive table of
//! the autodiff checks.
//!
//! The table ([`table`]) has one [`Row`] per primitive of the IR (a few
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
//! The smooth rows also take size-0 operands, and a selection of them is repeated in
//! f32 (every `f64` of the template in `f32`, with [`F32_TOLERANCE`]).
//!
//! [`all_primitives`] lists every primitive, from the op families' `ALL` lists and one
//! sample of every other variant of [`Prim`]; a test compares it with the table, so a
//! new primitive without a row fails.

use ferrax_ir::prim::{ArgOp, BinaryOp, CompareOp, ReduceOp, UnaryOp};
use ferrax_ir::prim::{CollectiveOp, Select, Window, WindowOp, WindowReduce};
use ferrax_ir::prim::{
    ControlOp, ConvOp, IndexOp, LinalgOp, MemoryOp, RandomOp, ReductionOp, ShapeOp, SortOp, TernaryOp,
};
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
    "reverse mode through a while needs max_iters; the error itself is tested in crates/transform";

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
            DType::BF16 | DType::F16 => Array::new(shape, ferrax_ir::array::Data::from_f64s(ty.dtype, &values)),
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

/// Every primitive of the IR: the op families' `ALL` lists, then one sample of
/// each other variant of [`Prim`] (samples' parameters are arbitrary).
pub fn all_primitives() -> Vec<Prim> {
    let mut all: Vec<Prim> = UnaryOp::MATH.into_iter().map(Prim::Unary).collect();
    all.extend(BinaryOp::ALL.into_iter().map(Prim::Binary));
    all.extend(CompareOp::ALL.into_iter().map(Prim::Compare));
    all.extend(ReduceOp::ALL.into_iter().map(|op| Prim::Reduction(ReductionOp::Reduce { op, axes: vec![] })));
    all.extend(
        [ArgOp::Argmax, ArgOp::Argmin]
            .map(|op| Prim::Reduction(ReductionOp::ArgReduce { op, axis: 0, index_dtype: DType::I32 })),
    );
    let f = |name: &str| name.to_string();
    all.extend([
        Prim::Unary(UnaryOp::IntegerPow { y: 2 }),
        Prim::Unary(UnaryOp::Convert { dtype: DType::F64 }),
        Prim::Unary(UnaryOp::StopGradient),
        Prim::Name { name: f("n") },
        Prim::Ternary(TernaryOp::Select),
        Prim::Ternary(TernaryOp::Clamp),
        Prim::Shape(ShapeOp::BroadcastInDim { shape: Shape::new(), dims: vec![] }),
        Prim::Shape(ShapeOp::Reshape { shape: Shape::new() }),
        Prim::Shape(ShapeOp::Transpose { perm: vec![] }),
        Prim::Shape(ShapeOp::Rev { axes: vec![] }),
        Prim::Shape(ShapeOp::Slice { start: vec![], limit: vec![], strides: vec![] }),
        Prim::Shape(ShapeOp::Pad { low: vec![], high: vec![], interior: vec![] }),
        Prim::Shape(ShapeOp::Concatenate { axis: 0 }),
        Prim::Shape(ShapeOp::Iota { dtype: DType::I32, shape: Shape::from_slice(&[1]), dim: 0 }),
        Prim::Shape(ShapeOp::Constant { value: Array::scalar_f64(0.0), shape: Shape::new() }),
        Prim::Index(IndexOp::DynamicSlice { sizes: vec![] }),
        Prim::Index(IndexOp::DynamicUpdateSlice),
        Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }),
        Prim::Index(IndexOp::ScatterAdd { axis: 0, batch_dims: 0 }),
        Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse: false }),
        Prim::Reduction(ReductionOp::Cummax { axis: 0, reverse: false }),
        Prim::Reduction(ReductionOp::Cummin { axis: 0, reverse: false }),
        Prim::Linalg(LinalgOp::DotGeneral(ferrax_ir::prim::DotDims {
            lhs_contract: vec![],
            rhs_contract: vec![],
            lhs_batch: vec![],
            rhs_batch: vec![],
            preferred: None,
        })),
        Prim::Linalg(LinalgOp::Cholesky),
        Prim::Linalg(LinalgOp::TriangularSolve(ferrax_ir::prim::TriSolve::default())),
        Prim::Linalg(LinalgOp::Eigh(ferrax_ir::prim::Eigh::default())),
        Prim::Linalg(LinalgOp::Lu),
        Prim::Linalg(LinalgOp::Qr(ferrax_ir::prim::Qr::default())),
        Prim::Linalg(LinalgOp::Svd(ferrax_ir::prim::Svd::default())),
        Prim::Random(RandomOp::RandomBits { shape: Shape::new() }),
        Prim::Memory(MemoryOp::Offload),
        Prim::Memory(MemoryOp::Reload),
        Prim::Sort(SortOp::Sort { dimension: 0, is_stable: true, num_keys: 1 }),
        Prim::Sort(SortOp::TopK { k: 1 }),
        Prim::Conv(ConvOp::ConvGeneralDilated(Box::new(ferrax_ir::prim::Conv {
            window_strides: vec![1],
            padding: vec![(0, 0)],
            lhs_dilation: vec![1],
            rhs_dilation: vec![1],
            dimension_numbers: ["NWC".into(), "WIO".into(), "NWC".into()],
            feature_group_count: 1,
            batch_group_count: 1,
            preferred: None,
        }))),
        Prim::Control(ControlOp::Call { func: f("g") }),
        Prim::Control(ControlOp::Cond { branches: vec![f("g")] }),
        Prim::Control(ControlOp::While { cond: f("c"), body: f("b"), max_iters: None }),
        Prim::Control(ControlOp::Scan(ferrax_ir::prim::ScanParams {
            body: f("b"),
            length: 1,
            num_consts: 0,
            num_carry: 0,
            reverse: false,
            checkpoint: None,
        })),
        Prim::Control(ControlOp::CustomJvp { func: f("g"), jvp: f("j") }),
        Prim::Control(ControlOp::CustomVjp { func: f("g"), fwd: f("fw"), bwd: f("bw") }),
        Prim::Control(ControlOp::Remat { func: f("g"), policy: ferrax_ir::prim::RematPolicy::Nothing }),
        Prim::Control(ControlOp::CustomLinearSolve(ferrax_ir::prim::LinearSolveParams {
            matvec: f("m"),
            solve: f("s"),
            transpose_solve: None,
            symmetric: true,
            num_consts: 0,
        })),
        Prim::Control(ControlOp::CustomRoot(ferrax_ir::prim::RootParams {
            f: f("g"),
            solve: f("s"),
            tangent_solve: f("t"),
            num_consts: 0,
        })),
    ]);
    let axes = || vec![f("i")];
    let axis_name = f("i");
    all.extend(
        [
            CollectiveOp::Psum { axes: axes() },
            CollectiveOp::Pmax { axes: axes() },
            CollectiveOp::Pmin { axes: axes() },
            CollectiveOp::Pmean { axes: axes() },
            CollectiveOp::AllGather { axis_name: axis_name.clone(), axis: 0, tiled: false, axis_size: 2 },
            CollectiveOp::PsumScatter {
                axis_name: axis_name.clone(),
                scatter_dimension: 0,
                tiled: false,
                axis_size: 2,
            },
            CollectiveOp::Ppermute { axis_name: axis_name.clone(), perm: vec![[0, 1]] },
            CollectiveOp::AllToAll { axis_name: axis_name.clone(), split_axis: 0, concat_axis: 0, axis_size: 2 },
            CollectiveOp::AxisIndex { axis_name },
        ]
        .map(Prim::Collective),
    );
    let window = || Window::new(&[1]);
    all.extend(
        [WindowReduce::Sum, WindowReduce::Max, WindowReduce::Min]
            .map(|op| Prim::Window(WindowOp::ReduceWindow { op, window: window() })),
    );
    all.push(Prim::Window(WindowOp::SelectAndGatherAdd { select: Select::Max, window: window() }));
    all.push(Prim::Window(WindowOp::SelectAndScatterAdd { select: Select::Max, window: window() }));
    all
}

/// The family of `prim`, the position of its op in the family and the family's size.
/// Every match is exhaustive over the family's enum, so a new op does not compile
/// until it has a position here (the next one, with the size counting it), and
/// [`missing_samples`] then reports it until [`all_primitives`] lists a sample of it.
pub fn op_ordinal(prim: &Prim) -> (&'static str, usize, usize) {
    match prim {
        Prim::Unary(op) => (
            "unary",
            match op {
                UnaryOp::IntegerPow { .. } => UnaryOp::MATH.len(),
                UnaryOp::Convert { .. } => UnaryOp::MATH.len() + 1,
                UnaryOp::StopGradient => UnaryOp::MATH.len() + 2,
                math => UnaryOp::MATH.iter().position(|m| m == math).unwrap_or(usize::MAX),
            },
            UnaryOp::MATH.len() + 3,
        ),
        Prim::Name { .. } => ("name", 0, 1),
        Prim::Binary(op) => {
            ("binary", BinaryOp::ALL.iter().position(|b| b == op).unwrap_or(usize::MAX), BinaryOp::ALL.len())
        }
        Prim::Compare(op) => {
            ("compare", CompareOp::ALL.iter().position(|c| c == op).unwrap_or(usize::MAX), CompareOp::ALL.len())
        }
        Prim::Ternary(op) => (
            "ternary",
            match op {
                TernaryOp::Select => 0,
                TernaryOp::Clamp => 1,
            },
            2,
        ),
        Prim::Shape(op) => (
            "shape",
            match op {
                ShapeOp::BroadcastInDim { .. } => 0,
                ShapeOp::Reshape { .. } => 1,
                ShapeOp::Transpose { .. } => 2,
                ShapeOp::Rev { .. } => 3,
                ShapeOp::Slice { .. } => 4,
                ShapeOp::Pad { .. } => 5,
                ShapeOp::Concatenate { .. } => 6,
                ShapeOp::Iota { .. } => 7,
                ShapeOp::Constant { .. } => 8,
            },
            9,
        ),
        Prim::Index(op) => (
            "index",
            match op {
                IndexOp::DynamicSlice { .. } => 0,
                IndexOp::DynamicUpdateSlice => 1,
                IndexOp::Gather { .. } => 2,
                IndexOp::ScatterAdd { .. } => 3,
            },
            4,
        ),
        Prim::Reduction(op) => (
            "reduction",
            match op {
                ReductionOp::Reduce { op, .. } => ReduceOp::ALL.iter().position(|r| r == op).unwrap_or(usize::MAX),
                ReductionOp::ArgReduce { op: ArgOp::Argmax, .. } => ReduceOp::ALL.len(),
                ReductionOp::ArgReduce { op: ArgOp::Argmin, .. } => ReduceOp::ALL.len() + 1,
                ReductionOp::Cumsum { .. } => ReduceOp::ALL.len() + 2,
                ReductionOp::Cummax { .. } => ReduceOp::ALL.len() + 3,
                ReductionOp::Cummin { .. } => ReduceOp::ALL.len() + 4,
            },
            ReduceOp::ALL.len() + 5,
        ),
        Prim::Linalg(op) => (
            "linalg",
            match op {
                LinalgOp::DotGeneral(_) => 0,
                LinalgOp::Cholesky => 1,
                LinalgOp::TriangularSolve(_) => 2,
                LinalgOp::Eigh(_) => 3,
                LinalgOp::Lu => 4,
                LinalgOp::Qr(_) => 5,
                LinalgOp::Svd(_) => 6,
            },
            7,
        ),
        Prim::Random(op) => (
            "random",
            match op {
                RandomOp::RandomBits { .. } => 0,
            },
            1,
        ),
        Prim::Memory(op) => (
            "memory",
            match op {
                MemoryOp::Offload => 0,
                MemoryOp::Reload => 1,
            },
            2,
        ),
        Prim::Sort(op) => (
            "sort",
            match op {
                SortOp::Sort { .. } => 0,
                SortOp::TopK { .. } => 1,
            },
            2,
        ),
        Prim::Control(op) => (
            "control",
            match op {
                ControlOp::Call { .. } => 0,
                ControlOp::Cond { .. } => 1,
                ControlOp::While { .. } => 2,
                ControlOp::Scan(_) => 3,
                ControlOp::CustomJvp { .. } => 4,
                ControlOp::CustomVjp { .. } => 5,
                ControlOp::Remat { .. } => 6,
                ControlOp::CustomLinearSolve(_) => 7,
                ControlOp::CustomRoot(_) => 8,
            },
            9,
        ),
        Prim::Conv(op) => (
            "conv",
            match op {
                ConvOp::ConvGeneralDilated(_) => 0,
            },
            1,
        ),
        Prim::Window(op) => (
            "window",
            match op {
                WindowOp::ReduceWindow { op: WindowReduce::Sum, .. } => 0,
                WindowOp::ReduceWindow { op: WindowReduce::Max, .. } => 1,
                WindowOp::ReduceWindow { op: WindowReduce::Min, .. } => 2,
                WindowOp::SelectAndGatherAdd { .. } => 3,
                WindowOp::SelectAndScatterAdd { .. } => 4,
            },
            5,
        ),
        Prim::Collective(op) => (
            "collective",
            match op {
                CollectiveOp::Psum { .. } => 0,
                CollectiveOp::Pmax { .. } => 1,
                CollectiveOp::Pmin { .. } => 2,
                CollectiveOp::Pmean { .. } => 3,
                CollectiveOp::AllGather { .. } => 4,
                CollectiveOp::PsumScatter { .. } => 5,
                CollectiveOp::Ppermute { .. } => 6,
                CollectiveOp::AllToAll { .. } => 7,
                CollectiveOp::AxisIndex { .. } => 8,
            },
            9,
        ),
    }
}

/// The ops that [`all_primitives`] has no sample of, as `family #position`, and any
/// sample whose position does not fit its family's size: empty when the list is
/// complete.
pub fn missing_samples() -> Vec<String> {
    let mut seen: std::collections::BTreeMap<&str, (usize, std::collections::BTreeSet<usize>)> = Default::default();
    for prim in all_primitives() {
        let (family, k, size) = op_ordinal(&prim);
        seen.entry(family).or_insert((size, Default::default())).1.insert(k);
    }
    let mut missing = Vec::new();
    for (family, (size, positions)) in &seen {
        missing.extend((0..*size).filter(|k| !positions.contains(k)).map(|k| format!("{family} #{k}")));
        missing
            .extend(positions.iter().filter(|&&k| k >= *size).map(|k| format!("{family} #{k} (past its size {size})")));
    }
    missing
}

/// The collectives' names: checked by `tests/tests/collectives.rs` (their axis bound
/// by vmap) instead of the autodiff and vmap tables, which run primitives unbound.
pub const COLLECTIVES: [&str; 9] =
    ["psum", "pmax", "pmin", "pmean", "all_gather", "psum_scatter", "ppermute", "all_to_all", "axis_index"];

/// The names of [`all_primitives`].
pub fn all_primitive_names() -> Vec<&'static str> {
    all_primitives().iter().map(Prim::name).collect()
}

mod conv_rows;
mod implicit_rows;
mod linalg_rows;
mod rows;
mod window_rows;

pub use conv_rows::{ConvCase, conv_cases};
pub use rows::{F32_PRIMS, F32_TOLERANCE, table};

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
            part = eqn(&mut f, Prim::Unary(UnaryOp::Convert { dtype }), &[part], ty.with_dtype(dtype));
        }
        if ty.rank() > 0 {
            let sum = Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: (0..ty.rank()).collect() });
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
