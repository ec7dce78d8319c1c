//! Data-parallel training: the MLP of `examples/mlp.rs` trained on N workers, each on
//! its shard of every global batch, gradients averaged by `pmean` inside the compiled
//! step, parameters identical on every worker (checked by hash after every epoch).
//!
//! The step (loss, gradient, `pmean` of every gradient leaf, Adam update) is traced and
//! compiled once with `pmap(..).lower`, and each worker calls it on its shard. The
//! workers are threads of this process by default, or the processes of an MPI job:
//!
//!     cargo run --release --example data_parallel -- --workers 2
//!     cargo build --release --example data_parallel --features mpi
//!     mpirun -np 2 target/release/examples/data_parallel
//!
//! (as root add `--allow-run-as-root`; more ranks than cores need `--oversubscribe`;
//! across machines, `mpirun --hostfile hosts -np N`). With one worker it is the
//! single-worker step on the whole batch: the same loss curve up to rounding, since
//! the mean of the shards' mean gradients is the whole batch's mean gradient.
//!
//! `--zero` shards Adam's state over the workers (ZeRO stage 1, `optim::Zero1`): each
//! worker gets its block of the mean gradient by `psum_scatter`, updates its block of
//! the parameters with its block of the state, and the blocks are `all_gather`ed back;
//! the example prints the state each worker keeps and the step's cost report.

use ferrax::nn::{cross_entropy, one_hot};
use ferrax::optim::{Adam, AdamState, Zero1};
use ferrax::{Array, Communicator, DType, Tensor, grad, lax, random, s};

/// Logits of the MLP 2-32-32-2 with tanh hidden layers; `p` = [W1, b1, W2, b2, W3, b3].
fn logits(p: &[Tensor], x: &Tensor) -> Tensor {
    let h1 = (x.matmul(&p[0]) + &p[1]).tanh();
    let h2 = (h1.matmul(&p[2]) + &p[3]).tanh();
    h2.matmul(&p[4]) + &p[5]
}

/// Mean softmax cross-entropy of a batch with one-hot labels.
fn loss(p: &[Tensor], x: &Tensor, y: &Tensor) -> Tensor {
    cross_entropy(&logits(p, x), y)
}

/// The training set and the initial parameters, the same on every worker (drawn from
/// fixed keys).
struct Problem {
    x: Array,
    y: Array,
    params: Vec<Array>,
}

fn problem(n: usize) -> Result<Problem, Box<dyn std::error::Error>> {
    let keys = random::split(&random::key(0), 4)?;
    let x = random::uniform(&keys[0], &[n, 2], DType::F32, -1.0, 1.0)?;
    let labels: Vec<i32> = x.to_f64_vec().chunks(2).map(|r| i32::from(r[0] * r[1] > 0.0)).collect();
    let y = ferrax::eval(|l: Tensor| one_hot(&l, 2, DType::F32), &Array::from(labels))?;
    let mut params = Vec::new();
    for (k, &(fan_in, fan_out)) in [(2usize, 32usize), (32, 32), (32, 2)].iter().enumerate() {
        let scale = (2.0 / (fan_in + fan_out) as f64).sqrt();
        let w = ferrax::eval(|k: Tensor| random::normal(&k, &[fan_in, fan_out], DType::F32) * scale, &keys[k + 1])?;
        params.push(w);
        params.push(Array::zeros(DType::F32, &[fan_out], &Default::default())?);
    }
    Ok(Problem { x, y, params })
}

/// What a worker reports: the mean loss of each epoch and the final parameters'
/// values, flattened (the same on every worker).
type Curve = (Vec<f64>, Vec<f64>);

