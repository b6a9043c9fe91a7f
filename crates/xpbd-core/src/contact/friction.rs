//! Coulomb friction in XPBD's positional form (Müller et al. 2020, "Detailed rigid body simulation with
//! extended position based dynamics", §3.5–3.6): a contact sticks while the tangential multiplier that
//! cancels its relative tangential motion stays within μ_s·λ_n, and slides otherwise, resisted by μ_k·λ_n.

use crate::mesh::Vec3;
use serde::Serialize;

/// The two Coulomb coefficients of a contact: static μ_s (sticking) and kinetic μ_k (sliding), μ_k ≤ μ_s
/// is not required.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Friction {
    pub mu_s: f64,
    pub mu_k: f64,
}

impl Friction {
    /// Frictionless.
    pub const NONE: Friction = Friction { mu_s: 0.0, mu_k: 0.0 };

    /// One coefficient for both sticking and sliding.
    pub fn coulomb(mu: f64) -> Self {
        Friction { mu_s: mu, mu_k: mu }
    }

    /// A pair of bodies uses the mean of their coefficients.
    pub fn mean(a: Friction, b: Friction) -> Self {
        Friction { mu_s: 0.5 * (a.mu_s + b.mu_s), mu_k: 0.5 * (a.mu_k + b.mu_k) }
    }

    /// The accumulated tangential multiplier `trial` (the one that would cancel all relative tangential motion)
    /// limited by the cone of the normal multiplier `lambda_n` ≥ 0: kept when |trial| ≤ μ_s·λ_n (static), else
    /// scaled to length μ_k·λ_n (kinetic).
    pub fn limit(&self, trial: Vec3, lambda_n: f64) -> Vec3 {
        let len = trial.norm();
        if len <= self.mu_s * lambda_n {
            trial
        } else {
            trial * (self.mu_k * lambda_n / len)
        }
    }

    /// The friction half of a contact row's projection (§3.5), shared by XPBD's rows (`contact::rows`) and
    /// the multi-layer solver's collider rows: from the accumulated normal multiplier `lambda_n`, the
    /// normal `n`, the row's relative motion in the substep `motion` and its generalised inverse mass
    /// `w` along a unit direction (the direction of the tangential motion; a vertex's is the same in every
    /// direction, a rigid body's is not), updates the accumulated tangential multiplier `lambda_t` to the one
    /// that cancels the tangential motion, [limited](Self::limit) by the cone, and returns Δλ_t, the
    /// multiplier to apply tangentially. A row that pushes nothing (λ_n ≤ 0) gives back what it held.
    pub fn project(&self, lambda_t: &mut Vec3, lambda_n: f64, n: &Vec3, motion: &Vec3, w: impl FnOnce(&Vec3) -> f64) -> Vec3 {
        let held = *lambda_t - n * n.dot(lambda_t);
        if lambda_n <= 0.0 {
            *lambda_t = Vec3::zeros();
            return -held;
        }
        let tangential = motion - n * n.dot(motion);
        let trial = match tangential.try_normalize(0.0) {
            Some(direction) => held - tangential / w(&direction),
            None => held,
        };
        let limited = self.limit(trial, lambda_n);
        *lambda_t = limited;
        limited - held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_holds_inside_the_cone_and_kinetic_limits_outside() {
        let f = Friction { mu_s: 0.5, mu_k: 0.3 };
        let t = Vec3::new(0.4, 0.0, 0.0);
        assert_eq!(f.limit(t, 1.0), t);
        let slid = f.limit(Vec3::new(0.0, 0.6, 0.8), 1.0);
        assert!((slid - Vec3::new(0.0, 0.18, 0.24)).norm() < 1e-15);
        assert_eq!(Friction::NONE.limit(t, 5.0), Vec3::zeros());
        let m = Friction::mean(Friction::coulomb(0.2), Friction { mu_s: 0.6, mu_k: 0.4 });
        assert!((m.mu_s - 0.4).abs() < 1e-15 && (m.mu_k - 0.3).abs() < 1e-15);
    }
}
