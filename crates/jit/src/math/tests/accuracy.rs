//! The accuracy sweeps: every `MathFn` on `F32`/`F32X4` and `F64`/`F64X2`, fma on and off, against `libm`, with the
//! ulp bounds stated in the module docs of `math`.

use cranelift_codegen::ir::types;

use super::super::MathFn;
use super::{compile, ulps32, ulps64};

/// A deterministic pseudo-random sequence (SplitMix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn fma_modes() -> Vec<bool> {
    if std::is_x86_feature_detected!("fma") { vec![false, true] } else { vec![false] }
}

/// Edge values shared by all functions (f64, converted for f32 tests).
fn edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        1.0,
        2.0,
        0.5,
        f64::INFINITY,
        f64::NAN,
        f64::from(f32::MIN_POSITIVE),
        f64::from(f32::MAX),
        f64::from(f32::from_bits(1)),
        f64::from(f32::from_bits(0x007f_ffff)),
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        1e-30,
        1e-10,
        1e-4,
        0.1,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        3.0,
        10.0,
        100.0,
        1e10,
        1e30,
    ];
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// Function-specific thresholds (positive and negative added).
fn special_points(f: MathFn) -> Vec<f64> {
    let p: &[f64] = match f {
        MathFn::Exp | MathFn::Expm1 | MathFn::Logistic => {
            &[88.72283, 88.72284, 87.33654, 103.972, 103.973, 104.0, 150.0, 709.78, 709.79, 745.13, 745.14, 746.0]
        }
        MathFn::Log | MathFn::Log1p => {
            &[0.999_999, 1.000_001, std::f64::consts::SQRT_2, std::f64::consts::FRAC_1_SQRT_2]
        }
        MathFn::Tanh => &[0.625, 0.624_999_9, 9.0, 9.01, 9.011, 9.02, 9.499_999, 9.5, 9.500_001, 20.0, 44.0],
        MathFn::Sin | MathFn::Cos | MathFn::Tan => {
            &[1048575.0, 1048576.0, 1048577.0, 4e6, 1e7, 1e38, std::f64::consts::FRAC_PI_4]
        }
        MathFn::Erf => &[0.999_999_9, 1.000_000_1, 3.92, 4.0, 4.000_001, 6.0],
        MathFn::Pow | MathFn::Atan2 | MathFn::Fmod => {
            &[0.999_999_9, 1.000_000_1, 7.0, 8388607.0, 8388609.0, 16777217.0]
        }
    };
    p.iter().flat_map(|&x| [x, -x]).collect()
}

/// The dense range of each function.
fn range(f: MathFn, is64: bool) -> (f64, f64) {
    match f {
        MathFn::Exp if is64 => (-750.0, 712.0),
        MathFn::Exp => (-105.0, 90.0),
        MathFn::Log | MathFn::Log1p => (-1.0, 10.0),
        MathFn::Expm1 => (-20.0, 20.0),
        MathFn::Tanh if !is64 => (-10.0, 10.0),
        MathFn::Tanh | MathFn::Erf => (-6.0, 6.0),
        MathFn::Logistic => (-110.0, 40.0),
        MathFn::Sin | MathFn::Cos | MathFn::Tan => (-50.0, 50.0),
        MathFn::Pow | MathFn::Atan2 | MathFn::Fmod => (-10.0, 10.0),
    }
}

/// Unary inputs: every exponent (bit sweep), the dense range, edges and thresholds.
fn inputs(f: MathFn, is64: bool) -> Vec<f64> {
    let mut rng = Rng(0x5eed ^ f as u64);
    let mut v = Vec::new();
    const SWEEP: u64 = 1 << 18;
    for i in 0..SWEEP {
        let r = rng.next();
        if is64 {
            v.push(f64::from_bits((i << 46) | (r >> 18)));
        } else {
            v.push(f64::from(f32::from_bits(((i << 14) | (r >> 50)) as u32)));
        }
    }
    let (lo, hi) = range(f, is64);
    const DENSE: u64 = 1 << 17;
    for i in 0..DENSE {
        v.push(lo + (hi - lo) * (i as f64 + 0.5) / DENSE as f64);
    }
    if matches!(f, MathFn::Sin | MathFn::Cos | MathFn::Tan) {
        for i in 0..DENSE / 4 {
            v.push(-1.1e6 + 2.2e6 * (i as f64) / (DENSE / 4) as f64);
        }
    }
    v.extend(edges());
    v.extend(special_points(f));
    v
}

