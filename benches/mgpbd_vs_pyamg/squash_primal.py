"""One linear solve of MGPBD's dual system, ours against PyAMG on the same primal matrix (issue 7;
docs/gpu.md, "MGPBD benchmarks").

DIR is `xpbd export-system SCENE --frame F --no-matrix --out DIR`: J.mtx, inv_mass.mtx (one entry per
vertex, 0 for a pinned one), alpha_tilde.mtx, b.mtx, x.mtx. By the Woodbury identity (as our
`PrimalSolver`, crates/xpbd-core/src/mgpbd/primal_solve.rs) the dual system
(J W Jᵀ + α̃) Δλ = b is solved through

    K y = Jᵀ α̃⁻¹ b,   K = M + Jᵀ α̃⁻¹ J   (free coordinates only),   Δλ = α̃⁻¹ (b − J y),

whose dual residual is A Δλ − b = J W (K y − Jᵀ α̃⁻¹ b). Both solvers stop at the first CG iterate
with ‖b − A Δλ‖ ≤ tol ‖b‖.

  ours:  `xpbd solve-system DIR/A.mtx DIR/b.mtx --method primal-amg --matrix-free` with the AMG
         settings of the MGPBD solver's defaults (theta 0, max_coarse 400, one smoothed level,
         Jacobi smoother; crates/xpbd-core/src/mgpbd/settings.rs), all cores and, with
         --single-thread, also RAYON_NUM_THREADS=1;
  PyAMG: K as 3×3-block BSR (one block per free vertex, like ours), smoothed_aggregation_solver
         with the six rigid-body modes of x.mtx's free vertices as B and otherwise PyAMG's defaults,
         CG accelerated (PyAMG's own krylov.cg). The dual residual is checked in a callback every
         iteration (keeping the lowest, as ours); the solve is then timed again without the callback
         for exactly that many iterations, which is the solve time reported (the checks' time is
         in the JSON only).

    python squash_primal.py [--xpbd X] [--tol 1e-3] [--single-thread] [--repeat N] [--row LABEL] [--compare-tol 1e-8 [--check]] DIR

--repeat N runs each setup and solve N times and reports the fastest of each (a loaded machine's
times only err upwards); iterations and residuals do not change between repeats.

--row LABEL prints markdown table rows (ours, [ours 1 thread,] PyAMG; LABEL in the first column) instead
of JSON; --compare-tol T also solves both to T and prints ‖Δλ_PyAMG − Δλ_ours‖ / ‖Δλ_ours‖ and each
one's difference from SciPy's sparse direct solve of K (the same-system check; small systems only);
--check then exits 1 when any two differ by more than AGREE.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyamg
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

MAX_ITER = 1000
# --check: the relative Δλ difference allowed between ours, PyAMG and SciPy's direct solve at
# --compare-tol 1e-8 (measured 2e-12 to 4e-10, docs/gpu.md).
AGREE = 1e-6
# The MGPBD solver's AMG defaults (MgpbdSettings::from_scene), passed explicitly so that the
# comparison does not depend on solve-system's own defaults.
OURS_AMG = {"--theta": "0", "--max-coarse": "400", "--smoothed-levels": "1", "--smoother": "jacobi"}


class Converged(Exception):
    pass


def vector(path):
    """A Matrix Market vector, array or coordinate (b.mtx is written sparse)."""
    v = scipy.io.mmread(path)
    return (v.toarray() if sp.issparse(v) else np.asarray(v)).ravel()


class System:
    """The exported dual system restricted to the free coordinates."""

    def __init__(self, d):
        t = time.perf_counter()
        self.J = scipy.io.mmread(d / "J.mtx").tocsr()
        inv_mass, self.alpha, self.b, x = (vector(d / f) for f in ("inv_mass.mtx", "alpha_tilde.mtx", "b.mtx", "x.mtx"))
        self.read_s = time.perf_counter() - t
        if self.J.shape != (len(self.b), 3 * len(inv_mass)) or len(self.alpha) != len(self.b) or len(x) != self.J.shape[1]:
            sys.exit(f"{d}: J.mtx {self.J.shape}, b.mtx {len(self.b)}, alpha_tilde.mtx {len(self.alpha)}, inv_mass.mtx {len(inv_mass)}, x.mtx {len(x)} do not match")
        if not np.all(self.alpha > 0):
            sys.exit(f"{d}: alpha_tilde.mtx row {np.argmin(self.alpha > 0) + 1}: α̃ ≤ 0 has no primal form")
        self.w = np.repeat(inv_mass, 3)  # W per coordinate (0: pinned)
        self.free = self.w > 0
        self.Jf = self.J if self.free.all() else self.J[:, self.free].tocsr()  # no copy without pins
        self.wf = self.w[self.free]
        self.xf = x.reshape(-1, 3)[inv_mass > 0]

    def primal(self):
        """K (3×3-block BSR) and its right-hand side Jᵀ α̃⁻¹ b."""
        inv_alpha = 1.0 / self.alpha
        K = (sp.diags(1.0 / self.wf) + self.Jf.T @ sp.diags(inv_alpha) @ self.Jf).tobsr(blocksize=(3, 3))
        return K, self.Jf.T @ (inv_alpha * self.b)

    def dlambda(self, y):
        return (self.b - self.Jf @ y) / self.alpha

    def dual_residual(self, dl):
        """‖b − A Δλ‖ / ‖b‖ with A = J W Jᵀ + α̃ applied from J (independent of K)."""
        return float(np.linalg.norm(self.b - self.J @ (self.w * (self.J.T @ dl)) - self.alpha * dl) / np.linalg.norm(self.b))


def rigid_body_modes(p):
    """The six rigid-body modes of points p (n × 3) about their centroid, 3n × 6 (as amg::blocks)."""
    p = p - p.mean(axis=0)
    B = np.zeros((3 * len(p), 6))
    for c in range(3):
        B[c::3, c] = 1
    B[0::3, 3], B[1::3, 3] = -p[:, 1], p[:, 0]  # about z
    B[1::3, 4], B[2::3, 4] = -p[:, 2], p[:, 1]  # about x
    B[0::3, 5], B[2::3, 5] = p[:, 2], -p[:, 0]  # about y
    return B


def solve_checked(s, ml, K, rhs, tol):
    """CG with `ml` from y = 0 until the dual relative residual J W (rhs − K y) / ‖b‖ is ≤ tol (or
    MAX_ITER): its value per iteration, the iterate with the lowest (as ours) and the seconds taken."""
    b_norm, history, best = np.linalg.norm(s.b), [], np.zeros_like(rhs)

    def check(y):
        history.append(np.linalg.norm(s.Jf @ (s.wf * (rhs - K @ y))) / b_norm)
        if history[-1] <= min(history):
            best[:] = y
        if history[-1] <= tol:
            raise Converged

    t = time.perf_counter()
    try:
        ml.solve(rhs, x0=np.zeros_like(rhs), tol=1e-300, maxiter=MAX_ITER, accel="cg", callback=check)
    except Converged:
        pass
    return history, best, time.perf_counter() - t


def run_pyamg(s, tol, repeat=1):
    k_s, setup_s, solve_s = (np.inf,) * 3
    for _ in range(repeat):
        t = time.perf_counter()
        K, rhs = s.primal()
        k_s = min(k_s, time.perf_counter() - t)
        t = time.perf_counter()
        ml = pyamg.smoothed_aggregation_solver(K, B=rigid_body_modes(s.xf))
        setup_s = min(setup_s, time.perf_counter() - t)
    history, best, checked_s = solve_checked(s, ml, K, rhs, tol)
    iterations = len(history)
    for _ in range(repeat):
        t = time.perf_counter()
        ml.solve(rhs, x0=np.zeros_like(rhs), tol=1e-300, maxiter=iterations, accel="cg")
        solve_s = min(solve_s, time.perf_counter() - t)
    dl = s.dlambda(best) if min(history) <= 1 else np.zeros_like(s.b)  # Δλ = 0 is better, as ours
    return {
        "solver": "PyAMG",
        "k_rows": K.shape[0],
        "levels": len(ml.levels),
        "level_rows": [lv.A.shape[0] for lv in ml.levels],
        "operator_complexity": float(ml.operator_complexity()),
        "k_assembly_s": k_s,
        "setup_s": setup_s,
        "iterations": iterations,
        "converged": bool(history[-1] <= tol),
        "solve_s": solve_s,
        "solve_with_checks_s": checked_s,
        "relative_residual": s.dual_residual(dl),
        "dlambda": dl,
    }


def run_ours(xpbd, d, tol, threads=None, repeat=1, amg=None):
    """`xpbd solve-system --method primal-amg` with OURS_AMG, overridden by `amg` (flag: value)."""
    env = dict(os.environ, **({"RAYON_NUM_THREADS": str(threads)} if threads else {}))
    with tempfile.TemporaryDirectory() as t:
        out = Path(t) / "dlambda.mtx"
        cmd = [xpbd, "solve-system", str(d / "A.mtx"), str(d / "b.mtx"), "--method", "primal-amg", "--matrix-free"]
        flags = [a for flag, value in dict(OURS_AMG, **(amg or {})).items() for a in (flag, value)]
        cmd += ["--tol", str(tol), "--max-iter", str(MAX_ITER), *flags, "--json", "--out", str(out)]
        runs = [json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout) for _ in range(repeat)]
        r = dict(runs[0], setup_s=min(q["setup_s"] for q in runs), solve_s=min(q["solve_s"] for q in runs))
        r["dlambda"] = vector(out)
    return {
        "solver": "ours" + (f", {threads} thread" if threads else ""),
        "k_rows": r["level_rows"][0] if r["level_rows"] else 0,
        "levels": r["levels"],
        "level_rows": r["level_rows"],
        "operator_complexity": r["operator_complexity"],
        "k_assembly_s": None,  # filling K is part of setup_s
        "setup_s": r["setup_s"],
        "iterations": r["iterations"],
        "converged": r["converged"],
        "solve_s": r["solve_s"],
        "solve_with_checks_s": r["solve_s"],  # the dual residual is checked every iteration
        "relative_residual": r["relative_residual"],
        "dlambda": r["dlambda"],
    }


def total(r):
    return (r["k_assembly_s"] or 0.0) + r["setup_s"] + r["solve_s"]


def row(label, s, r, base):
    k = "in setup" if r["k_assembly_s"] is None else f"{r['k_assembly_s']:.2f}"
    per_it = 1e3 * r["solve_s"] / max(r["iterations"], 1)
    conv = "" if r["converged"] else " (not converged)"
    return (
        f"| {label} | {len(s.b):,} | {r['k_rows']:,} | {r['solver']} | {r['levels']} | {r['operator_complexity']:.2f} "
        f"| {k} | {r['setup_s']:.2f} | {r['iterations']}{conv} | {r['solve_s']:.2f} | {per_it:.1f} | {total(r):.2f} "
        f"| {total(r) / total(base):.2f} | {r['relative_residual']:.1e} |"
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xpbd", default="target/release/xpbd")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--single-thread", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--row", metavar="LABEL")
    ap.add_argument("--compare-tol", type=float)
    ap.add_argument("--check", action="store_true", help=f"with --compare-tol: exit 1 unless the three Δλ agree to {AGREE:g}")
    ap.add_argument("dir", type=Path)
    args = ap.parse_args()
    s = System(args.dir)
    results = [run_ours(args.xpbd, args.dir, args.tol, repeat=args.repeat)]
    if args.single_thread:
        results.append(run_ours(args.xpbd, args.dir, args.tol, threads=1, repeat=args.repeat))
    results.append(run_pyamg(s, args.tol, args.repeat))
    if args.row:
        for r in results:
            print(row(args.row, s, r, results[0]))
    else:
        out = {"system": str(args.dir), "dual_rows": len(s.b), "read_s": s.read_s, "tol": args.tol}
        out["results"] = [{k: v for k, v in r.items() if k != "dlambda"} for r in results]
        if args.compare_tol:
            ours, theirs = run_ours(args.xpbd, args.dir, args.compare_tol), run_pyamg(s, args.compare_tol)
            K, rhs = s.primal()
            direct = s.dlambda(spla.spsolve(K.tocsc(), rhs))
            diff = lambda dl, ref: float(np.linalg.norm(dl - ref) / np.linalg.norm(ref))  # noqa: E731
            out["compare_tol"] = args.compare_tol
            out["compare"] = {
                "ours_iterations": ours["iterations"],
                "ours_relative_residual": ours["relative_residual"],
                "pyamg_iterations": theirs["iterations"],
                "pyamg_relative_residual": theirs["relative_residual"],
                "direct_relative_residual": s.dual_residual(direct),
                "pyamg_vs_ours": diff(theirs["dlambda"], ours["dlambda"]),
                "ours_vs_direct": diff(ours["dlambda"], direct),
                "pyamg_vs_direct": diff(theirs["dlambda"], direct),
            }
        print(json.dumps(out, indent=1))
        if args.check and args.compare_tol:
            worst = max(out["compare"][k] for k in ("pyamg_vs_ours", "ours_vs_direct", "pyamg_vs_direct"))
            if not worst <= AGREE:
                sys.exit(f"{args.dir}: Δλ of ours, PyAMG and the direct solve differ by {worst:.2e} > {AGREE:g} (relative)")


if __name__ == "__main__":
    main()
