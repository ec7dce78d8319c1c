//! Training a small convolutional network (W8's: conv 3×3 32 - relu - max pool 2 -
//! conv 3×3 64 - relu - max pool 2 - dense 10) with Adam, the whole step compiled.
//!
//! The default task is synthetic: 32×32 RGB images of noise, each with one of ten
//! small patterns pasted at a random place and scaled by a random colour; the label is
//! the pattern. The network must find the pattern wherever it is, which is what
//! convolution and pooling are for. Given a directory of MNIST files
//! (`train-images-idx3-ubyte`, `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte`,
//! `t10k-labels-idx1-ubyte`, uncompressed), it trains on MNIST instead.
//!
//!     cargo run --release --example cnn
//!     cargo run --release --example cnn -- --mnist DIR
//!     cargo run --release --example cnn -- --small
//!
//! Each epoch prints the mean training loss and the accuracy on held-out images.

use ferrax::nn::{Activation, Context, Conv2d, Flatten, Layer, Linear, MaxPool2d, cross_entropy, one_hot};
use ferrax::optim::{Adam, AdamState};
use ferrax::{Array, DType, Tensor, grad, jit, random, s};
use std::path::Path;

/// What to train on and for how long.
pub struct Config {
    /// Training images.
    pub train: usize,
    /// Held-out images.
    pub test: usize,
    /// Side of the synthetic images.
    pub side: usize,
    /// Mini-batch size.
    pub batch: usize,
    /// Passes over the training images.
    pub epochs: usize,
    /// The accuracy the last epoch must reach, else the run is an error.
    pub want_accuracy: f64,
}

impl Config {
    /// The default run: W8's image size and batch.
    pub fn full() -> Config {
        Config { train: 4096, test: 1024, side: 32, batch: 64, epochs: 6, want_accuracy: 0.9 }
    }

    /// A run small enough for the test suite.
    pub fn small() -> Config {
        Config { train: 1024, test: 256, side: 16, batch: 32, epochs: 6, want_accuracy: 0.6 }
    }
}

/// A labelled set of NHWC images, f32, with one-hot labels.
struct Set {
    x: Array,
    y: Array,
}

/// A small xorshift generator: the synthetic data needs no more.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The synthetic task: `n` noisy `side`×`side`×3 images with one of 10 patterns each.
fn synthetic(n: usize, side: usize, seed: u64) -> Result<Set, Box<dyn std::error::Error>> {
    let mut rng = XorShift::new(seed);
    let mut uniform = move || rng.uniform();
    // Ten fixed 5×5 patterns of ±1 (the same for every set).
    let mut pattern_rng = XorShift::new(0);
    let patterns: Vec<Vec<f32>> =
        (0..10).map(|_| (0..25).map(|_| if pattern_rng.uniform() < 0.5 { 1.0 } else { -1.0 }).collect()).collect();
    let mut x = vec![0f32; n * side * side * 3];
    let mut labels = Vec::with_capacity(n);
    for image in x.chunks_mut(side * side * 3) {
        for v in image.iter_mut() {
            *v = (uniform() as f32 - 0.5) * 0.5;
        }
        let label = (uniform() * 10.0) as usize % 10;
        let (r, c) = ((uniform() * (side - 4) as f64) as usize, (uniform() * (side - 4) as f64) as usize);
        let colour: Vec<f32> = (0..3).map(|_| 0.5 + uniform() as f32).collect();
        for (k, &p) in patterns[label].iter().enumerate() {
            let (dr, dc) = (k / 5, k % 5);
            for (ch, &w) in colour.iter().enumerate() {
                image[((r + dr) * side + c + dc) * 3 + ch] += p * w;
            }
        }
        labels.push(label as i32);
    }
    let x = Array::from_f32(&[n, side, side, 3], x)?;
    let y = ferrax::eval(|l: Tensor| one_hot(&l, 10, DType::F32), &Array::from(labels))?;
    Ok(Set { x, y })
}

