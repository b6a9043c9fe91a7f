//! Projected Gauss-Seidel on the contact Delassus system (thesis "Adaptive methods for elastic deformation",
//! §3.3.3, Eq. 3.13–3.15) with compliance γ on the normal rows: each contact has three rows (normal, two
//! tangents); the normal row solves H_ii λ_i + Σ_{j≠i} H_ij λ_j + b_i + γ λ_i = 0, a tangent row the same without
//! γ, then each is clamped: λ_n ≥ 0, |λ_t| ≤ μ λ_n per tangent (a box cone). At rest with b_n = k_b Φ (Φ < 0
//! penetrating) the normal row carries λ_n = (k_b/γ)|Φ| whatever H is, so a rigid and an elastic body resting on
//! the same contacts carry the same normal forces.
//!
//! The tangent rows have no compliance, although the thesis writes its regularised update for every row: with γ a
//! sticking contact slides at −γλ_t, so static friction creeps, and at rest the only fixed point of a rigid body
//! (whose contacts all move with one rigid velocity) is λ_t ≈ 0, while the elastic body resting on the same
//! contacts holds its Poisson bulge with tangential impulses of up to a third of λ_n. The oracle then saw the
//! unbalanced bulge at every contact vertex of a body that had just rigidified, and a resting soft ball was made
//! elastic and rigid again every four steps. Without γ a rigid body's tangential impulses, which any balanced
//! set satisfies, stay at their warm start: the elastic body's (the thesis's warm-start requirement, §3.3.3).
//!
//! H = J A⁻¹ Jᵀ = ZᵀZ is applied through the forward-substituted columns Z = L⁻¹ P Jᵀ of the step's Cholesky
//! factor and the running w = Z λ ([`FactoredDelassus`]): a row's product is Z_iᵀ w, over the rows its column
//! reaches, and H is never formed (m² entries, each a sum over the reach of two columns).

use crate::sparse::forward_columns::ForwardColumns;

/// H as the iteration reads it.
pub trait Delassus {
    /// H_ii.
    fn diagonal(&self, i: usize) -> f64;
    /// (H λ)_i.
    fn product(&self, i: usize, lambda: &[f64]) -> f64;
    /// λ_i changed by `delta`.
    fn changed(&mut self, i: usize, delta: f64);
}

/// H = ZᵀZ, with w = Z λ kept up to date.
pub struct FactoredDelassus<'a> {
    z: &'a ForwardColumns,
    diagonal: Vec<f64>,
    /// w = Z λ, in the factor's order: A⁻¹ Jᵀ λ = Pᵀ L⁻ᵀ w.
    pub w: Vec<f64>,
}

impl<'a> FactoredDelassus<'a> {
    /// With w = Z λ for the warm start `lambda`.
    pub fn new(z: &'a ForwardColumns, lambda: &[f64]) -> Self {
        let mut w = vec![0.0; z.rows()];
        for (i, &l) in lambda.iter().enumerate().filter(|(_, l)| **l != 0.0) {
            z.add_to(i, l, &mut w);
        }
        let diagonal = (0..z.columns()).map(|i| z.squared_norm(i)).collect();
        FactoredDelassus { z, diagonal, w }
    }
}

impl Delassus for FactoredDelassus<'_> {
    fn diagonal(&self, i: usize) -> f64 {
        self.diagonal[i]
    }
    fn product(&self, i: usize, _: &[f64]) -> f64 {
        self.z.dot(i, &self.w)
    }
    fn changed(&mut self, i: usize, delta: f64) {
        self.z.add_to(i, delta, &mut self.w);
    }
}

