//! Unit tests of the convolution family's type rule, layouts and reference loop.

use super::*;
use ferrax_array::Array;

fn conv(strides: &[usize], padding: &[(i64, i64)], dn: [&str; 3]) -> Conv {
    let n = strides.len();
    Conv {
        window_strides: strides.to_vec(),
        padding: padding.to_vec(),
        lhs_dilation: vec![1; n],
        rhs_dilation: vec![1; n],
        dimension_numbers: dn.map(str::to_string),
        feature_group_count: 1,
        batch_group_count: 1,
        preferred: None,
    }
}

fn ty(dtype: DType, shape: &[usize]) -> Type {
    Type::new(dtype, shape)
}

fn run(c: &Conv, lhs: (&[usize], Vec<f64>), rhs: (&[usize], Vec<f64>)) -> Array {
    let l = Array::from_f64(lhs.0, lhs.1).unwrap();
    let r = Array::from_f64(rhs.0, rhs.1).unwrap();
    eval(&ConvOp::ConvGeneralDilated(Box::new(c.clone())), &[&l, &r]).unwrap()
}

#[test]
fn spatial_axes_follow_the_kernel_layout() {
    let dn = ["NCHW", "OIWH", "NHWC"].map(str::to_string);
    let [l, r, o] = specs(&dn).unwrap();
    assert_eq!((l.batch, l.feature, l.spatial.clone()), (0, 1, vec![3, 2]));
    assert_eq!((r.batch, r.feature, r.spatial.clone()), (0, 1, vec![2, 3]));
    assert_eq!((o.batch, o.feature, o.spatial.clone()), (0, 3, vec![2, 1]));
    let back = layouts(&[l, r, o]).unwrap();
    assert_eq!(back, ["NCWH", "OIHW", "NWHC"].map(str::to_string));
}

#[test]
fn bad_layouts_are_named() {
    let err = |dn: [&str; 3]| specs(&dn.map(str::to_string)).unwrap_err();
    assert!(err(["NHW", "HWIO", "NHWC"]).contains("lhs layout \"NHW\" must name 'N' and 'C'"));
    assert!(err(["NHHC", "HWIO", "NHWC"]).contains("repeats 'H'"));
    assert!(err(["NHWC", "HDIO", "NHWC"]).contains("same spatial axes"));
}

#[test]
fn one_dimensional_values() {
    // x = [1, 2, 3, 4, 5], k = [1, 10], stride 2, padding (1, 0):
    // padded [0, 1, 2, 3, 4, 5] -> windows at 0, 2, 4: 0+10, 2+30, 4+50.
    let c = conv(&[2], &[(1, 0)], ["NCW", "OIW", "NCW"]);
    let out = run(&c, (&[1, 1, 5], vec![1.0, 2.0, 3.0, 4.0, 5.0]), (&[1, 1, 2], vec![1.0, 10.0]));
    assert_eq!(out.shape(), &[1, 1, 3]);
    assert_eq!(out.to_f64_vec(), vec![10.0, 32.0, 54.0]);
}

#[test]
fn dilations_and_negative_padding() {
    // lhs dilation 2: [1, 0, 2, 0, 3]; cropped by 1 in front: [0, 2, 0, 3];
    // kernel [1, 1] dilated by 2 taps positions 0 and 2: [0+0, 2+3].
    let mut c = conv(&[1], &[(-1, 0)], ["NCW", "OIW", "NCW"]);
    c.lhs_dilation = vec![2];
    c.rhs_dilation = vec![2];
    let out = run(&c, (&[1, 1, 3], vec![1.0, 2.0, 3.0]), (&[1, 1, 2], vec![1.0, 1.0]));
    assert_eq!(out.to_f64_vec(), vec![0.0, 5.0]);
}

