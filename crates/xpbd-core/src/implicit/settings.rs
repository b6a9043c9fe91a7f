//! The `[solver]` settings of `kind = "implicit"` and `kind = "adaptive"` (docs/adaptive.md), resolved with
//! their defaults and checked with one-line errors naming the field.

use crate::named::Named;
use crate::scene::schema;
use crate::{Error, Result};
use serde::Serialize;

named_enum! {
    /// How each step solves its reduced system A_A Δẋ = b (thesis §4.4.2: "LDLᵀ or PCG to 1e-4").
    pub enum LinearSolve {
        /// Sparse Cholesky LLᵀ (docs/adaptive.md: the LDLᵀ of the thesis on a PSD-projected system).
        Ldlt = "ldlt",
        /// Preconditioned conjugate gradients ([`PcgPreconditioner`]) from the previous answer, with the Cholesky
        /// solve as fallback when it misses its tolerance.
        Pcg = "pcg",
    }
}

named_enum! {
    /// The preconditioner of `linear_solver = "pcg"`, kept across steps and rebuilt when the iterations grow.
    pub enum PcgPreconditioner {
        /// The complete Cholesky factor of an earlier step's A_A (`sparse::lagged_cholesky`).
        Cholesky = "cholesky",
        /// Curtis–Reid scaling S and the incomplete Cholesky factor of an earlier S A_A S (`sparse::scaled_pcg`).
        Ict = "ict",
    }
}

/// The implicit FEM integrator (thesis "Adaptive methods for elastic deformation", Eq. 3.5) with its
/// compliant frictional contact (§3.3.3), and the rigidification of `kind = "adaptive"` (§3.3.4–3.3.5).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImplicitSettings {
    /// Contact compliance γ of the PGS normal rows (1/kg): a resting contact carries λ_n = (k_b/γ)·depth.
    pub contact_compliance: f64,
    /// Baumgarte feedback k_b·h (dimensionless; the thesis's k_b = 0.2/h).
    pub baumgarte: f64,
    /// Projected Gauss-Seidel sweeps over the contact rows per step.
    pub pgs_iterations: usize,
    /// Newton iterations with an Armijo line search on the incremental potential (thesis Eq. 4.7–4.8) per step
    /// while no element is rigid; 1 is the semi-implicit linearised step (Eq. 3.5).
    pub newton_iterations: usize,
    /// The oracle starts its PCG iteration from the contact filter's local response to new contacts (thesis
    /// Eq. 4.16) instead of from zero (`kind = "adaptive"`).
    pub contact_filter: bool,
    pub linear_solver: LinearSolve,
    pub pcg_preconditioner: PcgPreconditioner,
    /// PCG stops at ‖b − A x‖ ≤ pcg_tol ‖b‖ (`ict`: of the scaled system; the thesis's 1e-4) …
    pub pcg_tol: f64,
    /// … or after this many iterations (`None`: one per row), when the step falls back to the Cholesky solve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcg_max_iter: Option<usize>,
    /// `None` for `kind = "implicit"` (every element elastic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rigidification: Option<Rigidification>,
}

/// Thresholds of adaptive rigidification (thesis §3.3.4–3.3.5, §3.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rigidification {
    /// τ_R (1/s²): an element whose ‖Ė‖²_F stays below this for `rigidify_steps` steps may become rigid.
    pub rigidify_threshold: f64,
    /// τ_E (1/s²): a rigid element whose oracle estimate ‖Ė_approx‖²_F exceeds this becomes elastic.
    pub elastify_threshold: f64,
    pub rigidify_steps: usize,
    /// τ_b (1/(m·s)) of shell triangles: the largest curvature rate |κ̇| of a triangle's edges below which it may
    /// rigidify. `None`: (4/y)·sqrt(τ_R) with y the shell body's rest diameter (thesis Eq. 4.20); elastification
    /// uses τ_b·sqrt(τ_E/τ_R).
    pub bending_threshold: Option<f64>,
}

impl Default for ImplicitSettings {
    fn default() -> Self {
        ImplicitSettings {
            contact_compliance: 1e-3,
            baumgarte: 0.2,
            pgs_iterations: 200,
            newton_iterations: 1,
            contact_filter: true,
            linear_solver: LinearSolve::Ldlt,
            pcg_preconditioner: PcgPreconditioner::Cholesky,
            pcg_tol: 1e-4,
            pcg_max_iter: None,
            rigidification: None,
        }
    }
}

