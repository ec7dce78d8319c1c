//! Views and sources at edge shapes: broadcast (inner and outer axes), reshape, transpose,
//! rev, slice with strides, pad with negative and interior padding, concatenate of three
//! operands, iota, constants, dynamic_slice and gather with out-of-range indices; sizes 0,
//! 1, scalars, odd sizes around the vector width, rank 6; and the `[start, end)` split.

use super::support::{check, compile, interp, run, same_bits, values};
use ferrax_ir::{Array, DType};

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

#[test]
fn broadcast_inner_and_outer_odd_sizes() {
    for n in 0..=9usize {
        let text = fusion(
            &format!("%a: f32[{n}], %b: f32[3], %s: f32[], %q: f32[{n},3]) -> (f32[3,{n}], f32[3,{n}]"),
            &format!(
                "  %x: f32[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[1]](%a)\n  %y: f32[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[0]](%b)\n  %t: f32[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[]](%s)\n  %u: f32[3,{n}] = mul(%x, %y)\n  %v: f32[3,{n}] = add(%u, %t)\n  %q2: f32[3,{n}] = transpose[perm=[1,0]](%q)\n  %w: f32[3,{n}] = max(%q2, %v)"
            ),
            "%v, %w",
        );
        check(
            &text,
            &[
                values(DType::F32, &[n], 1, false),
                values(DType::F32, &[3], 2, false),
                Array::scalar_f32(0.25),
                values(DType::F32, &[n, 3], 3, true),
            ],
        );
    }
}

#[test]
fn scalars_and_size_one() {
    let text = fusion("%a: f64[], %b: f64[]) -> (f64[]", "  %c: f64[] = div(%a, %b)", "%c");
    check(&text, &[Array::scalar_f64(1.0), Array::scalar_f64(3.0)]);
    let text = fusion(
        "%a: i32[1,1], %b: i32[]) -> (i32[1,1]",
        "  %c: i32[1,1] = broadcast_in_dim[shape=[1,1], dims=[]](%b)\n  %d: i32[1,1] = sub(%a, %c)",
        "%d",
    );
    check(&text, &[Array::from_i32(&[1, 1], vec![5]).unwrap(), Array::scalar_i32(9)]);
}

#[test]
fn rank6_transpose_rev_reshape() {
    let shape = [2, 1, 3, 2, 1, 3];
    let text = fusion(
        "%a: f32[2,1,3,2,1,3]) -> (f32[3,1,2,3,2,1], bool[3,1,2,3,2,1]",
        "  %t: f32[3,1,2,3,2,1] = transpose[perm=[5,4,3,2,0,1]](%a)\n  %r: f32[3,1,2,3,2,1] = rev[axes=[0,3,4]](%t)\n  %z: f32[3,1,2,3,2,1] = constant[value=0]()\n  %p: bool[3,1,2,3,2,1] = gt(%r, %z)",
        "%r, %p",
    );
    check(&text, &[values(DType::F32, &shape, 3, true)]);
    let text = fusion(
        "%a: f32[2,1,3,2,1,3]) -> (f32[6,6]",
        "  %t: f32[3,1,2,3,2,1] = transpose[perm=[5,4,3,2,0,1]](%a)\n  %s: f32[6,6] = reshape[shape=[6,6]](%t)\n  %e: f32[6,6] = exp(%s)",
        "%e",
    );
    check(&text, &[values(DType::F32, &shape, 3, true)]);
    let text = fusion("%a: i32[4,9]) -> (i32[3,2,6]", "  %s: i32[3,2,6] = reshape[shape=[3,2,6]](%a)", "%s");
    check(&text, &[values(DType::I32, &[4, 9], 3, true)]);
}

#[test]
fn slices_with_strides() {
    for n in [1usize, 5, 8, 9] {
        let m = n.div_ceil(2);
        let text = fusion(
            &format!("%a: i32[4,{n}]) -> (i32[2,{m}]"),
            &format!("  %s: i32[2,{m}] = slice[start=[1,0], limit=[4,{n}], strides=[2,2]](%a)"),
            "%s",
        );
        check(&text, &[values(DType::I32, &[4, n], 4, true)]);
    }
}

#[test]
fn pads_negative_and_interior() {
    let cases = [
        ("[0,-1]", "[0,0]", "[0,1]", [3, 4]),
        ("[1,2]", "[2,-1]", "[1,2]", [8, 8]),
        ("[-1,-2]", "[-1,3]", "[0,0]", [1, 4]),
        ("[2,0]", "[0,0]", "[3,0]", [11, 3]),
    ];
    for (low, high, interior, out) in cases {
        let [r, c] = out;
        let text = fusion(
            &format!("%a: f32[3,3], %v: f32[]) -> (f32[{r},{c}]"),
            &format!("  %p: f32[{r},{c}] = pad[low={low}, high={high}, interior={interior}](%a, %v)"),
            "%p",
        );
        check(&text, &[values(DType::F32, &[3, 3], 5, true), Array::scalar_f32(-7.5)]);
    }
    // Padding an empty axis gives only the pad value.
    let text = fusion(
        "%a: bool[0,2], %v: bool[]) -> (bool[2,2]",
        "  %p: bool[2,2] = pad[low=[1,0], high=[1,0], interior=[0,0]](%a, %v)",
        "%p",
    );
    check(&text, &[Array::from_bool(&[0, 2], vec![]).unwrap(), Array::scalar_bool(true)]);
}

