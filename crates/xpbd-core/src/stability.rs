//! Substep limit of the stable neo-Hookean constraints (docs/solver-notes.md). Their rows are not zero
//! at rest (C_D = √3, C_H = 1 − γ), so every substep builds multipliers λ ≈ μ V h² even at rest, and
//! the XPBD update ignores their geometric stiffness λ ∂²C. That term then acts like an explicit
//! integrator: the rest state degrades once h exceeds a few 1/ω with
//! ω² = max over elements of (largest inverse mass) · μ · V · ‖D_m⁻¹‖²_F. Measured on the armadillo at
//! three sizes and stiffnesses (docs/solver-notes.md): min det F stays within about 1 % of 1 for
//! h·ω ≲ 2, drifts by a few percent around h·ω ≈ 3–5, and collapses beyond h·ω ≈ 6. This module
//! reports h_max = 2/ω.
//! StVK and ARAP rows vanish at rest and have no such limit.

use crate::constraint::tet_model::{gather, TetModel};
use crate::model::{Model, TetGroup};
use crate::solver_config::SolverConfig;

/// Largest h·ω that kept the rest state within about 1 % in the measurements.
const H_OMEGA_MAX: f64 = 2.0;

/// Estimated largest stable substep of a tet group, or `None` for models without a limit.
pub fn substep_limit(model: &Model, g: &TetGroup) -> Option<f64> {
    if !matches!(g.model, TetModel::NeoHookean | TetModel::NeoHookeanBlock) {
        return None;
    }
    let omega2 = g
        .tets
        .iter()
        .zip(&g.rest)
        .map(|(t, r)| gather(&model.inv_mass, t).into_iter().fold(0.0, f64::max) * g.lame.mu * r.volume * r.dm_inv.norm_squared())
        .fold(0.0, f64::max);
    (omega2 > 0.0).then(|| H_OMEGA_MAX / omega2.sqrt())
}

/// One warning per neo-Hookean body whose substep under `config` exceeds its limit (the smallest of its tet
/// groups'). None for the implicit solvers, which have no constraint rows (docs/adaptive.md).
pub fn warnings(model: &Model, config: &SolverConfig) -> Vec<String> {
    if matches!(config.method, crate::solver_config::Method::Implicit(_)) {
        return Vec::new();
    }
    let h = config.h();
    let mut limits: Vec<(usize, f64)> = Vec::new();
    for g in &model.tet_groups {
        match (substep_limit(model, g), limits.last_mut()) {
            (Some(limit), Some(last)) if last.0 == g.body => last.1 = last.1.min(limit),
            (Some(limit), _) => limits.push((g.body, limit)),
            (None, _) => {}
        }
    }
    limits
        .into_iter()
        .filter(|&(_, limit)| h > limit)
        .map(|(body, limit)| {
            let needed = crate::human::count((config.dt / limit).ceil());
            format!(
                "body '{}': substep h = {h:.2e} s exceeds the stability estimate {limit:.2e} s of the stable neo-Hookean constraints on its smallest elements; expect spurious deformation unless substeps ≥ {needed} (docs/solver-notes.md)",
                model.bodies[body].name
            )
        })
        .collect()
}
