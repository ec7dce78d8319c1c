//! A small character-level transformer decoder that learns to add.
//!
//! The data is generated: every problem `a+b=c` with `a`, `b` in `0..100`, written as
//! characters and closed by `$` (`12+7=19$`), padded with `.` to 10 characters. A
//! random 90% trains, the rest is held out. The model is a decoder as GPT writes it:
//! token and position embeddings, pre-LayerNorm blocks (causal multi-head attention,
//! then a tanh-GELU MLP, each added to the residual stream), a final LayerNorm and a
//! linear head, all from `ferrax::nn`. The block is a user-defined [`Layer`] whose
//! parameters are a `#[derive(Tree)]` struct, so `value_and_grad`, Adam and `jit` take
//! the whole model's parameters as one tree.
//!
//! Training predicts every next character but counts only the answer's (after `=`,
//! up to and including `$`) in the loss: the question is not predictable. One step,
//! loss, gradient and the Adam update, is one compiled function. After training the
//! model answers the held-out questions greedily (the most likely character, one at a
//! time, until `$`), and the example reports the exact-match accuracy.
//!
//!     cargo run --release --example transformer [-- --small]

use ferrax::nn::{
    Context, Embedding, EmbeddingParams, Layer, LayerNorm, LayerNormParams, Linear, LinearParams, MultiHeadAttention,
    MultiHeadAttentionParams, gelu, log_softmax,
};
use ferrax::optim::{Adam, AdamState};
use ferrax::{Array, DType, Tensor, Tree, iota, jit, random, value_and_grad};

/// The characters: digits, the two operators, `$` (end of answer) and `.` (padding).
const VOCAB: &[u8] = b"0123456789+=$.";
/// Characters per problem, padding included: `99+99=198$` is the longest.
const LEN: usize = 10;

/// The sizes of a run.
#[derive(Clone, Copy, Debug)]
struct Config {
    d_model: usize,
    heads: usize,
    blocks: usize,
    batch: usize,
    epochs: usize,
    lr: f64,
    /// The exact-match accuracy on held-out problems the run must reach.
    min_accuracy: f64,
}

const FULL: Config = Config { d_model: 64, heads: 4, blocks: 2, batch: 128, epochs: 8, lr: 3e-3, min_accuracy: 0.8 };
/// For the test suite: a few steps of a smaller model; only the loss must fall.
const SMALL: Config = Config { d_model: 32, heads: 2, blocks: 1, batch: 64, epochs: 1, lr: 1e-2, min_accuracy: 0.0 };

fn token(c: u8) -> i32 {
    VOCAB.iter().position(|&v| v == c).expect("a character of the vocabulary") as i32
}

/// `a+b=c$`, padded to [`LEN`] characters, as tokens.
fn encode(a: u32, b: u32) -> Vec<i32> {
    let mut text = format!("{a}+{b}={}$", a + b).into_bytes();
    text.resize(LEN, b'.');
    text.into_iter().map(token).collect()
}

/// One pre-LayerNorm decoder block.
#[derive(Clone, Copy, Debug)]
struct Block {
    ln: LayerNorm,
    attention: MultiHeadAttention,
    up: Linear,
    down: Linear,
}

/// Its parameters: a tree of the layers' parameter trees.
#[derive(Tree, Clone, Debug)]
struct BlockParams<T> {
    ln1: LayerNormParams<T>,
    attention: MultiHeadAttentionParams<T>,
    ln2: LayerNormParams<T>,
    up: LinearParams<T>,
    down: LinearParams<T>,
}

impl Block {
    fn new(d: usize, heads: usize) -> Block {
        Block {
            ln: LayerNorm::new(d),
            attention: MultiHeadAttention::new(d, heads).with_causal(true),
            up: Linear::new(d, 4 * d),
            down: Linear::new(4 * d, d),
        }
    }
}

impl Layer for Block {
    type Params<T: Tree<T>> = BlockParams<T>;

    fn init_traced(&self, key: &Tensor) -> BlockParams<Tensor> {
        let [a, u, d] = random::split_into(key);
        BlockParams {
            ln1: self.ln.init_traced(key),
            attention: self.attention.init_traced(&a),
            ln2: self.ln.init_traced(key),
            up: self.up.init_traced(&u),
            down: self.down.init_traced(&d),
        }
    }

    fn forward(&self, p: &BlockParams<Tensor>, x: &Tensor, _: &mut Context) -> Tensor {
        let h = x + self.attention.apply(&p.attention, &self.ln.apply(&p.ln1, x), None);
        let hidden = gelu(&self.up.apply(&p.up, &self.ln.apply(&p.ln2, &h)), true);
        &h + self.down.apply(&p.down, &hidden)
    }
}

