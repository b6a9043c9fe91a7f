//! The iterative solve of the implicit solver's reduced system (thesis "Adaptive methods for elastic deformation",
//! §4.4.2, Fig. 4.8-B): A x = b as S A S y = S b, x = S y, with S Curtis & Reid's scaling
//! ([`super::curtis_reid`]) and conjugate gradients preconditioned by the threshold incomplete Cholesky factor
//! of S A S (`super::incomplete_cholesky`; [`ScaledPcg::DROP_TOLERANCE`] is the drop tolerance to use), from a
//! guess when it is better than y = 0.

use super::curtis_reid::{curtis_reid, scaled, NEGLIGIBLE};
use super::{norm, spmv, Csr};
use crate::linear::pcg::{IctPreconditioner, Pcg};
use crate::linear::{LinearSolver, Setup, SolveStats};

pub struct ScaledPcg {
    /// Relative residual ‖S b − S A S y‖ ≤ tolerance ‖S b‖ at which a solve stops.
    tolerance: f64,
    /// S's diagonal and S A S of the last setup.
    s: Vec<f64>,
    sas: Csr,
    pcg: Pcg<IctPreconditioner>,
}

impl ScaledPcg {
    /// Incomplete Cholesky drop tolerance (relative to the column's 1-norm) for the implicit solver's systems:
    /// 1e-6 keeps nearly the whole factor (one CG iteration) and costs 3–10× the sparse Cholesky solve on shell
    /// sheets; 1e-3 takes 4–44 iterations and comes within 2 % of it at 96² cells (docs/shells.md).
    pub const DROP_TOLERANCE: f64 = 1e-3;
    /// Curtis–Reid's CG on its normal equations stops at this relative residual: the scaling need only be
    /// right to a few per cent (the paper stops after a handful of iterations).
    const SCALING_TOLERANCE: f64 = 1e-3;
    const SCALING_ITERATIONS: usize = 50;

    pub fn new(tolerance: f64, drop_tolerance: f64) -> Self {
        ScaledPcg { tolerance, s: Vec::new(), sas: Csr::zero((0, 0)), pcg: Pcg::new("ict-pcg", IctPreconditioner::new(drop_tolerance)) }
    }

    /// Scales `a` and factorises the incomplete Cholesky preconditioner of S A S.
    pub fn setup(&mut self, a: &Csr) {
        self.s = curtis_reid(a, NEGLIGIBLE, Self::SCALING_TOLERANCE, Self::SCALING_ITERATIONS);
        self.sas = scaled(a, &self.s);
        self.pcg.setup(&self.sas, Setup::Full);
    }

    /// Takes the values of `a` (same pattern as the last setup's) and keeps that setup's S and preconditioner: CG
    /// runs on S A S with a lagged incomplete factor, as the thesis's PCG reuses the oracle's preconditioner
    /// (§4.4.2, Fig. 4.8-B).
    pub fn update(&mut self, a: &Csr) {
        self.sas = scaled(a, &self.s);
    }

    /// x ≈ A⁻¹ b for the `a` of the last setup or update, with what the iteration did, within `max_iterations`. Starts
    /// from `guess` (an x, e.g. the previous step's answer) when its scaled residual is below ‖S b‖, else from 0.
    pub fn solve(&mut self, b: &[f64], guess: Option<&[f64]>, max_iterations: usize) -> (Vec<f64>, SolveStats) {
        let sb: Vec<f64> = b.iter().zip(&self.s).map(|(b, s)| b * s).collect();
        let mut y = vec![0.0; b.len()];
        if let Some(x0) = guess.filter(|g| g.len() == b.len()) {
            let y0: Vec<f64> = x0.iter().zip(&self.s).map(|(x, s)| x / s).collect();
            let mut r = vec![0.0; b.len()];
            spmv(&self.sas, &y0, &mut r);
            r.iter_mut().zip(&sb).for_each(|(r, b)| *r = b - *r);
            if norm(&r) < norm(&sb) {
                y = y0;
            }
        }
        let stats = self.pcg.solve(&self.sas, &sb, &mut y, self.tolerance, max_iterations);
        (y.iter().zip(&self.s).map(|(y, s)| y * s).collect(), stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::cholesky::Cholesky;

    /// A 2-D Laplacian plus mass with every fourth node "rigid" (its row and column scaled by 10³): the scaled
    /// PCG meets its tolerance on the unscaled residual's scale and agrees with the sparse Cholesky solve to
    /// within the conditioning the tolerance allows.
    #[test]
    fn matches_direct_solve() {
        let m = 20;
        let n = m * m;
        let f = |i: usize| if i.is_multiple_of(4) { 1e3 } else { 1.0 };
        let mut t = sprs::TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 4.01 * f(i) * f(i));
            for j in [i + 1, i + m] {
                if j < n && (j != i + 1 || j % m != 0) {
                    t.add_triplet(i, j, -f(i) * f(j));
                    t.add_triplet(j, i, -f(i) * f(j));
                }
            }
        }
        let a: Csr = t.to_csr();
        let b: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
        let mut chol = Cholesky::default();
        chol.try_factor(&a, false).unwrap();
        let mut x_ref = vec![0.0; n];
        assert!(chol.solve(&b, &mut x_ref));
        let mut pcg = ScaledPcg::new(1e-10, ScaledPcg::DROP_TOLERANCE);
        pcg.setup(&a);
        let (x, stats) = pcg.solve(&b, None, n);
        assert!(stats.converged, "{stats:?}");
        let (again, warm) = pcg.solve(&b, Some(&x), n);
        assert!(warm.iterations < stats.iterations / 2 && again.iter().zip(&x).all(|(a, b)| (a - b).abs() < 1e-6 * norm(&x_ref)), "{warm:?}");
        let d: Vec<f64> = x.iter().zip(&x_ref).map(|(a, b)| a - b).collect();
        assert!(norm(&d) < 1e-7 * norm(&x_ref), "relative error {:.3e}", norm(&d) / norm(&x_ref));
        let mut ax = vec![0.0; n];
        spmv(&a, &x, &mut ax);
        assert!(ax.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-6 * norm(&b)));
    }
}
