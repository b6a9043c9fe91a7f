//! Frictional contact of the implicit solvers (thesis "Adaptive methods for elastic deformation", §3.3.3):
//! the contact issue's detection gives vertex–collider and surface-pair contacts; each has three rows
//! (normal and two tangents) in the reduced coordinates, J_A = J G; the Delassus operator H = J_A A_A⁻¹ J_Aᵀ
//! comes from the step's factorisation, as ZᵀZ with Z = L⁻¹ P J_Aᵀ (`sparse::forward_columns`); compliant
//! projected Gauss-Seidel ([`pgs::solve`]) finds the impulses, warm-started from the contacts of the previous
//! step; Δẋ_A = A_A⁻¹ J_Aᵀ λ.
//! Stabilisation: b_n = J_A ẋ_A + k_b Φ with k_b = `baumgarte`/h while penetrating (Φ < 0), and + Φ/h while
//! apart, so a contact closes its gap within the step but never pulls.
//!
//! Besides each surface vertex, each surface edge whose interior dips deeper into a collider than both its
//! ends (a box's edge or corner, a curved collider, between two vertices) gets a contact at its deepest point
//! p = (1 − s) x_a + s x_b, with weights (1 − s, s) and the collider's normal there turned perpendicular to
//! the edge: without it a collider's edge passes through a coarse shell's triangles and the vertex beyond,
//! pressed against the side face, holds the sheet like a peg (docs/shells-scenes.md). Collider contacts
//! read Φ and n (the normal rows of Eq. 3.13–3.15) from the collider with a box's edges rounded by the contact
//! thickness, so a vertex at a box's edge gets a normal between the faces' rather than the side face's.

use super::rigid::Bodies;
use super::system::System;
use std::collections::HashMap;
use xpbd_core::collider::Collider;
use xpbd_core::contact::ContactSet;
use xpbd_core::implicit::pgs::{self, FactoredDelassus};

use xpbd_core::implicit::settings::ImplicitSettings;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// A PGS solve stops once a sweep changes no impulse by more than this share of the largest.
const PGS_TOLERANCE: f64 = 1e-9;
/// Samples along an edge in the search for its deepest point, before the golden-section refinement.
const EDGE_SAMPLES: usize = 16;
/// An edge's interior must dip this share of its length deeper than both ends to get a contact of its own.
const EDGE_DIP: f64 = 1e-3;

/// What identifies a contact from one step to the next, for the warm start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Collider(u32, u32),
    /// A surface edge's deepest point in a collider: the edge's vertices, the collider.
    Edge(u32, u32, u32),
    Pair([u32; 4]),
}

/// One contact: Φ = n·Σ wₖ xₖ (− thickness for pairs), moving against a surface of velocity `surface`.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    pub vertices: [u32; 4],
    pub weights: [f64; 4],
    pub normal: Vec3,
    tangents: [Vec3; 2],
    pub gap: f64,
    mu: f64,
    surface: Vec3,
    key: Key,
    /// Not present at the previous step (the oracle approximates its force).
    pub new: bool,
}

#[derive(Default)]
pub struct Contacts {
    set: ContactSet,
    pub list: Vec<Contact>,
    /// Three impulses per contact (N·s): normal, then the two tangents.
    pub lambda: Vec<f64>,
    warm: HashMap<Key, (f64, Vec3)>,
    /// PGS sweeps of the last solve.
    pub sweeps: usize,
    /// Seconds spent in detection and in the contact solve.
    pub detect_seconds: f64,
    pub solve_seconds: f64,
}

/// The parameter s ∈ (0, 1) of the point of segment a–b deepest in `collider` at time `t` (least signed
/// distance, edges rounded by `radius`), and that distance: the best of [`EDGE_SAMPLES`] samples refined by
/// golden-section search between its neighbours.
fn deepest_point(collider: &Collider, a: &Vec3, b: &Vec3, t: f64, radius: f64) -> (f64, f64) {
    let depth = |s: f64| collider.rounded_signed_distance(&(a + (b - a) * s), t, radius).0;
    let n = EDGE_SAMPLES as f64;
    let best = (1..EDGE_SAMPLES).map(|i| i as f64 / n).min_by(|&p, &q| depth(p).total_cmp(&depth(q))).unwrap();
    let (mut lo, mut hi) = (best - 1.0 / n, best + 1.0 / n);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..24 {
        let (p, q) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        if depth(p) < depth(q) {
            hi = q;
        } else {
            lo = p;
        }
    }
    let s = 0.5 * (lo + hi);
    (s, depth(s))
}

