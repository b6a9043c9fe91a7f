//! The exact signed distance to a closed, consistently oriented triangle surface: the distance to the closest
//! point, found through a [`Bvh`] of the triangles, and its sign from the angle-weighted pseudo-normal of the
//! closest feature (face, edge or vertex), which separates inside from outside exactly for a closed
//! manifold surface (Bærentzen & Aanæs 2005, "Signed distance computation using the angle weighted
//! pseudonormal").
//!
//! Memory is linear in the surface and fixed at load: per vertex its position and pseudo-normal (48 B), per
//! triangle its indices, unit normal and three edge pseudo-normals (108 B) and the hierarchy
//! ([`Bvh::BYTES_PER_ITEM`]); [`MeshSdf::bytes`] estimates it before anything is allocated. A query costs
//! O(log n) triangle tests on a well-shaped surface.

use crate::mesh::bvh::{Aabb, Bvh};
use crate::mesh::Vec3;
use std::collections::HashMap;
use std::fmt;

/// Why a triangle surface cannot bound a solid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceError {
    /// No triangles.
    Empty,
    /// A triangle index beyond the vertices.
    IndexOutOfRange { triangle: usize },
    /// This many edges are used by a number of triangles other than two.
    Open { edges: usize },
    /// This many edges are traversed the same way by both their triangles.
    Inconsistent { edges: usize },
    /// A triangle of zero area (its normal and angles are undefined).
    Degenerate { triangle: usize },
    /// The surface encloses no volume.
    Flat,
}

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SurfaceError::Empty => write!(f, "has no triangles"),
            SurfaceError::IndexOutOfRange { triangle } => write!(f, "triangle {triangle} names a vertex that does not exist"),
            SurfaceError::Open { edges } => write!(f, "is not a closed surface: {edges} open edges (used by a number of triangles other than 2)"),
            SurfaceError::Inconsistent { edges } => write!(f, "is not consistently oriented: {edges} edges run the same way in both their triangles"),
            SurfaceError::Degenerate { triangle } => write!(f, "triangle {triangle} has zero area"),
            SurfaceError::Flat => write!(f, "encloses no volume"),
        }
    }
}

/// Where on a triangle its closest point lies: a corner, an edge (edge k runs from corner k to corner k + 1
/// mod 3) or the interior.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Feature {
    Vertex(usize),
    Edge(usize),
    Face,
}

/// A closed surface ready for signed distance queries.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshSdf {
    vertices: Vec<Vec3>,
    /// Counter-clockwise seen from outside (reordered at load when the file had them all inward).
    tris: Vec<[u32; 3]>,
    /// Unit outward normal per triangle.
    face_normal: Vec<Vec3>,
    /// Per triangle and edge k: the sum of the unit normals of the two triangles that share it.
    edge_normal: Vec<[Vec3; 3]>,
    /// Per vertex: Σ (angle of the triangle at the vertex) × (its unit normal).
    vertex_normal: Vec<Vec3>,
    bvh: Bvh,
    /// Centroid of the enclosed volume.
    centroid: Vec3,
    volume: f64,
}

impl MeshSdf {
    /// Estimated bytes of the structure for a surface of `vertices` vertices and `triangles` triangles.
    pub fn bytes(vertices: u64, triangles: u64) -> u64 {
        vertices.saturating_mul(48).saturating_add(triangles.saturating_mul(108 + Bvh::BYTES_PER_ITEM))
    }

