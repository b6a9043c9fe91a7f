//! Colliders as triangles for `xpbd render`: a plane as a checkered square around the view's
//! target, spheres, capsules and cylinders as surfaces of revolution, boxes as their six faces, all
//! mesh colliders as their closed surface, all moved to their pose at the frame's time.

use xpbd_core::collider::{Collider, Shape};
use xpbd_core::mesh::Vec3;

/// Triangles with one color each (sRGB, before shading).
#[derive(Default)]
pub struct Triangles {
    pub points: Vec<Vec3>,
    pub tris: Vec<[u32; 3]>,
    pub colors: Vec<[f64; 3]>,
}

impl Triangles {
    /// Appends `other`, renumbering its vertices.
    pub fn extend(&mut self, other: Triangles) {
        let base = self.points.len() as u32;
        self.points.extend(other.points);
        self.tris.extend(other.tris.iter().map(|t| t.map(|i| i + base)));
        self.colors.extend(other.colors);
    }
}

/// Collider color and the two squares of a plane's checkerboard.
const SOLID: [f64; 3] = [150.0, 150.0, 150.0];
const CHECKER: [[f64; 3]; 2] = [[185.0, 185.0, 180.0], [150.0, 150.0, 145.0]];
/// Segments around a surface of revolution, and squares along a plane's side.
const AROUND: usize = 32;
const SQUARES: usize = 64;

/// Whether `c` is drawn whole, so that the default camera frames it: every shape but the unbounded
/// planes and cylinders.
pub fn is_bounded(c: &Collider) -> bool {
    !matches!(c.shape, Shape::Plane { .. } | Shape::Cylinder { .. })
}

/// The triangles of `c` at time `t`; unbounded shapes (planes, cylinders) reach `reach` from the
/// point of them nearest to `centre`.
pub fn collider_triangles(c: &Collider, t: f64, centre: Vec3, reach: f64) -> Triangles {
    let mut out = match &c.shape {
        Shape::Plane { point, normal } => plane(*point, *normal, centre, reach),
        Shape::Sphere { center, radius } => {
            let profile = (0..=AROUND / 2).map(|i| arc(*radius, i, 0.0)).collect::<Vec<_>>();
            revolve(*center, Vec3::z(), &profile)
        }
        Shape::Capsule { a, b, radius } => {
            let half = (b - a).norm() / 2.0;
            let cap = |i: usize, shift: f64| arc(*radius, i, shift);
            let profile: Vec<(f64, f64)> = (0..=AROUND / 4).map(|i| cap(i, half)).chain((AROUND / 4..=AROUND / 2).map(|i| cap(i, -half))).collect();
            revolve((a + b) / 2.0, (b - a) / (2.0 * half), &profile)
        }
        Shape::Cylinder { point, axis, radius } => {
            let mid = point + axis * (centre - point).dot(axis);
            revolve(mid, *axis, &[(0.0, reach), (*radius, reach), (*radius, -reach), (0.0, -reach)])
        }
        Shape::Box { center, half_extents, rotation } => {
            let corner = |k: usize| center + rotation * Vec3::from_fn(|i, _| if k >> i & 1 == 1 { half_extents[i] } else { -half_extents[i] });
            let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
            let mut box_ = Triangles { points: (0..8).map(corner).collect(), ..Default::default() };
            for [p, q, r, s] in quads {
                box_.tris.extend([[p, q, r], [p, r, s]]);
            }
            box_.colors = vec![SOLID; box_.tris.len()];
            box_
        }
        Shape::Mesh(m) => {
            let (points, tris) = m.surface();
            Triangles { points: points.to_vec(), tris: tris.to_vec(), colors: vec![SOLID; tris.len()] }
        }
    };
    if !c.motion.is_static() {
        let pose = c.motion.pose(&c.shape.reference_point(), t);
        out.points.iter_mut().for_each(|p| *p = pose.rotation * *p + pose.translation.vector);
    }
    out
}

/// Point `i` of a half circle of `radius` from the top, as (distance from the axis, height + `shift`).
fn arc(radius: f64, i: usize, shift: f64) -> (f64, f64) {
    let angle = std::f64::consts::PI * i as f64 / (AROUND / 2) as f64;
    (radius * angle.sin(), radius * angle.cos() + shift)
}

/// The surface swept by `profile` (distance from the axis, height along it) turned about the line
/// through `origin` along the unit `axis`.
fn revolve(origin: Vec3, axis: Vec3, profile: &[(f64, f64)]) -> Triangles {
    let side = if axis.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
    let e1 = axis.cross(&side).normalize();
    let e2 = axis.cross(&e1);
    let mut out = Triangles::default();
    for &(r, h) in profile {
        for k in 0..AROUND {
            let angle = std::f64::consts::TAU * k as f64 / AROUND as f64;
            out.points.push(origin + axis * h + (e1 * angle.cos() + e2 * angle.sin()) * r);
        }
    }
    let at = |ring: usize, k: usize| (ring * AROUND + k % AROUND) as u32;
    for ring in 0..profile.len() - 1 {
        for k in 0..AROUND {
            out.tris.extend([[at(ring, k), at(ring + 1, k), at(ring + 1, k + 1)], [at(ring, k), at(ring + 1, k + 1), at(ring, k + 1)]]);
        }
    }
    out.colors = vec![SOLID; out.tris.len()];
    out
}

/// A checkered square of side 2·`reach` in the plane, centred on the projection of `centre`, its
/// squares fixed in the plane (snapped to multiples of their size).
fn plane(point: Vec3, normal: Vec3, centre: Vec3, reach: f64) -> Triangles {
    let side = if normal.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
    let u = normal.cross(&side).normalize();
    let v = normal.cross(&u);
    let size = 2.0 * reach / SQUARES as f64;
    let snap = |axis: &Vec3| ((centre - point).dot(axis) / size).round() - (SQUARES / 2) as f64;
    let (u0, v0) = (snap(&u), snap(&v));
    let mut out = Triangles::default();
    for i in 0..=SQUARES {
        for j in 0..=SQUARES {
            out.points.push(point + u * (u0 + i as f64) * size + v * (v0 + j as f64) * size);
        }
    }
    let at = |i: usize, j: usize| (i * (SQUARES + 1) + j) as u32;
    for i in 0..SQUARES {
        for j in 0..SQUARES {
            out.tris.extend([[at(i, j), at(i + 1, j), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i, j + 1)]]);
            let parity = (u0 + i as f64 + v0 + j as f64).rem_euclid(2.0) as usize;
            out.colors.extend([CHECKER[parity]; 2]);
        }
    }
    out
}
