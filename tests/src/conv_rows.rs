//! The convolution configurations shared by the autodiff table's `conv_general_dilated`
//! row and the dedicated convolution tests (`tests/tests/conv.rs`): strides, explicit
//! and negative padding, input and kernel dilation, feature groups (depthwise
//! included), batch groups, 1 to 3 spatial axes, permuted layouts, odd sizes, size-1
//! and empty batches.

use super::*;
use ferrax_ir::prim::Conv;
use ferrax_ir::prim::conv::infer_conv;

/// One configuration: a label, the input and kernel shapes and the attributes.
pub struct ConvCase {
    /// What the case exercises.
    pub label: &'static str,
    /// The input's shape.
    pub lhs: Vec<usize>,
    /// The kernel's shape.
    pub rhs: Vec<usize>,
    /// The attributes.
    pub conv: Conv,
}

impl ConvCase {
    /// The result type in `dtype` (the configurations are valid by construction).
    pub fn out_type(&self, dtype: DType) -> Result<Type, String> {
        let types = [Type::new(dtype, &self.lhs), Type::new(dtype, &self.rhs)];
        infer_conv(&self.conv, &types).map(|mut t| t.remove(0))
    }

    /// The attribute list as the text form writes it.
    pub fn attrs(&self) -> String {
        Prim::Conv(ConvOp::ConvGeneralDilated(Box::new(self.conv.clone())))
            .attrs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A module whose entry is this convolution on `dtype` operands.
    pub fn module_text(&self, dtype: DType) -> Result<String, String> {
        let (l, r) = (Type::new(dtype, &self.lhs), Type::new(dtype, &self.rhs));
        let o = self.out_type(dtype)?;
        Ok(format!(
            "func @f(%a: {l}, %b: {r}) -> ({o}) {{\n  %c: {o} = conv_general_dilated[{}](%a, %b)\n  return %c\n}}\n",
            self.attrs()
        ))
    }
}

#[allow(clippy::too_many_arguments)]
fn case(
    label: &'static str,
    lhs: &[usize],
    rhs: &[usize],
    dn: [&str; 3],
    strides: &[usize],
    padding: &[(i64, i64)],
    dilations: (&[usize], &[usize]),
    groups: (usize, usize),
) -> ConvCase {
    ConvCase {
        label,
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
        conv: Conv {
            window_strides: strides.to_vec(),
            padding: padding.to_vec(),
            lhs_dilation: dilations.0.to_vec(),
            rhs_dilation: dilations.1.to_vec(),
            dimension_numbers: dn.map(str::to_string),
            feature_group_count: groups.0,
            batch_group_count: groups.1,
            preferred: None,
        },
    }
}

/// Every configuration (the first few are the autodiff table's row).
pub fn conv_cases() -> Vec<ConvCase> {
    const NWC: [&str; 3] = ["NWC", "WIO", "NWC"];
    const NHWC: [&str; 3] = ["NHWC", "HWIO", "NHWC"];
    const NCHW: [&str; 3] = ["NCHW", "OIHW", "NCHW"];
    vec![
        case("1d padded", &[2, 5, 3], &[3, 3, 4], NWC, &[1], &[(1, 1)], (&[1], &[1]), (1, 1)),
        case(
            "2d strided NHWC",
            &[2, 4, 5, 3],
            &[3, 3, 3, 2],
            NHWC,
            &[1, 2],
            &[(1, 1), (1, 1)],
            (&[1, 1], &[1, 1]),
            (1, 1),
        ),
        case(
            "depthwise NCHW",
            &[2, 3, 4, 4],
            &[6, 1, 3, 3],
            NCHW,
            &[1, 1],
            &[(1, 1), (0, 0)],
            (&[1, 1], &[1, 1]),
            (3, 1),
        ),
        case(
            "batch groups",
            &[4, 3, 3, 2],
            &[2, 2, 2, 4],
            NHWC,
            &[1, 1],
            &[(0, 0), (0, 1)],
            (&[1, 1], &[1, 1]),
            (1, 2),
        ),
        case("1d lhs dilation, negative padding", &[1, 6, 2], &[2, 2, 3], NWC, &[2], &[(-1, 2)], (&[2], &[1]), (1, 1)),
        case(
            "2d rhs dilation",
            &[1, 5, 5, 2],
            &[2, 2, 2, 3],
            NHWC,
            &[1, 1],
            &[(0, 1), (2, 0)],
            (&[1, 1], &[2, 1]),
            (1, 1),
        ),
        case(
            "feature groups",
            &[1, 3, 3, 4],
            &[2, 2, 2, 6],
            NHWC,
            &[1, 1],
            &[(0, 0), (0, 0)],
            (&[1, 1], &[1, 1]),
            (2, 1),
        ),
        case(
            "3d",
            &[1, 3, 3, 3, 1],
            &[2, 2, 2, 1, 2],
            ["NDHWC", "DHWIO", "NDHWC"],
            &[1, 2, 1],
            &[(0, 0), (1, 0), (0, 1)],
            (&[1, 1, 1], &[1, 1, 1]),
            (1, 1),
        ),
        case(
            "permuted spatial axes",
            &[1, 4, 3, 2],
            &[2, 3, 2, 2],
            ["NHWC", "WHIO", "NCHW"],
            &[2, 1],
            &[(1, 0), (0, 1)],
            (&[1, 2], &[1, 1]),
            (1, 1),
        ),
        case("empty batch", &[0, 4, 2], &[2, 2, 3], NWC, &[1], &[(0, 0)], (&[1], &[1]), (1, 1)),
        case("all size 1", &[1, 1, 1], &[1, 1, 1], NWC, &[1], &[(0, 0)], (&[1], &[1]), (1, 1)),
        case("kernel longer than the input", &[1, 2, 1], &[4, 1, 2], NWC, &[1], &[(0, 0)], (&[1], &[1]), (1, 1)),
        case("stride and dilation together", &[2, 7, 2], &[3, 2, 2], NWC, &[3], &[(2, 1)], (&[2], &[2]), (1, 1)),
        case(
            "depthwise with multiplier",
            &[1, 4, 4, 2],
            &[3, 3, 1, 4],
            NHWC,
            &[2, 2],
            &[(1, 1), (1, 1)],
            (&[1, 1], &[1, 1]),
            (2, 1),
        ),
    ]
}

/// The autodiff table's rows: the first cases of [`conv_cases`].
pub fn conv_rows() -> Vec<Row> {
    let template = "func @f(%a: f64{l}, %b: f64{r}) -> (f64{o}) {
  %c: f64{o} = conv_general_dilated[{attrs}](%a, %b)
  return %c
}
";
    let mut row = Row::new("conv_general_dilated", template).domains(&[Domain::Real, Domain::Real]);
    for c in conv_cases().into_iter().take(5) {
        let shape = |s: &[usize]| format!("[{}]", s.iter().map(usize::to_string).collect::<Vec<_>>().join(","));
        let out = c.out_type(DType::F64).map(|t| shape(&t.shape)).unwrap_or_default();
        let attrs = c.attrs();
        row = row.case(&[("l", &shape(&c.lhs)), ("r", &shape(&c.rhs)), ("o", &out), ("attrs", &attrs)]);
    }
    vec![row]
}