impl Rigidification {
    /// τ_R when the scene gives none: material deforming slower than 1 % per second may rigidify (§3.4.1).
    pub const DEFAULT_RIGIDIFY_THRESHOLD: f64 = 1e-4;
    /// τ_E = this × τ_R when the scene gives none (the thesis sets it one or two orders higher).
    pub const DEFAULT_ELASTIFY_FACTOR: f64 = 10.0;
    pub const DEFAULT_RIGIDIFY_STEPS: usize = 3;
}

impl ImplicitSettings {
    /// From the scene's `[solver]` table; `adaptive` selects rigidification.
    pub fn from_scene(s: &schema::Solver, adaptive: bool) -> Result<Self> {
        let mut settings = ImplicitSettings::default();
        if let Some(p) = s.pgs_iterations {
            if p == 0 {
                return Err(Error::invalid("solver.pgs_iterations: must be at least 1"));
            }
            settings.pgs_iterations = p;
        }
        if let Some(n) = s.newton_iterations {
            if n == 0 {
                return Err(Error::invalid("solver.newton_iterations: must be at least 1"));
            }
            settings.newton_iterations = n;
        }
        if let Some(g) = s.contact_compliance {
            settings.contact_compliance = positive("contact_compliance", g)?;
        }
        if let Some(b) = s.baumgarte {
            if !(b.is_finite() && (0.0..=1.0).contains(&b)) {
                return Err(Error::invalid(format!("solver.baumgarte: must lie in [0, 1], got {b}")));
            }
            settings.baumgarte = b;
        }
        if let Some(name) = &s.linear_solver {
            settings.linear_solver = LinearSolve::from_name(name)
                .ok_or_else(|| Error::invalid(format!("solver.linear_solver: unknown '{name}' (expected {})", LinearSolve::names().join(", "))))?;
        }
        if let Some(name) = &s.pcg_preconditioner {
            settings.pcg_preconditioner = PcgPreconditioner::from_name(name)
                .ok_or_else(|| Error::invalid(format!("solver.pcg_preconditioner: unknown '{name}' (expected {})", PcgPreconditioner::names().join(", "))))?;
        }
        if let Some(t) = s.pcg_tol {
            if !(t > 0.0 && t < 1.0) {
                return Err(Error::invalid(format!("solver.pcg_tol: must lie in (0, 1), got {t}")));
            }
            settings.pcg_tol = t;
        }
        if let Some(m) = s.pcg_max_iter {
            if m == 0 {
                return Err(Error::invalid("solver.pcg_max_iter: must be at least 1"));
            }
            settings.pcg_max_iter = Some(m);
        }
        if !adaptive {
            if let Some(field) = Self::rigidification_field(s) {
                return Err(Error::invalid(format!("solver.{field}: only for kind = \"adaptive\"")));
            }
            return Ok(settings);
        }
        let tau_r = positive("rigidify_threshold", s.rigidify_threshold.unwrap_or(Rigidification::DEFAULT_RIGIDIFY_THRESHOLD))?;
        let tau_e = positive("elastify_threshold", s.elastify_threshold.unwrap_or(Rigidification::DEFAULT_ELASTIFY_FACTOR * tau_r))?;
        if tau_e < tau_r {
            return Err(Error::invalid(format!("solver.elastify_threshold: must be at least rigidify_threshold ({tau_r}), got {tau_e}")));
        }
        let steps = s.rigidify_steps.unwrap_or(Rigidification::DEFAULT_RIGIDIFY_STEPS);
        if steps == 0 {
            return Err(Error::invalid("solver.rigidify_steps: must be at least 1"));
        }
        if let Some(f) = s.contact_filter {
            settings.contact_filter = f;
        }
        let bending_threshold = s.bending_threshold.map(|b| positive("bending_threshold", b)).transpose()?;
        settings.rigidification = Some(Rigidification { rigidify_threshold: tau_r, elastify_threshold: tau_e, rigidify_steps: steps, bending_threshold });
        Ok(settings)
    }

