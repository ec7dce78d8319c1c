//! `ferrax::random`: the Threefry known answers, reproducibility, splitting, the
//! distributions' statistics, and host calls agreeing with traced ones.

use ferrax::random::{self, threefry2x32};
use ferrax::{Array, DType, Tensor, eval, make_ir};

fn words(a: &Array) -> Vec<u32> {
    a.as_i32().unwrap().iter().map(|&w| w as u32).collect()
}

/// The words `random_bits` should give, computed from the bare Threefry function.
fn expected_words(key: [u32; 2], count: usize) -> Vec<u32> {
    (0..count as u32).map(|i| threefry2x32(key, [0, i / 2])[(i % 2) as usize]).collect()
}

fn mean_and_variance(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (mean, variance)
}

#[test]
fn threefry_known_answers() {
    assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
    assert_eq!(threefry2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]), [0x1cb9_96fc, 0xbb00_2be7]);
    assert_eq!(threefry2x32([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]), [0xc492_3a9c, 0x483d_f7a0]);
    // Through the library: the first block of key(0) is the first known answer.
    assert_eq!(words(&random::bits(&random::key(0), &[2]).unwrap()), [0x6b20_0159, 0x99ba_4efe]);
}

#[test]
fn keys_hold_the_seed_high_word_first() {
    assert_eq!(random::key(42).as_i32().unwrap(), [0, 42]);
    assert_eq!(words(&random::key(0x0000_0007_ffff_fffe)), [7, 0xffff_fffe]);
    assert_eq!(random::key(1).shape(), [2]);
}

#[test]
fn bits_are_threefry_words_of_the_flat_index() {
    let key = random::key(0xdead_beef_0000_0001);
    let drawn = random::bits(&key, &[3, 5]).unwrap();
    assert_eq!(drawn.shape(), [3, 5]);
    assert_eq!(words(&drawn), expected_words([0xdead_beef, 1], 15));
    // A draw is a prefix of any larger draw, whatever the shape.
    let longer = random::bits(&key, &[40]).unwrap();
    assert_eq!(words(&longer)[..15], words(&drawn)[..]);
}

#[test]
fn same_seed_same_values() {
    let a = random::uniform(&random::key(7), &[1000], DType::F32, 0.0, 1.0).unwrap();
    let b = random::uniform(&random::key(7), &[1000], DType::F32, 0.0, 1.0).unwrap();
    assert_eq!(a, b);
    let c = random::uniform(&random::key(8), &[1000], DType::F32, 0.0, 1.0).unwrap();
    assert_ne!(a, c);
    // Pinned values (f32 uniform element i is the low 24 bits of word i over 2^24), so a
    // change of the algorithm cannot pass unnoticed.
    let first = random::uniform(&random::key(0), &[4], DType::F32, 0.0, 1.0).unwrap();
    let pinned: Vec<f32> =
        [0x20_0159_u32, 0xba_4efe, 0x5f_238f, 0xdb_151d].iter().map(|&k| k as f32 / 16_777_216.0).collect();
    assert_eq!(first.as_f32().unwrap(), pinned);
    let from_threefry: Vec<f32> =
        expected_words([0, 0], 4).iter().map(|&w| (w & 0x00ff_ffff) as f32 / 16_777_216.0).collect();
    assert_eq!(pinned, from_threefry);
}

#[test]
fn split_keys_differ_and_are_blocks() {
    let key = random::key(3);
    let keys = random::split(&key, 4).unwrap();
    assert_eq!(keys.len(), 4);
    for (j, k) in keys.iter().enumerate() {
        assert_eq!(k.shape(), [2]);
        assert_eq!(words(k), threefry2x32([0, 3], [0, j as u32]), "key {j}");
        assert_ne!(k, &key);
        for other in &keys[..j] {
            assert_ne!(k, other);
        }
    }
    // A split is a prefix of a longer split; split_into agrees with split.
    assert_eq!(random::split(&key, 2).unwrap(), keys[..2]);
    let [a, b] = random::split_into(&key).unwrap();
    assert_eq!([a, b], [keys[0].clone(), keys[1].clone()]);
    // Draws from the split keys differ.
    let u0 = random::uniform(&keys[0], &[8], DType::F32, 0.0, 1.0).unwrap();
    let u1 = random::uniform(&keys[1], &[8], DType::F32, 0.0, 1.0).unwrap();
    assert_ne!(u0, u1);
    assert!(random::split(&key, 0).unwrap().is_empty());
}