/// Binary inputs: random bit pairs, a dense grid, and all pairs of edge values.
fn pairs(f: MathFn, is64: bool) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(0xbeef ^ f as u64);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..1 << 17 {
        let (x, y) = (rng.next(), rng.next());
        if is64 {
            a.push(f64::from_bits(x));
            b.push(f64::from_bits(y));
        } else {
            a.push(f64::from(f32::from_bits(x as u32)));
            b.push(f64::from(f32::from_bits(y as u32)));
        }
    }
    const G: usize = 256;
    for i in 0..G {
        for j in 0..G {
            let u = (i as f64 + 0.5) / G as f64;
            let w = (j as f64 + 0.5) / G as f64;
            match f {
                MathFn::Pow => {
                    a.push(4.0 * u);
                    b.push(-60.0 + 120.0 * w);
                    a.push(-4.0 * u);
                    b.push((j as f64 - 128.0).round() / 4.0);
                }
                _ => {
                    a.push(-10.0 + 20.0 * u);
                    b.push(-10.0 + 20.0 * w);
                }
            }
        }
    }
    let mut e = edges();
    e.extend(special_points(f));
    for &x in &e {
        for &y in &e {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

fn logistic(x: f64) -> f64 {
    if x < 0.0 {
        let e = libm::exp(x);
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + libm::exp(-x))
    }
}

/// The libm value (in f64).
fn reference(f: MathFn, x: f64, y: f64) -> f64 {
    match f {
        MathFn::Exp => libm::exp(x),
        MathFn::Log => libm::log(x),
        MathFn::Log1p => libm::log1p(x),
        MathFn::Expm1 => libm::expm1(x),
        MathFn::Tanh => libm::tanh(x),
        MathFn::Logistic => logistic(x),
        MathFn::Sin => libm::sin(x),
        MathFn::Cos => libm::cos(x),
        MathFn::Tan => libm::tan(x),
        MathFn::Erf => libm::erf(x),
        MathFn::Pow => libm::pow(x, y),
        MathFn::Atan2 => libm::atan2(x, y),
        MathFn::Fmod => libm::fmod(x, y),
    }
}

/// The worst case of one configuration.
struct Worst {
    ulps: u64,
    x: f64,
    y: f64,
    got: f64,
    want: f64,
}

/// Runs `f` on every configuration of one precision and returns the largest error; fails on a wrong zero sign.
fn measure(f: MathFn, is64: bool) -> Worst {
    let (a, b) = if f.arity() == 2 { pairs(f, is64) } else { (inputs(f, is64), Vec::new()) };
    let b_or = |i: usize| b.get(i).copied().unwrap_or(0.0);
    let mut worst = Worst { ulps: 0, x: 0.0, y: 0.0, got: 0.0, want: 0.0 };
    let tys = if is64 { [types::F64, types::F64X2] } else { [types::F32, types::F32X4] };
    if is64 {
        let want: Vec<f64> = (0..a.len()).map(|i| reference(f, a[i], b_or(i))).collect();
        for ty in tys {
            for fma in fma_modes() {
                let k = compile(f, ty, fma);
                let got = k.run(&a, (f.arity() == 2).then_some(&b[..]));
                for i in 0..a.len() {
                    let u = ulps64(got[i], want[i]);
                    assert!(
                        !(got[i] == 0.0 && want[i] == 0.0 && got[i].is_sign_negative() != want[i].is_sign_negative()),
                        "{f:?} {ty} fma={fma}: sign of zero at {} {}",
                        a[i],
                        b_or(i)
                    );
                    if u > worst.ulps {
                        worst = Worst { ulps: u, x: a[i], y: b_or(i), got: got[i], want: want[i] };
                    }
                }
            }
        }
    } else {
        let a: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        let b: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        let b_or = |i: usize| b.get(i).copied().unwrap_or(0.0);
        let want: Vec<f32> = (0..a.len()).map(|i| reference(f, f64::from(a[i]), f64::from(b_or(i))) as f32).collect();
        for ty in tys {
            for fma in fma_modes() {
                let k = compile(f, ty, fma);
                let got = k.run(&a, (f.arity() == 2).then_some(&b[..]));
                for i in 0..a.len() {
                    let u = ulps32(got[i], want[i]);
                    assert!(
                        !(got[i] == 0.0 && want[i] == 0.0 && got[i].is_sign_negative() != want[i].is_sign_negative()),
                        "{f:?} {ty} fma={fma}: sign of zero at {} {}",
                        a[i],
                        b_or(i)
                    );
                    if u > worst.ulps {
                        let (x, y) = (f64::from(a[i]), f64::from(b_or(i)));
                        worst = Worst { ulps: u, x, y, got: f64::from(got[i]), want: f64::from(want[i]) };
                    }
                }
            }
        }
    }
    worst
}

/// Measures `f` in one precision and asserts the stated bound.
fn check(f: MathFn, is64: bool, bound: u64) {
    let w = measure(f, is64);
    let dt = if is64 { "f64" } else { "f32" };
    eprintln!("{f:?} {dt}: max {} ulp at x={:e} y={:e}: got {:e}, libm {:e}", w.ulps, w.x, w.y, w.got, w.want);
    assert!(
        w.ulps <= bound,
        "{f:?} {dt}: {} ulp > bound {bound} at x={:e} y={:e}: got {:e}, libm {:e}",
        w.ulps,
        w.x,
        w.y,
        w.got,
        w.want
    );
}

macro_rules! accuracy {
    ($($name:ident: $f:ident, $is64:expr, $bound:expr;)*) => {
        $(#[test]
        fn $name() {
            check(MathFn::$f, $is64, $bound);
        })*
    };
}

// The bounds of the table in the module docs of `math`.
accuracy! {
    exp_f32: Exp, false, 1;
    log_f32: Log, false, 1;
    log1p_f32: Log1p, false, 2;
    expm1_f32: Expm1, false, 2;
    tanh_f32: Tanh, false, 1;
    logistic_f32: Logistic, false, 2;
    sin_f32: Sin, false, 2;
    cos_f32: Cos, false, 2;
    tan_f32: Tan, false, 2;
    erf_f32: Erf, false, 2;
    pow_f32: Pow, false, 1;
    atan2_f32: Atan2, false, 3;
    fmod_f32: Fmod, false, 0;
    exp_f64: Exp, true, 1;
    log_f64: Log, true, 1;
    log1p_f64: Log1p, true, 2;
    expm1_f64: Expm1, true, 2;
    tanh_f64: Tanh, true, 2;
    logistic_f64: Logistic, true, 2;
    sin_f64: Sin, true, 0;
    cos_f64: Cos, true, 0;
    tan_f64: Tan, true, 0;
    erf_f64: Erf, true, 0;
    pow_f64: Pow, true, 0;
    atan2_f64: Atan2, true, 0;
    fmod_f64: Fmod, true, 0;
}

#[test]
fn tanh_f32_saturates_exactly() {
    // Where f32 tanh rounds to ±1 (|x| ≥ 9.0109...), the clamped form must give ±1
    // exactly, not the float below: on both sides of the clamp and far beyond it.
    let mut xs: Vec<f32> = (0..=5000).map(|i| 9.011 + i as f32 * 0.001).collect();
    xs.extend([20.0, 1e10, f32::MAX, f32::INFINITY]);
    xs.extend(xs.clone().iter().map(|x| -x));
    for ty in [types::F32, types::F32X4] {
        for fma in fma_modes() {
            let got = compile(MathFn::Tanh, ty, fma).run(&xs, None);
            for (x, y) in xs.iter().zip(got) {
                assert_eq!(y, x.signum(), "tanh({x}) on {ty} fma={fma}");
            }
        }
    }
}
