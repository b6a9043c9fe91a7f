"""Time to a relative residual with each of our linear solvers on exported (or generated) dual
systems: AMG-PCG with each smoother and near kernel, plain CG, Jacobi-PCG and the direct solve.

    python scaling.py --xpbd target/release/xpbd [--tols 1e-3,1e-6] [--methods "cg,direct"] DIR...

Prints one markdown row per system, method and tolerance: iterations, setup and solve seconds,
whether it converged within 5000 iterations.
"""

import argparse
import json
import subprocess
from pathlib import Path

METHODS = {
    "amg-pcg jacobi constant": ["--method", "amg-pcg"],
    "amg-pcg chebyshev constant": ["--method", "amg-pcg", "--smoother", "chebyshev"],
    "amg-pcg gs constant": ["--method", "amg-pcg", "--smoother", "gs"],
    "amg-pcg jacobi gs-near-kernel": ["--method", "amg-pcg", "--near-kernel", "gs"],
    "cg": ["--method", "cg"],
    "jacobi-pcg": ["--method", "jacobi-pcg"],
    "direct": ["--method", "direct"],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xpbd", default="target/release/xpbd")
    ap.add_argument("--tols", default="1e-3,1e-6")
    ap.add_argument("--max-iter", default="5000")
    ap.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of the method names below")
    ap.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args()
    print("| system | rows | method | tol | iterations | setup s | solve s | total s | converged | levels | op. complexity |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for d in args.dirs:
        for name in args.methods.split(","):
            extra = METHODS[name]
            for tol in args.tols.split(",") if name != "direct" else ["-"]:
                cmd = [args.xpbd, "solve-system", str(d / "A.mtx"), str(d / "b.mtx"), "--json", "--max-iter", args.max_iter, *extra]
                cmd += ["--tol", tol] if tol != "-" else []
                r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
                total = r["setup_s"] + r["solve_s"]
                print(
                    f"| {d.name} | {r['rows']} | {name} | {tol} | {r['iterations']} | {r['setup_s']:.3f} | {r['solve_s']:.3f} | {total:.3f} "
                    f"| {r['converged']} | {r['levels']} | {r['operator_complexity']:.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
