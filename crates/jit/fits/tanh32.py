#!/usr/bin/env python3
"""The rational fit behind ferrax-jit's f32 `tanh` (`TANH32_P`, `TANH32_Q` in
crates/jit/src/math/explog.rs).

    tanh(x)/x ~ P(t)/Q(t),  t = x^2,  |x| <= C = 9.5,  P(0) = Q(0) = 1,
    deg P = 5, deg Q = 4, near-minimax in relative error.

Method: Loeb's linearisation (least squares on P - f*Q, weighted by 1/Q of the
previous step) with Lawson's reweighting towards equal ripple, on a dense grid in
the scaled variable s = t/C^2; the best iterate is kept. Reference values from
mpmath at 30 digits. Needs numpy and mpmath (e.g. `bench/.venv/bin/pip install
mpmath`); prints the coefficients highest degree first, as the Rust constants
list them, and the maximum relative error of the fit (2.4e-9 for the defaults).

usage: tanh32.py [C] [deg P] [deg Q]
"""

import sys

import mpmath
import numpy as np


def fit(c, m, n, steps=80):
    mpmath.mp.dps = 30
    big_t = c * c
    x = np.unique(np.concatenate([np.linspace(0, c, 30000), c * np.sin(np.linspace(0, np.pi / 2, 30000))]))
    x = x[x > 0]
    s = x * x / big_t
    f = np.array([float(mpmath.tanh(mpmath.mpf(v)) / mpmath.mpf(v)) for v in x])
    q_prev = np.ones_like(s)
    w = np.ones_like(s)
    best = None
    for _ in range(steps):
        # Unknowns p1..pm, q1..qn: sum p_k s^k - f sum q_k s^k = f - 1.
        a = np.hstack(
            [np.vander(s, m + 1, increasing=True)[:, 1:], -f[:, None] * np.vander(s, n + 1, increasing=True)[:, 1:]]
        )
        weight = w / q_prev / f
        sol, *_ = np.linalg.lstsq(a * weight[:, None], (f - 1) * weight, rcond=None)
        p = np.concatenate([[1.0], sol[:m]])
        q = np.concatenate([[1.0], sol[m:]])
        qv = np.polyval(q[::-1], s)
        err = (np.polyval(p[::-1], s) / qv - f) / f
        worst = np.abs(err).max()
        if best is None or worst < best[0]:
            best = (worst, p.copy(), q.copy(), qv.min())
        q_prev = qv
        w = w * np.sqrt(np.abs(err)) + 1e-300
        w = w / w.max()
    worst, p, q, q_min = best
    # Back from s = t/C^2 to t.
    pt = [p[k] / big_t**k for k in range(m + 1)]
    qt = [q[k] / big_t**k for k in range(n + 1)]
    return worst, pt, qt, q_min


def main():
    c = float(sys.argv[1]) if len(sys.argv) > 1 else 9.5
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    worst, pt, qt, q_min = fit(c, m, n)
    print(f"C = {c}, deg P = {m}, deg Q = {n}: max relative error {worst:.3g}, min Q {q_min:.3g}")
    print("P (highest first):", [float(v) for v in reversed(pt)])
    print("Q (highest first):", [float(v) for v in reversed(qt)])


if __name__ == "__main__":
    main()
