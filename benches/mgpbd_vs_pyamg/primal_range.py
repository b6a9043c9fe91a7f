"""Solving the dual system in the range of J (docs/amg.md): by the Woodbury identity
A^-1 b = (b - J y) / alpha with (M + J^T J / alpha) y = J^T b / alpha over the free coordinates,
solved here by PyAMG smoothed aggregation (rigid-body modes as B) with CG; prints iterations and
the dual relative residual for primal tolerances 1e-8, 1e-10, 1e-12.

    python primal_range.py tet|cloth N K       (the systems of gen_systems.py)
"""

import sys
import time

import numpy as np
import pyamg
import scipy.sparse as sp

import gen_systems as g

kind, n, k = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rng = np.random.default_rng(1)
pos, edges, w = {"cloth": g.cloth, "tet": g.tet_block}[kind](n, rng)
A, b = g.dual_system(pos, edges, w, k, rng)
m, nv = len(edges), len(pos)
d = pos[edges[:, 1]] - pos[edges[:, 0]]
d /= np.linalg.norm(d, axis=1)[:, None]
cols = np.c_[3 * edges[:, [0]] + np.arange(3), 3 * edges[:, [1]] + np.arange(3)].ravel()
J = sp.csr_matrix((np.c_[-d, d].ravel(), (np.repeat(np.arange(m), 6), cols)), shape=(m, 3 * nv))
jf = J[:, np.repeat(w > 0, 3)].tocsr()
alpha = 1.0 / (k * 1e-4)
H = (sp.identity(jf.shape[1]) + (jf.T @ jf) / alpha).tocsr()  # unit masses
p = pos[w > 0]
B = np.zeros((3 * len(p), 6))
for c in range(3):
    B[c::3, c] = 1
B[0::3, 3], B[1::3, 3] = -p[:, 1], p[:, 0]
B[1::3, 4], B[2::3, 4] = -p[:, 2], p[:, 1]
B[0::3, 5], B[2::3, 5] = p[:, 2], -p[:, 0]
t = time.perf_counter()
ml = pyamg.smoothed_aggregation_solver(H, B=B, symmetry="symmetric", max_coarse=400)
setup = time.perf_counter() - t
for tol in (1e-8, 1e-10, 1e-12):
    res = []
    y = ml.solve(jf.T @ b / alpha, tol=tol, maxiter=500, accel="cg", residuals=res)
    x = (b - jf @ y) / alpha
    print(f"{kind}{n} k={k:g}: {m} dual rows, {H.shape[0]} primal; primal tol {tol:g}: {len(res) - 1} iterations, dual relative residual {np.linalg.norm(b - A @ x) / np.linalg.norm(b):.2e} (setup {setup:.2f} s)")
