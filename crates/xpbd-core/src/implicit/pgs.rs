//! Projected Gauss-Seidel on the contact Delassus system (thesis "Adaptive methods for elastic deformation",
//! §3.3.3, Eq. 3.13–3.15) with compliance γ: each contact has three rows (normal, two tangents); row i solves
//! H_ii λ_i + Σ_{j≠i} H_ij λ_j + b_i + γ λ_i = 0, then is clamped: λ_n ≥ 0, |λ_t| ≤ μ λ_n per tangent (a box
//! cone). At rest with b_n = k_b Φ (Φ < 0 penetrating) the normal row carries λ_n = (k_b/γ)|Φ| whatever H is,
//! so a rigid and an elastic body resting on the same contacts carry the same forces.

/// Solves for `lambda` (warm start in, solution out) given the dense row-major `h` (3m × 3m), `b` (3m), the
/// friction coefficient of each of the m contacts, the compliance and a number of sweeps.
pub fn solve(h: &[f64], b: &[f64], mu: &[f64], compliance: f64, sweeps: usize, lambda: &mut [f64]) {
    let n = b.len();
    debug_assert_eq!((h.len(), lambda.len(), 3 * mu.len()), (n * n, n, n));
    for _ in 0..sweeps {
        for (c, &mu_c) in mu.iter().enumerate() {
            for k in 0..3 {
                let i = 3 * c + k;
                let row = &h[i * n..(i + 1) * n];
                let w: f64 = row.iter().zip(lambda.iter()).map(|(a, l)| a * l).sum::<f64>() + b[i];
                let trial = (row[i] * lambda[i] - w) / (row[i] + compliance);
                lambda[i] = if k == 0 {
                    trial.max(0.0)
                } else {
                    let bound = mu_c * lambda[3 * c];
                    trial.clamp(-bound, bound)
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One contact on a free point mass m: H = I/m. Pressed in (b_n = k_b Φ < 0, at rest) it settles at
    /// λ_n = −b_n/(1/m + γ); a sliding velocity below μλ_n·(1/m + γ) is stopped, above it slides at the limit.
    #[test]
    fn one_contact_matches_the_closed_form() {
        let (m, gamma) = (2.0, 1e-3);
        let h = [1.0 / m, 0.0, 0.0, 0.0, 1.0 / m, 0.0, 0.0, 0.0, 1.0 / m];
        let mut l = [0.0; 3];
        solve(&h, &[-0.5, 0.0, 0.0], &[0.3], gamma, 3, &mut l);
        assert!((l[0] - 0.5 / (1.0 / m + gamma)).abs() < 1e-12);
        let mut stick = [0.0; 3];
        solve(&h, &[-0.5, 0.01, 0.0], &[0.3], gamma, 3, &mut stick);
        assert!((stick[1] + 0.01 / (1.0 / m + gamma)).abs() < 1e-12, "{stick:?}");
        let mut slide = [0.0; 3];
        solve(&h, &[-0.5, 5.0, 0.0], &[0.3], gamma, 3, &mut slide);
        assert!((slide[1] + 0.3 * slide[0]).abs() < 1e-12, "{slide:?}");
    }

    /// A separating contact (b_n > 0) carries nothing, whatever the warm start.
    #[test]
    fn separating_contacts_let_go() {
        let h = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let mut l = [3.0, 1.0, -1.0];
        solve(&h, &[0.2, 0.0, 0.0], &[0.5], 1e-3, 2, &mut l);
        assert_eq!(l, [0.0; 3]);
    }
}
