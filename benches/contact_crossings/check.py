"""Counts intersecting surfaces in OBJ frames with an outside library, ipctk (the IPC Toolkit's Python
bindings): `python check.py FRAME.obj [...]` prints, per file, whether ipctk finds an intersection among its
triangles (`has_intersections`) and exits 1 when any file has one."""
import sys

import ipctk
import numpy as np


def read_obj(path):
    vertices, faces = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                vertices.append([float(p) for p in parts[1:4]])
            elif parts[0] == "f":
                faces.append([int(p.split("/")[0]) - 1 for p in parts[1:4]])
    return np.array(vertices, dtype=float), np.array(faces, dtype=np.int32)


def main(paths):
    bad = 0
    for path in paths:
        v, f = read_obj(path)
        e = np.unique(np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1), axis=0)
        mesh = ipctk.CollisionMesh(v, e, f)
        hit = ipctk.has_intersections(mesh, v)
        bad += hit
        print(f"{path}: {len(v)} vertices, {len(f)} triangles, intersections: {'yes' if hit else 'no'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
