//! bf16 and f16 in the IR: the text form, the verifier and the interpreter's
//! semantics (arithmetic computes in f32 and rounds each result once; reductions and
//! products accumulate in f32; data movement keeps the 16-bit patterns).

use ferrax_ir::array::{Data, bf16, f16, npy};
use ferrax_ir::{Array, DType, EvalOptions, eval_entry, parse, print};

fn run(text: &str, args: &[Array]) -> Vec<Array> {
    let module = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ferrax_ir::verify(&module).unwrap();
    eval_entry(&module, args, &EvalOptions::default()).unwrap()
}

fn bf16s(values: &[f32]) -> Array {
    Array::from(values.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>())
}

#[test]
fn programs_print_and_parse_back_with_16_bit_types_and_literals() {
    let text = "func @main(%0: bf16[3], %1: f16[2,2]) -> (bf16[3], f16[2,2], f32[3]) {
  %2: bf16[3] = constant[value=[0.1,-2.0,3.14]]()
  %3: bf16[3] = mul(%0, %2)
  %4: f16[2,2] = exp(%1)
  %5: f32[3] = convert[dtype=f32](%3)
  return %3, %4, %5
}
";
    let module = parse(text).unwrap();
    assert_eq!(print(&module), text);
    // 0.1 is not a bf16: it prints as the shortest text that reads back to its bits.
    let literal = parse("func @main() -> (bf16[]) {\n  %0: bf16[] = constant[value=0.1]()\n  return %0\n}\n").unwrap();
    let printed = print(&literal);
    assert!(printed.contains("constant[value=0.1]"), "{printed}");
}

#[test]
fn arithmetic_rounds_each_result_once_from_f32() {
    // 1 + 2^-8 and 1 + 3·2^-8 are ties between bf16s (7 fraction bits): they round to
    // the even neighbour, 1 and 1 + 2^-6; the f32 sums are exact before rounding.
    let text = "func @main(%0: bf16[2], %1: bf16[2]) -> (bf16[2], bf16[2]) {
  %2: bf16[2] = add(%0, %1)
  %3: bf16[2] = sub(%2, %0)
  return %2, %3
}
";
    let out = run(text, &[bf16s(&[1.0, 1.0]), bf16s(&[0.00390625, 0.01171875])]);
    assert_eq!(out[0].to_f64_vec(), [1.0, 1.015625]);
    assert_eq!(out[1].to_f64_vec(), [0.0, 0.015625]);
    assert_eq!(out[0].dtype(), DType::BF16);
    // Transcendentals: the f32 result rounded once to f16.
    let text = "func @main(%0: f16[3]) -> (f16[3]) {\n  %1: f16[3] = exp(%0)\n  return %1\n}\n";
    let x: Vec<f16> = [0.5f32, -1.0, 3.0].iter().map(|&v| f16::from_f32(v)).collect();
    let out = run(text, &[Array::from(x.clone())]);
    let want: Vec<f64> = x.iter().map(|v| f64::from(f16::from_f32(v.to_f32().exp()))).collect();
    assert_eq!(out[0].to_f64_vec(), want);
}

#[test]
fn a_million_term_sum_accumulates_in_f32() {
    // Accumulating in bf16 would stop at 256 (256 + 1 rounds back to 256); the f32
    // accumulator reaches 10^6 exactly, rounded once to bf16 at the end.
    let n = 1_000_000;
    let text = format!(
        "func @main(%0: bf16[{n}]) -> (bf16[], bf16[1]) {{
  %1: bf16[] = reduce_sum[axes=[0]](%0)
  %2: bf16[1] = cumsum[axis=0, reverse=false](%3)
  %3: bf16[1] = slice[start=[0], limit=[1], strides=[1]](%0)
  return %1, %2
}}
"
    );
    let text = text.replace(
        "%2: bf16[1] = cumsum[axis=0, reverse=false](%3)\n  %3: bf16[1] = slice[start=[0], limit=[1], strides=[1]](%0)",
        "%3: bf16[1] = slice[start=[0], limit=[1], strides=[1]](%0)\n  %2: bf16[1] = cumsum[axis=0, reverse=false](%3)",
    );
    let ones = Array::from(vec![bf16::ONE; n]);
    let out = run(&text, &[ones]);
    assert_eq!(out[0].to_f64_vec(), [f64::from(bf16::from_f32(1e6))]);
    assert!(out[0].to_f64_vec()[0] > 990_000.0);
    assert_eq!(out[1].to_f64_vec(), [1.0]);
}