#[test]
fn concatenate_three_operands_with_empty() {
    let text = fusion(
        "%a: f64[2,3], %b: f64[2,0], %c: f64[2,1], %d: f64[2,5]) -> (f64[2,9]",
        "  %x: f64[2,9] = concatenate[axis=1](%a, %b, %c, %d)",
        "%x",
    );
    check(
        &text,
        &[
            values(DType::F64, &[2, 3], 1, false),
            values(DType::F64, &[2, 0], 2, false),
            values(DType::F64, &[2, 1], 3, false),
            values(DType::F64, &[2, 5], 4, false),
        ],
    );
    let text = fusion(
        "%a: i32[1,2], %b: i32[2,2], %c: i32[3,2]) -> (i32[6,2]",
        "  %x: i32[6,2] = concatenate[axis=0](%a, %b, %c)",
        "%x",
    );
    check(
        &text,
        &[
            values(DType::I32, &[1, 2], 1, true),
            values(DType::I32, &[2, 2], 2, true),
            values(DType::I32, &[3, 2], 3, true),
        ],
    );
}

#[test]
fn iota_and_constants() {
    let text = fusion(
        "%a: f32[3,4]) -> (f32[3,4], i32[3,4], f64[3,4]",
        "  %i: f32[3,4] = iota[dtype=f32, shape=[3,4], dim=1]()\n  %j: i32[3,4] = iota[dtype=i32, shape=[3,4], dim=0]()\n  %c: f32[3,4] = constant[value=[1,2,3,4,5,6,7,8,9,10,11,-12]]()\n  %s: f32[3,4] = add(%i, %c)\n  %t: f32[3,4] = mul(%s, %a)\n  %k: f64[3,4] = iota[dtype=f64, shape=[3,4], dim=1]()",
        "%t, %j, %k",
    );
    check(&text, &[values(DType::F32, &[3, 4], 8, false)]);
}

#[test]
fn dynamic_slice_clamps() {
    for (i, j) in [(0, 0), (1, 2), (-5, 9), (100, -1)] {
        let text = fusion(
            "%a: f32[4,6], %i: i32[], %j: i32[]) -> (f32[2,3]",
            "  %s: f32[2,3] = dynamic_slice[sizes=[2,3]](%a, %i, %j)",
            "%s",
        );
        check(&text, &[values(DType::F32, &[4, 6], 1, false), Array::scalar_i32(i), Array::scalar_i32(j)]);
    }
}

#[test]
fn gather_out_of_range_and_batched() {
    let text = fusion("%x: f32[5,3], %i: i32[4]) -> (f32[4,3]", "  %g: f32[4,3] = gather[axis=0](%x, %i)", "%g");
    check(&text, &[values(DType::F32, &[5, 3], 1, false), Array::from_i32(&[4], vec![0, 4, -3, 99]).unwrap()]);
    let text = fusion(
        "%x: i32[2,3,4], %i: i32[2,5]) -> (i32[2,3,5]",
        "  %g: i32[2,3,5] = gather[axis=2, batch_dims=1](%x, %i)",
        "%g",
    );
    check(
        &text,
        &[
            values(DType::I32, &[2, 3, 4], 1, true),
            Array::from_i32(&[2, 5], vec![0, 3, 4, -1, 2, 1, 1, 7, 0, -9]).unwrap(),
        ],
    );
    // Gathering from an empty axis reads zeros.
    let text = fusion("%x: f32[0,2], %i: i32[3]) -> (f32[3,2]", "  %g: f32[3,2] = gather[axis=0](%x, %i)", "%g");
    check(&text, &[Array::from_f32(&[0, 2], vec![]).unwrap(), Array::from_i32(&[3], vec![0, 1, 2]).unwrap()]);
}

#[test]
fn size_zero_loop() {
    let text = fusion("%a: f32[0,3], %b: f32[0,3]) -> (f32[0,3]", "  %c: f32[0,3] = add(%a, %b)", "%c");
    check(&text, &[values(DType::F32, &[0, 3], 1, false), values(DType::F32, &[0, 3], 2, false)]);
}

#[test]
fn split_range_equals_full_call() {
    let text = fusion(
        "%a: f32[7,5], %b: f32[5]) -> (f32[7,5]",
        "  %x: f32[7,5] = broadcast_in_dim[shape=[7,5], dims=[1]](%b)\n  %y: f32[7,5] = sub(%a, %x)",
        "%y",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    let args = [values(DType::F32, &[7, 5], 1, true), values(DType::F32, &[5], 2, true)];
    let c = compile(&module, &Default::default()).unwrap();
    assert_eq!(c.outer, 7);
    let full = run(&c, &module, &args, &[]);
    let halves = run(&c, &module, &args, &[(0, 3), (3, 7)]);
    // Out-of-range and empty ranges are clamped and do nothing harmful.
    let clamped = run(&c, &module, &args, &[(-4, 2), (2, 2), (5, 3), (2, 100)]);
    assert!(same_bits(&full[0], &halves[0]));
    assert!(same_bits(&full[0], &clamped[0]));
    assert!(same_bits(&full[0], &interp(&module, &args)[0]));
}

#[test]
fn dump_has_ir_and_disassembly() {
    let text = fusion("%a: f32[4]) -> (f32[4]", "  %b: f32[4] = sqrt(%a)", "%b");
    let module = ferrax_ir::parse(&text).unwrap();
    let opts = crate::kernel::KernelOptions { fma: true, simd: true, dump: true, precise_math: true, tiles: true };
    let c = compile(&module, &opts).unwrap();
    let dump = c.dump.as_deref().unwrap();
    assert!(dump.contains("sqrt"), "{dump}");
    assert!(dump.contains("disassembly"), "{dump}");
    assert!(dump.contains("sqrtss") && dump.contains("ret"), "{dump}");
    assert!(compile(&module, &Default::default()).unwrap().dump.is_none());
}
