//! Sparse direct solve by supernodal Cholesky (`crate::sparse::cholesky`): the exact baseline of the
//! iterative solvers. The symbolic factorisation is kept across `Setup::Refresh`; only the numeric
//! factor is recomputed.

use super::{LinearSolver, Setup, SolveStats};
use crate::sparse::cholesky::Cholesky;
use crate::sparse::{norm, spmv, Csr};

#[derive(Default)]
pub struct Direct(Cholesky);

impl LinearSolver for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }

    /// Factorises `a`; a matrix that is not numerically positive definite leaves no factor, and
    /// `solve` then reports `converged: false` with x unchanged.
    fn setup(&mut self, a: &Csr, setup: Setup) {
        self.0.factor(a, setup != Setup::Full);
    }

    fn solve(&mut self, a: &Csr, b: &[f64], x: &mut [f64], _tol: f64, _max_iter: usize) -> SolveStats {
        if !self.0.solve(b, x) {
            return SolveStats { iterations: 0, relative_residual: f64::NAN, converged: false };
        }
        let b_norm = norm(b);
        let mut r = vec![0.0; b.len()];
        spmv(a, x, &mut r);
        r.iter_mut().zip(b).for_each(|(ri, bi)| *ri = bi - *ri);
        let relative_residual = if b_norm > 0.0 { norm(&r) / b_norm } else { 0.0 };
        SolveStats { iterations: 1, relative_residual, converged: relative_residual.is_finite() }
    }
}