    /// Checks that `tris` over `vertices` bound a solid (every edge shared by exactly two triangles that
    /// traverse it in opposite directions, no zero-area triangle, nonzero enclosed volume) and builds the
    /// query structure. A surface oriented inward throughout is turned outward.
    pub fn new(vertices: Vec<Vec3>, mut tris: Vec<[u32; 3]>) -> Result<MeshSdf, SurfaceError> {
        if tris.is_empty() {
            return Err(SurfaceError::Empty);
        }
        if let Some(t) = tris.iter().position(|t| t.iter().any(|&i| i as usize >= vertices.len())) {
            return Err(SurfaceError::IndexOutOfRange { triangle: t });
        }
        // Undirected edge (low, high) → (triangles using it, how many traverse it low → high).
        let mut edges: HashMap<(u32, u32), (u32, u32)> = HashMap::with_capacity(3 * tris.len() / 2);
        for t in &tris {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                let e = edges.entry((a.min(b), a.max(b))).or_default();
                e.0 += 1;
                e.1 += (a < b) as u32;
            }
        }
        let open = edges.values().filter(|e| e.0 != 2).count();
        if open > 0 {
            return Err(SurfaceError::Open { edges: open });
        }
        let inconsistent = edges.values().filter(|e| e.1 != 1).count();
        if inconsistent > 0 {
            return Err(SurfaceError::Inconsistent { edges: inconsistent });
        }
        let corners = |t: &[u32; 3]| t.map(|i| vertices[i as usize]);
        let mean_area = tris.iter().map(|t| area2(&corners(t))).sum::<f64>() / tris.len() as f64;
        if let Some(t) = tris.iter().position(|t| !(area2(&corners(t)) > 1e-12 * mean_area)) {
            return Err(SurfaceError::Degenerate { triangle: t });
        }
        // Volume and centroid as a sum of tetrahedra from an inner reference point o (the vertex mean).
        let o = vertices.iter().sum::<Vec3>() / vertices.len() as f64;
        let (mut volume, mut moment) = (0.0, Vec3::zeros());
        for t in &tris {
            let [a, b, c] = corners(t).map(|p| p - o);
            let v = a.dot(&b.cross(&c)) / 6.0;
            volume += v;
            moment += (a + b + c) * (v / 4.0);
        }
        let scale = vertices.iter().map(|p| (p - o).norm()).fold(0.0, f64::max);
        if !(volume.abs() > 1e-12 * scale.powi(3)) {
            return Err(SurfaceError::Flat);
        }
        if volume < 0.0 {
            tris.iter_mut().for_each(|t| t.swap(1, 2));
        }
        let face_normal: Vec<Vec3> = tris.iter().map(|t| normal(&corners(t))).collect();
        let mut edge_sum: HashMap<(u32, u32), Vec3> = HashMap::with_capacity(edges.len());
        let mut vertex_normal = vec![Vec3::zeros(); vertices.len()];
        for (t, n) in tris.iter().zip(&face_normal) {
            let p = corners(t);
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *edge_sum.entry((a.min(b), a.max(b))).or_insert_with(Vec3::zeros) += n;
                let (u, w) = (p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
                vertex_normal[t[k] as usize] += n * u.angle(&w);
            }
        }
        let edge_normal = tris.iter().map(|t| [0, 1, 2].map(|k| edge_sum[&(t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]))])).collect();
        let bounds: Vec<Aabb> = tris.iter().map(corners).map(|p| Aabb::around(&p)).collect();
        let centroid = o + moment / volume;
        Ok(MeshSdf { bvh: Bvh::new(&bounds), vertices, tris, face_normal, edge_normal, vertex_normal, centroid, volume: volume.abs() })
    }

    /// The closed surface: its vertices and its triangles, counter-clockwise seen from outside (for drawing).
    pub fn surface(&self) -> (&[Vec3], &[[u32; 3]]) {
        (&self.vertices, &self.tris)
    }

    /// The centroid of the enclosed solid (the reference point of the collider's rotation).
    pub fn centroid(&self) -> Vec3 {
        self.centroid
    }

    /// The enclosed volume.
    pub fn volume(&self) -> f64 {
        self.volume
    }

    /// Signed distance of `x` to the surface (negative inside) and the outward unit normal: the direction
    /// from the closest surface point to `x` (away from it inside), or the closest feature's pseudo-normal
    /// for a point on the surface.
    pub fn signed_distance(&self, x: &Vec3) -> (f64, Vec3) {
        let (d2, (closest, pseudo)) = self.bvh.nearest(x, |t| {
            let (p, feature) = closest_point(x, &self.tris[t as usize].map(|i| self.vertices[i as usize]));
            ((x - p).norm_squared(), (p, self.pseudo_normal(t as usize, feature)))
        });
        let offset = x - closest;
        let sign = if offset.dot(&pseudo) < 0.0 { -1.0 } else { 1.0 };
        let d = d2.sqrt();
        let n = if d > 1e-12 * self.volume.cbrt() { offset * (sign / d) } else { pseudo.normalize() };
        (sign * d, n)
    }

    fn pseudo_normal(&self, t: usize, feature: Feature) -> Vec3 {
        match feature {
            Feature::Face => self.face_normal[t],
            Feature::Edge(k) => self.edge_normal[t][k],
            Feature::Vertex(k) => self.vertex_normal[self.tris[t][k] as usize],
        }
    }
}

/// Twice the area of triangle `p`.
fn area2(p: &[Vec3; 3]) -> f64 {
    (p[1] - p[0]).cross(&(p[2] - p[0])).norm()
}

