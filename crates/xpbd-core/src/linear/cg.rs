//! Conjugate gradients, unpreconditioned: the baseline MGPBD's preconditioners must beat.

use super::{dot, norm, spmv, Csr, LinearSolver, Setup, SolveStats};

#[derive(Default)]
pub struct Cg {
    r: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
}

impl LinearSolver for Cg {
    fn name(&self) -> &'static str {
        "cg"
    }

    fn setup(&mut self, a: &Csr, _setup: Setup) {
        let n = a.rows();
        self.r.resize(n, 0.0);
        self.p.resize(n, 0.0);
        self.ap.resize(n, 0.0);
    }

    fn solve(&mut self, a: &Csr, b: &[f64], x: &mut [f64], tol: f64, max_iter: usize) -> SolveStats {
        let (r, p, ap) = (&mut self.r, &mut self.p, &mut self.ap);
        let b_norm = norm(b);
        if b_norm == 0.0 {
            x.fill(0.0);
            return SolveStats { iterations: 0, relative_residual: 0.0, converged: true };
        }
        spmv(a, x, ap);
        for i in 0..r.len() {
            r[i] = b[i] - ap[i];
        }
        p.copy_from_slice(r);
        let mut rr = dot(r, r);
        let mut iterations = 0;
        while rr.sqrt() > tol * b_norm && iterations < max_iter {
            spmv(a, p, ap);
            let alpha = rr / dot(p, ap);
            for i in 0..r.len() {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            let rr_new = dot(r, r);
            let beta = rr_new / rr;
            for i in 0..p.len() {
                p[i] = r[i] + beta * p[i];
            }
            rr = rr_new;
            iterations += 1;
        }
        let relative_residual = rr.sqrt() / b_norm;
        SolveStats { iterations, relative_residual, converged: relative_residual <= tol }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
