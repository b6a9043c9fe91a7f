//! Coulomb friction in XPBD's positional form (Müller et al. 2020, "Detailed rigid body simulation with
//! extended position based dynamics", §3.5–3.6): a contact sticks while the tangential multiplier that
//! cancels its relative tangential motion stays within μ_s·λ_n, and slides otherwise, resisted by μ_k·λ_n.

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

    pub fn is_frictionless(&self) -> bool {
        self.mu_s == 0.0 && self.mu_k == 0.0
    }

    /// The accumulated tangential multiplier `trial` (the one that would cancel all relative tangential motion)
    /// limited by the cone of the normal multiplier `lambda_n` ≥ 0: kept when |trial| ≤ μ_s·λ_n (static), else
    /// scaled to length μ_k·λ_n (kinetic).
    pub fn limit(&self, trial: crate::mesh::Vec3, lambda_n: f64) -> crate::mesh::Vec3 {
        let len = trial.norm();
        if len <= self.mu_s * lambda_n {
            trial
        } else {
            trial * (self.mu_k * lambda_n / len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Vec3;

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
