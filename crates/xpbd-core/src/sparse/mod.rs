//! Sparse matrices and vectors, the bottom of the linear algebra: CSR (`sprs::CsMat`), whose
//! `indptr`/`indices`/`data` arrays map one-to-one onto GPU buffers, its products, its sparse
//! Cholesky factorisation and Matrix Market files. `amg` builds on this module, `linear` on both.

pub mod cholesky;
pub mod curtis_reid;
pub mod fill_order;
pub mod forward_columns;
pub mod incomplete_cholesky;
pub mod lagged_cholesky;
pub mod matrix_market;
pub mod scaled_pcg;

use rayon::prelude::*;

/// A sparse matrix in compressed sparse row form.
pub type Csr = sprs::CsMat<f64>;

/// The diagonal of `a` (zero where no diagonal entry is stored).
pub fn diagonal(a: &Csr) -> Vec<f64> {
    diagonal_positions(a).iter().map(|k| k.map_or(0.0, |k| a.data()[k])).collect()
}

/// Where each row's diagonal entry sits in `a.data()` (`None` where none is stored): the diagonal of new values
/// on the same pattern is then read without a search.
pub fn diagonal_positions(a: &Csr) -> Vec<Option<usize>> {
    let (indptr, indices) = (a.indptr(), a.indices());
    let indptr = indptr.raw_storage();
    (0..a.rows())
        .map(|i| {
            let row = indptr[i]..indptr[i + 1];
            indices[row.clone()].binary_search(&i).ok().map(|k| row.start + k)
        })
        .collect()
}

/// Rows per parallel task of [`spmv`]; a matrix with at most this many rows is multiplied serially.
const SPMV_CHUNK_ROWS: usize = 2048;

/// `y = A x`, rows in parallel (each row's sum in order: the result does not depend on the threads).
pub fn spmv(a: &Csr, x: &[f64], y: &mut [f64]) {
    debug_assert!(a.is_csr());
    let (indptr, indices, data) = (a.indptr(), a.indices(), a.data());
    let indptr = indptr.raw_storage();
    let rows = |first: usize, y: &mut [f64]| {
        for (i, yi) in (first..).zip(y.iter_mut()) {
            let mut s = 0.0;
            for k in indptr[i]..indptr[i + 1] {
                s += data[k] * x[indices[k]];
            }
            *yi = s;
        }
    };
    if y.len() <= SPMV_CHUNK_ROWS {
        rows(0, y);
    } else {
        y.par_chunks_mut(SPMV_CHUNK_ROWS).enumerate().for_each(|(c, y)| rows(c * SPMV_CHUNK_ROWS, y));
    }
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}
