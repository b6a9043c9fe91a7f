#!/usr/bin/env python3
"""Writes ishape.node and ishape.ele (TetGen): an I-shaped body, two flanges joined by a web, centred at the
origin. Profile in the x-y plane (flanges 0.65 m wide and 0.1 m thick at the bottom and the top, web 0.15 m wide
and 0.4 m tall between them), 0.3 m deep along z; cubic cells of 0.05 m, each split into the six tetrahedra
around its main diagonal (a conforming grid), every tetrahedron positively oriented.
Usage: python3 make_ishape.py (writes beside this script)"""
import itertools
import os

H = 0.05  # cell edge (m)
NX, NY, NZ = 13, 12, 6  # cells of the bounding box: 0.65 x 0.6 x 0.3 m


def solid(i, j, k):
    """Whether cell (i, j, k) belongs to the I: the flanges (the bottom and top two rows) or the web (the middle
    three columns)."""
    return j < 2 or j >= NY - 2 or 5 <= i < 8


def corner(v):
    return tuple((v[a] - (NX, NY, NZ)[a] / 2) * H for a in range(3))


def signed_volume(p):
    a, b, c = ([p[n][a] - p[0][a] for a in range(3)] for n in (1, 2, 3))
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0


index, points, tets = {}, [], []


def vertex(v):
    if v not in index:
        index[v] = len(points)
        points.append(corner(v))
    return index[v]


for i, j, k in itertools.product(range(NX), range(NY), range(NZ)):
    if not solid(i, j, k):
        continue
    # The six tetrahedra of the path from corner (0, 0, 0) to (1, 1, 1) along each order of the axes.
    for order in itertools.permutations(range(3)):
        path = [(i, j, k)]
        for axis in order:
            step = list(path[-1])
            step[axis] += 1
            path.append(tuple(step))
        t = [vertex(v) for v in path]
        if signed_volume([points[n] for n in t]) < 0:
            t[2], t[3] = t[3], t[2]
        tets.append(t)

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "ishape.node"), "w") as f:
    f.write(f"{len(points)}  3  0  0\n")
    for n, p in enumerate(points):
        f.write(f"{n}  {p[0]:.6g}  {p[1]:.6g}  {p[2]:.6g}\n")
with open(os.path.join(here, "ishape.ele"), "w") as f:
    f.write(f"{len(tets)}  4  0\n")
    for n, t in enumerate(tets):
        f.write(f"{n}  {t[0]}  {t[1]}  {t[2]}  {t[3]}\n")
