//! Prolongator smoothing of smoothed aggregation (Vaněk, Mandel & Brezina 1996, Eq. 3.4; PyAMG's
//! `jacobi_prolongation_smoother`): `P = (I − ω D⁻¹ A) P_tent` with ω = 4 / (3 ρ(D⁻¹A)), D the
//! diagonal of A. One damped-Jacobi step on each column of the tentative prolongator lowers the
//! energy of the coarse basis functions while keeping what A annihilates: if `A B = 0` and
//! `B = P_tent B_c`, then `P B_c = B` too.

use super::product::ProductPlan;
use crate::sparse::{diagonal, Csr};

/// `(I − ω D⁻¹ A) p_tent` with ω = 4 / (3 ρ), `rho` = ρ(D⁻¹A) by Lanczos: the level's relaxation
/// ([`super::smoothers::Relaxation::rho`]) has it, so the full setup runs Lanczos once per level.
pub fn smooth_prolongator(a: &Csr, p_tent: &Csr, rho: f64) -> Csr {
    let inv_diag: Vec<f64> = diagonal(a).iter().map(|&d| if d != 0.0 { 1.0 / d } else { 0.0 }).collect();
    let omega = 4.0 / (3.0 * rho);
    let (mut ap, _) = ProductPlan::multiply(a, p_tent);
    let indptr = ap.indptr().raw_storage().to_vec();
    let data = ap.data_mut();
    for i in 0..inv_diag.len() {
        data[indptr[i]..indptr[i + 1]].iter_mut().for_each(|v| *v *= omega * inv_diag[i]);
    }
    difference_keeping_zeros(p_tent, &ap)
}

/// `t − s` on the union of the patterns, with the values of sprs's `t - s` but exact zeros kept
/// (sprs drops them). The pattern of P then depends on the patterns of A and P_tent only, not on
/// values (K's ARAP blocks have exact zeros), so a node's unknowns keep one pattern and share
/// the products' reads (`row_groups.rs`); an explicit zero adds ±0 to every sum it enters.
fn difference_keeping_zeros(t: &Csr, s: &Csr) -> Csr {
    let (mut indptr, mut indices, mut data) = (vec![0], Vec::with_capacity(s.nnz()), Vec::with_capacity(s.nnz()));
    for (t_row, s_row) in t.outer_iterator().zip(s.outer_iterator()) {
        let (mut ti, mut si) = (t_row.iter().peekable(), s_row.iter().peekable());
        loop {
            let (j, v) = match (ti.peek(), si.peek()) {
                (Some(&(jt, &vt)), Some(&(js, &vs))) if jt == js => {
                    ti.next();
                    si.next();
                    (jt, vt - vs)
                }
                (Some(&(jt, &vt)), Some(&(js, _))) if jt < js => {
                    ti.next();
                    (jt, vt - 0.0)
                }
                (Some(&(jt, &vt)), None) => {
                    ti.next();
                    (jt, vt - 0.0)
                }
                (_, Some(&(js, &vs))) => {
                    si.next();
                    (js, 0.0 - vs)
                }
                (None, None) => break,
            };
            indices.push(j);
            data.push(v);
        }
        indptr.push(indices.len());
    }
    Csr::new((t.rows(), t.cols()), indptr, indices, data)
}

#[cfg(test)]
mod tests {
    use super::super::aggregation::standard_aggregation;
    use super::super::prolongation::tentative;
    use super::super::smoothers::Relaxation;
    use super::super::strength::symmetric_strength;
    use super::super::Smoother;
    use super::*;
    use crate::sparse::{norm, spmv};

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
        let p = smooth_prolongator(&a, &tent.p, Relaxation::new(&a, Smoother::Jacobi).rho);
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
            crate::sparse::dot(&col, &ac) / norm(&col).powi(2)
        };
        for c in 1..nc - 1 {
            assert!(energy(&p, c) < 0.7 * energy(&tent.p, c), "column {c}: {} vs {}", energy(&p, c), energy(&tent.p, c));
        }
    }

    /// The difference has sprs's values on the union of the patterns, including the entries
    /// that cancel to zero, which sprs drops and this keeps as explicit zeros.
    #[test]
    fn difference_keeps_exact_zeros() {
        let mut t = sprs::TriMat::new((3, 4));
        let mut s = sprs::TriMat::new((3, 4));
        for (i, j, v) in [(0, 0, 1.0), (0, 2, 0.5), (1, 1, 2.0), (2, 3, 0.25)] {
            t.add_triplet(i, j, v);
        }
        for (i, j, v) in [(0, 0, 0.25), (0, 1, 3.0), (1, 1, 2.0), (2, 0, 1.5), (2, 3, -1.0)] {
            s.add_triplet(i, j, v);
        }
        let (t, s): (Csr, Csr) = (t.to_csr(), s.to_csr());
        let d = difference_keeping_zeros(&t, &s);
        let sprs_d = &t - &s;
        assert_eq!(d.nnz(), sprs_d.nnz() + 1, "the cancelled (1, 1) is kept");
        assert_eq!(d.get(1, 1), Some(&0.0));
        for (v, (i, j)) in d.iter() {
            assert_eq!(*v, *sprs_d.get(i, j).unwrap_or(&0.0), "({i}, {j})");
        }
    }
}
