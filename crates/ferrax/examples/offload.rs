//! Activation offloading: a deep narrow network whose forward values, not its
//! parameters, fill its memory, trained with and without keeping them in memory.
//!
//! Every layer is `tanh(h W)`; its backward pass needs its input and its output. With
//! `checkpoint(layer).policy(RematPolicy::Offload)` the forward pass writes those to a
//! spill file as soon as it has them and the backward pass reads each back where it
//! reaches its layer, so they are out of memory in between. The example trains the same
//! network three ways, each in a child process of its own so that each peak resident
//! memory (the kernel's high-water mark, `VmHWM`) is its own:
//!
//! - `plain`: reverse mode keeps every forward value in memory;
//! - `remat`: `checkpoint` with the default policy keeps only each layer's input and
//!   recomputes the rest in the backward pass (here that saves nothing: a tanh layer's
//!   backward pass needs only its output, which is the next layer's input anyway, so
//!   the recomputation is pure cost: the baseline for what offloading does instead);
//! - `offload`: keeps everything, in the spill file.
//!
//! It prints each run's peak RSS (and what it was before the first step, once the data
//! existed), its median step time and its losses, which are bit-identical across the
//! three (offloading moves bits, it does not change them).
//!
//!     cargo run --release --example offload [-- --spill-dir DIR]

use ferrax::optim::{Sgd, SgdState};
use ferrax::transforms::{RematPolicy, checkpoint};
use ferrax::{Array, DType, JitOptions, Tensor, jit_with, random, value_and_grad};
use std::time::Instant;

/// The network and the run.
#[derive(Clone, Copy, Debug)]
struct Config {
    layers: usize,
    width: usize,
    batch: usize,
    steps: usize,
}

/// What the example runs from the command line: 24 layers of width 128 on a batch of
/// 2048, so the forward values kept for the backward pass are 48 MiB against 1.5 MiB of
/// parameters.
const FULL: Config = Config { layers: 24, width: 128, batch: 2048, steps: 6 };

/// What the test suite runs (in process, so no memory figures).
const SMALL: Config = Config { layers: 6, width: 16, batch: 64, steps: 3 };

const MODES: [&str; 3] = ["plain", "remat", "offload"];

/// One run's figures.
struct Report {
    mode: String,
    /// Peak RSS once the data and parameters exist, before the first step.
    setup_rss_kib: Option<u64>,
    peak_rss_kib: Option<u64>,
    step_ms: f64,
    losses: Vec<f32>,
}

/// The network's output: `layers` tanh layers, each under the mode's policy.
fn forward(mode: &str, ws: &[Tensor], x: &Tensor) -> Tensor {
    let layer = |(h, w): (Tensor, Tensor)| h.matmul(&w).tanh();
    let mut h = x.clone();
    for w in ws {
        let args = (h, w.clone());
        h = match mode {
            "remat" => checkpoint(layer).apply(&args),
            "offload" => checkpoint(layer).policy(RematPolicy::Offload).apply(&args),
            _ => layer(args),
        };
    }
    h
}

/// Mean squared distance of the output to the targets.
fn loss(mode: &str, ws: &[Tensor], x: &Tensor, y: &Tensor) -> Tensor {
    let d = forward(mode, ws, x) - y;
    (&d * &d).mean_all()
}

/// Peak resident memory of this process so far, in KiB (Linux's `VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Trains for `config.steps` steps in `mode`; the spill file goes to `spill_dir`.
fn train(mode: &str, config: Config, spill_dir: Option<&str>) -> Result<Report, Box<dyn std::error::Error>> {
    let Config { layers, width, batch, steps } = config;
    let keys = random::split(&random::key(7), layers + 2)?;
    let x = random::uniform(&keys[0], &[batch, width], DType::F32, -1.0, 1.0)?;
    let y = random::uniform(&keys[1], &[batch, width], DType::F32, -0.5, 0.5)?;
    let scale = 1.2 / (width as f64).sqrt();
    let mut ws: Vec<Array> = Vec::new();
    for k in &keys[2..] {
        ws.push(ferrax::eval(|k: Tensor| random::normal(&k, &[width, width], DType::F32) * scale, k)?);
    }
    let sgd = Sgd::new(0.5, 0.0);
    let mut state = sgd.init(&ws)?;
    let setup_rss_kib = peak_rss_kib();
    let options = JitOptions { spill_dir: spill_dir.map(Into::into), ..JitOptions::default() };
    let step = jit_with(
        |(p, s, x, y): (Vec<Tensor>, SgdState<Vec<Tensor>>, Tensor, Tensor)| {
            let (value, g) = value_and_grad(|p: Vec<Tensor>| loss(mode, &p, &x, &y)).apply(&p);
            let (p, s) = sgd.update(&g, &s, &p);
            (value, p, s)
        },
        options,
    );
    let (mut losses, mut times) = (Vec::new(), Vec::new());
    for _ in 0..steps {
        let start = Instant::now();
        let (value, p, s) = step.call(&(ws, state, x.clone(), y.clone()))?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        (ws, state) = (p, s);
        losses.push(value.to_f64_vec()[0] as f32);
    }
    // The first step compiles; the median of the others is the step time.
    let mut steady = times[1..].to_vec();
    steady.sort_by(f64::total_cmp);
    let step_ms = steady.get(steady.len() / 2).copied().unwrap_or(times[0]);
    Ok(Report { mode: mode.to_string(), setup_rss_kib, peak_rss_kib: peak_rss_kib(), step_ms, losses })
}

