//! Sparse direct solve by supernodal Cholesky (faer): the exact baseline of the iterative
//! solvers. The symbolic factorisation (fill-reducing ordering, elimination tree) is kept across
//! `Setup::Refresh`; only the numeric factor is recomputed.

use super::{norm, spmv, Csr, LinearSolver, Setup, SolveStats};
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMat, Triplet};
use faer::Side;

#[derive(Default)]
pub struct Direct {
    symbolic: Option<SymbolicLlt<usize>>,
    factor: Option<Llt<usize, f64>>,
}

/// The lower triangle of symmetric `a` as a faer column-major matrix.
fn lower(a: &Csr) -> SparseColMat<usize, f64> {
    let t: Vec<Triplet<usize, usize, f64>> = a.iter().filter(|(_, (i, j))| i >= j).map(|(v, (i, j))| Triplet::new(i, j, *v)).collect();
    SparseColMat::try_new_from_triplets(a.rows(), a.cols(), &t).expect("CSR indices are in range")
}

impl LinearSolver for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }

    /// Factorises `a`; a matrix that is not numerically positive definite leaves no factor, and
    /// `solve` then reports `converged: false` with x unchanged.
    fn setup(&mut self, a: &Csr, setup: Setup) {
        let m = lower(a);
        if setup == Setup::Full || self.symbolic.is_none() {
            self.symbolic = SymbolicLlt::try_new(m.symbolic(), Side::Lower).ok();
        }
        self.factor = self.symbolic.clone().and_then(|s| Llt::try_new_with_symbolic(s, m.as_ref(), Side::Lower).ok());
    }

    fn solve(&mut self, a: &Csr, b: &[f64], x: &mut [f64], _tol: f64, _max_iter: usize) -> SolveStats {
        let b_norm = norm(b);
        let Some(factor) = &self.factor else {
            return SolveStats { iterations: 0, relative_residual: f64::NAN, converged: false };
        };
        let mut rhs = faer::Mat::from_fn(b.len(), 1, |i, _| b[i]);
        factor.solve_in_place(rhs.as_mut());
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = rhs[(i, 0)];
        }
        let mut r = vec![0.0; b.len()];
        spmv(a, x, &mut r);
        r.iter_mut().zip(b).for_each(|(ri, bi)| *ri = bi - *ri);
        let relative_residual = if b_norm > 0.0 { norm(&r) / b_norm } else { 0.0 };
        SolveStats { iterations: 1, relative_residual, converged: relative_residual.is_finite() }
    }
}