#[test]
fn uniform_statistics() {
    for dtype in [DType::F32, DType::F64] {
        let u = random::uniform(&random::key(11), &[100_000], dtype, 0.0, 1.0).unwrap().to_f64_vec();
        assert!(u.iter().all(|x| (0.0..1.0).contains(x)), "{dtype}: a value outside [0, 1)");
        let (mean, variance) = mean_and_variance(&u);
        // Standard errors: 0.0009 for the mean, 0.0003 for the variance.
        assert!((mean - 0.5).abs() < 0.005, "{dtype}: mean {mean}");
        assert!((variance - 1.0 / 12.0).abs() < 0.002, "{dtype}: variance {variance}");
        let mut bins = [0usize; 10];
        for x in &u {
            bins[(x * 10.0) as usize] += 1;
        }
        assert!(bins.iter().all(|&b| b.abs_diff(10_000) < 500), "{dtype}: histogram {bins:?}");
        let lag1 = u.windows(2).map(|w| (w[0] - 0.5) * (w[1] - 0.5)).sum::<f64>() / (u.len() - 1) as f64 * 12.0;
        assert!(lag1.abs() < 0.015, "{dtype}: lag-1 correlation {lag1}");
    }
    // f64 uses 53 bits: most values are not multiples of 2^-24.
    let u = random::uniform(&random::key(11), &[100], DType::F64, 0.0, 1.0).unwrap().to_f64_vec();
    assert!(u.iter().filter(|&&x| (x * 16_777_216.0).fract() != 0.0).count() > 90);
}

#[test]
fn uniform_ranges_stay_below_hi() {
    let u = random::uniform(&random::key(5), &[10_000], DType::F64, -3.0, 5.0).unwrap().to_f64_vec();
    assert!(u.iter().all(|x| (-3.0..5.0).contains(x)));
    let (mean, _) = mean_and_variance(&u);
    assert!((mean - 1.0).abs() < 0.1, "mean {mean}");
    // [1, next float after 1): every value rounds to 1 or to hi; the clamp keeps them at 1.
    let hi = f64::from(1f32.next_up());
    let tight = random::uniform(&random::key(5), &[1000], DType::F32, 1.0, hi).unwrap();
    assert!(tight.as_f32().unwrap().iter().all(|&x| x == 1.0));
}

#[test]
fn normal_statistics() {
    for (dtype, tail) in [(DType::F32, 5.77), (DType::F64, 8.58)] {
        let z = random::normal(&random::key(12), &[100_000], dtype).unwrap().to_f64_vec();
        assert!(z.iter().all(|x| x.is_finite() && x.abs() <= tail), "{dtype}: a value beyond {tail}");
        let (mean, variance) = mean_and_variance(&z);
        // Standard errors: 0.003 for the mean, 0.0045 for the variance.
        assert!(mean.abs() < 0.015, "{dtype}: mean {mean}");
        assert!((variance - 1.0).abs() < 0.025, "{dtype}: variance {variance}");
        let within_one = z.iter().filter(|x| x.abs() < 1.0).count() as f64 / z.len() as f64;
        assert!((within_one - 0.682_689).abs() < 0.008, "{dtype}: {within_one} within one sigma");
        let n = z.len() as f64;
        let skew = z.iter().map(|x| (x - mean).powi(3)).sum::<f64>() / n / variance.powf(1.5);
        let kurtosis = z.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n / (variance * variance);
        assert!(skew.abs() < 0.05, "{dtype}: skew {skew}");
        assert!((kurtosis - 3.0).abs() < 0.1, "{dtype}: kurtosis {kurtosis}");
    }
}

#[test]
fn bernoulli_statistics_and_edges() {
    let b = random::bernoulli(&random::key(13), 0.3, &[100_000]).unwrap();
    assert_eq!(b.dtype(), DType::Bool);
    let rate = b.as_bool().unwrap().iter().filter(|&&x| x).count() as f64 / 100_000.0;
    assert!((rate - 0.3).abs() < 0.007, "rate {rate}");
    let never = random::bernoulli(&random::key(13), 0.0, &[1000]).unwrap();
    assert!(never.as_bool().unwrap().iter().all(|&x| !x));
    let always = random::bernoulli(&random::key(13), 1.0, &[1000]).unwrap();
    assert!(always.as_bool().unwrap().iter().all(|&x| x));
}