/// One worker's training loop on `comm`: `epochs` passes over `n` points in global
/// batches of `batch`, this worker taking rows `rank·batch/N ..` of each.
fn train(comm: &dyn Communicator, epochs: usize, zero: bool, quiet: bool) -> Result<Curve, Box<dyn std::error::Error>> {
    // 120 divides among 1, 2, 3, 4, 5 or 6 workers.
    let (n, batch) = (960usize, 120usize);
    let workers = comm.size();
    if batch % workers != 0 {
        return Err(format!("{workers} workers do not divide the global batch of {batch}").into());
    }
    let shard = batch / workers;
    let Problem { x, y, mut params } = problem(n)?;
    let adam = Adam::new(0.01);
    let sharding = Zero1::new("i", workers);
    // ZeRO-1: the state of this worker's blocks only.
    let mut state = if zero { adam.init(&sharding.shards(&params)?)? } else { adam.init(&params)? };
    type Args = (Vec<Tensor>, AdamState<Vec<Tensor>, Tensor>, Tensor, Tensor);
    let step_fn = |(p, s, x, y): Args| {
        let value = lax::pmean(&loss(&p, &x, &y), &["i"]);
        let g = grad(|p: Vec<Tensor>| loss(&p, &x, &y)).apply(&p);
        // The data-parallel part: every worker gets the mean of the workers' gradients.
        let g: Vec<Tensor> = g.iter().map(|g| lax::pmean(g, &["i"])).collect();
        let (p, s) = adam.update(&g, &s, &p);
        (value, p, s)
    };
    let zero_step_fn = |(p, s, x, y): Args| {
        let value = lax::pmean(&loss(&p, &x, &y), &["i"]);
        let g = grad(|p: Vec<Tensor>| loss(&p, &x, &y)).apply(&p);
        let g: Vec<Tensor> = g.iter().map(|g| sharding.scatter_mean(g)).collect();
        let mine: Vec<Tensor> = p.iter().map(|p| sharding.take_shard(p)).collect();
        let (updated, s) = adam.update(&g, &s, &mine);
        let p: Vec<Tensor> = updated.iter().zip(&p).map(|(u, like)| sharding.gather(u, like)).collect();
        (value, p, s)
    };
    let rows = |b: usize| {
        let start = b * batch + comm.rank() * shard;
        s(start as i64..(start + shard) as i64)
    };
    let shard_of = |a: &Array, b: usize| ferrax::eval(|t: Tensor| t.slice(&[rows(b)]), a);
    let example = (params.clone(), state.clone(), shard_of(&x, 0)?, shard_of(&y, 0)?);
    let step = if zero {
        ferrax::pmap(zero_step_fn, "i").lower(&example, workers)?
    } else {
        ferrax::pmap(step_fn, "i").lower(&example, workers)?
    };
    let mut curve = Vec::with_capacity(epochs);
    if comm.rank() == 0 && !quiet {
        let kept: u64 = [&state.mu, &state.nu].iter().flat_map(|t| t.iter()).map(Array::byte_len).sum();
        let how = if zero { "sharded (ZeRO-1)" } else { "replicated" };
        println!(
            "{workers} worker(s), global batch {batch}, {shard} rows each; Adam state {how}: {kept} bytes per worker"
        );
        println!("the step's cost report:\n{}", step.cost_report()?);
        println!("epoch   mean loss");
    }
    for epoch in 0..epochs {
        let mut total = 0.0;
        for b in 0..n / batch {
            let (value, p, s) = step.call_on(comm, &(params, state, shard_of(&x, b)?, shard_of(&y, b)?))?;
            (params, state) = (p, s);
            total += value.to_f64_vec()[0];
        }
        // Every worker must hold the same parameters: a hash of their bits, agreed on.
        let hash = params
            .iter()
            .flat_map(|p| p.to_f64_vec())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, v| (h ^ v.to_bits()).wrapping_mul(0x100_0000_01b3));
        comm.agree(&format!("the parameters after epoch {epoch}"), hash)?;
        let mean = total / (n / batch) as f64;
        if comm.rank() == 0 && !quiet {
            println!("{epoch:>5} {mean:>11.4}");
        }
        curve.push(mean);
    }
    Ok((curve, params.iter().flat_map(Array::to_f64_vec).collect()))
}

/// `data_parallel [--workers N] [--epochs E] [--zero] [--quiet]`: N threads (default
/// 2), or the MPI job's processes when started by `mpirun` (built with `--features mpi`).
pub fn main_with(args: &[String]) -> Result<Curve, Box<dyn std::error::Error>> {
    let (mut workers, mut epochs, mut zero, mut quiet) = (2usize, 20usize, false, false);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut number = |flag: &str| -> Result<usize, String> {
            let v = rest.next().ok_or(format!("{flag} needs a number"))?;
            v.parse().map_err(|_| format!("{flag}: `{v}` is not a number"))
        };
        match arg.as_str() {
            "--workers" => workers = number("--workers")?,
            "--epochs" => epochs = number("--epochs")?,
            "--zero" => zero = true,
            "--quiet" => quiet = true,
            other => return Err(format!("data_parallel: unknown argument {other:?}").into()),
        }
    }
    #[cfg(feature = "mpi")]
    if std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() || std::env::var_os("PMI_SIZE").is_some() {
        let worker = ferrax::dist::MpiWorker::init(std::time::Duration::from_secs(120)).ok_or("MPI is initialised")?;
        // A failed rank must end the job (the others cannot be told otherwise).
        match train(&worker, epochs, zero, quiet) {
            Ok(curve) => return Ok(curve),
            Err(e) => worker.fail(&e.to_string()),
        }
    }
    if workers == 0 || epochs == 0 {
        return Err("--workers and --epochs must be at least 1".into());
    }
    let group = ferrax::dist::ThreadGroup::new(workers, std::time::Duration::from_secs(120));
    let mut curves = group.run(|w| train(w, epochs, zero, quiet).map_err(|e| e.to_string()));
    let first = curves.remove(0)?;
    if let Some(e) = curves.into_iter().find_map(Result::err) {
        return Err(e.into());
    }
    let (start, end) = (first.0[0], first.0[first.0.len() - 1]);
    // A full run (the default 20 epochs) must train; a short one may not have yet.
    if epochs >= 10 && end > 0.5 * start {
        return Err(format!("the loss did not fall: {start} -> {end}").into());
    }
    Ok(first)
}

/// Runs the example with the command line's arguments (the test suite calls
/// `main_with` instead, which leaves this unused there).
#[allow(dead_code)]
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    main_with(&std::env::args().skip(1).collect::<Vec<_>>()).map(drop)
}
