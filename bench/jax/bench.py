"""The JAX side of ferrax's benchmark harness: the workloads W1-W10 and W12 of README.md's Benchmarks section.

Same shapes, dtypes, inputs (the .npy files `ferrax-bench gen --data DIR` wrote),
argument and result order, call counts and output format as `ferrax-bench run`:
one `workload<TAB>metric<TAB>value<TAB>unit` line per figure on stdout, notes on
stderr.

  python bench/jax/bench.py --data DIR [--only W1,W3|NAME,...] [--rounds N]
                            [--calls N] [--write-outputs]

Figures:
  compile      ms, median over --rounds of `jax.jit(f).lower(*args).compile()` wall
               time, a fresh function object each round (no trace cache hit); the
               persistent compilation cache is off.
  first_call   ms, the first call of a fresh `jax.jit(f)` (trace, compile, one run).
  call_*       us, median/quartiles (p25, p75)/min/max of `compiled(*args)` + `block_until_ready`, each call
               timed on its own after calls/10 (at least 3) warm-up calls.
  peak_bytes   bytes, `compiled.memory_analysis()` temp + argument bytes (the
               memory target); the parts as temp_bytes, arg_bytes,
               result_bytes, and total_bytes = temp + argument + result (ferrax's
               peak_bytes is argument + workspace, its total_bytes adds the results).

--write-outputs saves each workload's results as DIR/jax_out/<workload>_<i>.npy: the
reference of ferrax-bench's correctness gate.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# W11 runs in a child process of its own (see `run_w11`): 2 host devices, one thread
# each, which must be set before jax is imported and would change every other
# workload's threads.
W11_CHILD = os.environ.get("FERRAX_BENCH_W11") == "1"
if W11_CHILD:
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "")
        + " --xla_force_host_platform_device_count=2 --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    )

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg  # noqa: E402
import jax.scipy.sparse.linalg  # noqa: E402
import numpy as np  # noqa: E402

# W2 is f64; every other workload's arrays stay f32 (checked in `load`).
jax.config.update("jax_enable_x64", True)
# No persistent compilation cache: every compile below is a real one.
jax.config.update("jax_enable_compilation_cache", False)
jax.config.update("jax_compilation_cache_dir", None)


# --- the workloads: functions of the flat argument list returning a tuple ---


def mlp_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1 = jnp.tanh(x @ w1 + b1)
    h2 = jnp.tanh(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits, axis=-1), axis=-1))


def mlp_grad():
    def f(x, y, *params):
        value, grads = jax.value_and_grad(mlp_loss)(tuple(params), x, y)
        return (value, *grads)

    return f


def mlp_grad_bf16():
    # f32 master parameters, bf16 compute, the loss returned in f32 (jmp's policy
    # "params=f32,compute=bf16,output=f32"); the gradients come back in f32.
    def f(x, y, *params):
        def loss(params):
            p = tuple(q.astype(jnp.bfloat16) for q in params)
            return mlp_loss(p, x.astype(jnp.bfloat16), y.astype(jnp.bfloat16)).astype(jnp.float32)

        value, grads = jax.value_and_grad(loss)(tuple(params))
        return (value, *grads)

    return f


def layer_norm(x, scale, bias):
    # flax's LayerNorm (epsilon 1e-6) with the variance as the mean of squared
    # deviations, as ferrax computes it.
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-6) * scale + bias


def decoder_block(params, x):
    # W9: one pre-LayerNorm decoder block, causal self-attention of 4 heads and an MLP
    # with tanh-GELU, as flax's MultiHeadDotProductAttention and Dense would compute it.
    # The key projection has no bias (its gradient would be zero up to rounding).
    ln1_s, ln1_b, wq, bq, wk, wv, bv, wo, bo, ln2_s, ln2_b, w1, b1, w2, b2 = params
    batch, length, d = x.shape
    heads = 4
    head_dim = d // heads
    h = layer_norm(x, ln1_s, ln1_b)

    def split(t):
        return t.reshape(batch, length, heads, head_dim)

    q = split(h @ wq + bq) / jnp.sqrt(head_dim).astype(x.dtype)
    k = split(h @ wk)
    v = split(h @ wv + bv)
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k)
    mask = jnp.tril(jnp.ones((length, length), dtype=bool))
    logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
    weights = jax.nn.softmax(logits, axis=-1)
    attended = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(batch, length, d)
    h = x + attended @ wo + bo
    hidden = jax.nn.gelu(layer_norm(h, ln2_s, ln2_b) @ w1 + b1, approximate=True)
    return h + hidden @ w2 + b2


def transformer_grad():
    def loss(params, x, y):
        return jnp.mean(jnp.square(decoder_block(params, x) - y))

    def f(x, y, *params):
        value, grads = jax.value_and_grad(loss)(tuple(params), x, y)
        return (value, *grads)

    return f


def linalg_grad():
    # W10: log det A + bᵀA⁻¹b summed over the batch, through the Cholesky factor.
    def loss(a, b):
        l = jnp.linalg.cholesky(a)
        logdet = 2.0 * jnp.sum(jnp.log(jnp.diagonal(l, axis1=-2, axis2=-1)))
        y = jax.scipy.linalg.solve_triangular(l, b[..., None], lower=True)[..., 0]
        return logdet + jnp.sum(y * y)

    def f(a, b):
        value, (ga, gb) = jax.value_and_grad(loss, argnums=(0, 1))(a, b)
        return (value, ga, gb)

    return f


def onehot_xent_grad():
    # W12: the one-hot targets built in the program from integer labels
    # (jax.nn.one_hot: labels == arange(classes)), fused into the loss's kernels.
    def loss(logits, labels):
        y = jax.nn.one_hot(labels, logits.shape[1], dtype=logits.dtype)
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=1))

    def f(logits, labels):
        value, g = jax.value_and_grad(loss)(logits, labels)
        return value, g

    return f


def vmap_hvp():
    # W12, second kernel shape: per-example Hessian-vector products of a small function
    # of 10 elements under vmap (a middle-axis reduction with a narrow innermost axis).
    def f(x):
        return jnp.sum(jnp.sin(x)[:, None] * jnp.cos(x)[None, :])

    def hvp(x, v):
        return jax.jvp(jax.grad(f), (x,), (v,))[1]

    def g(xs, vs):
        return (jax.vmap(hvp)(xs, vs),)

    return g


def linalg_cg_grad():
    # W10, second half: |x|² for A·x = b by exactly 50 CG iterations (tol = atol = 0),
    # per matrix of the batch; jax.scipy.sparse.linalg.cg differentiates implicitly
    # (custom_linear_solve), so the gradient costs one more 50-iteration solve.
    def one(a, b):
        x, _ = jax.scipy.sparse.linalg.cg(lambda v: a @ v, b, tol=0.0, atol=0.0, maxiter=50)
        return jnp.sum(x * x)

    def loss(a, b):
        return jnp.sum(jax.vmap(one)(a, b))

    def f(a, b):
        value, (ga, gb) = jax.value_and_grad(loss, argnums=(0, 1))(a, b)
        return (value, ga, gb)

    return f


def cnn_loss(params, x, y):
    # W8: conv3x3(32, SAME)-relu-maxpool2-conv3x3(64, SAME)-relu-maxpool2-dense(10), NHWC.
    w1, b1, w2, b2, w3, b3 = params
    dn = ("NHWC", "HWIO", "NHWC")

    def block(h, w, b):
        h = jax.lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=dn) + b
        h = jax.nn.relu(h)
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    h = block(block(x, w1, b1), w2, b2)
    logits = h.reshape(h.shape[0], -1) @ w3 + b3
    return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits, axis=-1), axis=-1))


def cnn_grad():
    def f(x, y, *params):
        value, grads = jax.value_and_grad(cnn_loss)(tuple(params), x, y)
        return (value, *grads)

    return f


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_grad():
    return lambda x: (jax.grad(rosenbrock)(x),)


def hvp_rosenbrock():
    return lambda x, v: (jax.jvp(jax.grad(rosenbrock), (x,), (v,))[1],)


def chain(a, b, c):
    return jnp.sum(jnp.tanh(a * b + c) * jnp.exp(-a) / (1.0 + b * b))


def elementwise_chain():
    return lambda a, b, c: (chain(a, b, c),)


def elementwise_chain_grad():
    def f(a, b, c):
        value, grads = jax.value_and_grad(chain, argnums=(0, 1, 2))(a, b, c)
        return (value, *grads)

    return f


def per_sample_loss(params, x, y):
    w1, b1, w2, b2 = params
    hidden = jnp.tanh(x @ w1 + b1)
    prediction = hidden @ w2 + b2
    return jnp.sum((prediction - y) ** 2)


def per_sample_grads():
    def f(w1, b1, w2, b2, x, y):
        grads = jax.vmap(jax.grad(per_sample_loss), in_axes=(None, 0, 0))((w1, b1, w2, b2), x, y)
        return tuple(grads)

    return f


def dispatch():
    return lambda x: (x * 2.0 + 1.0,)


def deep(x, ws):
    h = x
    for w in ws:
        h = jnp.tanh(h @ w)
    return jnp.sum(h)


def compile_latency_grad():
    return lambda x, *ws: (jax.grad(deep)(x, ws),)


def compile_latency_hvp():
    return lambda x, v, *ws: (jax.jvp(lambda x: jax.grad(deep)(x, ws), (x,), (v,))[1],)


MLP = ["mlp_x", "mlp_y", "mlp_w1", "mlp_b1", "mlp_w2", "mlp_b2", "mlp_w3", "mlp_b3"]
CHAIN = ["chain_a", "chain_b", "chain_c"]
TRANSFORMER = ["tf_x", "tf_y"] + [
    "tf_" + n
    for n in [
        "ln1_scale", "ln1_bias", "wq", "bq", "wk", "wv", "bv", "wo", "bo",
        "ln2_scale", "ln2_bias", "w1", "b1", "w2", "b2",
    ]
]
PER_SAMPLE = ["ps_w1", "ps_b1", "ps_w2", "ps_b2", "ps_x", "ps_y"]
CNN = ["cnn_x", "cnn_y", "cnn_w1", "cnn_b1", "cnn_w2", "cnn_b2", "cnn_w3", "cnn_b3"]

# (name, id, make function, input stems ("*" splits a stacked file), timed calls, dtype)
# The call counts are ferrax-bench's (bench/src/w*.rs); keep them equal.
WORKLOADS = [
    ("mlp_grad", "W1", mlp_grad, MLP, 100, np.float32),
    ("rosenbrock_grad", "W2", rosenbrock_grad, ["rosen_x"], 50, np.float64),
    ("hvp_rosenbrock", "W2", hvp_rosenbrock, ["rosen_x", "rosen_v"], 50, np.float64),
    ("elementwise_chain", "W3", elementwise_chain, CHAIN, 30, np.float32),
    ("elementwise_chain_grad", "W3", elementwise_chain_grad, CHAIN, 30, np.float32),
    ("per_sample_grads", "W4", per_sample_grads, PER_SAMPLE, 50, np.float32),
    ("dispatch", "W5", dispatch, ["dispatch_x"], 10_000, np.float32),
    ("compile_latency_grad", "W6", compile_latency_grad, ["deep_x", "*deep_ws"], 1000, np.float32),
    ("compile_latency_hvp", "W6", compile_latency_hvp, ["deep_x", "deep_v", "*deep_ws"], 1000, np.float32),
    ("mlp_grad_bf16", "W7", mlp_grad_bf16, MLP, 100, np.float32),
    ("cnn_grad", "W8", cnn_grad, CNN, 20, np.float32),
    ("transformer_grad", "W9", transformer_grad, TRANSFORMER, 20, np.float32),
    ("linalg_grad", "W10", linalg_grad, ["la_a", "la_b"], 20, np.float64),
    ("linalg_cg_grad", "W10", linalg_cg_grad, ["la_a", "la_b"], 20, np.float64),
    ("onehot_xent_grad", "W12", onehot_xent_grad, ["xent_logits", "xent_labels"], 200, np.float32),
    ("vmap_hvp", "W12", vmap_hvp, ["vhvp_x", "vhvp_v"], 1000, np.float32),
]


def figure(workload, metric, value, unit):
    text = str(int(round(value))) if unit == "bytes" else f"{value:.3f}"
    print(f"{workload}\t{metric}\t{text}\t{unit}", flush=True)


def note(message):
    print(message, file=sys.stderr, flush=True)


def load(data, stems, dtype):
    """The arguments: one array per stem, a `*stem` file split along its first axis."""
    args = []
    for stem in stems:
        split = stem.startswith("*")
        array = np.load(os.path.join(data, stem.lstrip("*") + ".npy"))
        # Integer labels are the one input not of the workload's dtype.
        expected = np.int32 if stem.endswith("_labels") else dtype
        if array.dtype != expected:
            raise SystemExit(f"{stem}.npy is {array.dtype}, expected {np.dtype(expected)}")
        args.extend(list(array) if split else [array])
    return [jax.device_put(a) for a in args]


def block(outputs):
    for o in outputs:
        o.block_until_ready()
    return outputs


def timed_calls(fn, args, warmup, calls):
    for _ in range(warmup):
        block(fn(*args))
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        block(fn(*args))
        times.append(time.perf_counter() - start)
    return times


def run_one(name, make, args, calls, rounds, write_dir, dtype):
    start = time.perf_counter()
    outputs = block(jax.jit(make())(*args))
    first_call = time.perf_counter() - start
    for i, o in enumerate(outputs):
        if o.dtype != dtype:
            raise SystemExit(f"{name}: result {i} is {o.dtype}, expected {np.dtype(dtype)} (a dtype promotion)")
    if write_dir is not None:
        for i, o in enumerate(outputs):
            np.save(os.path.join(write_dir, f"{name}_{i}.npy"), np.asarray(o))

    compiles = []
    compiled = None
    for _ in range(max(rounds, 1)):
        fn = make()  # a fresh function object: no trace or lowering cache hit
        start = time.perf_counter()
        compiled = jax.jit(fn).lower(*args).compile()
        compiles.append(time.perf_counter() - start)
    figure(name, "compile", statistics.median(compiles) * 1e3, "ms")
    figure(name, "first_call", first_call * 1e3, "ms")

    times = timed_calls(compiled, args, max(calls // 10, 3), calls)
    figure(name, "call_median", statistics.median(times) * 1e6, "us")
    q1, q3 = np.percentile(times, [25, 75])
    figure(name, "call_p25", q1 * 1e6, "us")
    figure(name, "call_p75", q3 * 1e6, "us")
    figure(name, "call_min", min(times) * 1e6, "us")
    figure(name, "call_max", max(times) * 1e6, "us")

    memory = compiled.memory_analysis()
    if memory is None:
        note(f"{name}: no memory_analysis() on this backend")
        return
    temp, arg, out = memory.temp_size_in_bytes, memory.argument_size_in_bytes, memory.output_size_in_bytes
    figure(name, "peak_bytes", temp + arg, "bytes")
    figure(name, "total_bytes", temp + arg + out, "bytes")
    figure(name, "temp_bytes", temp, "bytes")
    figure(name, "arg_bytes", arg, "bytes")
    figure(name, "result_bytes", out, "bytes")


def run_w11(data, calls):
    """W11 `data_parallel`: W1's step as `shard_map` over 2 host devices of one thread
    each (`check_vma=False`, the loss and gradients `pmean`ed over the axis), checked
    equal to the 1-device step, and that 1-device step (one thread) timed too."""
    from jax.sharding import NamedSharding, PartitionSpec as P

    x, y, *params = load(data, MLP, np.float32)
    mesh = jax.make_mesh((2,), ("i",))

    def shard_step(x, y, *params):
        value, grads = jax.value_and_grad(mlp_loss)(tuple(params), x, y)
        return (jax.lax.pmean(value, "i"), *[jax.lax.pmean(g, "i") for g in grads])

    specs = (P("i"), P("i")) + (P(),) * len(params)
    two = jax.jit(jax.shard_map(shard_step, mesh=mesh, in_specs=specs, out_specs=(P(),) * 7, check_vma=False))
    sharded = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip([x, y, *params], specs)]
    one = jax.jit(mlp_grad())
    got, want = block(two(*sharded)), block(one(x, y, *params))
    for k, (g, w) in enumerate(zip(got, want)):
        if not np.allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6):
            raise SystemExit(f"data_parallel: result {k} of the 2-device step differs from the 1-device step")
    note("data_parallel: 2-device shard_map step equals the 1-device step")
    for name, fn, args in [("data_parallel", two, sharded), ("data_parallel_1w", one, [x, y, *params])]:
        times = timed_calls(fn, args, max(calls // 10, 3), calls)
        figure(name, "call_median", statistics.median(times) * 1e6, "us")
        q1, q3 = np.percentile(times, [25, 75])
        figure(name, "call_p25", q1 * 1e6, "us")
        figure(name, "call_p75", q3 * 1e6, "us")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int)
    parser.add_argument("--write-outputs", action="store_true")
    options = parser.parse_args()

    wanted = [w.strip() for o in options.only for w in o.split(",") if w.strip()]
    is_w11 = lambda w: w.lower() in ("w11", "data_parallel")  # noqa: E731
    w11 = not wanted or any(is_w11(w) for w in wanted)
    if W11_CHILD:
        run_w11(options.data, options.calls or 100)
        return
    wanted = [w for w in wanted if not is_w11(w)] if wanted else []
    known = {n for n, *_ in WORKLOADS} | {i.lower() for _, i, *_ in WORKLOADS}
    for w in wanted:
        if w not in known and w.lower() not in known:
            raise SystemExit(f"--only: no workload `{w}`")
    write_dir = None
    if options.write_outputs:
        write_dir = os.path.join(options.data, "jax_out")
        os.makedirs(write_dir, exist_ok=True)
    note(f"jax {jax.__version__} on {jax.devices()[0].platform}, {os.cpu_count()} CPUs")
    only_w11 = bool(options.only) and not wanted
    for name, wid, make, stems, calls, dtype in WORKLOADS:
        if only_w11 or (wanted and name not in wanted and wid.lower() not in [w.lower() for w in wanted]):
            continue
        args = load(options.data, stems, dtype)
        run_one(name, make, args, options.calls or calls, options.rounds, write_dir, dtype)
    if w11:
        child = [sys.executable, os.path.abspath(__file__), "--data", options.data, "--only", "W11"]
        child += ["--calls", str(options.calls)] if options.calls else []
        code = subprocess.run(child, env={**os.environ, "FERRAX_BENCH_W11": "1"}).returncode
        if code != 0:
            raise SystemExit(f"data_parallel: the W11 process exited with {code}")


if __name__ == "__main__":
    main()
