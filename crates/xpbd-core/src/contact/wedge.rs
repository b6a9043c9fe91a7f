//! Vertex–edge rows: a surface vertex in the wedge of an edge, outside (across that edge) every candidate
//! triangle the edge borders, with its closest point inside the edge. That is the region a convex edge (a
//! ridge, a box's rim) owns: no vertex–triangle row holds a vertex there (it is over neither face), and an
//! edge–edge row holds it only when one of the vertex's own edges has its closest point inside, which a corner
//! meeting a ridge has not. The row's closest point and normal follow the positions at every projection
//! ([`PairRow::follows_edge`]), as a vertex sliding over the edge sees a rounded rim rather than a wall.

use super::detect::{row, Motion, ON_BORDER};
use super::distance::{line_parameter, projected_barycentric};
use super::{ContactModel, PairRow};

/// No triangle (a candidate edge bordered by one candidate triangle only).
pub const NO_TRIANGLE: u32 = u32::MAX;

/// A vertex–edge candidate, found with the broad phase's vertex–triangle candidates: surface vertex `vertex`
/// (an index of `Surface::vertices`), the edge a–b of one of its candidate triangles, and the candidate
/// triangles that border the edge (one or two).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WedgeCandidate {
    pub vertex: u32,
    pub edge: [u32; 2],
    pub triangles: [u32; 2],
}

/// The vertex–edge candidates of the (vertex, triangle) candidates `vertex_triangle`, in which each vertex's
/// triangles are consecutive: every edge of a vertex's candidate triangles once (by edge within a vertex),
/// without the edges that share a tet with the vertex.
pub fn wedge_candidates(c: &ContactModel, vertex_triangle: &[(u32, u32)]) -> Vec<WedgeCandidate> {
    let s = &c.surface;
    let mut out = Vec::new();
    let mut edges: Vec<([u32; 2], u32)> = Vec::new();
    for group in vertex_triangle.chunk_by(|a, b| a.0 == b.0) {
        let i = group[0].0;
        let (v, body) = (s.vertices[i as usize], s.vertex_body[i as usize]);
        edges.clear();
        for &(_, t) in group {
            let tri = s.triangles[t as usize];
            edges.extend((0..3).map(|k| {
                let (a, b) = (tri[(k + 1) % 3], tri[(k + 2) % 3]);
                ([a.min(b), a.max(b)], t)
            }));
        }
        edges.sort_unstable();
        for same in edges.chunk_by(|a, b| a.0 == b.0) {
            let (edge, t) = same[0];
            if s.triangle_body[t as usize] == body && s.share_element(&[v], &edge) {
                continue;
            }
            out.push(WedgeCandidate { vertex: i, edge, triangles: [t, same.get(1).map_or(NO_TRIANGLE, |e| e.1)] });
        }
    }
    out
}

/// The row of candidate `w` at the substep's start, when the vertex is outside every bordering triangle across
/// the edge (a degenerate triangle does not count), its closest point lies inside the edge, and it is within
/// reach.
pub fn vertex_edge(c: &ContactModel, m: &Motion, w: &WedgeCandidate) -> Option<PairRow> {
    let s = &c.surface;
    let (v, body) = (s.vertices[w.vertex as usize], s.vertex_body[w.vertex as usize]);
    let [a, b] = w.edge;
    let p = m.x0[v as usize];
    let mut outside = 0;
    for &t in w.triangles.iter().filter(|&&t| t != NO_TRIANGLE) {
        let tri = s.triangles[t as usize];
        let [ta, tb, tc] = tri.map(|k| m.x0[k as usize]);
        let Some(weights) = projected_barycentric(&p, &ta, &tb, &tc) else { continue };
        // The weight of the corner opposite the edge: negative outside across it.
        let opposite = tri.iter().position(|k| *k != a && *k != b).expect("a triangle has a corner off each edge");
        if weights[opposite] >= -ON_BORDER {
            return None;
        }
        outside += 1;
    }
    let (xa, xb) = (m.x0[a as usize], m.x0[b as usize]);
    let t = line_parameter(&p, &xa, &xb);
    let gap = p - xa - (xb - xa) * t;
    let d = gap.norm();
    let reach = 2.0 * c.thickness + m.relative(&[v], &[a, b]);
    let edge_body = s.triangle_body[w.triangles[0] as usize];
    (outside > 0 && t > 0.0 && t < 1.0 && d < reach && d > 1e-9 * c.thickness)
        .then(|| row([v, a, b, b], [1.0, t - 1.0, -t, 0.0], gap / d, c.friction[body as usize], c.friction[edge_body as usize]))
}
