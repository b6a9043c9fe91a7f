//! Contact detection, once per substep: the rows that can become active during it. Broad phase: pairs of
//! surface primitives close enough to touch while no two vertices move apart by more than a margin (a Verlet
//! list, found through a [`Bvh`] over triangles and one over edges), reused by later substeps while that holds
//! ([`FoundAt::holds`]). Narrow phase at x₀ (where the surfaces do not cross): the closest points of a vertex
//! and a triangle, or of two edges, kept when their distance is below twice the thickness plus the relative
//! motion of their vertices, and turned into a [`PairRow`] with the normal from the second primitive to the
//! first.

use super::distance::{point_triangle, projected_barycentric, segment_segment};
use super::verlet::FoundAt;
use super::wedge::{vertex_edge, wedge_candidates, WedgeCandidate};
use super::{ContactModel, Friction, PairRow};
use crate::mesh::bvh::{Aabb, Bvh};
use crate::mesh::Vec3;
use rayon::prelude::*;

/// How far outside a triangle (in barycentric weight) a vertex still counts as over it: a vertex exactly above
/// a shared edge belongs to both triangles.
pub(super) const ON_BORDER: f64 = 1e-9;

/// Queries per parallel task (keeps the output order fixed: tasks are concatenated in order).
const CHUNK: usize = 256;

/// The broad phase's candidate pairs, kept while the surface has moved less than the margin from where they were
/// found (a Verlet list: [`FoundAt::holds`]); found again otherwise.
#[derive(Default)]
pub struct Detector {
    /// (surface vertex index, triangle) and (edge, later edge) pairs that passed the broad phase's tests, in
    /// query order.
    vertex_triangle: Vec<(u32, u32)>,
    edge_edge: Vec<(u32, u32)>,
    /// Vertex–edge candidates, from the vertex–triangle ones ([`wedge_candidates`]).
    vertex_edge: Vec<WedgeCandidate>,
    found_at: FoundAt,
    /// Broad phases run so far and their wall seconds (for benchmarks).
    pub broad_phases: usize,
    pub broad_phase_seconds: f64,
}

/// The margin δ of the candidate list, as a multiple of the thickness: larger keeps more candidates and runs the
/// broad phase less often. Half a thickness measured best: on the Table 2 beam it runs 13 times in 400 substeps
/// at 7–10 ms (one thickness: 7 times at 17 ms), and the pile, which reruns it nearly every substep anyway,
/// pays 76 ms per call at 20 armadillos instead of 89 (benches/results/contact_*.txt, docs/contact.md).
const MARGIN: f64 = 0.5;

/// Where a pair is looked for: the substep's start and its prediction.
pub(super) struct Motion<'a> {
    pub x0: &'a [Vec3],
    x1: &'a [Vec3],
    rest: &'a [Vec3],
    inv_mass: &'a [f64],
}

impl Motion<'_> {
    /// The largest move in the substep of a vertex of `a` relative to a vertex of `b`: the most their distance
    /// (vertex–triangle or edge–edge) changes from x₀ to x̃.
    pub(super) fn relative(&self, a: &[u32], b: &[u32]) -> f64 {
        let step = |v: u32| self.x1[v as usize] - self.x0[v as usize];
        a.iter().flat_map(|&p| b.iter().map(move |&q| (step(p) - step(q)).norm())).fold(0.0, f64::max)
    }
}

impl Detector {
    /// The pair rows of a substep from `x0` to the prediction `x1` (appended to `rows`, cleared first).
    pub fn detect(&mut self, c: &ContactModel, rest: &[Vec3], inv_mass: &[f64], x0: &[Vec3], x1: &[Vec3], rows: &mut Vec<PairRow>) {
        rows.clear();
        if !c.has_pairs() {
            return;
        }
        self.update(c, rest, inv_mass, x0, x1);
        let m = Motion { x0, x1, rest, inv_mass };
        let vertex_rows: Vec<Vec<PairRow>> =
            self.vertex_triangle.par_chunks(CHUNK).map(|chunk| chunk.iter().filter_map(|&(i, t)| vertex_triangle(c, &m, i, t)).collect()).collect();
        let edge_rows: Vec<Vec<PairRow>> =
            self.edge_edge.par_chunks(CHUNK).map(|chunk| chunk.iter().filter_map(|&(e, f)| edge_edge(c, &m, e, f)).collect()).collect();
        let wedge_rows: Vec<Vec<PairRow>> =
            self.vertex_edge.par_chunks(CHUNK).map(|chunk| chunk.iter().filter_map(|w| vertex_edge(c, &m, w)).collect()).collect();
        rows.extend(vertex_rows.into_iter().flatten());
        rows.extend(edge_rows.into_iter().flatten());
        rows.extend(wedge_rows.into_iter().flatten());
    }