#[test]
fn host_and_traced_calls_agree() {
    let key = random::key(2024);
    let traced = eval(
        |k: Tensor| {
            let [a, b] = random::split_into(&k);
            (
                random::uniform(&a, &[3, 4], DType::F32, -2.0, 2.0),
                random::normal(&b, &[5], DType::F64),
                random::bernoulli(&k, 0.5, &[7]),
                random::bits(&k, &[2, 3]),
                random::split(&k, 3),
            )
        },
        &key,
    )
    .unwrap();
    let [a, b] = random::split_into(&key).unwrap();
    assert_eq!(traced.0, random::uniform(&a, &[3, 4], DType::F32, -2.0, 2.0).unwrap());
    assert_eq!(traced.1, random::normal(&b, &[5], DType::F64).unwrap());
    assert_eq!(traced.2, random::bernoulli(&key, 0.5, &[7]).unwrap());
    assert_eq!(traced.3, random::bits(&key, &[2, 3]).unwrap());
    assert_eq!(traced.4, random::split(&key, 3).unwrap());
    // And the traced bits are the Threefry words of the host key.
    assert_eq!(words(&traced.3), expected_words([0, 2024], 6));
}

#[test]
fn traced_draws_are_random_bits_at_the_callers_line() {
    let line = line!() + 1;
    let text = make_ir(|k: Tensor| random::uniform(&k, &[2], DType::F32, 0.0, 1.0), &random::key_type()).unwrap();
    assert!(text.contains("random_bits[shape=[2]]"), "{text}");
    assert!(text.contains(&format!("loc(\"crates/ferrax/tests/random.rs:{line}:")), "{text}");
}

#[test]
fn dropout_zeroes_and_rescales() {
    let x = Array::from_f32(&[10_000], vec![3.0; 10_000]).unwrap();
    let key = random::key(99);
    let y = eval(|(k, x): (Tensor, Tensor)| random::dropout(&k, &x, 0.25), &(key.clone(), x.clone())).unwrap();
    let y = y.as_f32().unwrap();
    assert!(y.iter().all(|&v| v == 0.0 || v == 4.0), "kept values are scaled by 1 / (1 - rate)");
    let dropped = y.iter().filter(|&&v| v == 0.0).count() as f64 / y.len() as f64;
    assert!((dropped - 0.25).abs() < 0.02, "dropped {dropped}");
    // The mask is bernoulli(1 - rate) of the same key.
    let keep = random::bernoulli(&key, 0.75, &[10_000]).unwrap();
    assert!(keep.as_bool().unwrap().iter().zip(y).all(|(&k, &v)| k == (v != 0.0)));
    let same = eval(|(k, x): (Tensor, Tensor)| random::dropout(&k, &x, 0.0), &(key.clone(), x.clone())).unwrap();
    assert_eq!(same, x);
    let all = eval(|(k, x): (Tensor, Tensor)| random::dropout(&k, &x, 1.0), &(key, x)).unwrap();
    assert!(all.as_f32().unwrap().iter().all(|&v| v == 0.0));
}

#[test]
fn mistakes_are_errors_at_the_callers_line() {
    let bad_key = Array::from_f32(&[2], vec![0.0, 1.0]).unwrap();
    let line = line!() + 1;
    let error = random::uniform(&bad_key, &[3], DType::F32, 0.0, 1.0).unwrap_err().to_string();
    assert!(error.contains("random.uniform: the key must be i32[2], got f32[2]"), "{error}");
    assert!(error.contains(&format!("crates/ferrax/tests/random.rs:{line}:")), "{error}");
    let long_key = Array::from_i32(&[3], vec![0, 1, 2]).unwrap();
    assert!(random::split(&long_key, 2).unwrap_err().to_string().contains("got i32[3]"));
    let key = random::key(0);
    let error = random::uniform(&key, &[3], DType::F32, 1.0, 1.0).unwrap_err().to_string();
    assert!(error.contains("needs finite lo < hi"), "{error}");
    let error = random::uniform(&key, &[3], DType::F32, -3e38, 3e38).unwrap_err().to_string();
    assert!(error.contains("finite hi - lo"), "{error}");
    let error = random::normal(&key, &[3], DType::I32).unwrap_err().to_string();
    assert!(error.contains("the dtype must be a float (bf16, f16, f32 or f64), got i32"), "{error}");
    let error = random::bernoulli(&key, 1.5, &[3]).unwrap_err().to_string();
    assert!(error.contains("p must be in [0, 1], got 1.5"), "{error}");
    let error = eval(|(k, x): (Tensor, Tensor)| random::dropout(&k, &x, 0.5), &(key.clone(), Array::scalar_i32(1)))
        .unwrap_err()
        .to_string();
    assert!(error.contains("x must be a float tensor"), "{error}");
    // A key built inside the trace from a non-key is caught too.
    let error = eval(|x: Tensor| random::normal(&x, &[2], DType::F32), &Array::scalar_i32(3)).unwrap_err().to_string();
    assert!(error.contains("got i32[]"), "{error}");
}
