//! Where surfaces cross: every surface edge against the surface triangles it shares no vertex with
//! (segment–triangle intersection, Möller and Trumbore 1997), through a [`Bvh`] over the triangles. Scene
//! loading warns about bodies that start intersecting; contact cannot separate crossed surfaces.

use super::Surface;
use crate::mesh::bvh::{Aabb, Bvh};
use crate::mesh::Vec3;
use std::collections::BTreeMap;

/// Crossing edge–triangle pairs at `x`, counted per pair of bodies (lower index first; (b, b) within a body).
pub fn crossings(surface: &Surface, x: &[Vec3]) -> BTreeMap<(u32, u32), usize> {
    let boxes: Vec<Aabb> = surface.triangles.iter().map(|t| Aabb::around(t.iter().map(|&v| &x[v as usize]))).collect();
    let bvh = Bvh::new(&boxes);
    let mut count = BTreeMap::new();
    for (e, &eb) in surface.edges.iter().zip(&surface.edge_body) {
        let (p, q) = (x[e[0] as usize], x[e[1] as usize]);
        bvh.query(&Aabb::around([&p, &q]), |t| {
            let tri = surface.triangles[t as usize];
            if tri.contains(&e[0]) || tri.contains(&e[1]) || !segment_crosses_triangle(&p, &q, tri.map(|v| x[v as usize])) {
                return;
            }
            let tb = surface.triangle_body[t as usize];
            *count.entry((eb.min(tb), eb.max(tb))).or_insert(0) += 1;
        });
    }
    count
}

/// Whether segment p–q passes through the interior of triangle `t`.
fn segment_crosses_triangle(p: &Vec3, q: &Vec3, t: [Vec3; 3]) -> bool {
    let (e1, e2, d) = (t[1] - t[0], t[2] - t[0], q - p);
    let h = d.cross(&e2);
    let a = e1.dot(&h);
    if a.abs() <= 1e-14 * e1.norm() * e2.norm() * d.norm() {
        return false;
    }
    let s = p - t[0];
    let (u, r) = (s.dot(&h) / a, s.cross(&e1));
    let (v, w) = (d.dot(&r) / a, e2.dot(&r) / a);
    u > 0.0 && v > 0.0 && u + v < 1.0 && w > 0.0 && w < 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Body;

    /// Two unit tets, apart and then pushed into each other.
    #[test]
    fn counts_crossings_between_bodies_only_when_they_overlap() {
        let tet = |o: u32| [o, o + 1, o + 2, o + 3];
        let body = |o: u32, name: &str| {
            let tets = vec![tet(o)];
            Body { name: name.into(), vertices: o as usize..o as usize + 4, surface: crate::mesh::surface::boundary_faces(&tets), tets }
        };
        let s = Surface::new(&[body(0, "a"), body(4, "b")], 8);
        let corner = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()];
        let mut x: Vec<Vec3> = corner.iter().chain(corner.iter()).copied().collect();
        x[4..].iter_mut().for_each(|p| *p += Vec3::new(2.0, 0.0, 0.0));
        assert!(crossings(&s, &x).is_empty());
        x[4..].iter_mut().for_each(|p| *p += Vec3::new(-1.8, 0.1, 0.1));
        let c = crossings(&s, &x);
        assert!(c.get(&(0, 1)).is_some_and(|&n| n > 0) && c.len() == 1, "{c:?}");
    }
}
