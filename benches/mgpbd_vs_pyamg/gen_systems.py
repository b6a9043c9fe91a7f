"""Dual systems of XPBD edge-distance constraints, A = J M^-1 J^T + alpha I, b = -C, written as
Matrix Market A.mtx, b.mtx (docs/equations.md; the systems `xpbd export-system` exports for
distance constraints). J's rows are unit edge directions; on a tet mesh (about 7 edges per
vertex against 3 coordinates) or a cloth with diagonals, J M^-1 J^T has a large null space on
which A is only alpha I (issue 4).

    python gen_systems.py OUT_DIR cloth N K      # N x N cloth, structural + one diagonal per cell
    python gen_systems.py OUT_DIR tet N K        # N^3 vertex block, 6 tets per cube, tet edges

Unit vertex masses, top row / x = 0 face pinned, alpha = 1 / (K h^2) with h = 0.01, and C the
edge-length error of rest positions moved by a seeded random displacement (scale 1e-2) plus a
gravity step; positions are jittered so the cloth is not exactly flat.
"""

import sys
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp


def cloth(n, rng):
    ij = np.array([(x, y) for y in range(n) for x in range(n)], dtype=float)
    pos = np.c_[ij / (n - 1), 0.01 / n * rng.standard_normal(n * n)]
    idx = np.arange(n * n).reshape(n, n)
    edges = np.r_[
        np.c_[idx[:, :-1].ravel(), idx[:, 1:].ravel()],
        np.c_[idx[:-1, :].ravel(), idx[1:, :].ravel()],
        np.c_[idx[:-1, :-1].ravel(), idx[1:, 1:].ravel()],
    ]
    w = np.ones(n * n)
    w[idx[-1, :]] = 0.0
    return pos, edges, w


def tet_block(n, rng):
    g = np.arange(n)
    pos = np.array([(x, y, z) for z in g for y in g for x in g], dtype=float) / (n - 1)
    pos += 0.1 / n * rng.uniform(-1, 1, pos.shape)
    vid = lambda x, y, z: x + n * (y + n * z)
    # Kuhn's 6 tets per cube share the main diagonal 0-7; their edges are the cube's 12 edges, 6 face
    # diagonals (the ones parallel to the main diagonal's projections) and the main diagonal.
    corner = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
    local = set()
    for a in range(8):
        for b in range(a + 1, 8):
            d = np.subtract(corner[b], corner[a])
            if np.all(d >= 0):  # monotone pairs are exactly the Kuhn edges
                local.add((a, b))
    edges = set()
    for z in range(n - 1):
        for y in range(n - 1):
            for x in range(n - 1):
                v = [vid(x + c[0], y + c[1], z + c[2]) for c in corner]
                edges.update((v[a], v[b]) for a, b in local)
    w = np.ones(len(pos))
    w[np.arange(len(pos)) % n == 0] = 0.0  # the x = 0 face
    return pos, np.array(sorted(edges)), w


def dual_system(pos, edges, w, k, rng, h=0.01):
    m, nv = len(edges), len(pos)
    d = pos[edges[:, 1]] - pos[edges[:, 0]]
    rest = np.linalg.norm(d, axis=1)
    d /= rest[:, None]
    rows = np.repeat(np.arange(m), 6)
    cols = np.c_[3 * edges[:, [0]] + np.arange(3), 3 * edges[:, [1]] + np.arange(3)].ravel()
    vals = np.c_[-d, d].ravel()
    J = sp.csr_matrix((vals, (rows, cols)), shape=(m, 3 * nv))
    Minv = sp.diags(np.repeat(w, 3))
    alpha = 1.0 / (k * h * h)
    A = (J @ Minv @ J.T + alpha * sp.identity(m)).tocsr()
    A.sum_duplicates()
    moved = pos + 1e-2 * rng.standard_normal(pos.shape) * w[:, None]
    moved[:, 1] -= 9.81 * h * h * w
    c = np.linalg.norm(moved[edges[:, 1]] - moved[edges[:, 0]], axis=1) - rest
    return A, -c


def main():
    out, kind, n, k = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    rng = np.random.default_rng(1)
    pos, edges, w = {"cloth": cloth, "tet": tet_block}[kind](n, rng)
    A, b = dual_system(pos, edges, w, k, rng)
    out.mkdir(parents=True, exist_ok=True)
    scipy.io.mmwrite(out / "A.mtx", A, symmetry="general")
    scipy.io.mmwrite(out / "b.mtx", b.reshape(-1, 1))
    print(f"{out}: {A.shape[0]} rows, {A.nnz} nonzeros")


if __name__ == "__main__":
    main()
