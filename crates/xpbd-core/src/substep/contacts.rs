//! Collider contacts, once per substep after the constraint iterations: penetrating vertices are
//! pushed to the surface, tangential motion within the substep is removed up to the Coulomb bound
//! μ·(penetration depth) (position-based friction, Macklin et al. 2014), and after the velocity
//! update the normal velocity of an impact is set to −e times its value before the substep.

use crate::mesh::Vec3;
use crate::model::Model;

/// A vertex in contact during this substep.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    pub vertex: u32,
    pub normal: Vec3,
    pub restitution: f64,
}

/// Resolves penetrations; appends the contacts to `out` (cleared first).
pub fn project(model: &Model, x: &mut [Vec3], x_prev: &[Vec3], out: &mut Vec<Contact>) {
    out.clear();
    if model.colliders.is_empty() {
        return;
    }
    for i in 0..x.len() {
        if model.inv_mass[i] == 0.0 {
            continue;
        }
        for c in &model.colliders {
            let (d, n) = c.shape.signed_distance(&x[i]);
            if d >= 0.0 {
                continue;
            }
            x[i] -= n * d;
            let disp = x[i] - x_prev[i];
            let tangential = disp - n * disp.dot(&n);
            let t_len = tangential.norm();
            if t_len > 0.0 {
                x[i] -= tangential * (c.friction.mu_k * -d / t_len).min(1.0);
            }
            out.push(Contact { vertex: i as u32, normal: n, restitution: c.restitution });
        }
    }
}

/// Restitution after the velocity update: impacts faster than the speed gravity gives in two
/// substeps bounce with −e·v_n(before); slower contacts just rest (avoids jitter).
pub fn restitute(contacts: &[Contact], v: &mut [Vec3], v_before: &[Vec3], g: f64, h: f64) {
    for c in contacts {
        let i = c.vertex as usize;
        let vn_before = v_before[i].dot(&c.normal);
        if vn_before < -2.0 * g * h {
            let vn = v[i].dot(&c.normal);
            v[i] += c.normal * (-c.restitution * vn_before - vn);
        }
    }
}