fn tangents(n: &Vec3) -> [Vec3; 2] {
    let a = if n.x.abs() < 0.6 { Vec3::x() } else { Vec3::y() };
    let t1 = n.cross(&a).normalize();
    [t1, n.cross(&t1)]
}

impl Contacts {
    /// The contacts that may act in the step from `x` to the prediction `x_pred` ending at `t_end`, with
    /// their impulses warm-started.
    pub fn detect(&mut self, model: &Model, x: &[Vec3], x_pred: &[Vec3], t_end: f64, h: f64) {
        let start = std::time::Instant::now();
        self.set.detect(model, x, x_pred, t_end);
        self.list.clear();
        let t0 = t_end - h;
        let thickness = model.contact.thickness;
        for r in &self.set.colliders {
            let c = &model.colliders[r.collider as usize];
            let i = r.vertex as usize;
            let (gap, normal) = c.rounded_signed_distance(&x[i], t0, thickness);
            let key = Key::Collider(r.vertex, r.collider);
            let vertices = [r.vertex; 4];
            let weights = [1.0, 0.0, 0.0, 0.0];
            self.list.push(Contact {
                vertices,
                weights,
                normal,
                tangents: tangents(&normal),
                gap,
                mu: c.friction.mu_k,
                surface: c.velocity_at(&x[i], t0),
                key,
                new: true,
            });
        }
        for &[a, b] in &model.contact.surface.edges {
            let (ia, ib) = (a as usize, b as usize);
            if model.inv_mass[ia] == 0.0 && model.inv_mass[ib] == 0.0 {
                continue;
            }
            let (pa, pb) = (x_pred[ia], x_pred[ib]);
            let length = (pb - pa).norm();
            let reach = thickness + 2.0 * (pa - x[ia]).norm().max((pb - x[ib]).norm());
            for (k, c) in model.colliders.iter().enumerate() {
                let distance = |p: &Vec3| c.rounded_signed_distance(p, t_end, thickness).0;
                let (da, db) = (distance(&pa), distance(&pb));
                // The distance is 1-Lipschitz: no point of the edge is nearer than (d_a + d_b − |ab|)/2.
                if 0.5 * (da + db - length) >= reach {
                    continue;
                }
                let (s, depth) = deepest_point(c, &pa, &pb, t_end, thickness);
                if depth >= reach || depth >= da.min(db) - EDGE_DIP * length {
                    continue;
                }
                let p = x[ia] * (1.0 - s) + x[ib] * s;
                let (gap, gradient) = c.rounded_signed_distance(&p, t0, thickness);
                let along = (x[ib] - x[ia]).normalize();
                // Perpendicular to the edge: at a box's edge the gradient flips between the two faces, while
                // both turn into the same normal of the edge–edge contact.
                let Some(normal) = (gradient - along * gradient.dot(&along)).try_normalize(1e-9) else { continue };
                self.list.push(Contact {
                    vertices: [a, b, b, b],
                    weights: [1.0 - s, s, 0.0, 0.0],
                    normal,
                    tangents: tangents(&normal),
                    gap,
                    mu: c.friction.mu_k,
                    surface: c.velocity_at(&p, t0),
                    key: Key::Edge(a, b, k as u32),
                    new: true,
                });
            }
        }
        for r in &self.set.pairs {
            let gap = r.normal.dot(&r.vertices.iter().zip(&r.weights).map(|(&v, &w)| x[v as usize] * w).sum::<Vec3>()) - thickness;
            let key = Key::Pair(r.vertices);
            let c = Contact {
                vertices: r.vertices,
                weights: r.weights,
                normal: r.normal,
                tangents: tangents(&r.normal),
                gap,
                mu: r.friction.mu_k,
                surface: Vec3::zeros(),
                key,
                new: true,
            };
            self.list.push(c);
        }
        self.lambda = vec![0.0; 3 * self.list.len()];
        for (c, l) in self.list.iter_mut().zip(self.lambda.chunks_mut(3)) {
            if let Some((n, t)) = self.warm.get(&c.key) {
                c.new = false;
                l[0] = *n;
                l[1] = t.dot(&c.tangents[0]);
                l[2] = t.dot(&c.tangents[1]);
            }
        }
        self.detect_seconds += start.elapsed().as_secs_f64();
    }

