//! The vector fast path: engaged for contiguous elementwise kernels (seen in the dumped
//! CLIF), bit-identical to the scalar code and to the interpreter at every size around the
//! vector width (with a scalar tail), with broadcasts at inner and outer axes, on the host
//! and on a baseline SSE2 target without SSE4.1, AVX or FMA.

use super::support::{baseline_module, compile, compile_on, interp, run, same_bits, values};
use crate::kernel::KernelOptions;
use ferrax_ir::DType;

fn fusion(sig: &str, body: &str, ret: &str) -> String {
    format!("func @k[kind=\"fusion\"]({sig}) {{\n{body}\n  return {ret}\n}}\n")
}

/// Kernels of every vector dtype: `(text, arg dtypes and shapes)` for inner size `n`.
fn kernels(n: usize) -> Vec<(String, Vec<(DType, Vec<usize>)>)> {
    let mut out = Vec::new();
    for (dt, op) in [(DType::F32, "max"), (DType::F64, "min"), (DType::I32, "add")] {
        let text = fusion(
            &format!("%a: {dt}[3,{n}], %b: {dt}[{n}], %c: {dt}[3]) -> ({dt}[3,{n}], {dt}[3,{n}]"),
            &format!(
                "  %bb: {dt}[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[1]](%b)\n  %cc: {dt}[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[0]](%c)\n  %x: {dt}[3,{n}] = {op}(%a, %bb)\n  %y: {dt}[3,{n}] = mul(%x, %cc)\n  %z: {dt}[3,{n}] = sub(%y, %a)\n  %k: {dt}[] = constant[value=2]()\n  %kk: {dt}[3,{n}] = broadcast_in_dim[shape=[3,{n}], dims=[]](%k)\n  %w: {dt}[3,{n}] = integer_pow[y=3](%z)\n  %v: {dt}[3,{n}] = add(%w, %kk)"
            ),
            "%z, %v",
        );
        out.push((text, vec![(dt, vec![3, n]), (dt, vec![n]), (dt, vec![3])]));
    }
    let text = fusion(
        &format!("%a: f32[{n}], %b: i32[{n}]) -> (i32[{n}], f32[{n}]"),
        "  %c: i32[N] = convert[dtype=i32](%a)\n  %d: i32[N] = max(%c, %b)\n  %e: f32[N] = convert[dtype=f32](%b)\n  %f: f32[N] = sqrt(%e)\n  %g: f32[N] = exp(%f)\n  %h: f32[N] = round(%g)"
            .replace('N', &n.to_string())
            .as_str(),
        "%d, %h",
    );
    out.push((text, vec![(DType::F32, vec![n]), (DType::I32, vec![n])]));
    out
}

/// Whether a dump's CLIF uses vector types.
fn has_vectors(dump: &str) -> bool {
    ["f32x4", "i32x4", "f64x2"].iter().any(|t| dump.contains(t))
}

#[test]
fn vector_path_matches_scalar_and_interpreter() {
    let simd = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
    let scalar = KernelOptions { fma: false, simd: false, dump: true, precise_math: true, tiles: true };
    for n in 0..=9usize {
        for (text, types) in kernels(n) {
            let module = ferrax_ir::parse(&text).unwrap();
            ferrax_ir::verify(&module).unwrap();
            let args: Vec<_> =
                types.iter().enumerate().map(|(i, (dt, s))| values(*dt, s, i as u64 + n as u64, true)).collect();
            let want = interp(&module, &args);
            let v = compile(&module, &simd).unwrap();
            let s = compile(&module, &scalar).unwrap();
            assert!(has_vectors(v.dump.as_deref().unwrap()), "{text}");
            assert!(!has_vectors(s.dump.as_deref().unwrap()), "{text}");
            let base = compile_on(baseline_module(), &module, &simd).unwrap();
            for c in [&v, &s, &base] {
                let got = run(c, &module, &args, &[]);
                for (g, w) in got.iter().zip(&want) {
                    assert!(same_bits(g, w), "n={n}\n{text}\njit: {}\nwant: {}", g.describe(None), w.describe(None));
                }
            }
            // A rank-1 vector kernel split in two: the tail is per call.
            if n > 2 && types.len() == 2 {
                let got = run(&v, &module, &args, &[(0, 3), (3, n as i64)]);
                assert!(got.iter().zip(&want).all(|(g, w)| same_bits(g, w)));
            }
        }
    }
}

#[test]
fn transposed_reads_stay_scalar_and_exact() {
    let text = fusion(
        "%a: f32[5,7], %b: f32[7,5]) -> (f32[5,7]",
        "  %t: f32[5,7] = transpose[perm=[1,0]](%b)\n  %c: f32[5,7] = add(%a, %t)",
        "%c",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    let c = compile(&module, &KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true })
        .unwrap();
    assert!(!has_vectors(c.dump.as_deref().unwrap()));
    let args = [values(DType::F32, &[5, 7], 1, true), values(DType::F32, &[7, 5], 2, true)];
    assert!(same_bits(&run(&c, &module, &args, &[])[0], &interp(&module, &args)[0]));
}