/// Runs one mode in a child process (this executable with `--child MODE`), so that its
/// peak RSS is its own.
fn in_child(mode: &str, spill_dir: Option<&str>) -> Result<Report, Box<dyn std::error::Error>> {
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command.args(["--child", mode]);
    if let Some(dir) = spill_dir {
        command.args(["--spill-dir", dir]);
    }
    let output = command.output()?;
    if !output.status.success() {
        return Err(format!("the {mode} run failed: {}", String::from_utf8_lossy(&output.stderr).trim()).into());
    }
    let text = String::from_utf8(output.stdout)?;
    let line = text.lines().find_map(|l| l.strip_prefix("REPORT ")).ok_or("a child printed no report")?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [_, setup, rss, ms, losses] = fields[..] else { return Err(format!("a malformed report: {line}").into()) };
    Ok(Report {
        mode: mode.to_string(),
        setup_rss_kib: setup.parse().ok(),
        peak_rss_kib: rss.parse().ok(),
        step_ms: ms.parse()?,
        losses: losses.split(',').map(|b| u32::from_str_radix(b, 16).map(f32::from_bits)).collect::<Result<_, _>>()?,
    })
}

fn print_report(r: &Report) {
    let mib = |k: Option<u64>| k.map_or_else(|| "n/a".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
    let losses: Vec<String> = r.losses.iter().map(|l| format!("{l:.5}")).collect();
    println!(
        "{:<8} peak RSS {:>10} ({:>9} before training)   step {:>6.1} ms   losses {}",
        r.mode,
        mib(r.peak_rss_kib),
        mib(r.setup_rss_kib),
        r.step_ms,
        losses.join(" ")
    );
}

/// Runs the example with these command-line arguments (without the program name):
/// `--small` runs the small network in this process; `--child MODE` is one run of
/// the full one; `--spill-dir DIR` picks where the spill file goes.
pub fn main_with(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map(String::as_str);
    let spill_dir = value_of("--spill-dir");
    if let Some(mode) = value_of("--child") {
        let r = train(mode, FULL, spill_dir)?;
        let bits: Vec<String> = r.losses.iter().map(|l| format!("{:08x}", l.to_bits())).collect();
        let kib = |k: Option<u64>| k.map_or_else(|| "-".to_string(), |k| k.to_string());
        let (setup, rss) = (kib(r.setup_rss_kib), kib(r.peak_rss_kib));
        println!("REPORT {} {setup} {rss} {} {}", r.mode, r.step_ms, bits.join(","));
        return Ok(());
    }
    let small = args.iter().any(|a| a == "--small");
    let config = if small { SMALL } else { FULL };
    let Config { layers, width, batch, .. } = config;
    let residual_mib = (2 * layers * batch * width * 4) as f64 / (1 << 20) as f64;
    let param_mib = (layers * width * width * 4) as f64 / (1 << 20) as f64;
    println!(
        "{layers} tanh layers of width {width}, batch {batch}: {residual_mib:.1} MiB of forward values for \
         the backward pass, {param_mib:.2} MiB of parameters"
    );
    let mut reports = Vec::new();
    for mode in MODES {
        let r = if small { train(mode, config, spill_dir)? } else { in_child(mode, spill_dir)? };
        print_report(&r);
        reports.push(r);
    }
    for r in &reports[1..] {
        if r.losses.iter().map(|l| l.to_bits()).ne(reports[0].losses.iter().map(|l| l.to_bits())) {
            return Err(format!("the {} run's losses differ from the plain run's", r.mode).into());
        }
    }
    let (first, last) = (reports[0].losses[0], *reports[0].losses.last().unwrap_or(&f32::NAN));
    if last.is_nan() || last >= first {
        return Err(format!("the loss did not fall: {first} -> {last}").into());
    }
    println!("losses bit-identical in the three runs");
    let training = |r: &Report| Some(r.peak_rss_kib? as f64 - r.setup_rss_kib? as f64);
    if let (Some(plain), Some(offload)) = (training(&reports[0]), training(&reports[2])) {
        println!(
            "offloading: training adds {:.1} MiB to the peak RSS instead of {:.1} MiB ({:.0}% less), step time {:.2}x",
            offload / 1024.0,
            plain / 1024.0,
            100.0 * (plain - offload) / plain,
            reports[2].step_ms / reports[0].step_ms
        );
    }
    Ok(())
}

/// Runs the example on the command line's arguments.
#[allow(dead_code)] // the test suite calls `main_with`
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    main_with(&args)
}