    /// Keeps the candidates valid for the substep from `x0` to `x1`, running the broad phase when they no longer
    /// hold ([`FoundAt::holds`]); whether it ran. (The CUDA backend runs the narrow phase on the device.)
    pub fn update(&mut self, c: &ContactModel, rest: &[Vec3], inv_mass: &[f64], x0: &[Vec3], x1: &[Vec3]) -> bool {
        let margin = MARGIN * c.thickness;
        if self.found_at.holds(c, x0, x1, margin) {
            return false;
        }
        let start = std::time::Instant::now();
        self.broad_phase(c, &Motion { x0, x1, rest, inv_mass }, margin);
        self.broad_phase_seconds += start.elapsed().as_secs_f64();
        true
    }

    /// The candidates, each list in the order its rows are made and projected: (surface vertex index,
    /// triangle), (edge, edge) and vertex–edge.
    pub fn candidates(&self) -> (&[(u32, u32)], &[(u32, u32)], &[WedgeCandidate]) {
        (&self.vertex_triangle, &self.edge_edge, &self.vertex_edge)
    }

    /// Finds the candidates: pairs that come within K = 2·thickness + 3δ on the straight paths from x₀ to x̃
    /// (closer than K at x̃, or than K plus their relative motion at x₀), a bound above the narrow phase's
    /// reach that keeps the list valid while [`FoundAt::holds`]. They come from a [`Bvh`] of the boxes swept
    /// from x₀ to x̃, grown by K/2: every surface vertex queries the triangles, and the
    /// edges' tree is traversed against itself.
    fn broad_phase(&mut self, c: &ContactModel, m: &Motion, margin: f64) {
        let s = &c.surface;
        let keep = 2.0 * c.thickness + 3.0 * margin;
        let grow = 0.5 * keep;
        let swept = |vs: &[u32]| Aabb::around(vs.iter().flat_map(|&v| [&m.x0[v as usize], &m.x1[v as usize]])).inflate(grow);
        // Closer than K at x̃, or than K plus their relative motion at x₀ (which differs from x̃'s distance by at
        // most that motion, so x₀ needs no look when x̃'s is beyond K plus twice the motion).
        let near = |a: &[u32], b: &[u32]| {
            let (d1, moved) = (distance(m.x1, a, b), m.relative(a, b));
            d1 < keep || (d1 < keep + 2.0 * moved && distance(m.x0, a, b) < keep + moved)
        };
        // Primitives `a` (of body `ba`) and `b` (of body `bb`), cheapest and most selective tests first: bodies
        // that collide, no shared vertex, not both immovable; near; within one body, not closer than K at rest
        // (surface neighbours, which could touch only by crushing the elements between them) and no shared tet.
        let candidate = |a: &[u32], ba: u32, b: &[u32], bb: u32| {
            let own = ba == bb;
            c.pair(ba, bb)
                && !a.iter().any(|v| b.contains(v))
                && !a.iter().chain(b).all(|&v| m.inv_mass[v as usize] == 0.0)
                && near(a, b)
                && !(own && (distance(m.rest, a, b) < keep || s.share_element(a, b)))
        };
        let triangle_boxes: Vec<Aabb> = s.triangles.par_iter().map(|t| swept(t)).collect();
        let edge_boxes: Vec<Aabb> = s.edges.par_iter().map(|e| swept(e)).collect();
        let (triangles, edges) = (Bvh::new(&triangle_boxes), Bvh::new(&edge_boxes));
        let vt: Vec<Vec<(u32, u32)>> = (0..s.vertices.len() as u32)
            .collect::<Vec<_>>()
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut out = Vec::new();
                for &i in chunk {
                    let (v, body) = (s.vertices[i as usize], s.vertex_body[i as usize]);
                    triangles.query(&swept(&[v]), |t| {
                        let (tri, tb) = (&s.triangles[t as usize], s.triangle_body[t as usize]);
                        if candidate(&[v], body, tri, tb) {
                            out.push((i, t));
                        }
                    });
                }
                out
            })
            .collect();
        let ee: Vec<Vec<(u32, u32)>> = edges
            .overlapping_pairs()
            .par_chunks(CHUNK)
            .map(|chunk| {
                let kept = chunk.iter().filter(|&&(i, j)| {
                    let (e, f) = (&s.edges[i as usize], &s.edges[j as usize]);
                    let (eb, fb) = (s.edge_body[i as usize], s.edge_body[j as usize]);
                    candidate(e, eb, f, fb)
                });
                kept.copied().collect()
            })
            .collect();
        self.vertex_triangle = vt.into_iter().flatten().collect();
        self.edge_edge = ee.into_iter().flatten().collect();
        // The vertex–triangle candidates are in query order: each vertex's triangles are consecutive.
        self.vertex_edge = wedge_candidates(c, &self.vertex_triangle);
        self.found_at = FoundAt::new(c, m.x1);
        self.broad_phases += 1;
    }
}

