//! Prolongator smoothing of smoothed aggregation (Vaněk, Mandel & Brezina 1996, Eq. 3.4; PyAMG's
//! `jacobi_prolongation_smoother`): `P = (I − ω D⁻¹ A) P_tent` with ω = 4 / (3 ρ(D⁻¹A)), D the
//! diagonal of A. One damped-Jacobi step on each column of the tentative prolongator lowers the
//! energy of the coarse basis functions while keeping what A annihilates: if `A B = 0` and
//! `B = P_tent B_c`, then `P B_c = B` too.

use super::product::ProductPlan;
use super::smoothers::spectral_radius_jacobi;
use super::strength::diagonal;
use crate::linear::Csr;

/// `(I − ω D⁻¹ A) p_tent` with ω = 4 / (3 ρ(D⁻¹A)) (ρ by Lanczos, as the Jacobi smoother's).
pub fn smooth_prolongator(a: &Csr, p_tent: &Csr) -> Csr {
    let inv_diag: Vec<f64> = diagonal(a).iter().map(|&d| if d != 0.0 { 1.0 / d } else { 0.0 }).collect();
    let omega = 4.0 / (3.0 * spectral_radius_jacobi(a, &inv_diag));
    let (mut ap, _) = ProductPlan::multiply(a, p_tent);
    let indptr = ap.indptr().raw_storage().to_vec();
    let data = ap.data_mut();
    for i in 0..inv_diag.len() {
        data[indptr[i]..indptr[i + 1]].iter_mut().for_each(|v| *v *= omega * inv_diag[i]);
    }
    p_tent - &ap
}

#[cfg(test)]
mod tests {
    use super::super::aggregation::standard_aggregation;
    use super::super::prolongation::tentative;
    use super::super::strength::symmetric_strength;
    use super::*;
    use crate::linear::{norm, spmv};

    /// 1-D Laplacian with Neumann ends (A·1 = 0 exactly): the smoothed prolongator reproduces the
    /// constant as the tentative one does (P B_c = B to rounding), its columns overlap neighbouring
    /// aggregates (one more nonzero each side), and each coarse basis function has lower energy
    /// `pᵀ A p` than its tentative one (the point of the smoothing).
    #[test]
    fn keeps_the_kernel_and_lowers_the_energy() {
        let n = 60;
        let mut t = sprs::TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, if i == 0 || i == n - 1 { 1.0 } else { 2.0 });
            if i + 1 < n {
                t.add_triplet(i, i + 1, -1.0);
                t.add_triplet(i + 1, i, -1.0);
            }
        }
        let a: Csr = t.to_csr();
        let agg = standard_aggregation(&symmetric_strength(&a, 0.1));
        let tent = tentative(&agg, &vec![1.0; n], 1);
        let p = smooth_prolongator(&a, &tent.p);
        let nc = p.cols();
        let mut pb = vec![0.0; n];
        spmv(&p, &tent.coarse_b, &mut pb);
        let err = pb.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
        assert!(err < 1e-12, "|P Bc − 1| = {err}");
        assert!(p.nnz() > tent.p.nnz() + nc, "{} vs {}", p.nnz(), tent.p.nnz());
        let energy = |m: &Csr, c: usize| {
            let col: Vec<f64> = (0..n).map(|i| *m.get(i, c).unwrap_or(&0.0)).collect();
            let mut ac = vec![0.0; n];
            spmv(&a, &col, &mut ac);
            crate::linear::dot(&col, &ac) / norm(&col).powi(2)
        };
        for c in 1..nc - 1 {
            assert!(energy(&p, c) < 0.7 * energy(&tent.p, c), "column {c}: {} vs {}", energy(&p, c), energy(&tent.p, c));
        }
    }
}
