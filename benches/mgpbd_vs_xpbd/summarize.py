#!/usr/bin/env python3
"""Summarise `xpbd converge` outputs: per scene and solver, the relative dual residual ‖C + α̃λ‖/‖C(x̃)‖
reached at MGPBD's wall time (equal time), the best residual, and the wall time to reach 1e-3.

Usage: summarize.py OUT_DIR...   (each holding converge.csv); prints a Markdown table."""
import csv
import sys
from pathlib import Path


def curves(path):
    out = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            out.setdefault(row["solver"], []).append((float(row["wall_ms"]), float(row["relative_residual"]), int(row["iteration"])))
    return out


def at_time(curve, t):
    """Residual of the last iteration finished by wall time t."""
    best = curve[0][1]
    for w, r, _ in curve:
        if w <= t:
            best = r
    return best


def time_to(curve, target):
    for w, r, _ in curve:
        if r <= target:
            return f"{w:.1f}"
    return "not reached"


print("| scene | solver | iterations | wall ms | residual at MGPBD's time | final residual | ms to 1e-3 |")
print("|---|---|---|---|---|---|---|")
for d in sys.argv[1:]:
    c = curves(Path(d) / "converge.csv")
    t_mg = c["mgpbd"][-1][0]
    for name, curve in c.items():
        w, r, k = curve[-1]
        print(f"| {Path(d).name} | {name} | {k} | {w:.1f} | {at_time(curve, t_mg):.3e} | {r:.3e} | {time_to(curve, 1e-3)} |")
