//! Z = L⁻¹ P Jᵀ for sparse rows J and a supernodal Cholesky factor P A Pᵀ = L Lᵀ: the Delassus operator of
//! constraint rows J is then H = J A⁻¹ Jᵀ = ZᵀZ (the contact operator of thesis "Adaptive methods for elastic
//! deformation", §3.3.3), applied without ever forming it ([`crate::implicit::pgs::FactoredDelassus`]), and
//! A⁻¹ Jᵀ λ = Pᵀ L⁻ᵀ (Z λ) takes one backward substitution ([`Cholesky::backward`]).
//!
//! A column of Z is nonzero only on the supernodes its right-hand side reaches in the elimination tree (the
//! paths from its DOFs' supernodes to the root), and stored as those supernodes' rows: a contact on one body of
//! a scene of many (a pile of pills) touches that body's part of the factor, a contact on a large body the path
//! from its vertex to the root (about 1.7k of the 23.7k rows of a 31k-tet bunny's system). The forward
//! substitution runs over blocks of columns in the order of their first pivot, so that a block's columns lie
//! in the same subtrees, and visits only the supernodes on the paths from the block's DOFs to the root.

use super::cholesky::Cholesky;
use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::solve_lower_triangular_in_place;
use faer::{Accum, Conj, Mat, MatMut, Par};
use rayon::prelude::*;

/// Columns per forward substitution: enough for the dense kernels to pay, few enough that a block's reach stays
/// that of a few neighbouring columns.
const BLOCK: usize = 32;

/// The columns of Z, each a list of segments: a run of consecutive rows (a supernode's) and their values.
pub struct ForwardColumns {
    /// Column i's segments are `segments[segment_ptr[i]..segment_ptr[i + 1]]`, in increasing row order.
    segment_ptr: Vec<usize>,
    /// (first row, offset of its values in `values`, row count).
    segments: Vec<(usize, usize, usize)>,
    values: Vec<f64>,
    rows: usize,
}

/// One column's segments as a block's forward substitution leaves them: (first row, values).
type Column = Vec<(usize, Vec<f64>)>;

impl ForwardColumns {
    /// Rows of Z (those of A).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of Z (rows of J).
    pub fn columns(&self) -> usize {
        self.segment_ptr.len() - 1
    }

    /// Stored entries, over all columns.
    pub fn stored(&self) -> usize {
        self.values.len()
    }

    fn segments(&self, i: usize) -> impl Iterator<Item = (usize, &[f64])> {
        self.segments[self.segment_ptr[i]..self.segment_ptr[i + 1]].iter().map(|&(row, offset, len)| (row, &self.values[offset..offset + len]))
    }

    /// Z_iᵀ w, in four partial sums (entries k ≡ 0…3 mod 4 of each segment) that the compiler keeps in vector
    /// lanes: this product is most of a PGS sweep.
    pub fn dot(&self, i: usize, w: &[f64]) -> f64 {
        let mut sums = [0.0; 4];
        let mut rest = 0.0;
        for (row, z) in self.segments(i) {
            let w = &w[row..row + z.len()];
            for (a, b) in z.chunks_exact(4).zip(w.chunks_exact(4)) {
                for k in 0..4 {
                    sums[k] += a[k] * b[k];
                }
            }
            let tail = z.len() - z.len() % 4;
            rest += z[tail..].iter().zip(&w[tail..]).map(|(a, b)| a * b).sum::<f64>();
        }
        (sums[0] + sums[1]) + (sums[2] + sums[3]) + rest
    }

    /// ‖Z_i‖².
    pub fn squared_norm(&self, i: usize) -> f64 {
        self.segments(i).map(|(_, z)| z.iter().map(|v| v * v).sum::<f64>()).sum()
    }

    /// w += a Z_i.
    pub fn add_to(&self, i: usize, a: f64, w: &mut [f64]) {
        for (row, z) in self.segments(i) {
            w[row..row + z.len()].iter_mut().zip(z).for_each(|(wi, zi)| *wi += a * zi);
        }
    }
}

