"""Draws bench/compare's ratios as horizontal bars on a log scale (run in bench/.venv).

  python plot_ratios.py OUT.png TITLE_NOTE < rows.json

rows.json: a list of {"label", "ratio", "target"}; a bar is green where the ratio meets
its target (ferrax / JAX at most the target), red where not, grey without a target;
each target is a black tick on its bar's row, and 1.0 (parity) a dashed line.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, note = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
    rows = json.load(sys.stdin)
    if not rows:
        raise SystemExit("no ratios to draw")
    labels = [r["label"] for r in rows]
    ratios = [r["ratio"] for r in rows]
    colors = [
        "#999999" if r["target"] is None else ("#2e8b57" if r["ratio"] <= r["target"] else "#c0392b") for r in rows
    ]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.5))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, ratios, color=colors, height=0.6)
    for yi, r in zip(y, rows):
        if r["target"] is not None:
            ax.plot([r["target"], r["target"]], [yi - 0.4, yi + 0.4], color="black", linewidth=2)
        ax.text(r["ratio"], yi, f" {r['ratio']:.3g}", va="center", fontsize=8)
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_xlabel("ferrax / JAX (log scale; lower is better; black ticks: targets)")
    ax.set_title(f"ferrax vs JAX, the README benchmark workloads ({note})", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