/// Solves for `lambda` (warm start in, solution out) given `h`, `b` (3m), the friction coefficient of each of
/// the m contacts and the compliance of the normal rows, for at most `sweeps` sweeps, stopping early once a sweep changes no
/// impulse by more than `tolerance` times the largest. Returns the sweeps run.
pub fn solve(h: &mut impl Delassus, b: &[f64], mu: &[f64], compliance: f64, sweeps: usize, tolerance: f64, lambda: &mut [f64]) -> usize {
    debug_assert_eq!((lambda.len(), 3 * mu.len()), (b.len(), b.len()));
    for sweep in 1..=sweeps {
        let (mut change, mut largest) = (0.0f64, 0.0f64);
        for (c, &mu_c) in mu.iter().enumerate() {
            for k in 0..3 {
                let i = 3 * c + k;
                let d = h.diagonal(i);
                let new = if k == 0 {
                    ((d * lambda[i] - (h.product(i, lambda) + b[i])) / (d + compliance)).max(0.0)
                } else {
                    // H_ii = 0: the row moves nothing (no free DOF), so it carries nothing. A zero bound (the
                    // contact does not push, or has no friction) clamps to 0 whatever the product: skip it.
                    let bound = mu_c * lambda[3 * c];
                    if d > 0.0 && bound > 0.0 {
                        (lambda[i] - (h.product(i, lambda) + b[i]) / d).clamp(-bound, bound)
                    } else {
                        0.0
                    }
                };
                let delta = new - lambda[i];
                if delta != 0.0 {
                    h.changed(i, delta);
                    lambda[i] = new;
                }
                change = change.max(delta.abs());
                largest = largest.max(new.abs());
            }
        }
        if change <= tolerance * largest {
            return sweep;
        }
    }
    sweeps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::cholesky::tests::grid_with_body;
    use crate::sparse::cholesky::Cholesky;
    use crate::sparse::forward_columns::tests::solved_reference;

    /// H stored dense, row-major (m × m): the reference the factored form is checked against.
    struct DenseDelassus<'a> {
        h: &'a [f64],
        m: usize,
    }

    impl Delassus for DenseDelassus<'_> {
        fn diagonal(&self, i: usize) -> f64 {
            self.h[i * self.m + i]
        }
        fn product(&self, i: usize, lambda: &[f64]) -> f64 {
            self.h[i * self.m..(i + 1) * self.m].iter().zip(lambda).map(|(a, l)| a * l).sum()
        }
        fn changed(&mut self, _: usize, _: f64) {}
    }

    /// One contact on a free point mass m: H = I/m. Pressed in (b_n = k_b Φ < 0, at rest) it settles at
    /// λ_n = −b_n/(1/m + γ); a sliding velocity below μλ_n/m is stopped exactly (no compliance on the tangents),
    /// above it slides at the limit.
    #[test]
    fn one_contact_matches_the_closed_form() {
        let (m, gamma) = (2.0, 1e-3);
        let h = [1.0 / m, 0.0, 0.0, 0.0, 1.0 / m, 0.0, 0.0, 0.0, 1.0 / m];
        let mut l = [0.0; 3];
        solve(&mut DenseDelassus { h: &h, m: 3 }, &[-0.5, 0.0, 0.0], &[0.3], gamma, 3, 0.0, &mut l);
        assert!((l[0] - 0.5 / (1.0 / m + gamma)).abs() < 1e-12);
        let mut stick = [0.0; 3];
        solve(&mut DenseDelassus { h: &h, m: 3 }, &[-0.5, 0.01, 0.0], &[0.3], gamma, 3, 0.0, &mut stick);
        assert!((stick[1] + 0.01 * m).abs() < 1e-12, "{stick:?}");
        let mut slide = [0.0; 3];
        solve(&mut DenseDelassus { h: &h, m: 3 }, &[-0.5, 5.0, 0.0], &[0.3], gamma, 3, 0.0, &mut slide);
        assert!((slide[1] + 0.3 * slide[0]).abs() < 1e-12, "{slide:?}");
    }

    /// A separating contact (b_n > 0) carries nothing, whatever the warm start.
    #[test]
    fn separating_contacts_let_go() {
        let h = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let mut l = [3.0, 1.0, -1.0];
        solve(&mut DenseDelassus { h: &h, m: 3 }, &[0.2, 0.0, 0.0], &[0.5], 1e-3, 2, 0.0, &mut l);
        assert_eq!(l, [0.0; 3]);
    }

    /// The factored form iterates as the dense one (to round-off: its products sum in another order) on a
    /// Cholesky-factored grid system with a rigid body's node, for rows of one or several DOFs; and
    /// Pᵀ L⁻ᵀ w is A⁻¹ Jᵀ λ.
    #[test]
    fn factored_and_dense_forms_agree() {
        let (a, starts) = grid_with_body(4);
        let n = a.rows();
        let mut chol = Cholesky::blocked(starts);
        chol.try_factor(&a, false).unwrap();
        let rows: Vec<Vec<(usize, f64)>> = (0..12).map(|i| vec![(17 * i % n, 1.0), ((5 * i + 3) % n, 0.3 * i as f64 - 1.0), (n - 1 - i % 6, 0.2)]).collect();
        let m = rows.len();
        let (y, h) = solved_reference(&chol, &rows, n);
        let b: Vec<f64> = (0..m).map(|i| if i % 3 == 0 { -0.3 + 0.05 * i as f64 } else { 0.1 * (i % 5) as f64 - 0.2 }).collect();
        let mu = [0.4, 0.2, 0.6, 0.3];
        let (mut dense, mut factored) = (vec![0.01; m], vec![0.01; m]);
        solve(&mut DenseDelassus { h: &h, m }, &b, &mu, 1e-3, 30, 0.0, &mut dense);
        let z = chol.forward_columns(&rows).unwrap();
        let mut op = FactoredDelassus::new(&z, &factored);
        solve(&mut op, &b, &mu, 1e-3, 30, 0.0, &mut factored);
        assert!(dense.iter().any(|l| *l > 0.05), "some contact pushes: {dense:?}");
        for (d, f) in dense.iter().zip(&factored) {
            assert!((d - f).abs() < 1e-10, "{dense:?} vs {factored:?}");
        }
        let dv = chol.backward(&op.w).unwrap();
        for (d, v) in dv.iter().enumerate() {
            let expected: f64 = (0..m).map(|i| y[(d, i)] * factored[i]).sum();
            assert!((v - expected).abs() < 1e-12, "Δẋ[{d}] = {v}, A⁻¹Jᵀλ = {expected}");
        }
    }
}
