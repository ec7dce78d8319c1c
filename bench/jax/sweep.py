"""The JAX side of `bench/sweep`: W1-W4 over their sizes, as `ferrax-bench sweep`.

Same programs (bench.py's), sizes and timing: each point is a fresh `jax.jit` of the
workload on inputs drawn for that size, 2 warm-up calls, then the median of as many
calls (each with `block_until_ready`) as fit in about a quarter of a second (at least
3, at most 200). Output: one `scaling<TAB>name/size<TAB>median<TAB>us` line per point.

  python bench/jax/sweep.py [--only W1,W3|NAME,...]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (sets the platform and x64 before jax is used)
import jax  # noqa: E402
import numpy as np  # noqa: E402


def mlp_args(rng, b):
    args = [rng.standard_normal((b, 784)).astype(np.float32), np.eye(10, dtype=np.float32)[rng.integers(0, 10, b)]]
    for fan_in, fan_out in [(784, 512), (512, 512), (512, 10)]:
        args.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32))
        args.append((rng.standard_normal(fan_out) * 0.1).astype(np.float32))
    return args


def chain_args(rng, n):
    return [rng.standard_normal(n).astype(np.float32) for _ in range(3)]


def per_sample_args(rng, b):
    return [
        (rng.standard_normal((100, 256)) * 0.1).astype(np.float32),
        (rng.standard_normal(256) * 0.1).astype(np.float32),
        (rng.standard_normal((256, 1)) / 16.0).astype(np.float32),
        (rng.standard_normal(1) * 0.1).astype(np.float32),
        rng.standard_normal((b, 100)).astype(np.float32),
        rng.standard_normal(b).astype(np.float32),
    ]


# (name, label, sizes, program, arguments): the same as `ferrax_bench::sweep::series`.
SERIES = [
    ("mlp_grad", "W1", [1, 4, 16, 64, 128, 256, 1024], bench.mlp_grad, mlp_args),
    (
        "rosenbrock_grad",
        "W2",
        [10**3, 10**4, 10**5, 10**6, 10**7],
        bench.rosenbrock_grad,
        lambda rng, n: [rng.uniform(-1.5, 1.5, n)],
    ),
    ("elementwise_chain", "W3", [10**k for k in range(3, 9)], bench.elementwise_chain, chain_args),
    ("elementwise_chain_grad", "W3", [10**k for k in range(3, 9)], bench.elementwise_chain_grad, chain_args),
    ("per_sample_grads", "W4", [1, 4, 16, 64, 256, 1024, 4096], bench.per_sample_grads, per_sample_args),
]


def median_call(f, args):
    compiled = jax.jit(f)
    args = [jax.device_put(a) for a in args]
    for _ in range(2):
        jax.block_until_ready(compiled(*args))
    times = []
    started = time.perf_counter()
    while len(times) < 200 and (len(times) < 3 or time.perf_counter() - started < 0.25):
        t = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="workloads (W1,W3 or names)")
    wanted = [w.strip() for w in parser.parse_args().only.split(",") if w.strip()]
    for name, label, sizes, program, make_args in SERIES:
        if wanted and not any(w == name or w.upper() == label for w in wanted):
            continue
        for size in sizes:
            args = make_args(np.random.default_rng(0), size)
            median = median_call(program(), args)
            print(f"scaling\t{name}/{size}\t{median * 1e6:.3f}\tus", flush=True)
            print(f"{name} {size}: {median * 1e6:.1f} us", file=sys.stderr)


if __name__ == "__main__":
    main()
