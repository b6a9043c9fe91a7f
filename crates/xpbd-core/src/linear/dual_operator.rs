//! MGPBD's dual matrix `A = J W Jᵀ + α̃` (mgpbd::assembly) applied from its factors without forming
//! it: `A v = J (W (Jᵀ v)) + α̃ v`, W the inverse masses (0 for pinned vertices). With ARAP component
//! rows A has ~540 nonzeros per row and J 12, so a product costs ~20× less and no gigabytes of A are
//! stored. `xpbd solve-system --matrix-free` runs plain CG on it (`cg::Cg::solve_operator`).

use crate::sparse::{spmv, Csr};

pub struct DualOperator {
    /// J (rows × 3·vertices) and Jᵀ, both CSR so that each product streams its rows.
    j: Csr,
    jt: Csr,
    /// W per column of J: the inverse mass of the column's vertex.
    w: Vec<f64>,
    /// α̃ per row; 1 where α̃ = 0 and the row has no free vertex, as the assembled A has it
    /// (`mgpbd::assembly::Pattern::value`).
    diagonal: Vec<f64>,
    /// Jᵀ v, 3·vertices.
    t: Vec<f64>,
}

impl DualOperator {
    /// From J (rows × 3·vertices), the inverse mass per vertex and α̃ per row; the caller checks the sizes.
    pub fn new(j: Csr, inv_mass: &[f64], alpha_tilde: &[f64]) -> Self {
        assert!(j.cols() == 3 * inv_mass.len() && j.rows() == alpha_tilde.len(), "J, W and α̃ sizes differ");
        let w: Vec<f64> = (0..j.cols()).map(|c| inv_mass[c / 3]).collect();
        let diagonal =
            j.outer_iterator().zip(alpha_tilde).map(|(row, &a)| if a == 0.0 && row.indices().iter().all(|&c| w[c] <= 0.0) { 1.0 } else { a }).collect();
        let jt = j.transpose_view().to_csr();
        DualOperator { t: vec![0.0; j.cols()], j, jt, w, diagonal }
    }

    pub fn rows(&self) -> usize {
        self.j.rows()
    }

    /// Nonzeros of J.
    pub fn jacobian_nonzeros(&self) -> usize {
        self.j.nnz()
    }

    /// `y = A v = J (W (Jᵀ v)) + α̃ v`.
    pub fn apply(&mut self, v: &[f64], y: &mut [f64]) {
        spmv(&self.jt, v, &mut self.t);
        for (t, w) in self.t.iter_mut().zip(&self.w) {
            *t *= w;
        }
        spmv(&self.j, &self.t, y);
        for ((y, d), v) in y.iter_mut().zip(&self.diagonal).zip(v) {
            *y += d * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::cg::Cg;
    use crate::linear::{LinearSolver, Setup};

    /// J of 5 rows on 3 vertices (vertex 2 pinned; row 4 touches only it) with α̃ = 0 on rows 3 and 4.
    fn system() -> (Csr, Vec<f64>, Vec<f64>) {
        let mut t = sprs::TriMat::new((5, 9));
        for (r, c, v) in [(0, 0, 1.0), (0, 4, -2.0), (1, 1, 0.5), (1, 3, 1.5), (1, 7, 3.0), (2, 2, -1.0), (2, 5, 2.5), (3, 0, 0.7), (3, 5, -0.3), (4, 8, 2.0)] {
            t.add_triplet(r, c, v);
        }
        (t.to_csr(), vec![2.0, 0.5, 0.0], vec![0.1, 0.2, 0.3, 0.0, 0.0])
    }

    /// The action equals the dense J W Jᵀ + α̃ (with 1 on the diagonal of the row without free
    /// vertices and α̃ = 0, as the assembly has it), and matrix-free CG takes the iterates of CG on
    /// the assembled matrix.
    #[test]
    fn action_is_the_assembled_matrix_and_cg_iterates_agree() {
        let (j, w, at) = system();
        let jd = j.to_dense();
        let mut a = sprs::TriMat::new((5, 5));
        for r in 0..5 {
            for c in 0..5 {
                let v: f64 = (0..9).map(|k| jd[[r, k]] * w[k / 3] * jd[[c, k]]).sum::<f64>() + if r == c { at[r] } else { 0.0 };
                a.add_triplet(r, c, if r == 4 && c == 4 { 1.0 } else { v });
            }
        }
        let a: Csr = a.to_csr();
        let mut op = DualOperator::new(j, &w, &at);
        let v = [0.3, -1.0, 2.0, 0.5, -0.7];
        let (mut y, mut y_ref) = ([0.0; 5], [0.0; 5]);
        op.apply(&v, &mut y);
        spmv(&a, &v, &mut y_ref);
        for (p, q) in y.iter().zip(&y_ref) {
            assert!((p - q).abs() <= 1e-14 * (1.0 + q.abs()), "{y:?} vs {y_ref:?}");
        }
        let b = [1.0, -2.0, 0.5, 3.0, 1.0];
        let mut assembled = Cg::default();
        assembled.setup(&a, Setup::Full);
        for cap in 1..=5 {
            let (mut x, mut x_ref) = ([0.0; 5], [0.0; 5]);
            let s = Cg::default().solve_operator(|v, y| op.apply(v, y), &b, &mut x, 1e-14, cap);
            let s_ref = assembled.solve(&a, &b, &mut x_ref, 1e-14, cap);
            assert_eq!(s.iterations, s_ref.iterations);
            assert!((s.relative_residual - s_ref.relative_residual).abs() <= 1e-10 * s_ref.relative_residual + 1e-14, "cap {cap}: {s:?} vs {s_ref:?}");
            for (p, q) in x.iter().zip(&x_ref) {
                assert!((p - q).abs() <= 1e-10 * (1.0 + q.abs()), "cap {cap}: {x:?} vs {x_ref:?}");
            }
        }
    }
}
