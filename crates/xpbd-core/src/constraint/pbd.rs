//! PBD stiffness ("Position Based Dynamics", Müller et al. 2007, §3.3): the baseline the XPBD cloth report
//! compares against. A constraint with stiffness k ∈ (0, 1] moves its vertices by k′ times the full
//! projection −C/(Σ w|∇C|²) w∇C, with no multiplier; k′ = 1 − (1 − k)^(1/n) for n iterations, so that one
//! constraint alone loses the fraction k of its violation per substep whatever n is. Coupled constraints
//! still stiffen with n and with smaller substeps, the dependence XPBD removes (docs/cloth.md).

/// A cloth body's PBD stiffnesses, each in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PbdStiffness {
    /// Edge distance constraints.
    pub stretch: f64,
    /// Dihedral-angle hinges.
    pub bending: f64,
}

/// k′ = 1 − (1 − k)^(1/n), the stiffness applied at each of `iterations` iterations (PBD §3.3).
pub fn per_iteration(k: f64, iterations: usize) -> f64 {
    1.0 - (1.0 - k).powf(1.0 / iterations.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::per_iteration;

    #[test]
    fn n_iterations_of_the_scaled_stiffness_leave_the_fraction_one_minus_k() {
        for k in [0.01, 0.2, 0.5, 0.9, 1.0] {
            for n in [1, 5, 20, 40] {
                let kp = per_iteration(k, n);
                assert!(kp > 0.0 && kp <= 1.0);
                let left = (1.0 - kp).powi(n as i32);
                assert!((left - (1.0 - k)).abs() < 1e-12, "k {k} n {n}: left {left}");
            }
        }
        assert!((per_iteration(0.3, 1) - 0.3).abs() < 1e-15);
    }
}
