//! Sparse Cholesky factorisation (faer's LLᵀ) of a symmetric positive definite matrix. The symbolic
//! factorisation (fill-reducing ordering, elimination tree, supernodes) can be kept when only the values
//! change. A matrix in node blocks (the implicit solvers' reduced systems: 3 DOFs a vertex, 6 a rigid body)
//! is ordered by AMD over its nodes ([`fill_order::node_amd`]) and always factorised supernodally: faer's
//! flop heuristic picks the scalar (simplicial) kernel for the sparser reduced systems, which factorised 2–3×
//! slower than the supernodal one on the adaptive armadillo's (1.5k–2k rows; docs/adaptive-results.md).

use super::fill_order;
use super::Csr;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::supernodal::SupernodalLltRef;
use faer::sparse::linalg::cholesky::{factorize_symbolic_cholesky, CholeskySymbolicParams, LltRef, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Side};

#[derive(Default)]
pub struct Cholesky {
    /// First row of each node, with the row count at the end; empty: a scalar matrix.
    node_start: Vec<usize>,
    symbolic: Option<SymbolicCholesky<usize>>,
    /// L's values of the last factorisation (`None`: it failed, or there was none).
    factor: Option<Vec<f64>>,
}

/// The lower triangle of symmetric `a` in compressed columns: column j is row j's entries at or right of the
/// diagonal (symmetry), already sorted, so no sort is needed.
struct Lower {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
}

impl Lower {
    fn of(a: &Csr) -> Self {
        let (mut col_ptr, mut row_idx, mut values) = (vec![0], Vec::with_capacity(a.nnz() / 2 + a.rows()), Vec::with_capacity(a.nnz() / 2 + a.rows()));
        for (j, row) in a.outer_iterator().enumerate() {
            for (i, v) in row.iter().filter(|(i, _)| *i >= j) {
                row_idx.push(i);
                values.push(*v);
            }
            col_ptr.push(row_idx.len());
        }
        Lower { col_ptr, row_idx, values }
    }

    fn matrix(&self) -> SparseColMatRef<'_, usize, f64> {
        let n = self.col_ptr.len() - 1;
        SparseColMatRef::new(SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx), &self.values)
    }
}

impl Cholesky {
    /// For matrices whose node k holds rows `node_start[k]..node_start[k + 1]` (`node_start` ends with the row
    /// count), every row of a node with the same columns.
    pub fn blocked(node_start: Vec<usize>) -> Self {
        Cholesky { node_start, ..Cholesky::default() }
    }

    /// Factorises `a`, with the symbolic factorisation of the last call when `same_pattern` (and there is
    /// one); a matrix that is not numerically positive definite leaves no factor.
    pub fn factor(&mut self, a: &Csr, same_pattern: bool) {
        let _ = self.try_factor(a, same_pattern);
    }

    /// [`Cholesky::factor`], saying why when there is no factor: an entry is not finite, the symbolic analysis
    /// failed, or a pivot was not positive (faer's report, which names the pivot).
    pub fn try_factor(&mut self, a: &Csr, same_pattern: bool) -> Result<(), String> {
        self.factor = None;
        if let Some((v, (i, j))) = a.iter().find(|(v, _)| !v.is_finite()) {
            return Err(format!("the matrix has a non-finite entry ({v} at row {i}, column {j})"));
        }
        let lower = Lower::of(a);
        let m = lower.matrix();
        if !same_pattern || self.symbolic.is_none() {
            self.symbolic = None;
            self.symbolic = Some(self.analyse(a, m.symbolic())?);
        }
        let symbolic = self.symbolic.as_ref().expect("analysed above");
        let par = faer::get_global_parallelism();
        let mut values = vec![0.0; symbolic.len_val()];
        let mut mem = MemBuffer::try_new(symbolic.factorize_numeric_llt_scratch::<f64>(par, Default::default()))
            .map_err(|e| format!("the factorisation failed ({e:?})"))?;
        symbolic.factorize_numeric_llt(&mut values, m, Side::Lower, Default::default(), par, MemStack::new(&mut mem), Default::default()).map_err(
            |e| match e {
                faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => {
                    format!("the matrix is not positive definite (a non-positive pivot at position {index} of the fill-reducing order)")
                }
            },
        )?;
        self.factor = Some(values);
        Ok(())
    }

