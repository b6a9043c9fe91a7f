"""Where Gauss-Seidel near-kernel vectors land on a dual system (docs/amg.md): the Rayleigh quotient
x^T A x / x^T x of a random start in [-1, 1] before and after 20 forward Gauss-Seidel sweeps on
A x = 0, next to alpha (the eigenvalue of A on the null space of J M^-1 J^T).

    python near_kernel_spectrum.py DIR ALPHA
"""

import sys

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

A = scipy.io.mmread(sys.argv[1] + "/A.mtx").tocsr()
lower, upper = sp.tril(A, format="csr"), sp.triu(A, 1, format="csr")
x = np.random.default_rng(0).uniform(-1, 1, A.shape[0])
before = x @ (A @ x) / (x @ x)
for _ in range(20):
    x = spla.spsolve_triangular(lower, -(upper @ x), lower=True)
print(f"{sys.argv[1]}: Rayleigh quotient {before:.3g} -> {x @ (A @ x) / (x @ x):.3g} after 20 sweeps; alpha = {sys.argv[2]}")
