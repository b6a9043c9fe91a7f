//! Time integration around the constraint solve (docs/equations.md): prediction
//! x̃ = x + h v + h² M⁻¹ f_ext with velocity damping, and the velocity update v = (x − x_prev)/h.

use crate::mesh::Vec3;
use crate::model::Model;
use crate::state::State;

/// Saves x_prev, damps (rate `velocity_damping`, 1/s) and accelerates free vertices, predicts positions,
/// and places hard pins that move on their prescribed path at time `t_end`.
pub fn predict(model: &Model, velocity_damping: f64, s: &mut State, x_prev: &mut [Vec3], h: f64, t_end: f64) {
    let damp = (-velocity_damping * h).exp();
    let g = model.gravity * h;
    for i in 0..s.x.len() {
        x_prev[i] = s.x[i];
        if model.inv_mass[i] > 0.0 {
            // Damp the velocity, then add gravity: at rest (v = 0) the prediction is undamped, so
            // static equilibria do not depend on the damping.
            s.v[i] = s.v[i] * damp + g;
        }
        s.x[i] += s.v[i] * h;
    }
    for a in &model.attachments {
        if a.compliance == 0.0 {
            s.x[a.vertex as usize] = a.origin + a.velocity * t_end;
        }
    }
}

/// v = (x − x_prev) / h.
pub fn update_velocities(s: &mut State, x_prev: &[Vec3], h: f64) {
    let inv_h = 1.0 / h;
    for ((v, x), xp) in s.v.iter_mut().zip(&s.x).zip(x_prev) {
        *v = (x - xp) * inv_h;
    }
}