/// With contraction on (FMA host), vector lanes and the scalar tail both compute exactly
/// `a.mul_add(b, c)` (and `b·c - a`, `b - c·a` fused the same way); with it off, exactly
/// `a*b + c`.
#[test]
fn fma_contraction_in_vector_body_and_tail() {
    let text = fusion(
        "%a: f32[11], %b: f32[11], %c: f32[11]) -> (f32[11], f32[11], f32[11]",
        "  %p: f32[11] = mul(%a, %b)\n  %s: f32[11] = add(%c, %p)\n  %q: f32[11] = mul(%b, %c)\n  %t: f32[11] = sub(%q, %a)\n  %r: f32[11] = mul(%c, %a)\n  %u: f32[11] = sub(%b, %r)",
        "%s, %t, %u",
    );
    let module = ferrax_ir::parse(&text).unwrap();
    let args =
        [values(DType::F32, &[11], 1, false), values(DType::F32, &[11], 2, false), values(DType::F32, &[11], 3, false)];
    let (a, b, c) = (args[0].as_f32().unwrap(), args[1].as_f32().unwrap(), args[2].as_f32().unwrap());
    let host_fma = std::is_x86_feature_detected!("fma");
    for fma in [false, true] {
        let opts = KernelOptions { fma, simd: true, dump: true, precise_math: true, tiles: true };
        let k = compile(&module, &opts).unwrap();
        assert!(has_vectors(k.dump.as_deref().unwrap()));
        let got = run(&k, &module, &args, &[]);
        let (s, t, u) = (got[0].as_f32().unwrap(), got[1].as_f32().unwrap(), got[2].as_f32().unwrap());
        for i in 0..11 {
            let (ws, wt, wu) = if fma && host_fma {
                (a[i].mul_add(b[i], c[i]), b[i].mul_add(c[i], -a[i]), (-c[i]).mul_add(a[i], b[i]))
            } else {
                (a[i] * b[i] + c[i], b[i] * c[i] - a[i], b[i] - c[i] * a[i])
            };
            let bits = |x: f32, y: f32, z: f32| (x.to_bits(), y.to_bits(), z.to_bits());
            assert_eq!(bits(s[i], t[i], u[i]), bits(ws, wt, wu), "fma={fma} i={i}");
        }
    }
}

/// Inner-axis reductions take the vector path (4 accumulators) at every row length around
/// the vector width; i32 and max/min stay exact, float sums within tolerance; the
/// baseline SSE2 target agrees.
#[test]
fn vector_reductions_around_the_width() {
    let dump = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
    for n in 0..=19usize {
        for (dt, op) in [
            (DType::F32, "reduce_sum"),
            (DType::I32, "reduce_sum"),
            (DType::F64, "reduce_max"),
            (DType::F32, "reduce_min"),
            (DType::I32, "reduce_prod"),
        ] {
            let text = fusion(
                &format!("%a: {dt}[3,2,{n}]) -> ({dt}[3]"),
                &format!("  %e: {dt}[3,2,{n}] = abs(%a)\n  %r: {dt}[3] = {op}[axes=[1,2]](%e)"),
                "%r",
            );
            let module = ferrax_ir::parse(&text).unwrap();
            let args = [values(dt, &[3, 2, n], n as u64, op != "reduce_prod")];
            let want = interp(&module, &args);
            let c = compile(&module, &dump).unwrap();
            assert!(has_vectors(c.dump.as_deref().unwrap()) || dt == DType::I32 && op == "reduce_prod", "{text}");
            let base = compile_on(baseline_module(), &module, &dump).unwrap();
            for k in [&c, &base] {
                let got = run(k, &module, &args, &[]);
                let ok = if dt == DType::F32 && op == "reduce_sum" {
                    super::support::close(&got[0], &want[0], 1e-5)
                } else {
                    same_bits(&got[0], &want[0])
                };
                assert!(ok, "{text}\n{}\n{}", got[0].describe(None), want[0].describe(None));
            }
        }
    }
}