#[test]
fn products_accumulate_in_f32_and_data_movement_keeps_the_bits() {
    // A dot of 512 terms of 1/256: f32 accumulation gives exactly 2.
    let text = "func @main(%0: bf16[512], %1: bf16[512]) -> (bf16[], bf16[2,256]) {
  %2: bf16[] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[]](%0, %1)
  %3: bf16[2,256] = reshape[shape=[2,256]](%0)
  return %2, %3
}
";
    let x = Array::from(vec![bf16::from_f32(1.0 / 16.0); 512]);
    let out = run(text, &[x.clone(), x.clone()]);
    assert_eq!(out[0].to_f64_vec(), [2.0]);
    // A NaN payload survives a reshape unchanged (no trip through f32).
    let payload = bf16::from_bits(0x7fa1);
    let mut v = vec![bf16::ONE; 512];
    v[3] = payload;
    let out = run(text, &[Array::from(v), x]);
    let Data::BF16(moved) = out[1].data() else { panic!("bf16 result") };
    assert_eq!(moved[3].to_bits(), 0x7fa1);
}

#[test]
fn conversions_round_once_to_nearest_even() {
    let text = "func @main(%0: f64[3], %1: bf16[3]) -> (bf16[3], f16[3], i32[3], f32[3]) {
  %2: bf16[3] = convert[dtype=bf16](%0)
  %3: f16[3] = convert[dtype=f16](%1)
  %4: i32[3] = convert[dtype=i32](%1)
  %5: f32[3] = convert[dtype=f32](%1)
  return %2, %3, %4, %5
}
";
    // 1 + 2^-8 + 2^-30 is just above a bf16 tie: one rounding from f64 goes up (a trip
    // through f32, which drops the 2^-30, would tie and go down to 1).
    let x = Array::from(vec![1.0 + 2f64.powi(-8) + 2f64.powi(-30), 65504.0 * 4.0, -2.5]);
    let y = bf16s(&[1.5, 300.0, -7.75]);
    let out = run(text, &[x, y]);
    assert_eq!(out[0].to_f64_vec(), [1.0078125, 262144.0, -2.5]);
    assert_eq!(out[1].to_f64_vec(), [1.5, 300.0, -7.75]);
    assert_eq!(out[2].to_f64_vec(), [1.0, 300.0, -7.0]);
    assert_eq!(out[3].dtype(), DType::F32);
}

#[test]
fn npy_files_hold_f16_as_f2_and_bf16_as_v2() {
    let budget = ferrax_ir::array::Budget::default();
    let h = Array::from_vec(&[2], vec![f16::from_f32(0.5), f16::NAN]).unwrap();
    let bytes = npy::write(&h);
    assert!(String::from_utf8_lossy(&bytes).contains("'descr': '<f2'"));
    let back = npy::read(&bytes, &budget).unwrap();
    assert_eq!(back.dtype(), DType::F16);
    let bits = |a: &Array| match a.data() {
        Data::F16(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        Data::BF16(v) => v.iter().map(|x| x.to_bits()).collect(),
        _ => panic!("a 16-bit array"),
    };
    assert_eq!(bits(&back), bits(&h));
    let b = bf16s(&[1.5, -0.0, f32::INFINITY]);
    let bytes = npy::write(&b);
    assert!(String::from_utf8_lossy(&bytes).contains("'descr': '<V2'"));
    let back = npy::read(&bytes, &budget).unwrap();
    assert_eq!(back.dtype(), DType::BF16);
    assert_eq!(bits(&back), bits(&b));
    // A file whose data is short for its shape is an error, not a panic.
    let short = &bytes[..bytes.len() - 1];
    assert!(npy::read(short, &budget).is_err());
}