    /// Row `k` (0 normal, 1–2 tangents) of contact `c`: its direction.
    fn direction(c: &Contact, k: usize) -> Vec3 {
        if k == 0 {
            c.normal
        } else {
            c.tangents[k - 1]
        }
    }

    /// The stabilisation of a normal row: k_b Φ while penetrating, Φ/h while apart.
    fn stabilisation(gap: f64, h: f64, baumgarte: f64) -> f64 {
        if gap < 0.0 {
            baumgarte / h * gap
        } else {
            gap / h
        }
    }

    /// The rows of J_A, sparse: (reduced DOF, coefficient).
    fn rows(&self, sys: &System, x: &[Vec3], bodies: &Bodies) -> Vec<Vec<(usize, f64)>> {
        let mut rows = Vec::with_capacity(3 * self.list.len());
        for c in &self.list {
            for k in 0..3 {
                let dir = Self::direction(c, k);
                let mut row = Vec::new();
                for (&v, &w) in c.vertices.iter().zip(&c.weights) {
                    if w == 0.0 {
                        continue;
                    }
                    let Some(map) = sys.map_of(v as usize, x, bodies) else { continue };
                    let node = sys.dofs.node(v as usize).unwrap();
                    let s = sys.dofs.node_start[node as usize];
                    let lifted = map.transpose() * dir * w;
                    row.extend(lifted.iter().take(sys.dofs.node_size(node)).enumerate().map(|(j, &cf)| (s + j, cf)));
                }
                rows.push(row);
            }
        }
        rows
    }

    /// Solves the contacts after the unconstrained step, adding their velocity change to `va` (the reduced
    /// velocities ẋ_A + Δẋ_A). Keeps the impulses for the next step's warm start.
    pub fn solve(&mut self, sys: &System, x: &[Vec3], bodies: &Bodies, va: &mut [f64], settings: &ImplicitSettings, h: f64) {
        self.warm.clear();
        if self.list.is_empty() {
            return;
        }
        let start = std::time::Instant::now();
        let rows = self.rows(sys, x, bodies);
        let z = sys.forward_columns(&rows);
        let mut b = vec![0.0; rows.len()];
        for (ci, c) in self.list.iter().enumerate() {
            for k in 0..3 {
                let i = 3 * ci + k;
                b[i] = rows[i].iter().map(|&(d, cf)| cf * va[d]).sum::<f64>() - Self::direction(c, k).dot(&c.surface);
            }
            b[3 * ci] += Self::stabilisation(c.gap, h, settings.baumgarte);
        }
        let mu: Vec<f64> = self.list.iter().map(|c| c.mu).collect();
        let (gamma, sweeps) = (settings.contact_compliance, settings.pgs_iterations);
        let mut op = FactoredDelassus::new(&z, &self.lambda);
        self.sweeps = pgs::solve(&mut op, &b, &mu, gamma, sweeps, PGS_TOLERANCE, &mut self.lambda);
        let dv = sys.backward(&op.w);
        va.iter_mut().zip(&dv).for_each(|(a, d)| *a += d);
        // Every contact of this step, pushing or not, is an old one at the next (the oracle approximates only
        // contacts that were not there).
        for (c, l) in self.list.iter().zip(self.lambda.chunks(3)) {
            self.warm.insert(c.key, (l[0], c.tangents[0] * l[1] + c.tangents[1] * l[2]));
        }
        self.solve_seconds += start.elapsed().as_secs_f64();
    }

    /// Contacts whose normal impulse is positive.
    pub fn active(&self) -> usize {
        self.lambda.chunks(3).filter(|l| l[0] > 0.0).count()
    }

    /// Jᵀλ in full (vertex) space: the impulse of the last solve on each vertex.
    pub fn vertex_impulses(&self, vertex_count: usize) -> Vec<Vec3> {
        let mut out = vec![Vec3::zeros(); vertex_count];
        for (c, l) in self.list.iter().zip(self.lambda.chunks(3)) {
            let p = c.normal * l[0] + c.tangents[0] * l[1] + c.tangents[1] * l[2];
            for (&v, &w) in c.vertices.iter().zip(&c.weights) {
                out[v as usize] += p * w;
            }
        }
        out
    }

    /// The stabilised normal velocity target of contact `c` (b_n without J ẋ), for the oracle.
    pub fn normal_bias(c: &Contact, h: f64, settings: &ImplicitSettings) -> f64 {
        Self::stabilisation(c.gap, h, settings.baumgarte) - c.normal.dot(&c.surface)
    }
}
