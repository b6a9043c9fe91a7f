//! Contact detection, once per substep: the rows that can become active during it. Broad phase: the boxes
//! swept by every surface primitive from the substep's start x₀ to its prediction x̃, inflated by the
//! thickness, in a [`Bvh`] over triangles and one over edges. Narrow phase at x₀ (where the surfaces do not
//! cross): the closest points of a vertex and a triangle, or of two edges, kept when their distance is below
//! the thickness plus the motion of their vertices, and turned into a [`PairRow`] with the normal from the
//! second primitive to the first.

use super::bvh::{Aabb, Bvh};
use super::distance::{point_triangle, projected_barycentric, segment_segment};
use super::{ContactModel, Friction, PairRow};
use crate::mesh::Vec3;
use rayon::prelude::*;

/// How far outside a triangle (in barycentric weight) a vertex still counts as over it: a vertex exactly above
/// a shared edge belongs to both triangles.
const ON_BORDER: f64 = 1e-9;

/// Queries per parallel task (keeps the output order fixed: tasks are concatenated in order).
const CHUNK: usize = 256;

/// The broad phase's hierarchies, rebuilt every substep.
#[derive(Default)]
pub struct Detector {
    triangles: Bvh,
    edges: Bvh,
    /// Swept boxes of the edges (the queries of edge–edge pairs).
    edge_boxes: Vec<Aabb>,
}

/// Where a pair is looked for: the substep's start, its prediction, and the largest move of each vertex.
struct Motion<'a> {
    x0: &'a [Vec3],
    x1: &'a [Vec3],
    rest: &'a [Vec3],
    inv_mass: &'a [f64],
}

impl Motion<'_> {
    fn moved(&self, v: u32) -> f64 {
        (self.x1[v as usize] - self.x0[v as usize]).norm()
    }
    fn swept(&self, vs: &[u32], r: f64) -> Aabb {
        Aabb::around(vs.iter().flat_map(|&v| [&self.x0[v as usize], &self.x1[v as usize]])).inflate(r)
    }
}

impl Detector {
    /// The pair rows of a substep from `x0` to the prediction `x1` (appended to `rows`, cleared first).
    pub fn detect(&mut self, c: &ContactModel, rest: &[Vec3], inv_mass: &[f64], x0: &[Vec3], x1: &[Vec3], rows: &mut Vec<PairRow>) {
        rows.clear();
        if !c.has_pairs() {
            return;
        }
        let s = &c.surface;
        let m = Motion { x0, x1, rest, inv_mass };
        let r = c.thickness;
        let triangle_boxes: Vec<Aabb> = s.triangles.par_iter().map(|t| m.swept(t, r)).collect();
        self.edge_boxes = s.edges.par_iter().map(|e| m.swept(e, r)).collect();
        self.triangles = Bvh::new(&triangle_boxes);
        self.edges = Bvh::new(&self.edge_boxes);
        let vertex_rows: Vec<Vec<PairRow>> = (0..s.vertices.len()).collect::<Vec<_>>().par_chunks(CHUNK).map(|chunk| chunk.iter().flat_map(|&i| self.vertex_triangle(c, &m, i)).collect()).collect();
        let edge_rows: Vec<Vec<PairRow>> = (0..s.edges.len()).collect::<Vec<_>>().par_chunks(CHUNK).map(|chunk| chunk.iter().flat_map(|&i| self.edge_edge(c, &m, i)).collect()).collect();
        rows.extend(vertex_rows.into_iter().flatten());
        rows.extend(edge_rows.into_iter().flatten());
    }

    /// Whether primitives `a` (of body `ba`) and `b` (of body `bb`) may touch: bodies that collide, no shared
    /// vertex, no shared tet, not closer than the thickness at rest (within one body), not both immovable.
    fn admissible(c: &ContactModel, m: &Motion, a: &[u32], ba: u32, b: &[u32], bb: u32) -> bool {
        if !c.pair(ba, bb) || a.iter().any(|v| b.contains(v)) || a.iter().chain(b).all(|&v| m.inv_mass[v as usize] == 0.0) {
            return false;
        }
        ba != bb || !(c.surface.share_element(a, b) || distance(m.rest, a, b) < c.thickness)
    }