/// The row of surface vertex `i` against triangle `t`, when the vertex lies over the closed triangle within reach.
fn vertex_triangle(c: &ContactModel, m: &Motion, i: u32, t: u32) -> Option<PairRow> {
    let s = &c.surface;
    let (tri, tb) = (s.triangles[t as usize], s.triangle_body[t as usize]);
    let (v, body) = (s.vertices[i as usize], s.vertex_body[i as usize]);
    let p = m.x0[v as usize];
    let [a, b, cc] = tri.map(|k| m.x0[k as usize]);
    // Only a vertex over the closed triangle: its normal is the face's. A vertex beside it would get a tilted
    // normal, a wall across the sliding direction for the substep; the neighbouring triangle or an edge–edge
    // row holds it instead.
    let w = projected_barycentric(&p, &a, &b, &cc).filter(|w| w.iter().all(|&wk| wk >= -ON_BORDER))?.map(|wk| wk.max(0.0));
    let face = (b - a).cross(&(cc - a)).normalize();
    let side = face.dot(&(p - a));
    let reach = c.thickness * 2.0 + m.relative(&[v], &tri);
    if side.abs() >= reach {
        return None;
    }
    let normal = if side >= 0.0 { face } else { -face };
    Some(row([v, tri[0], tri[1], tri[2]], [1.0, -w[0], -w[1], -w[2]], normal, c.friction[body as usize], c.friction[tb as usize]))
}

/// The row of edges `i` and `j`, when their closest points lie inside both and within reach.
fn edge_edge(c: &ContactModel, m: &Motion, i: u32, j: u32) -> Option<PairRow> {
    let s = &c.surface;
    let (e, f) = (s.edges[i as usize], s.edges[j as usize]);
    let [p0, p1, q0, q1] = [e[0], e[1], f[0], f[1]].map(|k| m.x0[k as usize]);
    let (u, t) = segment_segment(&p0, &p1, &q0, &q1);
    let gap = p0 + (p1 - p0) * u - q0 - (q1 - q0) * t;
    let d = gap.norm();
    let reach = c.thickness * 2.0 + m.relative(&e, &f);
    // Only closest points inside both edges (else a vertex–triangle row holds the pair), and edges that do not
    // touch (their normal is undefined: the rows of their faces hold them).
    let inside = |s: f64| s > 0.0 && s < 1.0;
    if d >= reach || d <= 1e-9 * c.thickness || !inside(u) || !inside(t) {
        return None;
    }
    let (eb, fb) = (s.edge_body[i as usize], s.edge_body[j as usize]);
    Some(row([e[0], e[1], f[0], f[1]], [1.0 - u, u, t - 1.0, -t], gap / d, c.friction[eb as usize], c.friction[fb as usize]))
}

pub(super) fn row(vertices: [u32; 4], weights: [f64; 4], normal: Vec3, a: Friction, b: Friction) -> PairRow {
    PairRow { vertices, weights, normal, friction: Friction::mean(a, b), lambda_n: 0.0, lambda_t: Vec3::zeros() }
}

/// The distance at positions `x` between a vertex and a triangle or between two edges.
fn distance(x: &[Vec3], a: &[u32], b: &[u32]) -> f64 {
    let p = |v: u32| x[v as usize];
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
