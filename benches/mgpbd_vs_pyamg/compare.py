"""Same-matrix comparison of our AMG-PCG (`xpbd solve-system`) with SciPy and PyAMG (issue 4).

For each directory holding A.mtx and b.mtx:
  (a) our PCG to 1e-8 against SciPy's sparse direct solve (relative difference of x);
  (b) our UA-AMG against PyAMG configured identically: smoothed_aggregation_solver with
      smooth=None (unsmoothed), symmetric strength theta, standard aggregation, B = constant,
      Jacobi omega = 4/3 / rho(D^-1 A) with 2 pre- and 2 post-sweeps, max_coarse 400, Cholesky
      on the coarsest level, CG acceleration: true relative residual after 100 iterations,
      iterations to 1e-6 and 1e-8, convergence factor, operator complexity, setup and solve time;
  plus plain CG (ours) and direct solves (ours: faer Cholesky; SciPy: SuperLU) as baselines.

    python compare.py --xpbd target/release/xpbd [--check] [--json OUT.json] DIR...

--check asserts the targets: x agrees with SciPy's to 1e-6 relative, and our residual after 100
iterations is at most 1.5x PyAMG's.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyamg
import scipy.io
import scipy.sparse.linalg as spla

THETA, MAX_COARSE, FIXED_ITERS = 0.1, 400, 100


def ours(xpbd, d, method, tol, max_iter, extra=()):
    with tempfile.TemporaryDirectory() as t:
        x_path = Path(t) / "x.mtx"
        cmd = [xpbd, "solve-system", str(d / "A.mtx"), str(d / "b.mtx"), "--method", method, "--tol", str(tol), "--max-iter", str(max_iter)]
        cmd += ["--theta", str(THETA), "--max-coarse", str(MAX_COARSE), "--json", "--out", str(x_path), *extra]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        r["x"] = scipy.io.mmread(x_path).ravel()
        return r


def pyamg_solver(A):
    jacobi = ("jacobi", {"omega": 4.0 / 3.0, "iterations": 2, "withrho": True})
    return pyamg.smoothed_aggregation_solver(
        A,
        B=np.ones((A.shape[0], 1)),
        symmetry="symmetric",
        strength=("symmetric", {"theta": THETA}),
        aggregate="standard",
        smooth=None,
        presmoother=jacobi,
        postsmoother=jacobi,
        improve_candidates=None,
        max_levels=10,
        max_coarse=MAX_COARSE,
        coarse_solver="cholesky",
        keep=False,
    )


def rel_res(A, b, x):
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


def compare(xpbd, d):
    A = scipy.io.mmread(d / "A.mtx").tocsr()
    b = scipy.io.mmread(d / "b.mtx").ravel()
    row = {"system": str(d), "rows": A.shape[0], "nnz": A.nnz}

    t = time.perf_counter()
    x_ref = spla.spsolve(A.tocsc(), b)
    row["scipy_direct_s"] = time.perf_counter() - t

    tight = ours(xpbd, d, "amg-pcg", 1e-8, 5000)
    row["ours_x_vs_scipy"] = float(np.linalg.norm(tight["x"] - x_ref) / np.linalg.norm(x_ref))
    row["ours_iters_1e-8"] = tight["iterations"]
    row["ours_setup_s"], row["ours_solve_1e-8_s"] = tight["setup_s"], tight["solve_s"]
    row["ours_levels"], row["ours_operator_complexity"] = tight["levels"], tight["operator_complexity"]
    fixed = ours(xpbd, d, "amg-pcg", 1e-30, FIXED_ITERS)
    row["ours_res_100"] = rel_res(A, b, fixed["x"])
    row["ours_factor"] = row["ours_res_100"] ** (1.0 / FIXED_ITERS)
    row["ours_iters_1e-6"] = ours(xpbd, d, "amg-pcg", 1e-6, 5000)["iterations"]
    gs = ours(xpbd, d, "amg-pcg", 1e-30, FIXED_ITERS, ("--near-kernel", "gs"))
    row["ours_gs_res_100"] = rel_res(A, b, gs["x"])
    row["ours_gs_setup_s"], row["ours_gs_operator_complexity"] = gs["setup_s"], gs["operator_complexity"]

    t = time.perf_counter()
    ml = pyamg_solver(A)
    row["pyamg_setup_s"] = time.perf_counter() - t
    row["pyamg_levels"], row["pyamg_operator_complexity"] = len(ml.levels), ml.operator_complexity()
    res = []
    x = ml.solve(b, x0=np.zeros_like(b), tol=1e-30, maxiter=FIXED_ITERS, accel="cg", residuals=res)
    row["pyamg_res_100"] = rel_res(A, b, x)
    row["pyamg_factor"] = row["pyamg_res_100"] ** (1.0 / FIXED_ITERS)
    for tol in (1e-6, 1e-8):
        res = []
        t = time.perf_counter()
        ml.solve(b, x0=np.zeros_like(b), tol=tol, maxiter=5000, accel="cg", residuals=res)
        row[f"pyamg_iters_{tol:.0e}"] = len(res) - 1
        if tol == 1e-8:
            row["pyamg_solve_1e-8_s"] = time.perf_counter() - t

    for method in ("cg", "direct"):
        r = ours(xpbd, d, method, 1e-8, 20000)
        row[f"{method}_iters_1e-8"] = r["iterations"]
        row[f"{method}_s"] = r["setup_s"] + r["solve_s"]
        row[f"{method}_res"] = rel_res(A, b, r["x"])
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xpbd", default="target/release/xpbd")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args()
    rows, failures = [], []
    for d in args.dirs:
        row = compare(args.xpbd, d)
        rows.append(row)
        print(json.dumps(row, indent=1))
        if row["ours_x_vs_scipy"] > 1e-6:
            failures.append(f"{d}: PCG to 1e-8 differs from SciPy's direct solve by {row['ours_x_vs_scipy']:.2e} > 1e-6")
        if row["ours_res_100"] > 1.5 * row["pyamg_res_100"]:
            failures.append(f"{d}: residual after 100 iterations {row['ours_res_100']:.2e} > 1.5 x PyAMG's {row['pyamg_res_100']:.2e}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.check and failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
