#!/usr/bin/env python3
"""Newton/Warp CPU XPBD on issue 23's 56k-tet beam: the Newton half of benches/peers/run.sh.

The mesh is built here with the same vertex numbering and the same 5-tet cell split as our `box` generator
(crates/xpbd-core/src/mesh/generators/box_grid.rs): vertex (i, j, k) at index i + (nx+1)(j + (ny+1)k), cells of
even i+j+k split with the corner tet table FIVE_EVEN and odd ones with FIVE_ODD (cell corner c sits at offset
(c & 1, (c >> 1) & 1, (c >> 2) & 1)). Vertices with x = 0 get zero mass (pinned), as our scene's pin box does.

The beam is handed to `ModelBuilder.add_soft_mesh` (lumped mass density * V / 4 per tet corner, Newton's
Neo-Hookean-style pair of XPBD constraints per tet with Lame parameters k_mu, k_lambda) and stepped with
`SolverXPBD(iterations=1)` on the CPU device, `substeps` steps of dt / substeps per frame.

Writes one JSON object (to --out, or stdout): setup seconds, warm-up and timed frame counts, ms per frame, and the tip
position (the vertex nearest to the rest point `--tip`) after every frame.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

# Cell corner tables of our box generator (same order and orientation).
FIVE_EVEN = [[0, 1, 2, 4], [3, 1, 7, 2], [5, 1, 4, 7], [6, 2, 7, 4], [1, 2, 4, 7]]
FIVE_ODD = [[1, 0, 5, 3], [2, 0, 3, 6], [4, 0, 6, 5], [7, 3, 5, 6], [0, 3, 6, 5]]


def box_mesh(size, cells):
    """Vertices (n, 3) and tets (m, 4) of the 5-tet box grid, numbered as our generator numbers them."""
    nx, ny, nz = cells
    xs = [np.arange(n + 1) * (s / n) for s, n in zip(size, cells)]
    # Vertex (i, j, k) at i + (nx+1)(j + (ny+1)k): k outermost, i innermost.
    kk, jj, ii = np.meshgrid(np.arange(nz + 1), np.arange(ny + 1), np.arange(nx + 1), indexing="ij")
    verts = np.stack([xs[0][ii], xs[1][jj], xs[2][kk]], axis=-1).reshape(-1, 3)
    tets = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                corners = [
                    (i + (c & 1)) + (nx + 1) * ((j + ((c >> 1) & 1)) + (ny + 1) * (k + ((c >> 2) & 1)))
                    for c in range(8)
                ]
                table = FIVE_ODD if (i + j + k) % 2 == 1 else FIVE_EVEN
                tets.extend([[corners[l] for l in t] for t in table])
    return verts, np.asarray(tets, dtype=np.int64)


def nearest_vertex(verts, p):
    """The vertex nearest to rest point p (our probes snap to the nearest vertex the same way)."""
    return int(np.argmin(((verts - np.asarray(p)[None, :]) ** 2).sum(axis=1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, nargs=3, default=[5.0, 1.5, 1.5])
    ap.add_argument("--cells", type=int, nargs=3, default=[50, 15, 15])
    ap.add_argument("--mu", type=float, default=1e5, help="first Lame parameter (Pa)")
    ap.add_argument("--lam", type=float, default=1e5, help="second Lame parameter (Pa)")
    ap.add_argument("--density", type=float, default=1000.0)
    ap.add_argument("--fps", type=float, default=60.0)
    ap.add_argument("--substeps", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=1)
    ap.add_argument("--relaxation", type=float, default=0.9, help="SolverXPBD soft_body_relaxation (its default 0.9)")
    ap.add_argument("--warmup", type=int, default=5, help="frames run before timing (kernel compilation, caches)")
    ap.add_argument("--frames", type=int, default=60, help="frames timed after the warm-up")
    ap.add_argument("--tip", type=float, nargs=3, default=[5.0, 0.7, 0.7], help="rest point of the tip probe (snapped to the nearest vertex)")
    ap.add_argument("--kernel-cache", default=None, help="Warp kernel cache folder")
    ap.add_argument("--out", default=None, help="write the JSON here instead of stdout")
    a = ap.parse_args()

    t_import = time.perf_counter()
    import warp as wp

    if a.kernel_cache:
        wp.config.kernel_cache_dir = a.kernel_cache
    wp.config.quiet = True
    import newton

    wp.init()
    wp.set_device("cpu")
    t0 = time.perf_counter()

    verts, tets = box_mesh(a.size, a.cells)
    tip_id = nearest_vertex(verts, a.tip)

    builder = newton.ModelBuilder(up_axis=newton.Axis.Y, gravity=(0.0, -9.81, 0.0))
    builder.add_soft_mesh(
        pos=(0.0, 0.0, 0.0),
        rot=wp.quat_identity(),
        scale=1.0,
        vel=(0.0, 0.0, 0.0),
        vertices=verts.tolist(),
        indices=tets.reshape(-1).tolist(),
        density=a.density,
        k_mu=a.mu,
        k_lambda=a.lam,
        k_damp=0.0,
        particle_radius=0.0,  # no particle-particle contact (our scene has contact off)
        add_surface_mesh_edges=False,
    )
    pinned = np.flatnonzero(np.abs(verts[:, 0]) <= 0.01)
    for i in pinned:
        builder.particle_mass[int(i)] = 0.0
    model = builder.finalize(device="cpu")
    solver = newton.solvers.SolverXPBD(model, iterations=a.iterations, soft_body_relaxation=a.relaxation)
    s0, s1 = model.state(), model.state()
    dt = 1.0 / a.fps / a.substeps
    setup_s = time.perf_counter() - t0

    def tip(state):
        return state.particle_q.numpy()[tip_id].astype(np.float64).tolist()

    def frame():
        nonlocal s0, s1
        for _ in range(a.substeps):
            s0.clear_forces()
            solver.step(s0, s1, None, None, dt)
            s0, s1 = s1, s0

    tips = [tip(s0)]
    t1 = time.perf_counter()
    for _ in range(a.warmup):
        frame()
        tips.append(tip(s0))
    warmup_s = time.perf_counter() - t1
    frame_ms, frame_cpu_ms = [], []
    for _ in range(a.frames):
        c, t = time.process_time(), time.perf_counter()
        frame()
        wp.synchronize()
        frame_ms.append((time.perf_counter() - t) * 1e3)
        frame_cpu_ms.append((time.process_time() - c) * 1e3)
        tips.append(tip(s0))  # outside the timed interval
    # Process CPU time over wall time of the timed frames: at most 1 when the kernels run on one thread
    # (below 1 when other processes take the core).
    cpu_per_wall = sum(frame_cpu_ms) / sum(frame_ms)
    fm = np.asarray(frame_ms)
    out = {
        "newton": newton.__version__,
        "warp": wp.config.version,
        "device": str(model.device),
        "vertices": int(model.particle_count),
        "tets": int(model.tet_count),
        "pinned": int(len(pinned)),
        "mass": float(np.asarray(builder.particle_mass).sum()),
        "substeps": a.substeps,
        "iterations": a.iterations,
        "relaxation": a.relaxation,
        "import_s": t0 - t_import,
        "setup_s": setup_s,
        "warmup_frames": a.warmup,
        "warmup_s": warmup_s,
        "frames": a.frames,
        "ms_per_frame_mean": float(fm.mean()),
        "ms_per_frame_median": float(np.median(fm)),
        "ms_per_frame_min": float(fm.min()),
        "tip": tips,  # tip[f] is the tip after frame f (f = 0: rest)
        "cpu_ms_per_frame_mean": float(np.mean(frame_cpu_ms)),
        "frame_ms": frame_ms,
        "cpu_per_wall": cpu_per_wall,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
    }
    text = json.dumps(out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
