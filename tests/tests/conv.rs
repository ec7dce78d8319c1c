//! `conv_general_dilated` over many configurations (`ferrax_tests::conv_cases`):
//! jvp and vjp against finite differences in f64 (orders 1 and 2), vmap with the batch
//! on the input, on the kernel and on both (at various axes) against a loop over the
//! examples, a 16-bit run against the f32 one, and the JIT against the interpreter.

use ferrax_ir::array::Data;
use ferrax_ir::{Array, DType, EvalOptions, Module, Type, eval_entry, parse, verify};
use ferrax_tests::{ConvCase, Domain, SplitMix, conv_cases, draw};
use ferrax_transform::{Modes, Tolerance, check_grads, dce, vmap};

fn module(case: &ConvCase, dtype: DType) -> Module {
    let text = case.module_text(dtype).unwrap_or_else(|e| panic!("{}: {e}", case.label));
    let m = parse(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.label));
    verify(&m).unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.label));
    m
}

fn run(m: &Module, args: &[Array]) -> Vec<Array> {
    eval_entry(m, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(m)))
}

fn random(ty: &Type, rng: &mut SplitMix) -> Array {
    draw(Domain::Real, ty, rng).expect("a real array")
}

#[test]
fn derivatives_match_finite_differences() {
    let tol = Tolerance { eps: 1e-6, atol: 1e-6, rtol: 1e-5 };
    for case in conv_cases() {
        let m = module(&case, DType::F64);
        let mut rng = SplitMix::seeded(case.label);
        let args =
            [random(&Type::new(DType::F64, &case.lhs), &mut rng), random(&Type::new(DType::F64, &case.rhs), &mut rng)];
        check_grads(&m, &args, 2, Modes::Both, tol).unwrap_or_else(|e| panic!("{}: {e}", case.label));
    }
}

/// Slice `index` of `a` along `axis`.
fn take(a: &Array, axis: usize, index: usize) -> Array {
    let shape = a.shape();
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    let flat: Vec<usize> = (0..outer).flat_map(|o| (0..inner).map(move |i| (o * n + index) * inner + i)).collect();
    let mut sliced = shape.to_vec();
    sliced.remove(axis);
    Array::new(sliced.as_slice(), a.data().gather(flat.into_iter())).expect("a slice")
}

fn batched(ty: &[usize], axis: Option<usize>, size: usize) -> Vec<usize> {
    let mut s = ty.to_vec();
    if let Some(a) = axis {
        s.insert(a, size);
    }
    s
}