/// The unit normal of triangle `p` (counter-clockwise).
fn normal(p: &[Vec3; 3]) -> Vec3 {
    (p[1] - p[0]).cross(&(p[2] - p[0])).normalize()
}

/// The point of triangle `p` closest to `x` and the feature it lies on, by the Voronoi regions of the
/// corners, edges and face (Ericson, "Real-Time Collision Detection" §5.1.5).
fn closest_point(x: &Vec3, p: &[Vec3; 3]) -> (Vec3, Feature) {
    let [a, b, c] = *p;
    let (ab, ac, ap) = (b - a, c - a, x - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = x - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = x - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), Feature::Edge(1));
    }
    let s = 1.0 / (va + vb + vc);
    (a + ab * (vb * s) + ac * (vc * s), Feature::Face)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::mesh::TriMesh;

    /// The unit cube [0, 1]³ as 12 outward triangles.
    pub(crate) fn cube() -> TriMesh {
        let vertices = (0..8).map(|i| Vec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64)).collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        TriMesh { vertices, tris: quads.iter().flat_map(|q: &[u32; 4]| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect() }
    }

    /// A deterministic point cloud in [−1, 1]³ scaled by `r` about `c`.
    pub(crate) fn points(n: usize, c: Vec3, r: f64) -> Vec<Vec3> {
        let mut seed = 7u64;
        let mut rand = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            2.0 * ((seed >> 11) as f64 / (1u64 << 53) as f64) - 1.0
        };
        (0..n).map(|_| c + Vec3::new(rand(), rand(), rand()) * r).collect()
    }

    /// The exact SDF of the box [0, 1]³ (outside: distance to the clamped point; inside: minus the distance
    /// to the nearest face).
    fn cube_sdf(x: &Vec3) -> f64 {
        let q = (x - Vec3::repeat(0.5)).abs() - Vec3::repeat(0.5);
        q.sup(&Vec3::zeros()).norm() + q.max().min(0.0)
    }

    /// The tessellated cube's distance is the box's exactly (to rounding), with either orientation of the file.
    #[test]
    fn cube_matches_the_analytic_box() {
        let m = cube();
        let sdf = MeshSdf::new(m.vertices.clone(), m.tris.clone()).unwrap();
        let flipped: Vec<[u32; 3]> = m.tris.iter().map(|t| [t[0], t[2], t[1]]).collect();
        let inward = MeshSdf::new(m.vertices.clone(), flipped).unwrap();
        assert!((sdf.volume() - 1.0).abs() < 1e-14 && (sdf.centroid() - Vec3::repeat(0.5)).norm() < 1e-14);
        for x in points(2000, Vec3::repeat(0.5), 1.5) {
            let exact = cube_sdf(&x);
            for s in [&sdf, &inward] {
                let (d, n) = s.signed_distance(&x);
                assert!((d - exact).abs() < 1e-12, "{x:?}: {d} vs {exact}");
                assert!((n.norm() - 1.0).abs() < 1e-12);
            }
        }
    }

    /// Open, inconsistent, degenerate and flat surfaces are refused with the count of bad edges.
    #[test]
    fn bad_surfaces_are_refused() {
        let m = cube();
        let new = |tris: &[[u32; 3]]| MeshSdf::new(m.vertices.clone(), tris.to_vec()).unwrap_err();
        assert_eq!(new(&m.tris[1..]), SurfaceError::Open { edges: 3 });
        let mut one_flipped = m.tris.clone();
        one_flipped[0].swap(1, 2);
        assert_eq!(new(&one_flipped), SurfaceError::Inconsistent { edges: 3 });
        assert_eq!(new(&[]), SurfaceError::Empty);
        assert_eq!(new(&[[0, 1, 9]]), SurfaceError::IndexOutOfRange { triangle: 0 });
        // Two copies of one triangle, facing each other: closed and consistent, but flat.
        assert_eq!(new(&[[0, 1, 2], [0, 2, 1]]), SurfaceError::Flat);
        let e = MeshSdf::new(vec![Vec3::zeros(), Vec3::x(), Vec3::x() * 2.0, Vec3::y()], vec![[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]]);
        assert_eq!(e.unwrap_err(), SurfaceError::Degenerate { triangle: 0 });
        assert_eq!(SurfaceError::Open { edges: 3 }.to_string(), "is not a closed surface: 3 open edges (used by a number of triangles other than 2)");
    }
}