/// Reads a big-endian u32 at `at`, naming the file on error.
fn be_u32(bytes: &[u8], at: usize, path: &Path) -> Result<usize, String> {
    let b = bytes.get(at..at + 4).ok_or_else(|| format!("{}: truncated header", path.display()))?;
    Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// One MNIST (IDX) pair of files: images as f32 in [0, 1], NHWC with one channel.
fn mnist(dir: &Path, prefix: &str) -> Result<Set, Box<dyn std::error::Error>> {
    let images_path = dir.join(format!("{prefix}-images-idx3-ubyte"));
    let labels_path = dir.join(format!("{prefix}-labels-idx1-ubyte"));
    let images = std::fs::read(&images_path).map_err(|e| format!("{}: {e}", images_path.display()))?;
    let labels = std::fs::read(&labels_path).map_err(|e| format!("{}: {e}", labels_path.display()))?;
    if be_u32(&images, 0, &images_path)? != 0x803 || be_u32(&labels, 0, &labels_path)? != 0x801 {
        return Err(format!("{}: not an IDX image/label pair (bad magic numbers)", dir.display()).into());
    }
    let (n, rows, cols) =
        (be_u32(&images, 4, &images_path)?, be_u32(&images, 8, &images_path)?, be_u32(&images, 12, &images_path)?);
    let count = be_u32(&labels, 4, &labels_path)?;
    let pixels = n.checked_mul(rows).and_then(|v| v.checked_mul(cols)).ok_or("IDX: image count overflows")?;
    if count != n || images.len() != 16 + pixels || labels.len() != 8 + n {
        return Err(format!(
            "{}: {n} images of {rows}x{cols} and {count} labels do not match the file sizes",
            dir.display()
        )
        .into());
    }
    if let Some(&bad) = labels[8..].iter().find(|&&l| l > 9) {
        return Err(format!("{}: label {bad} is not a digit", labels_path.display()).into());
    }
    let x: Vec<f32> = images[16..].iter().map(|&p| f32::from(p) / 255.0).collect();
    let x = Array::from_f32(&[n, rows, cols, 1], x)?;
    let l: Vec<i32> = labels[8..].iter().map(|&l| i32::from(l)).collect();
    let y = ferrax::eval(|l: Tensor| one_hot(&l, 10, DType::F32), &Array::from(l))?;
    Ok(Set { x, y })
}

/// W8's network: two convolution blocks and a dense layer.
type Network = (Conv2d, Activation, MaxPool2d, Conv2d, Activation, MaxPool2d, Flatten, Linear);

/// W8's network for images of `side`×`side`×`channels`.
fn network(side: usize, channels: usize) -> Network {
    let flat = (side / 4) * (side / 4) * 64;
    (
        Conv2d::new(channels, 32, [3, 3]),
        Activation::Relu,
        MaxPool2d::max([2, 2]),
        Conv2d::new(32, 64, [3, 3]),
        Activation::Relu,
        MaxPool2d::max([2, 2]),
        Flatten,
        Linear::new(flat, 10),
    )
}

/// Trains on the synthetic task or MNIST and checks the held-out accuracy.
pub fn run(config: &Config, mnist_dir: Option<&Path>) -> Result<(), Box<dyn std::error::Error>> {
    let (train, test) = match mnist_dir {
        Some(dir) => (mnist(dir, "train")?, mnist(dir, "t10k")?),
        None => (synthetic(config.train, config.side, 1)?, synthetic(config.test, config.side, 2)?),
    };
    let (n, side, channels) = (train.x.shape()[0], train.x.shape()[1], train.x.shape()[3]);
    let model = network(side, channels);
    let mut params = model.init(&random::key(0))?;
    let adam = Adam::new(3e-3);
    let mut state = adam.init(&params)?;
    type P = <Network as Layer>::Params<Tensor>;
    let loss = |p: &P, x: &Tensor, y: &Tensor| cross_entropy(&model.forward(p, x, &mut Context::eval()), y);
    let step = jit(|(p, s, x, y): (P, AdamState<P, Tensor>, Tensor, Tensor)| {
        let value = loss(&p, &x, &y);
        let g = grad(|p: P| loss(&p, &x, &y)).apply(&p);
        let (p, s) = adam.update(&g, &s, &p);
        (value, p, s)
    });
    let correct = jit(|(p, x, y): (P, Tensor, Tensor)| {
        let predicted = model.forward(&p, &x, &mut Context::eval()).argmax(1);
        predicted.eq_(y.argmax(1)).cast(DType::F32).sum_all()
    });
    let steps = n / config.batch;
    let bar = indicatif::ProgressBar::new((config.epochs * steps) as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} steps, loss {msg}")?);
    bar.suspend(|| println!("epoch   mean loss   test accuracy"));
    let mut accuracy = 0.0;
    for epoch in 0..config.epochs {
        let mut total = 0.0;
        for b in 0..steps {
            let rows = s((b * config.batch) as i64..((b + 1) * config.batch) as i64);
            let xb = ferrax::eval(|x: Tensor| x.slice(&[rows]), &train.x)?;
            let yb = ferrax::eval(|y: Tensor| y.slice(&[rows]), &train.y)?;
            let (value, p, s) = step.call(&(params, state, xb, yb))?;
            (params, state) = (p, s);
            let value = value.to_f64_vec()[0];
            total += value;
            bar.set_message(format!("{value:.4}"));
            bar.inc(1);
        }
        let tests = test.x.shape()[0];
        let mut right = 0.0;
        for b in 0..tests.div_ceil(config.batch) {
            let rows = s((b * config.batch) as i64..((b + 1) * config.batch).min(tests) as i64);
            let xb = ferrax::eval(|x: Tensor| x.slice(&[rows]), &test.x)?;
            let yb = ferrax::eval(|y: Tensor| y.slice(&[rows]), &test.y)?;
            right += correct.call(&(params.clone(), xb, yb))?.to_f64_vec()[0];
        }
        accuracy = right / tests as f64;
        bar.suspend(|| println!("{epoch:>5} {:>11.4} {accuracy:>15.3}", total / steps as f64));
    }
    bar.finish_and_clear();
    if accuracy < config.want_accuracy {
        return Err(format!("held-out accuracy {accuracy:.3} is below {}", config.want_accuracy).into());
    }
    Ok(())
}

/// `cnn [--small] [--mnist DIR]`.
pub fn main_with(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let (mut config, mut dir) = (Config::full(), None);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--small" => config = Config::small(),
            "--mnist" => dir = Some(Path::new(rest.next().ok_or("--mnist needs a directory")?).to_path_buf()),
            other => return Err(format!("cnn: unknown argument {other:?} (usage: cnn [--small] [--mnist DIR])").into()),
        }
    }
    run(&config, dir.as_deref())
}

/// Runs the example with the command line's arguments (the test suite calls
/// `main_with` instead, which leaves this unused there).
#[allow(dead_code)]
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    main_with(&std::env::args().skip(1).collect::<Vec<_>>())
}