#[test]
fn vmap_matches_a_loop() {
    for case in conv_cases() {
        let m = module(&case, DType::F64);
        let (lr, rr) = (case.lhs.len(), case.rhs.len());
        let assignments = [
            (Some(0), None),
            (None, Some(0)),
            (Some(lr), None),
            (None, Some(rr)),
            (Some(0), Some(0)),
            (Some(1), Some(rr)),
        ];
        for (la, ra) in assignments {
            for size in [1usize, 3] {
                let label = format!("{} with in_axes ({la:?}, {ra:?}), size {size}", case.label);
                let out_rank = case.lhs.len();
                let out_axis = (size + la.unwrap_or(0)) % (out_rank + 1);
                let in_axes = [la.map(|a| a as isize), ra.map(|a| a as isize)];
                let b = vmap(&m, &in_axes, &[out_axis as isize], size).unwrap_or_else(|e| panic!("{label}: {e}"));
                let b = dce(&b);
                verify(&b).unwrap_or_else(|e| panic!("{label}: {e}\n{}", ferrax_ir::print(&b)));
                let mut rng = SplitMix::seeded(&label);
                let lhs = random(&Type::new(DType::F64, &batched(&case.lhs, la, size)), &mut rng);
                let rhs = random(&Type::new(DType::F64, &batched(&case.rhs, ra, size)), &mut rng);
                let out = run(&b, &[lhs.clone(), rhs.clone()]).remove(0);
                for k in 0..size {
                    let l = la.map_or_else(|| lhs.clone(), |a| take(&lhs, a, k));
                    let r = ra.map_or_else(|| rhs.clone(), |a| take(&rhs, a, k));
                    let expected = run(&m, &[l, r]).remove(0);
                    let got = take(&out, out_axis, k);
                    assert_eq!(got.shape(), expected.shape(), "{label}: example {k}");
                    for (i, (g, e)) in got.to_f64_vec().iter().zip(expected.to_f64_vec()).enumerate() {
                        assert!(
                            (g - e).abs() <= 1e-12 * (1.0 + e.abs()),
                            "{label}: example {k}, element {i}: {g} vs {e}\n{}",
                            ferrax_ir::print(&b)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn sixteen_bit_operands_accumulate_in_f32() {
    for case in conv_cases().into_iter().take(4) {
        let mut rng = SplitMix::seeded(case.label);
        let l32 = random(&Type::new(DType::F32, &case.lhs), &mut rng);
        let r32 = random(&Type::new(DType::F32, &case.rhs), &mut rng);
        for dtype in [DType::BF16, DType::F16] {
            let narrow =
                |a: &Array| Array::new(a.shape(), Data::from_f64s(dtype, &a.to_f64_vec())).expect("a 16-bit array");
            let (l16, r16) = (narrow(&l32), narrow(&r32));
            // The f32 reference on the 16-bit values, rounded once.
            let widen = |a: &Array| Array::new(a.shape(), Data::from_f64s(DType::F32, &a.to_f64_vec())).expect("f32");
            let reference = run(&module(&case, DType::F32), &[widen(&l16), widen(&r16)]).remove(0);
            let got = run(&module(&case, dtype), &[l16.clone(), r16.clone()]).remove(0);
            let rounded = Data::from_f64s(dtype, &reference.to_f64_vec());
            assert_eq!(got.data(), &rounded, "{} in {dtype}", case.label);
            // preferred=f32 keeps the f32 sums.
            let mut wide =
                ConvCase { label: case.label, lhs: case.lhs.clone(), rhs: case.rhs.clone(), conv: case.conv.clone() };
            wide.conv.preferred = Some(DType::F32);
            let text = module_text_preferred(&wide, dtype);
            let m = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let got = run(&m, &[l16, r16]).remove(0);
            assert_eq!(got.to_f64_vec(), reference.to_f64_vec(), "{} preferred=f32 in {dtype}", case.label);
        }
    }
}

/// The module of a case whose result is f32 on `dtype` operands.
fn module_text_preferred(case: &ConvCase, dtype: DType) -> String {
    let (l, r) = (Type::new(dtype, &case.lhs), Type::new(dtype, &case.rhs));
    let o = case.out_type(dtype).expect("a valid case");
    format!(
        "func @f(%a: {l}, %b: {r}) -> ({o}) {{\n  %c: {o} = conv_general_dilated[{}](%a, %b)\n  return %c\n}}\n",
        case.attrs()
    )
}

/// The JIT's convolution (im2col blocks and faer's GEMM) against the interpreter under
/// the JIT's agreement policy, in f32 and f64, on one and two threads; the cases are
/// the table's plus larger ones, so several blocks (and both threads) are used.
#[test]
fn jit_matches_the_interpreter() {
    let mut cases = conv_cases();
    let big = |label, lhs: &[usize], rhs: &[usize], dn: [&str; 3], g: usize, pad: i64| ConvCase {
        label,
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
        conv: ferrax_ir::prim::Conv {
            window_strides: vec![1, 1],
            padding: vec![(pad, pad); 2],
            lhs_dilation: vec![1, 1],
            rhs_dilation: vec![1, 1],
            dimension_numbers: dn.map(str::to_string),
            feature_group_count: g,
            batch_group_count: 1,
            preferred: None,
        },
    };
    cases.push(big("W8-like NHWC", &[8, 16, 16, 8], &[3, 3, 8, 16], ["NHWC", "HWIO", "NHWC"], 1, 1));
    cases.push(big("NCHW grouped, big", &[3, 8, 10, 10], &[3, 3, 2, 12], ["NCHW", "HWIO", "NCHW"], 4, 0));
    for case in cases {
        for dtype in [DType::F32, DType::F64] {
            let m = module(&case, dtype);
            let mut rng = SplitMix::seeded(case.label);
            let args = [random(&Type::new(dtype, &case.lhs), &mut rng), random(&Type::new(dtype, &case.rhs), &mut rng)];
            let want = run(&m, &args);
            for threads in [1, 2] {
                let options = ferrax_jit::JitOptions { threads, ..Default::default() };
                let exe = ferrax_jit::compile(&m, &options).unwrap_or_else(|e| panic!("{}: {e}", case.label));
                let got = exe.call(&args).unwrap_or_else(|e| panic!("{}: {e}", case.label));
                ferrax_jit::policy::agree_for(&m, "f", &args, &want, &got)
                    .unwrap_or_else(|e| panic!("{} in {dtype} on {threads} threads: {e}", case.label));
            }
        }
    }
}
