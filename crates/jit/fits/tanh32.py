#!/usr/bin/env python3
"""The polynomial behind ferrax-jit's f32 `tanh` below its threshold (`TANH32_SMALL` in
crates/jit/src/math/explog.rs).

    (tanh(x) - x)/x^3 ~ c(t),  t = x^2,  |x| <= T = 0.625,  deg c = 5,
    near-minimax in relative error.

The f32 `tanh` is `|x| + |x|·t·c(t)` below T (the correction is at most 13% of the
result, so its rounding errors reach the result scaled down) and `1 - 2/(e^{2|x|} + 1)`
above (the quotient is at most 0.45, so its errors reach the result at most halved), with
the sign put back. Both branches were checked against the correctly rounded tanh on every
f32 in [1e-30, 10]: at most 1 ulp, and 96.8% of the results on [0.01, 10] correctly
rounded (the exhaustive sweep is a one-off C loop; the crate's tests sweep a sample).

Method: weighted least squares on a dense grid (Chebyshev and uniform points of [0, T^2])
with Lawson's reweighting towards equal ripple of the relative error; the best iterate is
kept. Reference values from mpmath at 40 digits. Needs numpy and mpmath (e.g.
`bench/.venv/bin/pip install mpmath`); prints the coefficients highest degree first, as the
Rust constant lists them, and the fit's maximum relative error (4.8e-9 for the defaults).

usage: tanh32.py [T] [deg]
"""

import sys

import mpmath
import numpy as np


def target(t):
    """(tanh(x) - x)/x^3 at t = x^2, to double precision."""
    if t == 0:
        return -1.0 / 3.0
    x = mpmath.sqrt(mpmath.mpf(t))
    return float((mpmath.tanh(x) - x) / x**3)


def fit(big_t, deg, steps=60):
    mpmath.mp.dps = 40
    top = big_t * big_t
    cheb = top * (1 - np.cos(np.linspace(0, np.pi, 4000))) / 2
    t = np.unique(np.concatenate([cheb, np.linspace(0, top, 4000)]))
    f = np.array([target(v) for v in t])
    a = np.vander(t, deg + 1, increasing=True)
    w = np.ones_like(t)
    best = None
    for _ in range(steps):
        weight = w / np.abs(f)
        sol, *_ = np.linalg.lstsq(a * weight[:, None], f * weight, rcond=None)
        err = (a @ sol - f) / f
        worst = np.abs(err).max()
        if best is None or worst < best[0]:
            best = (worst, sol.copy())
        w = w * np.sqrt(np.abs(err)) + 1e-300
        w = w / w.max()
    return best


def main():
    big_t = float(sys.argv[1]) if len(sys.argv) > 1 else 0.625
    deg = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    worst, sol = fit(big_t, deg)
    print(f"T = {big_t}, deg = {deg}: max relative error {worst:.3g}")
    print("c (highest first):", [float(v) for v in reversed(sol)])


if __name__ == "__main__":
    main()
