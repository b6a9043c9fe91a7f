//! Conjugate gradients, unpreconditioned: the baseline MGPBD's preconditioners must beat.

use super::pcg::{solve_to_tolerance, Pcg, Preconditioner};
use super::{Setup, SolveStats};
use crate::sparse::Csr;

/// The identity: PCG with it is plain CG.
#[derive(Default)]
pub struct Identity;

impl Preconditioner for Identity {
    fn setup(&mut self, _a: &Csr, _setup: Setup) {}

    fn apply(&mut self, _a: &Csr, r: &[f64], z: &mut [f64]) {
        z.copy_from_slice(r);
    }
}

pub type Cg = Pcg<Identity>;

impl Default for Cg {
    fn default() -> Self {
        Pcg::new("cg", Identity)
    }
}

impl Cg {
    /// CG on `A x = b` with A given by its action `apply(v, A v)` (matrix-free, e.g.
    /// [`super::dual_operator::DualOperator`]), from `x` until `‖b − A x‖ ≤ tol ‖b‖` or `max_iter`:
    /// in exact arithmetic the iterates of [`super::LinearSolver::solve`] on the assembled A.
    pub fn solve_operator(&mut self, mut apply: impl FnMut(&[f64], &mut [f64]), b: &[f64], x: &mut [f64], tol: f64, max_iter: usize) -> SolveStats {
        let krylov = self.krylov_mut();
        krylov.resize(b.len());
        solve_to_tolerance(b, x, tol, |x, done| krylov.iterate(&mut apply, |r, z| z.copy_from_slice(r), b, x, max_iter, done).0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::LinearSolver;
    use crate::sparse::spmv;

    /// The 1-D Laplacian plus a shift: CG solves it to the requested tolerance, and in at most n
    /// iterations in exact arithmetic.
    #[test]
    fn solves_shifted_laplacian() {
        let n = 50;
        let mut t = sprs::TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 2.1);
            if i > 0 {
                t.add_triplet(i, i - 1, -1.0);
                t.add_triplet(i - 1, i, -1.0);
            }
        }
        let a: Csr = t.to_csr();
        let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
        let mut b = vec![0.0; n];
        spmv(&a, &x_true, &mut b);
        let mut cg = Cg::default();
        cg.setup(&a, Setup::Full);
        let mut x = vec![0.0; n];
        let stats = cg.solve(&a, &b, &mut x, 1e-12, 200);
        assert!(stats.converged && stats.iterations <= n, "{stats:?}");
        let err = x.iter().zip(&x_true).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-9, "max error {err}");
    }
}