/// The decoder: embeddings, blocks, final LayerNorm, head.
struct Decoder {
    tokens: Embedding,
    positions: Embedding,
    blocks: Vec<Block>,
    ln: LayerNorm,
    head: Linear,
}

#[derive(Tree, Clone, Debug)]
struct DecoderParams<T> {
    tokens: EmbeddingParams<T>,
    positions: EmbeddingParams<T>,
    blocks: Vec<BlockParams<T>>,
    ln: LayerNormParams<T>,
    head: LinearParams<T>,
}

impl Decoder {
    fn new(c: &Config) -> Decoder {
        Decoder {
            tokens: Embedding::new(VOCAB.len(), c.d_model),
            positions: Embedding::new(LEN - 1, c.d_model),
            blocks: vec![Block::new(c.d_model, c.heads); c.blocks],
            ln: LayerNorm::new(c.d_model),
            head: Linear::new(c.d_model, VOCAB.len()),
        }
    }

    /// Next-character logits `(batch, LEN - 1, vocab)` for the tokens `(batch, LEN - 1)`.
    fn logits(&self, p: &DecoderParams<Tensor>, ids: &Tensor) -> Tensor {
        let positions = iota(DType::I32, &[ids.shape()[1]], 0);
        let x = self.tokens.apply(&p.tokens, ids) + self.positions.apply(&p.positions, &positions);
        let x = self.blocks.forward(&p.blocks, &x, &mut Context::eval());
        self.head.apply(&p.head, &self.ln.apply(&p.ln, &x))
    }

    /// The mean cross-entropy of the characters where `weights` is 1.
    fn loss(&self, p: &DecoderParams<Tensor>, ids: &Tensor, targets: &Tensor, weights: &Tensor) -> Tensor {
        let log_p = log_softmax(&self.logits(p, ids), 2);
        let picked = log_p.take_along_axis(2, &targets.expand_dims(2)).squeeze(2);
        -(picked * weights).sum_all() / weights.sum_all()
    }
}

/// The decoder is a layer from token ids to next-character logits, so `init` draws
/// its whole parameter tree from one key.
impl Layer for Decoder {
    type Params<T: Tree<T>> = DecoderParams<T>;

    fn init_traced(&self, key: &Tensor) -> DecoderParams<Tensor> {
        let [t, p, b, h] = random::split_into(key);
        DecoderParams {
            tokens: self.tokens.init_traced(&t),
            positions: self.positions.init_traced(&p),
            blocks: self.blocks.init_traced(&b),
            ln: self.ln.init_traced(key),
            head: self.head.init_traced(&h),
        }
    }

    fn forward(&self, p: &DecoderParams<Tensor>, ids: &Tensor, _: &mut Context) -> Tensor {
        self.logits(p, ids)
    }
}

/// Problems as model inputs: tokens without the last character, targets without the
/// first, and weights marking the answer's characters.
fn batch_arrays(problems: &[(u32, u32)]) -> Result<(Array, Array, Array), ferrax::Error> {
    let (mut ids, mut targets, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for &(a, b) in problems {
        let tokens = encode(a, b);
        let equals = tokens.iter().position(|&t| t == token(b'=')).unwrap_or(0);
        let end = tokens.iter().position(|&t| t == token(b'$')).unwrap_or(LEN - 1);
        ids.extend_from_slice(&tokens[..LEN - 1]);
        targets.extend_from_slice(&tokens[1..]);
        // Target i is character i + 1: the answer's characters are equals+1..=end.
        weights.extend((0..LEN - 1).map(|i| if i + 1 > equals && i < end { 1.0f32 } else { 0.0 }));
    }
    let shape = [problems.len(), LEN - 1];
    Ok((Array::from_i32(&shape, ids)?, Array::from_i32(&shape, targets)?, Array::from_f32(&shape, weights)?))
}

/// A deterministic shuffle (SplitMix64), so the split and the batches do not depend
/// on the PRNG of the model.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        items.swap(i, (next() % (i as u64 + 1)) as usize);
    }
}

type Params = DecoderParams<Tensor>;
type State = AdamState<Params, Tensor>;

