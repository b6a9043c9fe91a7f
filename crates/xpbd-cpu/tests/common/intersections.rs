//! An independent interpenetration check for the contact tests (it shares no code with `xpbd_core::contact`):
//! every surface edge against every surface triangle it shares no vertex with (segment–triangle crossing,
//! Möller–Trumbore), and every surface vertex against every tet that does not hold it (strictly inside).
//! Brute force with bounding-box rejection: for the small meshes of tests only.

use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// Crossing pairs at positions `x`: (edge–triangle crossings, vertices inside a tet).
pub fn crossings(model: &Model, x: &[Vec3]) -> (usize, usize) {
    let tris: Vec<[u32; 3]> = model.bodies.iter().flat_map(|b| b.surface.iter().copied()).collect();
    let mut edges: Vec<[u32; 2]> = tris.iter().flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]]).map(|[a, b]| [a.min(b), a.max(b)]).collect();
    edges.sort_unstable();
    edges.dedup();
    let mut vertices: Vec<u32> = tris.iter().flatten().copied().collect();
    vertices.sort_unstable();
    vertices.dedup();
    let tets: Vec<[u32; 4]> = model.bodies.iter().flat_map(|b| b.tets.iter().copied()).collect();
    let bounds = |vs: &[u32]| {
        let lo = vs.iter().fold(Vec3::repeat(f64::INFINITY), |a, &v| a.inf(&x[v as usize]));
        let hi = vs.iter().fold(Vec3::repeat(f64::NEG_INFINITY), |a, &v| a.sup(&x[v as usize]));
        (lo, hi)
    };
    let apart = |a: &(Vec3, Vec3), b: &(Vec3, Vec3)| (0..3).any(|k| a.1[k] < b.0[k] || b.1[k] < a.0[k]);
    let tri_box: Vec<_> = tris.iter().map(|t| bounds(t)).collect();
    let mut edge_hits = 0;
    for e in &edges {
        let eb = bounds(e);
        for (t, tb) in tris.iter().zip(&tri_box) {
            if t.contains(&e[0]) || t.contains(&e[1]) || apart(&eb, tb) {
                continue;
            }
            if segment_crosses_triangle(&x[e[0] as usize], &x[e[1] as usize], t.map(|v| x[v as usize])) {
                edge_hits += 1;
            }
        }
    }
    let tet_box: Vec<_> = tets.iter().map(|t| bounds(t)).collect();
    let mut inside = 0;
    for &v in &vertices {
        let p = x[v as usize];
        for (t, tb) in tets.iter().zip(&tet_box) {
            if t.contains(&v) || apart(&(p, p), tb) {
                continue;
            }
            if strictly_inside(&p, t.map(|k| x[k as usize])) {
                inside += 1;
            }
        }
    }
    (edge_hits, inside)
}

/// Whether the segment p–q passes through the interior of triangle `t` (Möller–Trumbore; touching the
/// border within 1e-12 relative does not count).
fn segment_crosses_triangle(p: &Vec3, q: &Vec3, t: [Vec3; 3]) -> bool {
    let (e1, e2, d) = (t[1] - t[0], t[2] - t[0], q - p);
    let h = d.cross(&e2);
    let a = e1.dot(&h);
    if a.abs() < 1e-300 {
        return false;
    }
    let s = p - t[0];
    let u = s.dot(&h) / a;
    let qv = s.cross(&e1);
    let v = d.dot(&qv) / a;
    let w = e2.dot(&qv) / a;
    let eps = 1e-12;
    u > eps && v > eps && u + v < 1.0 - eps && w > eps && w < 1.0 - eps
}

/// Whether `p` lies strictly inside the tet (all barycentric coordinates above 1e-9).
fn strictly_inside(p: &Vec3, t: [Vec3; 4]) -> bool {
    let m = nalgebra::Matrix3::from_columns(&[t[1] - t[0], t[2] - t[0], t[3] - t[0]]);
    let Some(inv) = m.try_inverse() else { return false };
    let b = inv * (p - t[0]);
    let eps = 1e-9;
    b.x > eps && b.y > eps && b.z > eps && b.x + b.y + b.z < 1.0 - eps
}
