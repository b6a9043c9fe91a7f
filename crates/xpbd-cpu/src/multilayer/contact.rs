//! Collider contacts of the multi-layer solver (the multi-layer paper §3.5): a penalty constraint
//! `C = min(0, d(x))` (Eq. 28, d the collider's signed distance, compliance 1e-4) on every penetrating
//! vertex, solved as an elastic row on elastic vertices and as a rigid row against an infinite-mass
//! contact point on rigid ones (`glue::solve`), and restitution after the solve (Eq. 29, in the form of
//! Müller et al. 2020 that `contact::restitution` implements). Frictionless: scenes with friction are
//! rejected.

use xpbd_core::collider::Collider;
use xpbd_core::contact::restitution::Contact;
use xpbd_core::contact::ColliderRow;
use xpbd_core::mesh::Vec3;

/// The paper's contact compliance (XPBD's recommended value).
const COMPLIANCE: f64 = 1e-4;

/// Multipliers of the contact rows of one substep, one per (vertex, collider).
pub struct ContactRows {
    lambda: Vec<f64>,
    colliders: Vec<Collider>,
    /// α̃ = α / h².
    alpha: f64,
}

/// One penetrating contact row: its normal, its depth and its multiplier's slot.
pub struct Row {
    pub normal: Vec3,
    depth: f64,
    slot: usize,
}

impl ContactRows {
    pub fn new(colliders: &[Collider], vertices: usize) -> Self {
        ContactRows { lambda: vec![0.0; colliders.len() * vertices], colliders: colliders.to_vec(), alpha: 0.0 }
    }

    /// Zeroes the multipliers at the start of a substep of length `h`.
    pub fn reset(&mut self, h: f64) {
        self.lambda.fill(0.0);
        self.alpha = COMPLIANCE / (h * h);
    }

    /// The penetrating rows of vertex `i` at `x`.
    pub fn rows(&self, i: usize, x: &Vec3) -> impl Iterator<Item = Row> + '_ {
        let x = *x;
        self.colliders.iter().enumerate().filter_map(move |(c, col)| {
            let (d, n) = col.shape.signed_distance(&x);
            (d < 0.0).then_some(Row { normal: n, depth: d, slot: i * self.colliders.len() + c })
        })
    }

    /// Eq. 5 for row `r` with inverse mass `w`, the multiplier kept ≥ 0 (contacts only push). Returns Δλ.
    pub fn solve(&mut self, r: &Row, w: f64) -> f64 {
        let l = &mut self.lambda[r.slot];
        let dl = ((-r.depth - self.alpha * *l) / (w + self.alpha)).max(-*l);
        *l += dl;
        dl
    }

    /// Every elastic vertex (`rigid[i]` false) against every collider, Gauss-Seidel.
    pub fn solve_elastic(&mut self, x: &mut [Vec3], inv_mass: &[f64], rigid: &[bool]) {
        if self.colliders.is_empty() {
            return;
        }
        for i in 0..x.len() {
            if rigid[i] || inv_mass[i] == 0.0 {
                continue;
            }
            let rows: Vec<Row> = self.rows(i, &x[i]).collect();
            for r in rows {
                let dl = self.solve(&r, inv_mass[i]);
                x[i] += r.normal * (inv_mass[i] * dl);
            }
        }
    }

    /// Rows that pushed this substep.
    pub fn active(&self) -> usize {
        self.lambda.iter().filter(|&&l| l > 0.0).count()
    }

    /// The rows that pushed this substep as core's collider rows, with their normals at `x` (frictionless:
    /// λ_t = 0).
    pub fn pushed(&self, x: &[Vec3]) -> Vec<ColliderRow> {
        let k = self.colliders.len();
        let pushed = self.lambda.iter().enumerate().filter(|&(_, &l)| l > 0.0);
        pushed
            .map(|(slot, &lambda_n)| {
                let (i, c) = (slot / k, slot % k);
                let normal = self.colliders[c].shape.signed_distance(&x[i]).1;
                ColliderRow { vertex: i as u32, collider: c as u32, normal, lambda_n, lambda_t: Vec3::zeros() }
            })
            .collect()
    }

    /// The vertices that took a contact impulse this substep, for restitution.
    pub fn contacts(&self, x: &[Vec3]) -> Vec<Contact> {
        let contact = |r: &ColliderRow| Contact { vertex: r.vertex, normal: r.normal, restitution: self.colliders[r.collider as usize].restitution };
        self.pushed(x).iter().map(contact).collect()
    }
}
