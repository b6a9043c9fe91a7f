#!/usr/bin/env python3
"""Writes hat.obj: a shell hat (crown: a closed tube of radius 0.1 m and height 0.1 m with a flat top; brim: a
flat ring from 0.1 to 0.18 m at the crown's base), brim in the plane z = 0, outward-facing triangles.
Usage: python3 make_hat.py > hat.obj"""
import math

AROUND, CROWN_RINGS, BRIM_RINGS, TOP_RINGS = 24, 4, 3, 3
R_CROWN, R_BRIM, HEIGHT = 0.1, 0.18, 0.1

vertices, rings = [], []


def ring(radius, z):
    start = len(vertices)
    for k in range(AROUND):
        a = 2 * math.pi * k / AROUND
        vertices.append((radius * math.cos(a), radius * math.sin(a), z))
    return start


# Brim from the outside in, then the crown upwards, then the top inwards to the centre.
for i in range(BRIM_RINGS + 1):
    rings.append(ring(R_BRIM - (R_BRIM - R_CROWN) * i / BRIM_RINGS, 0.0))
for i in range(1, CROWN_RINGS + 1):
    rings.append(ring(R_CROWN, HEIGHT * i / CROWN_RINGS))
for i in range(1, TOP_RINGS):
    rings.append(ring(R_CROWN * (1 - i / TOP_RINGS), HEIGHT))
centre = len(vertices)
vertices.append((0.0, 0.0, HEIGHT))

triangles = []
for a, b in zip(rings, rings[1:]):
    for k in range(AROUND):
        k1 = (k + 1) % AROUND
        triangles.append((a + k, a + k1, b + k1))
        triangles.append((a + k, b + k1, b + k))
last = rings[-1]
for k in range(AROUND):
    triangles.append((last + k, last + (k + 1) % AROUND, centre))

print("# hat.obj: written by make_hat.py")
for v in vertices:
    print("v {:.6f} {:.6f} {:.6f}".format(*v))
for t in triangles:
    print("f {} {} {}".format(*(i + 1 for i in t)))