/// Runs the example (`--small`: the test suite's quick run).
pub fn main_with(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let config = if args.iter().any(|a| a == "--small") { SMALL } else { FULL };
    let mut problems: Vec<(u32, u32)> = (0..100).flat_map(|a| (0..100).map(move |b| (a, b))).collect();
    shuffle(&mut problems, 7);
    let (held_out, train) = problems.split_at(problems.len() / 10);
    let steps_per_epoch = train.len() / config.batch;
    let steps = match args.iter().any(|a| a == "--small") {
        true => 60,
        false => config.epochs * steps_per_epoch,
    };

    let model = Decoder::new(&config);
    let params = model.init(&random::key(0))?;
    let adam = Adam::new(config.lr);
    let mut state = adam.init(&params)?;
    let mut params = params;
    let step = jit(|(p, s, ids, targets, weights): (Params, State, Tensor, Tensor, Tensor)| {
        let (value, g) = value_and_grad(|p: Params| model.loss(&p, &ids, &targets, &weights)).apply(&p);
        let (p, s) = adam.update(&g, &s, &p);
        (value, p, s)
    });

    let bar = indicatif::ProgressBar::new(steps as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} steps, loss {msg}").map_err(|e| e.to_string())?,
    );
    bar.suspend(|| println!("epoch   mean loss"));
    let started = std::time::Instant::now();
    let mut losses = Vec::with_capacity(steps);
    let mut order = train.to_vec();
    let (mut done, mut epoch) = (0, 0);
    while done < steps {
        shuffle(&mut order, 100 + epoch as u64);
        let (mut total, mut count) = (0.0, 0);
        for chunk in order.chunks_exact(config.batch).take(steps - done) {
            let (ids, targets, weights) = batch_arrays(chunk)?;
            let (value, p, s) = step.call(&(params, state, ids, targets, weights))?;
            (params, state) = (p, s);
            let value = value.to_f64_vec()[0];
            losses.push(value);
            total += value;
            count += 1;
            bar.set_message(format!("{value:.4}"));
            bar.inc(1);
        }
        done += count;
        let mean = total / count.max(1) as f64;
        bar.suspend(|| println!("{epoch:>5} {mean:>11.4}"));
        epoch += 1;
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    println!("{steps} steps in {seconds:.1} s ({:.1} ms per step)", 1e3 * seconds / steps as f64);

    let accuracy = evaluate(&model, &params, held_out)?;
    println!("exact match on {} held-out problems: {:.1}%", held_out.len(), 100.0 * accuracy);
    // The mean of the first and of the last ten steps.
    let ten = losses.len().min(10);
    let first = losses[..ten].iter().sum::<f64>() / ten.max(1) as f64;
    let last = losses[losses.len() - ten..].iter().sum::<f64>() / ten.max(1) as f64;
    if last.is_nan() || last > 0.7 * first {
        return Err(format!("the loss did not fall: {first} -> {last}").into());
    }
    if accuracy < config.min_accuracy {
        return Err(format!("held-out accuracy {accuracy} below {}", config.min_accuracy).into());
    }
    Ok(())
}

/// Greedy answers to the held-out questions: one compiled forward pass per position,
/// all problems at once (the decoder is causal, so the padding after the position
/// being written changes nothing before it). The exact-match rate.
fn evaluate(model: &Decoder, params: &DecoderParams<Array>, problems: &[(u32, u32)]) -> Result<f64, ferrax::Error> {
    let forward = jit(|(p, ids): (Params, Tensor)| model.logits(&p, &ids).argmax(2));
    let n = problems.len();
    // The whole problem's length: the model reads the first LEN - 1 characters and
    // its prediction at the last of them is the LEN-th.
    let mut buffers: Vec<Vec<i32>> = problems
        .iter()
        .map(|&(a, b)| {
            let mut prompt: Vec<i32> = format!("{a}+{b}=").bytes().map(token).collect();
            prompt.resize(LEN, token(b'.'));
            prompt
        })
        .collect();
    let prompt_len: Vec<usize> = problems.iter().map(|&(a, b)| format!("{a}+{b}=").len()).collect();
    let mut finished = vec![false; n];
    for t in 0..LEN - 1 {
        let ids: Vec<i32> = buffers.iter().flat_map(|b| b[..LEN - 1].iter().copied()).collect();
        let ids = Array::from_i32(&[n, LEN - 1], ids)?;
        let next = forward.call(&(params.clone(), ids))?;
        let next = next.as_i32().unwrap_or_default();
        for (r, buffer) in buffers.iter_mut().enumerate() {
            if finished[r] || t + 1 < prompt_len[r] {
                continue;
            }
            let c = next[r * (LEN - 1) + t];
            buffer[t + 1] = c;
            finished[r] = c == token(b'$');
        }
    }
    let correct = problems
        .iter()
        .zip(&buffers)
        .filter(|&(&(a, b), buffer)| {
            let expected: Vec<i32> = format!("{}$", a + b).bytes().map(token).collect();
            let start = format!("{a}+{b}=").len();
            buffer.get(start..start + expected.len()) == Some(&expected[..])
        })
        .count();
    Ok(correct as f64 / n as f64)
}

/// Runs the full example.
#[allow(dead_code)]
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    main_with(&std::env::args().skip(1).collect::<Vec<_>>())
}
