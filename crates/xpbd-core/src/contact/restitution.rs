//! Restitution after the velocity update (Müller et al. 2020, Eq. 34): a vertex that hit a collider faster
//! than gravity alone would in two substeps leaves it with −e times its normal velocity before the substep;
//! slower contacts just rest (avoids jitter).

use crate::mesh::Vec3;

/// A vertex that touched a collider in this substep.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    pub vertex: u32,
    pub normal: Vec3,
    pub restitution: f64,
}

/// Applies restitution to the velocities `v` of the `contacts`, given the velocities before the substep,
/// gravity's magnitude `g` and the substep length `h`.
pub fn restitute(contacts: impl IntoIterator<Item = Contact>, v: &mut [Vec3], v_before: &[Vec3], g: f64, h: f64) {
    for c in contacts {
        let i = c.vertex as usize;
        let vn_before = v_before[i].dot(&c.normal);
        if vn_before < -2.0 * g * h {
            let vn = v[i].dot(&c.normal);
            v[i] += c.normal * (-c.restitution * vn_before - vn);
        }
    }
}
