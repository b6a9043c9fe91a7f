//! Vertex–edge rows: a surface vertex in the wedge of an edge, outside (across that edge) every candidate
//! triangle the edge borders, with its closest point inside the edge. That is the region a convex edge (a
//! ridge, a box's rim) owns: no vertex–triangle row holds a vertex there (it is over neither face), and an
//! edge–edge row holds it only when one of the vertex's own edges has its closest point inside, which a corner
//! meeting a ridge has not. The row's closest point and normal follow the positions at every projection
//! ([`PairRow::follows_edge`]), as a vertex sliding over the edge sees a rounded rim rather than a wall.

use super::detect::{row, Motion, ON_BORDER};
use super::distance::projected_barycentric;
use super::{ContactModel, PairRow};

/// The vertex–edge rows of one surface vertex, from its candidate triangles `group` ((vertex, triangle) pairs
/// of one vertex, from the broad phase), at the substep's start.
pub(super) fn vertex_edge(c: &ContactModel, m: &Motion, group: &[(u32, u32)]) -> Vec<PairRow> {
    let s = &c.surface;
    let i = group[0].0 as usize;
    let (v, body) = (s.vertices[i], s.vertex_body[i]);
    let p = m.x0[v as usize];
    // Each candidate triangle's edges (lower index first), with whether the vertex is outside it across the edge.
    let mut sides: Vec<([u32; 2], u32, bool)> = Vec::with_capacity(3 * group.len());
    for &(_, t) in group {
        let tri = s.triangles[t as usize];
        let [a, b, cc] = tri.map(|k| m.x0[k as usize]);
        let Some(w) = projected_barycentric(&p, &a, &b, &cc) else { continue };
        for k in 0..3 {
            let (e0, e1) = (tri[(k + 1) % 3], tri[(k + 2) % 3]);
            sides.push(([e0.min(e1), e0.max(e1)], s.triangle_body[t as usize], w[k] < -ON_BORDER));
        }
    }
    sides.sort_unstable_by_key(|side| side.0);
    let wedges = sides.chunk_by(|a, b| a.0 == b.0).filter(|same| same.iter().all(|side| side.2));
    wedges
        .filter_map(|same| {
            let ([a, b], edge_body) = (same[0].0, same[0].1);
            if edge_body == body && s.share_element(&[v], &[a, b]) {
                return None;
            }
            let (xa, xb) = (m.x0[a as usize], m.x0[b as usize]);
            let ab = xb - xa;
            let t = (p - xa).dot(&ab) / ab.norm_squared();
            let gap = p - xa - ab * t;
            let d = gap.norm();
            let reach = 2.0 * c.thickness + m.relative(&[v], &[a, b]);
            let inside = t > 0.0 && t < 1.0;
            (inside && d < reach && d > 1e-9 * c.thickness)
                .then(|| row([v, a, b, b], [1.0, t - 1.0, -t, 0.0], gap / d, c.friction[body as usize], c.friction[edge_body as usize]))
        })
        .collect()
}