#[test]
fn groups_see_their_own_features_and_batches() {
    // Depthwise: two features, each with its own one-tap kernel.
    let mut c = conv(&[1], &[(0, 0)], ["NCW", "OIW", "NCW"]);
    c.feature_group_count = 2;
    let out = run(&c, (&[1, 2, 2], vec![1.0, 2.0, 3.0, 4.0]), (&[2, 1, 1], vec![10.0, 100.0]));
    assert_eq!(out.to_f64_vec(), vec![10.0, 20.0, 300.0, 400.0]);
    // Batch groups: the batch of 2 splits in two; output feature b reads batch b.
    let mut c = conv(&[1], &[(0, 0)], ["NCW", "OIW", "NCW"]);
    c.batch_group_count = 2;
    let out = run(&c, (&[2, 1, 2], vec![1.0, 2.0, 3.0, 4.0]), (&[2, 1, 1], vec![10.0, 100.0]));
    assert_eq!(out.shape(), &[1, 2, 2]);
    assert_eq!(out.to_f64_vec(), vec![10.0, 20.0, 300.0, 400.0]);
}

#[test]
fn type_errors_name_both_sides() {
    let c = conv(&[1, 1], &[(0, 0), (0, 0)], ["NHWC", "HWIO", "NHWC"]);
    let e = infer_conv(&c, &[ty(DType::F32, &[1, 4, 4, 3]), ty(DType::F32, &[3, 3, 2, 8])]).unwrap_err();
    assert!(e.contains("3 input features") && e.contains("2 input features"), "{e}");
    let e = infer_conv(&c, &[ty(DType::F32, &[1, 4, 4, 3]), ty(DType::F64, &[3, 3, 3, 8])]).unwrap_err();
    assert!(e.contains("dtypes differ"), "{e}");
    let e = infer_conv(&c, &[ty(DType::I32, &[1, 4, 4, 3]), ty(DType::I32, &[3, 3, 3, 8])]).unwrap_err();
    assert!(e.contains("float"), "{e}");
    let mut bad = c.clone();
    bad.window_strides = vec![1, 0];
    let e = infer_conv(&bad, &[ty(DType::F32, &[1, 4, 4, 3]), ty(DType::F32, &[3, 3, 3, 8])]).unwrap_err();
    assert!(e.contains("window_strides"), "{e}");
    let mut both = c.clone();
    both.feature_group_count = 3;
    both.batch_group_count = 2;
    let e = infer_conv(&both, &[ty(DType::F32, &[2, 4, 4, 3]), ty(DType::F32, &[3, 3, 1, 6])]).unwrap_err();
    assert!(e.contains("at most one"), "{e}");
    let out = infer_conv(&c, &[ty(DType::F32, &[2, 5, 4, 3]), ty(DType::F32, &[3, 2, 3, 8])]).unwrap();
    assert_eq!(out[0], ty(DType::F32, &[2, 3, 3, 8]));
    let mut half = c.clone();
    half.preferred = Some(DType::F32);
    let out = infer_conv(&half, &[ty(DType::BF16, &[2, 5, 4, 3]), ty(DType::BF16, &[3, 2, 3, 8])]).unwrap();
    assert_eq!(out[0].dtype, DType::F32);
}

#[test]
fn text_round_trip() {
    let text = "func @f(%a: f32[2,3,5,5], %b: f32[4,3,3,3]) -> (f32[2,4,3,2]) {
  %c: f32[2,4,3,2] = conv_general_dilated[window_strides=[2,2], padding=[[1,1],[1,-1]], lhs_dilation=[1,1], \
rhs_dilation=[1,1], dimension_numbers=[\"NCHW\",\"OIHW\",\"NCHW\"], feature_group_count=1, batch_group_count=1, \
preferred=none](%a, %b)
  return %c
}
";
    let m = crate::parse(text).unwrap();
    crate::verify(&m).unwrap();
    let printed = crate::print(&m);
    assert_eq!(crate::print(&crate::parse(&printed).unwrap()), printed);
    assert!(printed.contains("padding=[[1,1],[1,-1]]"), "{printed}");
}
