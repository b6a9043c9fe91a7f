//! Collider contacts of the multi-layer solver (the multi-layer paper §3.5): a penalty constraint
//! `C = min(0, d(x, t))` (Eq. 28, d the collider's signed distance at the substep's end, compliance 1e-4)
//! on every penetrating vertex, solved as an elastic row on elastic vertices and as a rigid row against an
//! infinite-mass contact point on rigid ones (`glue::solve`), and restitution after the solve (Eq. 29, in
//! the form of Müller et al. 2020 that `contact::restitution` implements). Each row also carries Coulomb
//! friction with the collider's static and kinetic coefficients, in the positional form of Müller et al.
//! 2020, "Detailed rigid body simulation with extended position based dynamics", §3.5
//! ([`Friction::project`](xpbd_core::contact::Friction::project), which XPBD's rows use too): the
//! tangential multiplier that cancels the vertex's motion relative to the collider's surface in the
//! substep, limited by μ·λ_n. The paper's rows are frictionless.

use xpbd_core::collider::Collider;
use xpbd_core::contact::restitution::Contact;
use xpbd_core::contact::ColliderRow;
use xpbd_core::mesh::Vec3;

/// The paper's contact compliance (XPBD's recommended value).
const COMPLIANCE: f64 = 1e-4;

/// Multipliers of the contact rows of one substep, one normal and one tangential per (vertex, collider).
pub struct ContactRows {
    lambda: Vec<f64>,
    lambda_t: Vec<Vec3>,
    colliders: Vec<Collider>,
    /// α̃ = α / h².
    alpha: f64,
    /// The substep's length and end time, where the colliders are.
    h: f64,
    t: f64,
}

/// One penetrating contact row: its normal, its depth, the collider surface's displacement at the
/// vertex over the substep, and its multipliers' slot.
pub struct Row {
    pub normal: Vec3,
    depth: f64,
    surface: Vec3,
    slot: usize,
}

impl ContactRows {
    pub fn new(colliders: &[Collider], vertices: usize) -> Self {
        let rows = colliders.len() * vertices;
        ContactRows { lambda: vec![0.0; rows], lambda_t: vec![Vec3::zeros(); rows], colliders: colliders.to_vec(), alpha: 0.0, h: 0.0, t: 0.0 }
    }

    /// Zeroes the multipliers at the start of a substep of length `h` ending at `t_end`.
    pub fn reset(&mut self, h: f64, t_end: f64) {
        self.lambda.fill(0.0);
        self.lambda_t.fill(Vec3::zeros());
        self.alpha = COMPLIANCE / (h * h);
        (self.h, self.t) = (h, t_end);
    }

    /// The penetrating rows of vertex `i` at `x`.
    pub fn rows(&self, i: usize, x: &Vec3) -> impl Iterator<Item = Row> + '_ {
        let x = *x;
        self.colliders.iter().enumerate().filter_map(move |(c, col)| {
            let (d, n) = col.signed_distance(&x, self.t);
            (d < 0.0).then(|| Row { normal: n, depth: d, surface: col.velocity_at(&x, self.t) * self.h, slot: i * self.colliders.len() + c })
        })
    }

    /// Eq. 5 for row `r` with inverse mass `w`, the multiplier kept ≥ 0 (contacts only push). Returns Δλ_n.
    pub fn solve(&mut self, r: &Row, w: f64) -> f64 {
        let l = &mut self.lambda[r.slot];
        let dl = ((-r.depth - self.alpha * *l) / (w + self.alpha)).max(-*l);
        *l += dl;
        dl
    }

    /// Coulomb friction of row `r` after its normal update ([`Self::solve`]) for `motion`, the contact
    /// point's displacement in the substep, with `w` the generalised inverse mass along a unit tangent:
    /// returns Δλ_t, to apply tangentially.
    pub fn friction(&mut self, r: &Row, motion: &Vec3, w: impl FnOnce(&Vec3) -> f64) -> Vec3 {
        let friction = self.colliders[r.slot % self.colliders.len()].friction;
        friction.project(&mut self.lambda_t[r.slot], self.lambda[r.slot], &r.normal, &(motion - r.surface), w)
    }

    /// Every elastic vertex (`rigid[i]` false) against every collider, Gauss-Seidel; `x_start` holds
    /// the positions at the substep's start.
    pub fn solve_elastic(&mut self, x: &mut [Vec3], x_start: &[Vec3], inv_mass: &[f64], rigid: &[bool]) {
        if self.colliders.is_empty() {
            return;
        }
        for i in 0..x.len() {
            let w = inv_mass[i];
            if rigid[i] || w == 0.0 {
                continue;
            }
            let rows: Vec<Row> = self.rows(i, &x[i]).collect();
            for r in rows {
                x[i] += r.normal * (w * self.solve(&r, w));
                x[i] += self.friction(&r, &(x[i] - x_start[i]), |_| w) * w;
            }
        }
    }

    /// Rows that pushed this substep.
    pub fn active(&self) -> usize {
        self.lambda.iter().filter(|&&l| l > 0.0).count()
    }

    /// The rows that pushed this substep as core's collider rows, with their normals at `x`.
    pub fn pushed(&self, x: &[Vec3]) -> Vec<ColliderRow> {
        let k = self.colliders.len();
        let pushed = self.lambda.iter().enumerate().filter(|&(_, &l)| l > 0.0);
        pushed
            .map(|(slot, &lambda_n)| {
                let (i, c) = (slot / k, slot % k);
                let normal = self.colliders[c].signed_distance(&x[i], self.t).1;
                ColliderRow { vertex: i as u32, collider: c as u32, normal, lambda_n, lambda_t: self.lambda_t[slot] }
            })
            .collect()
    }

    /// The vertices that took a contact impulse this substep, for restitution.
    pub fn contacts(&self, x: &[Vec3]) -> Vec<Contact> {
        let contact = |r: &ColliderRow| Contact { vertex: r.vertex, normal: r.normal, restitution: self.colliders[r.collider as usize].restitution };
        self.pushed(x).iter().map(contact).collect()
    }
}
