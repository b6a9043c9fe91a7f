//! Soft attachments: per axis C_k = x_k − target_k(t) with compliance α, so
//! Δλ = −(C + α̃λ)/(w + α̃) and Δx = w Δλ (docs/equations.md, for a linear constraint). Hard pins that move
//! are placed by `integrate::predict` instead.

use crate::mesh::Vec3;
use crate::model::Model;

/// One pass over the soft attachments at time `t`; `lambda` holds 3 multipliers per attachment.
pub fn iterate(model: &Model, x: &mut [Vec3], lambda: &mut [Vec3], h: f64, t: f64) {
    for (a, l) in model.attachments.iter().zip(lambda.iter_mut()) {
        if a.compliance == 0.0 {
            continue;
        }
        let i = a.vertex as usize;
        let w = model.inv_mass[i];
        let at = a.compliance / (h * h);
        let c = x[i] - (a.origin + a.velocity * t);
        let dl = -(c + *l * at) / (w + at);
        *l += dl;
        x[i] += dl * w;
    }
}
