"""Where the PCG iterations of squash_primal.py's two solvers differ: PCG iterations to a dual relative
residual (default 1e-3) on one exported system, for PyAMG with its defaults changed one at a time
towards our primal-amg's settings, and for ours with its smoother and smoothed levels changed towards
PyAMG's. Iteration counts do not depend on the machine's load (times are printed but are noisy).

    python squash_variants.py [--xpbd X] [--tol 1e-3] DIR
"""

import argparse
import time
from pathlib import Path

import numpy as np
import pyamg

from squash_primal import System, rigid_body_modes, run_ours, solve_checked

JACOBI = ("jacobi", {"omega": 4.0 / 3.0, "withrho": True, "iterations": 2})  # ours: 2 + 2 sweeps
FINEST_ONLY = [("jacobi", {"omega": 4.0 / 3.0})] + [None] * 9  # ours: smoothed_levels = 1
OURS_LIKE = {
    "strength": ("symmetric", {"theta": 0.0}),
    "max_coarse": 400,
    "presmoother": JACOBI,
    "postsmoother": JACOBI,
    "smooth": FINEST_ONLY,
    "improve_candidates": None,
    "coarse_solver": "cholesky",
}
PYAMG_VARIANTS = [
    ("PyAMG defaults", {}),
    ("no improve_candidates", {"improve_candidates": None}),
    ("Jacobi 2+2 smoother", {"presmoother": JACOBI, "postsmoother": JACOBI}),
    ("finest prolongator smoothed only", {"smooth": FINEST_ONLY}),
    ("max_coarse 400", {"max_coarse": 400}),
    ("all of ours' settings", OURS_LIKE),
    ("ours' settings, block GS smoother", dict(OURS_LIKE, presmoother=("block_gauss_seidel", {"sweep": "symmetric"}), postsmoother=("block_gauss_seidel", {"sweep": "symmetric"}))),
    ("ours' settings, all levels smoothed", dict(OURS_LIKE, smooth=("jacobi", {"omega": 4.0 / 3.0}))),
    ("ours' settings, theta 0.1 (our default until θ = 0 was found here)", dict(OURS_LIKE, strength=("symmetric", {"theta": 0.1}))),
]
OURS_VARIANTS = [
    ("ours (MGPBD defaults, theta 0)", {}),
    ("ours, --smoother gs", {"--smoother": "gs"}),
    ("ours, --smoothed-levels 99", {"--smoothed-levels": "99"}),
    ("ours, --smoother gs --smoothed-levels 99", {"--smoother": "gs", "--smoothed-levels": "99"}),
    ("ours, --theta 0.1 (the default until θ = 0 was found here)", {"--theta": "0.1"}),
    ("ours, --theta 0.1 --smoother gs --smoothed-levels 99", {"--theta": "0.1", "--smoother": "gs", "--smoothed-levels": "99"}),
]


def pyamg_iterations(s, K, rhs, B, options, tol):
    t = time.perf_counter()
    ml = pyamg.smoothed_aggregation_solver(K, B=B, **options)
    setup_s = time.perf_counter() - t
    history, _, solve_s = solve_checked(s, ml, K, rhs, tol)
    return len(history), len(ml.levels), ml.operator_complexity(), setup_s, solve_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xpbd", default="target/release/xpbd")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("dir", type=Path)
    args = ap.parse_args()
    s = System(args.dir)
    K, rhs = s.primal()
    B = rigid_body_modes(s.xf)
    print(f"{args.dir}: {K.shape[0]} rows of K; PCG iterations to dual relative residual {args.tol:g}")
    print("| solver | levels | operator complexity | iterations | setup s | solve s (with checks) |")
    print("|---|---|---|---|---|---|")
    for name, options in PYAMG_VARIANTS:
        its, levels, oc, setup_s, solve_s = pyamg_iterations(s, K, rhs, B, options, args.tol)
        print(f"| PyAMG: {name} | {levels} | {oc:.2f} | {its} | {setup_s:.2f} | {solve_s:.2f} |")
    for name, flags in OURS_VARIANTS:
        r = run_ours(args.xpbd, args.dir, args.tol, amg=flags)
        print(f"| {name} | {r['levels']} | {r['operator_complexity']:.2f} | {r['iterations']} | {r['setup_s']:.2f} | {r['solve_s']:.2f} |")


if __name__ == "__main__":
    main()