/// Kernels with slices and pads along the innermost axis (the shape of a Rosenbrock
/// gradient: shifted reads, a padded result, a select on a padded constant mask), for
/// innermost size `n >= 2`, as `(text, arg dtypes and shapes)`.
fn shifted_kernels(n: usize) -> Vec<(String, Vec<(DType, Vec<usize>)>)> {
    let m = n - 1;
    let mut out = Vec::new();
    for dt in [DType::F32, DType::F64, DType::I32] {
        let text = fusion(
            &format!("%x: {dt}[{n}]) -> ({dt}[{n}]"),
            &format!(
                "  %a: {dt}[{m}] = slice[start=[1], limit=[{n}]](%x)
  %b: {dt}[{m}] = slice[start=[0], limit=[{m}]](%x)
  %bb: {dt}[{m}] = mul(%b, %b)
  %d: {dt}[{m}] = sub(%a, %bb)
  %z: {dt}[] = constant[value=0]()
  %p: {dt}[{n}] = pad[low=[0], high=[1], interior=[0]](%d, %z)
  %q: {dt}[{m}] = slice[start=[1], limit=[{n}]](%p)
  %r: {dt}[{m}] = add(%q, %d)
  %s: {dt}[{n}] = pad[low=[1], high=[0], interior=[0]](%r, %z)
  %t: bool[{m}] = constant[value=true]()
  %f: bool[] = constant[value=false]()
  %u: bool[{n}] = pad[low=[1], high=[0], interior=[0]](%t, %f)
  %v: {dt}[{n}] = select(%u, %s, %p)"
            ),
            "%v",
        );
        out.push((text, vec![(dt, vec![n])]));
    }
    // Rank 2, a pad wider than one element on each side and a negative (cropping) pad.
    let text = fusion(
        &format!("%x: f32[3,{n}], %y: f32[3,{}]) -> (f32[3,{}]", n + 3, n + 4),
        &format!(
            "  %z: f32[] = constant[value=1.5]()
  %p: f32[3,{}] = pad[low=[0,3], high=[0,1], interior=[0,0]](%x, %z)
  %c: f32[3,{}] = pad[low=[0,2], high=[0,-1], interior=[0,0]](%y, %z)
  %e: f32[3,{}] = exp(%c)
  %r: f32[3,{}] = mul(%p, %e)",
            n + 4,
            n + 4,
            n + 4,
            n + 4
        ),
        "%r",
    );
    out.push((text, vec![(DType::F32, vec![3, n]), (DType::F32, vec![3, n + 3])]));
    out
}

#[test]
fn shifted_and_padded_reads_vectorize_and_match() {
    let simd = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
    let scalar = KernelOptions { fma: false, simd: false, dump: false, precise_math: true, tiles: true };
    for n in 2..=13usize {
        for (text, types) in shifted_kernels(n) {
            let module = ferrax_ir::parse(&text).unwrap();
            ferrax_ir::verify(&module).unwrap();
            let args: Vec<_> =
                types.iter().enumerate().map(|(i, (dt, s))| values(*dt, s, i as u64 + n as u64, true)).collect();
            let want = interp(&module, &args);
            let v = compile(&module, &simd).unwrap();
            assert!(has_vectors(v.dump.as_deref().unwrap()), "{text}");
            let s = compile(&module, &scalar).unwrap();
            let base = compile_on(baseline_module(), &module, &simd).unwrap();
            let mut runs =
                vec![run(&v, &module, &args, &[]), run(&s, &module, &args, &[]), run(&base, &module, &args, &[])];
            if types.len() == 1 {
                // Split launches: the head, vector and tail ranges are per call.
                runs.push(run(&v, &module, &args, &[(0, 1), (1, 5.min(n as i64)), (5.min(n as i64), n as i64)]));
            }
            for got in runs {
                for (g, w) in got.iter().zip(&want) {
                    assert!(same_bits(g, w), "n={n}\n{text}\njit: {}\nwant: {}", g.describe(None), w.describe(None));
                }
            }
        }
    }
}

/// A reduction whose kernel also writes values of the reduction's input shape (how the
/// merged forward-and-gradient kernel of value_and_grad looks): the vector loop stores
/// them from the same vectors, bit-identical to the interpreter, around the width.
#[test]
fn vector_reductions_with_input_shaped_results() {
    let dump = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
    for n in 0..=19usize {
        for dt in [DType::F32, DType::F64, DType::I32] {
            let text = fusion(
                &format!("%a: {dt}[3,{n}], %b: {dt}[3,{n}]) -> ({dt}[3,{n}], {dt}[3], {dt}[3,{n}]"),
                &format!(
                    "  %e: {dt}[3,{n}] = abs(%a)\n  %m: {dt}[3,{n}] = mul(%e, %b)\n  %r: {dt}[3] = reduce_max[axes=[1]](%m)\n  %s: {dt}[3,{n}] = sub(%m, %a)"
                ),
                "%e, %r, %s",
            );
            let module = ferrax_ir::parse(&text).unwrap();
            let args = [values(dt, &[3, n], n as u64, true), values(dt, &[3, n], n as u64 + 7, true)];
            let want = interp(&module, &args);
            let c = compile(&module, &dump).unwrap();
            assert!(has_vectors(c.dump.as_deref().unwrap()), "{text}");
            let base = compile_on(baseline_module(), &module, &dump).unwrap();
            for k in [&c, &base] {
                let got = run(k, &module, &args, &[]);
                for (g, w) in got.iter().zip(&want) {
                    assert!(same_bits(g, w), "n={n}\n{text}\n{}\n{}", g.describe(None), w.describe(None));
                }
            }
        }
    }
}
