//! Symmetric diagonal scaling S A S of a sparse symmetric matrix: Curtis & Reid's least-squares scaling
//! ("On the automatic scaling of matrices for Gaussian elimination", 1972) and Jacobi scaling 1/sqrt|a_ii|.
//! The adaptive solver's reduced system mixes 6-DOF rigid bodies with 3-DOF elastic vertices, whose entries
//! differ by orders of magnitude (thesis "Adaptive methods for elastic deformation", §4.4.2, Fig. 4.8-A):
//! scaling lowers the condition number before an iterative solve.

use super::Csr;
use crate::linear::pcg::{JacobiPreconditioner, Pcg};
use crate::linear::{LinearSolver, Setup};

/// The `negligible` of [`curtis_reid`] for the implicit solver's systems: couplings below 10⁻²·sqrt|a_ii a_jj|
/// are left out. A sagging shell's A_A has couplings spread from 1 down to 10⁻¹³ of its diagonal (out-of-plane
/// terms of nearly flat triangles); with all of them in the objective the scaling pulls rows up to meet them
/// and κ(S A S) on the stretched cross of `tests/shell_scaling.rs` is 7·10⁵ (implicit) and 7·10⁶ (adaptive),
/// against 3.4·10² for both at this threshold (1e-6: 3.6·10⁴ and 2.9·10⁴; 1e-3: 1.0·10³ and 3.9·10²).
pub const NEGLIGIBLE: f64 = 1e-2;

/// Curtis & Reid's scaling for symmetric `a`: s = exp(ρ) minimising the paper's least-squares objective (with the
/// row and column factors equal) Σ_{a_ij ≠ 0} (log|a_ij| + ρ_i + ρ_j)², so that the entries of S A S lie as
/// close to ±1 as a diagonal scaling allows. The normal equations (halved) are
/// M ρ = −c with M_ii = (off-diagonal nonzeros of row i) + 2 [a_ii ≠ 0], M_ij = 1 for a_ij ≠ 0 (i ≠ j) and
/// c_i = Σ_j log|a_ij| over row i's nonzeros; they are solved, as in the paper, by conjugate gradients
/// preconditioned by M's diagonal, to `‖M ρ + c‖ ≤ tolerance ‖c‖` or `max_iterations`. Rows without a nonzero
/// keep s_i = 1. Entries below `negligible`·sqrt|a_ii a_jj| are left out of the objective (0 keeps every
/// nonzero, as in the paper; see [`NEGLIGIBLE`]).
pub fn curtis_reid(a: &Csr, negligible: f64, tolerance: f64, max_iterations: usize) -> Vec<f64> {
    let n = a.rows();
    let d = super::diagonal(a);
    let mut m = sprs::TriMat::new((n, n));
    let mut c = vec![0.0; n];
    for (i, row) in a.outer_iterator().enumerate() {
        let mut diagonal = 0.0;
        for (j, &v) in row.iter().filter(|&(j, v)| v.abs() > negligible * (d[i] * d[j]).abs().sqrt()) {
            c[i] -= v.abs().ln();
            if i == j {
                diagonal += 2.0;
            } else {
                diagonal += 1.0;
                m.add_triplet(i, j, 1.0);
            }
        }
        // An empty row: ρ_i = 0 from the identity row.
        m.add_triplet(i, i, if diagonal > 0.0 { diagonal } else { 1.0 });
    }
    let m: Csr = m.to_csr();
    let mut cg = Pcg::new("jacobi-pcg", JacobiPreconditioner::default());
    cg.setup(&m, Setup::Full);
    let mut rho = vec![0.0; n];
    cg.solve(&m, &c, &mut rho, tolerance, max_iterations);
    rho.into_iter().map(f64::exp).collect()
}

/// Jacobi scaling s_i = 1/sqrt|a_ii| (1 where a_ii = 0): S A S has a unit diagonal.
pub fn jacobi(a: &Csr) -> Vec<f64> {
    super::diagonal(a).into_iter().map(|d| if d != 0.0 { 1.0 / d.abs().sqrt() } else { 1.0 }).collect()
}

/// S A S for the diagonal S = diag(`s`).
pub fn scaled(a: &Csr, s: &[f64]) -> Csr {
    let mut out = a.clone();
    for (i, mut row) in out.outer_iterator_mut().enumerate() {
        for (j, v) in row.iter_mut() {
            *v *= s[i] * s[j];
        }
    }
    out
}

