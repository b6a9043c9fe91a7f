//! Sparse Cholesky factorisation (faer's supernodal LLᵀ) of a symmetric positive definite matrix. The
//! symbolic factorisation (fill-reducing ordering, elimination tree) can be kept when only the values change.

use super::Csr;
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::Side;

#[derive(Default)]
pub struct Cholesky {
    symbolic: Option<SymbolicLlt<usize>>,
    factor: Option<Llt<usize, f64>>,
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
    /// Factorises `a`, with the symbolic factorisation of the last call when `same_pattern` (and there is
    /// one); a matrix that is not numerically positive definite leaves no factor.
    pub fn factor(&mut self, a: &Csr, same_pattern: bool) {
        let _ = self.try_factor(a, same_pattern);
    }

    /// [`Cholesky::factor`], saying why when there is no factor: the symbolic analysis failed, or a pivot was
    /// not positive (faer's report, which names the pivot).
    pub fn try_factor(&mut self, a: &Csr, same_pattern: bool) -> Result<(), String> {
        let lower = Lower::of(a);
        let m = lower.matrix();
        if !same_pattern || self.symbolic.is_none() {
            self.symbolic = SymbolicLlt::try_new(m.symbolic(), Side::Lower).ok();
        }
        self.factor = None;
        let symbolic = self.symbolic.clone().ok_or("the symbolic factorisation failed")?;
        let factor = Llt::try_new_with_symbolic(symbolic, m, Side::Lower).map_err(|e| match e {
            faer::sparse::linalg::LltError::Numeric(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
                format!("the matrix is not positive definite (a non-positive pivot at position {index} of the fill-reducing order)")
            }
            other => format!("the factorisation failed ({other:?})"),
        })?;
        self.factor = Some(factor);
        Ok(())
    }

    /// `B ← A⁻¹ B` for the columns of `b` with the last factor; `false`, with `b` unchanged, when there is none.
    pub fn solve_columns(&self, b: faer::MatMut<'_, f64>) -> bool {
        match &self.factor {
            Some(factor) => {
                factor.solve_in_place(b);
                true
            }
            None => false,
        }
    }

    /// `x = A⁻¹ b` with the last factor; `false`, with x unchanged, when there is none.
    pub fn solve(&self, b: &[f64], x: &mut [f64]) -> bool {
        let Some(factor) = &self.factor else {
            return false;
        };
        let mut rhs = faer::Mat::from_fn(b.len(), 1, |i, _| b[i]);
        factor.solve_in_place(rhs.as_mut());
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = rhs[(i, 0)];
        }
        true
    }
}