    /// Rows of surface vertex `i` against the triangles near it.
    fn vertex_triangle(&self, c: &ContactModel, m: &Motion, i: usize) -> Vec<PairRow> {
        let s = &c.surface;
        let (v, body) = (s.vertices[i], s.vertex_body[i]);
        let mut out = Vec::new();
        self.triangles.query(&m.swept(&[v], c.thickness), |t| {
            let (tri, tb) = (s.triangles[t as usize], s.triangle_body[t as usize]);
            if !Self::admissible(c, m, &[v], body, &tri, tb) {
                return;
            }
            let p = m.x0[v as usize];
            let [a, b, cc] = tri.map(|k| m.x0[k as usize]);
            // Only a vertex over the closed triangle: its normal is the face's. A vertex beside it would get a
            // tilted normal, a wall across the sliding direction for the substep; the neighbouring triangle or
            // an edge–edge row holds it instead.
            let Some(w) = projected_barycentric(&p, &a, &b, &cc).filter(|w| w.iter().all(|&wk| wk >= -ON_BORDER)) else { return };
            let w = w.map(|wk| wk.max(0.0));
            let face = (b - a).cross(&(cc - a)).normalize();
            let side = face.dot(&(p - a));
            let reach = c.thickness * 2.0 + m.moved(v) + tri.iter().map(|&k| m.moved(k)).fold(0.0, f64::max);
            if side.abs() >= reach {
                return;
            }
            let normal = if side >= 0.0 { face } else { -face };
            out.push(row([v, tri[0], tri[1], tri[2]], [1.0, -w[0], -w[1], -w[2]], normal, c.friction[body as usize], c.friction[tb as usize]));
        });
        out
    }

    /// Rows of surface edge `i` against the edges after it near it.
    fn edge_edge(&self, c: &ContactModel, m: &Motion, i: usize) -> Vec<PairRow> {
        let s = &c.surface;
        let (e, body) = (s.edges[i], s.edge_body[i]);
        let mut out = Vec::new();
        self.edges.query(&self.edge_boxes[i], |j| {
            let (f, fb) = (s.edges[j as usize], s.edge_body[j as usize]);
            if (j as usize) <= i || !Self::admissible(c, m, &e, body, &f, fb) {
                return;
            }
            let [p0, p1, q0, q1] = [e[0], e[1], f[0], f[1]].map(|k| m.x0[k as usize]);
            let (u, t) = segment_segment(&p0, &p1, &q0, &q1);
            let gap = p0 + (p1 - p0) * u - q0 - (q1 - q0) * t;
            let d = gap.norm();
            let reach = c.thickness * 2.0 + e.iter().chain(&f).map(|&k| m.moved(k)).fold(0.0, f64::max) * 2.0;
            // Only closest points inside both edges (else a vertex–triangle row holds the pair), and edges that
            // do not touch (their normal is undefined: the rows of their faces hold them).
            let inside = |s: f64| s > 0.0 && s < 1.0;
            if d >= reach || d <= 1e-9 * c.thickness || !inside(u) || !inside(t) {
                return;
            }
            out.push(row([e[0], e[1], f[0], f[1]], [1.0 - u, u, t - 1.0, -t], gap / d, c.friction[body as usize], c.friction[fb as usize]));
        });
        out
    }
}

fn row(vertices: [u32; 4], weights: [f64; 4], normal: Vec3, a: Friction, b: Friction) -> PairRow {
    PairRow { vertices, weights, normal, friction: Friction::mean(a, b), lambda_n: 0.0, lambda_t: Vec3::zeros() }
}

/// The distance at rest between a vertex and a triangle or between two edges.
fn distance(rest: &[Vec3], a: &[u32], b: &[u32]) -> f64 {
    let p = |v: u32| rest[v as usize];
    match (a, b) {
        (&[v], &[t0, t1, t2]) => {
            let w = point_triangle(&p(v), &p(t0), &p(t1), &p(t2));
            (p(v) - p(t0) * w[0] - p(t1) * w[1] - p(t2) * w[2]).norm()
        }
        (&[a0, a1], &[b0, b1]) => {
            let (u, t) = segment_segment(&p(a0), &p(a1), &p(b0), &p(b1));
            (p(a0) + (p(a1) - p(a0)) * u - p(b0) - (p(b1) - p(b0)) * t).norm()
        }
        _ => unreachable!("a vertex and a triangle, or two edges"),
    }
}
