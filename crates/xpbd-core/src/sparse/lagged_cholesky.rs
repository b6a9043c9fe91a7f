//! Conjugate gradients preconditioned by the complete Cholesky factor of an earlier matrix of the same pattern
//! (a lagged factor): between refactorisations each solve costs a few iterations of one triangular solve pair.
//! The thesis's PCG keeps its preconditioner fixed in the same way ("Adaptive methods for elastic
//! deformation", §4.4.2, Fig. 4.8-B: the oracle's S Gᵀ A_p G); a complete factor needs no scaling.

use super::cholesky::Cholesky;
use super::{norm, spmv, Csr};
use crate::linear::pcg::{Pcg, Preconditioner};
use crate::linear::{LinearSolver, Setup, SetupInfo, SolveStats};

/// z = A₀⁻¹ r by the factor of the matrix A₀ of the last setup (z = r when it could not be factorised).
pub struct CholeskyPreconditioner {
    factor: Cholesky,
}

impl Preconditioner for CholeskyPreconditioner {
    fn setup(&mut self, a: &Csr, _: Setup) {
        let _ = self.factor.try_factor(a, true);
    }

    fn apply(&mut self, _: &Csr, r: &[f64], z: &mut [f64]) {
        if !self.factor.solve(r, z) {
            z.copy_from_slice(r);
        }
    }

    fn info(&self) -> SetupInfo {
        SetupInfo::default()
    }
}

pub struct LaggedCholeskyPcg {
    /// Relative residual ‖b − A x‖ ≤ tolerance ‖b‖ at which a solve stops.
    tolerance: f64,
    a: Csr,
    pcg: Pcg<CholeskyPreconditioner>,
}

impl LaggedCholeskyPcg {
    /// PCG to relative residual `tolerance`, preconditioned by `factor` (scalar or [`Cholesky::blocked`]).
    pub fn new(tolerance: f64, factor: Cholesky) -> Self {
        LaggedCholeskyPcg { tolerance, a: Csr::zero((0, 0)), pcg: Pcg::new("cholesky-pcg", CholeskyPreconditioner { factor }) }
    }

    /// Factorises `a` as the preconditioner (the symbolic factor of the first setup kept: one pattern).
    pub fn setup(&mut self, a: &Csr) {
        self.a = a.clone();
        self.pcg.setup(a, Setup::Full);
    }

    /// Takes the values of `a` and keeps the last setup's factor.
    pub fn update(&mut self, a: &Csr) {
        self.a = a.clone();
    }

    /// x ≈ A⁻¹ b within `max_iterations`, from `guess` when its residual is below ‖b‖, else from 0.
    pub fn solve(&mut self, b: &[f64], guess: Option<&[f64]>, max_iterations: usize) -> (Vec<f64>, SolveStats) {
        let mut x = vec![0.0; b.len()];
        if let Some(x0) = guess.filter(|g| g.len() == b.len()) {
            let mut r = vec![0.0; b.len()];
            spmv(&self.a, x0, &mut r);
            r.iter_mut().zip(b).for_each(|(r, b)| *r = b - *r);
            if norm(&r) < norm(b) {
                x.copy_from_slice(x0);
            }
        }
        let stats = self.pcg.solve(&self.a, b, &mut x, self.tolerance, max_iterations);
        (x, stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-D Laplacian plus `shift`·I.
    fn laplacian(m: usize, shift: f64) -> Csr {
        let n = m * m;
        let mut t = sprs::TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 4.0 + shift);
            for j in [i + 1, i + m] {
                if j < n && (j != i + 1 || j % m != 0) {
                    t.add_triplet(i, j, -1.0);
                    t.add_triplet(j, i, -1.0);
                }
            }
        }
        t.to_csr()
    }

    /// With the factor of the matrix itself CG takes one iteration; with the factor of a matrix 20 % off it takes
    /// a few and meets the tolerance on the current matrix; the answer as guess needs none.
    #[test]
    fn a_lagged_factor_preconditions_the_current_matrix() {
        let (a0, a1) = (laplacian(20, 0.5), laplacian(20, 0.6));
        let n = a0.rows();
        let b: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
        let mut pcg = LaggedCholeskyPcg::new(1e-10, Cholesky::default());
        pcg.setup(&a0);
        let (_, fresh) = pcg.solve(&b, None, n);
        pcg.update(&a1);
        let (x, lagged) = pcg.solve(&b, None, n);
        let mut r = vec![0.0; n];
        spmv(&a1, &x, &mut r);
        r.iter_mut().zip(&b).for_each(|(r, b)| *r = b - *r);
        assert!(fresh.iterations == 1 && lagged.converged && lagged.iterations <= 12 && norm(&r) <= 1e-10 * norm(&b), "{fresh:?} {lagged:?}");
        let (_, again) = pcg.solve(&b, Some(&x), n);
        assert_eq!(again.iterations, 0, "{again:?}");
    }
}