impl Cholesky {
    /// Z = L⁻¹ P Jᵀ for the rows of J given as (column, coefficient) lists, with the last factor; `None` when
    /// there is none or it is not supernodal (a blocked factor always is, [`Cholesky::blocked`]).
    pub fn forward_columns(&self, rows: &[Vec<(usize, f64)>]) -> Option<ForwardColumns> {
        let (llt, position) = self.supernodal()?;
        let (n, m) = (llt.symbolic().nrows(), rows.len());
        let supernodes = llt.symbolic().n_supernodes();
        let first_pivot = |i: usize| rows[i].iter().map(|&(d, _)| position[d]).min().unwrap_or(n);
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by_key(|&i| first_pivot(i));
        // The supernode of each row: a block starts at its right-hand sides' supernodes, and a supernode it
        // reaches passes its update on to its parent (the supernode of its first row below), so the block visits
        // exactly the paths from its columns' DOFs to the root.
        let mut supernode_of = vec![0; n];
        for s in 0..supernodes {
            let node = llt.supernode(s);
            supernode_of[node.start()..node.start() + node.val().ncols()].fill(s);
        }
        // One block of columns in `z` (zero on entry, left zero), marking what it reaches in `reached` (all
        // false on entry, left so): its columns' segments.
        let forward = |block: &[usize], mut z: MatMut<'_, f64>, reached: &mut [bool]| -> Vec<(usize, Column)> {
            for (j, &i) in block.iter().enumerate() {
                for &(d, c) in &rows[i] {
                    z[(position[d], j)] += c;
                    reached[supernode_of[position[d]]] = true;
                }
            }
            let mut columns: Vec<Column> = vec![Vec::new(); block.len()];
            for s in 0..supernodes {
                if !std::mem::take(&mut reached[s]) {
                    continue;
                }
                let node = llt.supernode(s);
                let (start, below) = (node.start(), node.pattern());
                let (top, bottom) = node.val().split_at_row(node.val().ncols());
                let size = top.ncols();
                let mut x = z.as_mut().subrows_mut(start, size);
                solve_lower_triangular_in_place(top, x.as_mut(), Par::Seq);
                if let Some(&parent_row) = below.first() {
                    reached[supernode_of[parent_row]] = true;
                    let mut update = Mat::<f64>::zeros(below.len(), block.len());
                    matmul(update.as_mut(), Accum::Replace, bottom, x.as_ref(), 1.0, Par::Seq);
                    for j in 0..block.len() {
                        for (k, &r) in below.iter().enumerate() {
                            z[(r, j)] -= update[(k, j)];
                        }
                    }
                }
                for (j, column) in columns.iter_mut().enumerate() {
                    let values = z.as_ref().col(j).subrows(start, size);
                    if values.iter().any(|v| *v != 0.0) {
                        column.push((start, values.iter().copied().collect()));
                    }
                }
                z.as_mut().subrows_mut(start, size).fill(0.0);
            }
            block.iter().copied().zip(columns).collect()
        };
        // Tasks of at least two blocks, each with one buffer: a few tasks per thread, and no n × 32 allocation
        // per block.
        let block_list: Vec<&[usize]> = order.chunks(BLOCK).collect();
        let per_task = block_list.len().div_ceil(4 * rayon::current_num_threads()).max(2);
        let blocks: Vec<Vec<(usize, Column)>> = block_list
            .par_chunks(per_task)
            .map(|task| {
                let (mut buffer, mut reached) = (Mat::<f64>::zeros(n, BLOCK), vec![false; supernodes]);
                let mut out = Vec::new();
                for block in task {
                    out.extend(forward(block, buffer.as_mut().subcols_mut(0, block.len()), &mut reached));
                }
                out
            })
            .collect();
        let mut by_row: Vec<Column> = vec![Vec::new(); m];
        for (i, column) in blocks.into_iter().flatten() {
            by_row[i] = column;
        }
        let mut z = ForwardColumns { segment_ptr: vec![0], segments: Vec::new(), values: Vec::new(), rows: n };
        for column in by_row {
            for (row, values) in column {
                z.segments.push((row, z.values.len(), values.len()));
                z.values.extend(values);
            }
            z.segment_ptr.push(z.segments.len());
        }
        Some(z)
    }

    /// x = Pᵀ L⁻ᵀ w, with w in the factor's order (a sum of columns of [`Cholesky::forward_columns`]): for
    /// w = Z λ, x = A⁻¹ Jᵀ λ. `None` when there is no supernodal factor.
    pub fn backward(&self, w: &[f64]) -> Option<Vec<f64>> {
        let (llt, position) = self.supernodal()?;
        let mut x = Mat::from_fn(w.len(), 1, |i, _| w[i]);
        let par = faer::get_global_parallelism();
        let mut mem = faer::dyn_stack::MemBuffer::new(llt.symbolic().solve_in_place_scratch::<f64>(1, par));
        llt.l_transpose_solve_with_conj(Conj::No, x.as_mut(), par, faer::dyn_stack::MemStack::new(&mut mem));
        Some(position.iter().map(|&p| x[(p, 0)]).collect())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sparse::cholesky::tests::grid_with_body;

    /// The reference from full solves with `chol`'s factor: Y = A⁻¹Jᵀ (n × m) and H = J Y (row-major).
    pub(crate) fn solved_reference(chol: &Cholesky, rows: &[Vec<(usize, f64)>], n: usize) -> (Mat<f64>, Vec<f64>) {
        let m = rows.len();
        let mut y = Mat::<f64>::zeros(n, m);
        for (j, row) in rows.iter().enumerate() {
            for &(d, c) in row {
                y[(d, j)] += c;
            }
        }
        assert!(chol.solve_columns(y.as_mut()));
        let h = (0..m * m).map(|k| rows[k / m].iter().map(|&(d, c)| c * y[(d, k % m)]).sum()).collect();
        (y, h)
    }

    /// ZᵀZ equals J·(A⁻¹Jᵀ) from full solves, entry by entry to round-off, and Pᵀ L⁻ᵀ (Zλ) equals A⁻¹Jᵀλ, for
    /// rows of one DOF, of several nodes (the rigid body's among them), an empty row, and more rows than a block,
    /// given in no particular order; Z stores less than its dense size.
    #[test]
    fn z_transpose_z_is_j_a_inverse_j_transpose() {
        let (a, starts) = grid_with_body(7);
        let n = a.rows();
        let mut chol = Cholesky::blocked(starts);
        chol.try_factor(&a, false).unwrap();
        let mut rows: Vec<Vec<(usize, f64)>> = (0..3 * BLOCK)
            .map(|i| {
                let first = (i * 389) % (n - 6);
                let mut row = vec![(first, 1.0 - 0.01 * i as f64)];
                if i % 3 != 0 {
                    row.push(((first + 17 * i) % n, 0.5));
                    row.push((n - 1 - i % 6, -0.25));
                }
                row
            })
            .collect();
        rows.push(Vec::new());
        let z = chol.forward_columns(&rows).expect("a blocked factor is supernodal");
        let m = rows.len();
        assert_eq!((z.rows(), z.columns()), (n, m));
        assert!(z.stored() < n * m, "{} of {}", z.stored(), n * m);
        let (y, h) = solved_reference(&chol, &rows, n);
        let (mut scale, mut diff) = (0.0f64, 0.0f64);
        for j in 0..m {
            let mut zj = vec![0.0; n];
            z.add_to(j, 1.0, &mut zj);
            for i in 0..m {
                let reference = h[i * m + j];
                scale = scale.max(reference.abs());
                diff = diff.max((z.dot(i, &zj) - reference).abs());
            }
        }
        assert!(scale > 0.1 && diff < 1e-13 * scale, "largest difference {diff} against entries up to {scale}");
        let lambda: Vec<f64> = (0..m).map(|i| (i % 7) as f64 - 3.0).collect();
        let mut w = vec![0.0; n];
        (0..m).for_each(|i| z.add_to(i, lambda[i], &mut w));
        let x = chol.backward(&w).unwrap();
        let expected: Vec<f64> = (0..n).map(|d| (0..m).map(|i| y[(d, i)] * lambda[i]).sum()).collect();
        let largest = expected.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let error = x.iter().zip(&expected).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        assert!(error < 1e-13 * largest, "A⁻¹Jᵀλ off by {error} of {largest}");
    }
}