    /// Nonzeros stored in the last factor L (a supernodal factor stores its supernodes' dense blocks); 0 when
    /// there is none.
    pub fn factor_len(&self) -> usize {
        self.factor.as_ref().map_or(0, Vec::len)
    }

    /// The symbolic factorisation of lower-triangle pattern `pattern` of `a`: faer's own AMD and choice of
    /// kernel for a scalar matrix, the node order and the supernodal kernel for a blocked one.
    fn analyse(&self, a: &Csr, pattern: SymbolicSparseColMatRef<'_, usize>) -> Result<SymbolicCholesky<usize>, String> {
        let fail = |e: faer::sparse::FaerError| format!("the symbolic factorisation failed ({e:?})");
        if self.node_start.is_empty() {
            return factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Amd, Default::default()).map_err(fail);
        }
        let perm = fill_order::node_amd(a, &self.node_start)?;
        let inverse = fill_order::inverse(&perm);
        let order = SymmetricOrdering::Custom(PermRef::new_checked(&perm, &inverse, perm.len()));
        let params = CholeskySymbolicParams { supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL, ..Default::default() };
        factorize_symbolic_cholesky(pattern, Side::Lower, order, params).map_err(fail)
    }

    /// `B ← A⁻¹ B` for the columns of `b` with the last factor; `false`, with `b` unchanged, when there is none.
    pub fn solve_columns(&self, b: faer::MatMut<'_, f64>) -> bool {
        let (Some(symbolic), Some(values)) = (&self.symbolic, &self.factor) else {
            return false;
        };
        let par = faer::get_global_parallelism();
        let mut mem = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(b.ncols(), par));
        LltRef::new(symbolic, values).solve_in_place_with_conj(Conj::No, b, par, MemStack::new(&mut mem));
        true
    }

    /// The last factor when it is supernodal with a fill-reducing order (a blocked one), and where each row of
    /// the matrix went in that order.
    pub(super) fn supernodal(&self) -> Option<(SupernodalLltRef<'_, usize, f64>, &[usize])> {
        let (symbolic, values) = (self.symbolic.as_ref()?, self.factor.as_ref()?);
        let SymbolicCholeskyRaw::Supernodal(raw) = symbolic.raw() else { return None };
        Some((SupernodalLltRef::new(raw, values), symbolic.perm()?.arrays().1))
    }

    /// `x = A⁻¹ b` with the last factor; `false`, with x unchanged, when there is none.
    pub fn solve(&self, b: &[f64], x: &mut [f64]) -> bool {
        let mut rhs = faer::Mat::from_fn(b.len(), 1, |i, _| b[i]);
        if !self.solve_columns(rhs.as_mut()) {
            return false;
        }
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = rhs[(i, 0)];
        }
        true
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sparse::spmv;
    use sprs::TriMat;

    /// A symmetric positive definite matrix in nodes: an m×m×m grid of 3-DOF nodes coupled to their grid
    /// neighbours by −0.1·(a fixed symmetric 3×3 block), then one 6-DOF node coupled to the first `m²` grid nodes
    /// (a rigid body on one face); diagonally dominant by a margin of 1. Returns it and its node starts.
    pub(crate) fn grid_with_body(m: usize) -> (Csr, Vec<usize>) {
        let grid = m * m * m;
        let n = 3 * grid + 6;
        let coupling = [[1.0, 0.2, -0.3], [0.2, 0.8, 0.1], [-0.3, 0.1, 1.2]];
        let mut t = TriMat::new((n, n));
        let mut row_sum = vec![0.0; n];
        let mut couple = |t: &mut TriMat<f64>, i: usize, j: usize, ri: usize, rj: usize| {
            for r in 0..ri {
                for c in 0..rj {
                    let v = -0.1 * coupling[r % 3][c % 3];
                    t.add_triplet(i + r, j + c, v);
                    t.add_triplet(j + c, i + r, v);
                    row_sum[i + r] += v.abs();
                    row_sum[j + c] += v.abs();
                }
            }
        };
        let id = |x: usize, y: usize, z: usize| x + m * (y + m * z);
        for z in 0..m {
            for y in 0..m {
                for x in 0..m {
                    let k = id(x, y, z);
                    for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                        if x + dx < m && y + dy < m && z + dz < m {
                            couple(&mut t, 3 * k, 3 * id(x + dx, y + dy, z + dz), 3, 3);
                        }
                    }
                }
            }
        }
        for k in 0..m * m {
            couple(&mut t, 3 * grid, 3 * k, 6, 3);
        }
        for (i, s) in row_sum.iter().enumerate() {
            t.add_triplet(i, i, s + 1.0);
        }
        let starts = (0..=grid).map(|k| 3 * k).chain([n]).collect();
        (t.to_csr(), starts)
    }

    fn residual(a: &Csr, x: &[f64], b: &[f64]) -> f64 {
        let mut ax = vec![0.0; b.len()];
        spmv(a, x, &mut ax);
        ax.iter().zip(b).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt() / b.iter().map(|q| q * q).sum::<f64>().sqrt()
    }

    /// The node-ordered supernodal factor solves like faer's scalar-ordered one (relative residual at round-off,
    /// the same answer), with the symbolic factor kept across a change of values, and stores no more of L than
    /// the scalar order (1.0007× here, both supernodal; on the adaptive armadillo's sparser systems, which faer
    /// factorises simplicially, the supernodes' padding stores 1.4–1.5× as many entries and still factorises
    /// 2–3× faster).
    #[test]
    fn the_blocked_factor_solves_like_the_scalar_one() {
        let (mut a, starts) = grid_with_body(7);
        let b: Vec<f64> = (0..a.rows()).map(|i| ((i * 37 % 11) as f64 - 5.0) / 3.0).collect();
        let (mut scalar, mut blocked) = (Cholesky::default(), Cholesky::blocked(starts));
        for same_pattern in [false, true] {
            scalar.try_factor(&a, same_pattern).unwrap();
            blocked.try_factor(&a, same_pattern).unwrap();
            let (mut xs, mut xb) = (vec![0.0; b.len()], vec![0.0; b.len()]);
            assert!(scalar.solve(&b, &mut xs) && blocked.solve(&b, &mut xb));
            assert!(residual(&a, &xb, &b) < 1e-13, "residual {}", residual(&a, &xb, &b));
            let diff = xs.iter().zip(&xb).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            assert!(diff < 1e-12, "answers differ by {diff}");
            assert!(blocked.factor_len() as f64 <= 1.01 * scalar.factor_len() as f64, "{} vs {}", blocked.factor_len(), scalar.factor_len());
            a.data_mut().iter_mut().for_each(|v| *v *= 2.0);
        }
    }

    /// A matrix that is not positive definite, or has a non-finite entry, leaves no factor, and the error says
    /// which pivot or entry.
    #[test]
    fn an_indefinite_or_non_finite_matrix_is_reported() {
        let (mut a, starts) = grid_with_body(3);
        let diagonal = a.outer_view(5).unwrap().iter().position(|(c, _)| c == 5).unwrap();
        let start = a.indptr().outer_inds_sz(5).start;
        a.data_mut()[start + diagonal] = -1.0;
        let mut blocked = Cholesky::blocked(starts);
        let e = blocked.try_factor(&a, false).unwrap_err();
        assert!(e.contains("not positive definite") && e.contains("pivot"), "{e}");
        assert!(!blocked.solve(&vec![1.0; a.rows()], &mut vec![0.0; a.rows()]));
        a.data_mut()[start + diagonal] = f64::NAN;
        let e = blocked.try_factor(&a, true).unwrap_err();
        assert_eq!(e, "the matrix has a non-finite entry (NaN at row 5, column 5)");
    }
}
