//! Loop-carried vectors ([`crate::kernel::carry`]): a computed value read at the loop's
//! index and shifted back by 1 to lanes − 1 elements is carried between iterations (one
//! lane shuffle in the CLIF), with results bit-identical to the interpreter, to the scalar
//! code and to the baseline target (which does not carry), at every length around the
//! vector width, on rows, and in launches split at every kind of boundary.

use super::support::{baseline_module, compile, compile_on, interp, run, same_bits, values};
use crate::kernel::KernelOptions;
use ferrax_ir::DType;

const SIMD: KernelOptions = KernelOptions { fma: false, simd: true, dump: true, precise_math: true, tiles: true };
const SCALAR: KernelOptions = KernelOptions { simd: false, dump: false, ..SIMD };

/// `t = x·x − x` read at `i` and at `i − d` (zero before the start): `t[i] + t[i − d]`,
/// over rows of `n` (`rows` = 0: a vector of `n`).
fn stencil(dt: DType, rows: usize, n: usize, d: usize) -> String {
    let (shape, padded, low, start) = if rows == 0 {
        (format!("[{n}]"), format!("[{}]", n + d), format!("[{d}]"), "[0]".to_string())
    } else {
        (format!("[{rows},{n}]"), format!("[{rows},{}]", n + d), format!("[0,{d}]"), "[0,0]".to_string())
    };
    let high = if rows == 0 { "[0]" } else { "[0,0]" };
    let limit = if rows == 0 { format!("[{n}]") } else { format!("[{rows},{n}]") };
    let interior = if rows == 0 { "[0]" } else { "[0,0]" };
    format!(
        "func @k[kind=\"fusion\"](%x: {dt}{shape}) -> ({dt}{shape}) {{
  %s: {dt}{shape} = mul(%x, %x)
  %t: {dt}{shape} = sub(%s, %x)
  %z: {dt}[] = constant[value=0]()
  %p: {dt}{padded} = pad[low={low}, high={high}, interior={interior}](%t, %z)
  %q: {dt}{shape} = slice[start={start}, limit={limit}](%p)
  %r: {dt}{shape} = add(%q, %t)
  return %r
}}
"
    )
}

#[test]
fn shifted_reads_of_computed_values_are_carried_and_match() {
    for (dt, lanes) in [(DType::F64, 2), (DType::F32, 4), (DType::I32, 4)] {
        for d in 1..lanes {
            for rows in [0, 3] {
                for n in (d + 1..=d + 13).chain([67]) {
                    let text = stencil(dt, rows, n, d);
                    let module = ferrax_ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                    ferrax_ir::verify(&module).unwrap();
                    let shape = if rows == 0 { vec![n] } else { vec![rows, n] };
                    let args = [values(dt, &shape, (n * 7 + d) as u64, true)];
                    let want = interp(&module, &args);
                    let v = compile(&module, &SIMD).unwrap();
                    if std::is_x86_feature_detected!("sse4.1") {
                        assert!(v.dump.as_deref().unwrap().contains("shuffle"), "not carried:\n{text}");
                    }
                    let s = compile(&module, &SCALAR).unwrap();
                    let base = compile_on(baseline_module(), &module, &SIMD).unwrap();
                    let outer = shape[0] as i64;
                    let mut runs = vec![
                        run(&v, &module, &args, &[]),
                        run(&s, &module, &args, &[]),
                        run(&base, &module, &args, &[]),
                    ];
                    // Split launches: the peeled first vector starts wherever a range does.
                    for cut in [1, d as i64 + 1, d as i64 + 2, outer / 2] {
                        let cut = cut.clamp(0, outer);
                        runs.push(run(&v, &module, &args, &[(0, cut), (cut, outer)]));
                    }
                    for got in runs {
                        assert!(
                            same_bits(&got[0], &want[0]),
                            "{text}\njit: {}\nwant: {}",
                            got[0].describe(None),
                            want[0].describe(None)
                        );
                    }
                }
            }
        }
    }
}