/// Curtis & Reid's objective Σ_{a_ij ≠ 0} (log|a_ij| + ρ_i + ρ_j)² at ρ = log `s`.
pub fn objective(a: &Csr, s: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (i, row) in a.outer_iterator().enumerate() {
        for (j, &v) in row.iter().filter(|e| *e.1 != 0.0) {
            sum += (v.abs().ln() + s[i].ln() + s[j].ln()).powi(2);
        }
    }
    sum
}

/// max |a_ij| / min |a_ij| over the nonzeros.
pub fn entry_ratio(a: &Csr) -> f64 {
    let (lo, hi) = a.data().iter().filter(|v| **v != 0.0).fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v.abs()), hi.max(v.abs())));
    hi / lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn csr(n: usize, entries: &[(usize, usize, f64)]) -> Csr {
        let mut t = sprs::TriMat::new((n, n));
        for &(i, j, v) in entries {
            t.add_triplet(i, j, v);
        }
        t.to_csr()
    }

    /// A 1-D Laplacian with the rows and columns of the second half scaled by 10⁴ (a "rigid" block among
    /// "elastic" ones), symmetric.
    fn badly_scaled(n: usize) -> Csr {
        let f = |i: usize| if i >= n / 2 { 1e4 } else { 1.0 };
        let mut e = Vec::new();
        for i in 0..n {
            e.push((i, i, 2.5 * f(i) * f(i)));
            if i > 0 {
                e.push((i, i - 1, -f(i) * f(i - 1)));
                e.push((i - 1, i, -f(i) * f(i - 1)));
            }
        }
        csr(n, &e)
    }

    #[test]
    fn diagonal_matrix_becomes_unit() {
        let a = csr(4, &[(0, 0, 1e-8), (1, 1, 3.0), (2, 2, -7e9), (3, 3, 42.0)]);
        for s in [curtis_reid(&a, 0.0, 1e-14, 50), jacobi(&a)] {
            let d = super::super::diagonal(&scaled(&a, &s));
            for (v, want) in d.iter().zip([1.0, 1.0, -1.0, 1.0]) {
                assert!((v - want).abs() < 1e-12, "{d:?}");
            }
        }
    }

    #[test]
    fn badly_scaled_block_ratio_drops() {
        let a = badly_scaled(20);
        let before = entry_ratio(&a);
        let cr = entry_ratio(&scaled(&a, &curtis_reid(&a, 0.0, 1e-8, 100)));
        let jac = entry_ratio(&scaled(&a, &jacobi(&a)));
        assert!(before > 1e7 && cr < 10.0 && jac < 10.0, "ratio {before:.3e} → Curtis–Reid {cr:.3e}, Jacobi {jac:.3e}");
    }

    /// The CG solution lowers the objective from s = 1 and matches the dense least-squares solution of
    /// min ‖B ρ + l‖ (B: one row per nonzero a_ij with ones in columns i and j) on a small irregular matrix.
    #[test]
    fn matches_dense_least_squares() {
        let n = 6;
        let mut e = vec![(0, 0, 5e3), (1, 1, 0.2), (2, 2, 7.0), (3, 3, 1e-3), (4, 4, 40.0), (5, 5, 3e5)];
        for &(i, j, v) in &[(0, 1, -3.0), (1, 2, 0.05), (0, 3, 0.4), (3, 4, -0.1), (4, 5, 80.0), (2, 5, 9.0)] {
            e.push((i, j, v));
            e.push((j, i, v));
        }
        let a = csr(n, &e);
        let s = curtis_reid(&a, 0.0, 1e-13, 100);
        assert!(objective(&a, &s) < objective(&a, &[1.0; 6]));
        let (mut b, mut l) = (DMatrix::<f64>::zeros(e.len(), n), DVector::<f64>::zeros(e.len()));
        for (r, &(i, j, v)) in e.iter().enumerate() {
            b[(r, i)] += 1.0;
            b[(r, j)] += 1.0;
            l[r] = -f64::ln(f64::abs(v));
        }
        let rho: DVector<f64> = (b.transpose() * &b).cholesky().unwrap().solve(&(b.transpose() * l));
        for (si, ri) in s.iter().zip(rho.iter()) {
            assert!((si.ln() - ri).abs() < 1e-9, "{s:?} vs exp of {rho:?}");
        }
    }
}