    fn rigidification_field(s: &schema::Solver) -> Option<&'static str> {
        [
            ("rigidify_threshold", s.rigidify_threshold.is_some()),
            ("elastify_threshold", s.elastify_threshold.is_some()),
            ("rigidify_steps", s.rigidify_steps.is_some()),
            ("bending_threshold", s.bending_threshold.is_some()),
            ("contact_filter", s.contact_filter.is_some()),
        ]
        .into_iter()
        .find(|p| p.1)
        .map(|p| p.0)
    }

    /// The first implicit or adaptive field set in a scene whose solver is neither.
    pub fn foreign_field(s: &schema::Solver) -> Option<&'static str> {
        [
            ("pgs_iterations", s.pgs_iterations.is_some()),
            ("newton_iterations", s.newton_iterations.is_some()),
            ("contact_compliance", s.contact_compliance.is_some()),
            ("baumgarte", s.baumgarte.is_some()),
            ("pcg_preconditioner", s.pcg_preconditioner.is_some()),
        ]
        .into_iter()
        .find(|p| p.1)
        .map(|p| p.0)
        .or_else(|| Self::rigidification_field(s))
    }
}

fn positive(field: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(Error::invalid(format!("solver.{field}: must be a positive number, got {v}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solver(f: impl FnOnce(&mut schema::Solver)) -> schema::Solver {
        let mut s = schema::Solver::default();
        f(&mut s);
        s
    }

    #[test]
    fn defaults_follow_the_thesis() {
        let a = ImplicitSettings::from_scene(&schema::Solver::default(), true).unwrap();
        let r = a.rigidification.unwrap();
        assert_eq!((r.rigidify_threshold, r.elastify_threshold, r.rigidify_steps), (1e-4, 1e-3, 3));
        assert_eq!((a.contact_compliance, a.baumgarte), (1e-3, 0.2));
        assert!(ImplicitSettings::from_scene(&schema::Solver::default(), false).unwrap().rigidification.is_none());
    }

    #[test]
    fn bad_thresholds_name_the_field() {
        let err = |s: schema::Solver, adaptive| ImplicitSettings::from_scene(&s, adaptive).unwrap_err().to_string();
        let low = solver(|s| (s.rigidify_threshold, s.elastify_threshold) = (Some(1e-3), Some(1e-4)));
        assert_eq!(err(low, true), "solver.elastify_threshold: must be at least rigidify_threshold (0.001), got 0.0001");
        assert!(err(solver(|s| s.rigidify_threshold = Some(-1.0)), true).starts_with("solver.rigidify_threshold: must be a positive"));
        assert!(err(solver(|s| s.rigidify_steps = Some(0)), true).starts_with("solver.rigidify_steps"));
        assert_eq!(err(solver(|s| s.newton_iterations = Some(0)), false), "solver.newton_iterations: must be at least 1");
        assert_eq!(err(solver(|s| s.rigidify_steps = Some(2)), false), "solver.rigidify_steps: only for kind = \"adaptive\"");
    }

    #[test]
    fn linear_solver_keys_are_checked() {
        let ok = |s: schema::Solver| ImplicitSettings::from_scene(&s, false).unwrap();
        let default = ok(schema::Solver::default());
        assert_eq!((default.linear_solver, default.pcg_tol, default.pcg_max_iter), (LinearSolve::Ldlt, 1e-4, None));
        let pcg = ok(solver(|s| (s.linear_solver, s.pcg_tol, s.pcg_max_iter) = (Some("pcg".into()), Some(1e-6), Some(50))));
        assert_eq!((pcg.linear_solver, pcg.pcg_tol, pcg.pcg_max_iter), (LinearSolve::Pcg, 1e-6, Some(50)));
        let err = |s: schema::Solver| ImplicitSettings::from_scene(&s, true).unwrap_err().to_string();
        assert_eq!(err(solver(|s| s.linear_solver = Some("lu".into()))), "solver.linear_solver: unknown 'lu' (expected ldlt, pcg)");
        assert_eq!(err(solver(|s| s.pcg_tol = Some(0.0))), "solver.pcg_tol: must lie in (0, 1), got 0");
        assert_eq!(err(solver(|s| s.pcg_max_iter = Some(0))), "solver.pcg_max_iter: must be at least 1");
        assert_eq!(err(solver(|s| s.pcg_preconditioner = Some("ilu".into()))), "solver.pcg_preconditioner: unknown 'ilu' (expected cholesky, ict)");
        assert_eq!(default.pcg_preconditioner, PcgPreconditioner::Cholesky);
        crate::named::tests::round_trips::<LinearSolve>();
        crate::named::tests::round_trips::<PcgPreconditioner>();
    }
}
