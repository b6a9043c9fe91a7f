//! Consecutive CSR rows with the same column pattern: the unknowns of one node of a block system
//! (3 on the finest level of the primal K, up to 6, the rigid-body modes, on coarser levels). Work
//! on such a group shares the pattern's reads: the matrix-vector product reads each `x_j` once per
//! group, and the Galerkin refill (`product.rs`) each row of the right factor once per group. The
//! product sums each row in two interleaved partial sums (`spmv_group`), so it equals the row-by-row
//! product to round-off, and does not depend on the threads. Groups are handed out in chunks of whole
//! groups to rayon tasks.

use crate::sparse::Csr;
use rayon::prelude::*;
use std::ops::Range;

/// Most rows in a group.
pub const MAX_GROUP: usize = 8;
/// Rows per parallel task (whole groups, so a task may hold a few more).
const CHUNK_ROWS: usize = 64;

/// Calls `$f::<G>($args…)` with the group size `$len` as a constant (1…[`MAX_GROUP`]), so the
/// inner loops over a group's rows are unrolled.
macro_rules! by_group_size {
    ($len:expr, $f:ident($($arg:expr),*)) => {
        match $len {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            _ => $f::<{ $crate::amg::row_groups::MAX_GROUP }>($($arg),*),
        }
    };
}
pub(crate) use by_group_size;

pub struct RowGroups {
    /// Group g is rows `start[g]..start[g + 1]`.
    start: Vec<usize>,
    /// Parallel tasks: ranges of groups.
    chunks: Vec<Range<usize>>,
}

impl RowGroups {
    /// The groups of `a`'s pattern: maximal runs of equal row patterns, cut at [`MAX_GROUP`] rows.
    pub fn new(a: &Csr) -> Self {
        let ptr = a.indptr();
        let pattern = |i: usize| &a.indices()[ptr.raw_storage()[i]..ptr.raw_storage()[i + 1]];
        let mut start = vec![0];
        for i in 1..a.rows() {
            let first = *start.last().expect("starts with 0");
            if i - first == MAX_GROUP || pattern(i) != pattern(first) {
                start.push(i);
            }
        }
        if a.rows() > 0 {
            start.push(a.rows());
        }
        let mut chunks = Vec::new();
        let mut g0 = 0;
        while g0 + 1 < start.len() {
            let mut g1 = g0 + 1;
            while g1 + 1 < start.len() && start[g1] - start[g0] < CHUNK_ROWS {
                g1 += 1;
            }
            chunks.push(g0..g1);
            g0 = g1;
        }
        RowGroups { start, chunks }
    }

    /// Ranges of groups for parallel tasks.
    pub fn chunks(&self) -> &[Range<usize>] {
        &self.chunks
    }

    /// Rows of group g.
    pub fn rows(&self, g: usize) -> Range<usize> {
        self.start[g]..self.start[g + 1]
    }

    /// `data` (one entry per row's item, row i's items from `offset(i)`) split into the chunks'
    /// parts, each with its groups and the offset of its first item.
    pub fn split<'a>(&self, mut data: &'a mut [f64], offset: impl Fn(usize) -> usize) -> Vec<(Range<usize>, usize, &'a mut [f64])> {
        let mut parts = Vec::with_capacity(self.chunks.len());
        for groups in &self.chunks {
            let (first, end) = (offset(self.start[groups.start]), offset(self.start[groups.end]));
            let (part, rest) = std::mem::take(&mut data).split_at_mut(end - first);
            parts.push((groups.clone(), first, part));
            data = rest;
        }
        parts
    }

    /// `y = A x` for `a` with the pattern these groups were made for, chunks in parallel.
    pub fn spmv(&self, a: &Csr, x: &[f64], y: &mut [f64]) {
        debug_assert_eq!(self.start.last().copied().unwrap_or(0), a.rows(), "groups of another matrix");
        self.split(y, |i| i).into_par_iter().for_each(|(groups, first, y)| {
            for g in groups {
                let rows = self.rows(g);
                by_group_size!(rows.len(), spmv_group(a, rows.start, x, &mut y[rows.start - first..]));
            }
        });
    }
}

/// Rows `first..first + G` (one group) of `A x` into `y[..G]`. Each row is summed in two partial sums, of
/// its even and of its odd entries in column order, added at the end: two chains of dependent additions
/// instead of one, so the processor overlaps them (the sums are those of a two-way split, not of the
/// row-by-row order: they differ from it by round-off).
fn spmv_group<const G: usize>(a: &Csr, first: usize, x: &[f64], y: &mut [f64]) {
    let (ptr, idx, val) = (a.indptr(), a.indices(), a.data());
    let ptr = ptr.raw_storage();
    let cols = &idx[ptr[first]..ptr[first + 1]];
    let rows: [&[f64]; G] = std::array::from_fn(|r| &val[ptr[first + r]..ptr[first + r] + cols.len()]);
    let (mut even, mut odd) = ([0.0; G], [0.0; G]);
    let pairs = cols.len() / 2;
    for t in 0..pairs {
        let (x0, x1) = (x[cols[2 * t]], x[cols[2 * t + 1]]);
        for r in 0..G {
            even[r] += rows[r][2 * t] * x0;
            odd[r] += rows[r][2 * t + 1] * x1;
        }
    }
    if cols.len() % 2 == 1 {
        let xl = x[cols[2 * pairs]];
        for r in 0..G {
            even[r] += rows[r][2 * pairs] * xl;
        }
    }
    for r in 0..G {
        y[r] = even[r] + odd[r];
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::model_problems::cloth_dual;
    use super::*;
    use crate::sparse::spmv;

    /// Each entry of `a` as a `rows × cols` block of distinct values (a block system's pattern).
    pub(crate) fn blocks(a: &Csr, rows: usize, cols: usize) -> Csr {
        let mut t = sprs::TriMat::new((a.rows() * rows, a.cols() * cols));
        for (&v, (i, j)) in a.iter() {
            for r in 0..rows {
                for c in 0..cols {
                    t.add_triplet(i * rows + r, j * cols + c, v * (1.0 + 0.1 * r as f64) + (0.37 * (i + 3 * j + 7 * c) as f64).sin());
                }
            }
        }
        t.to_csr()
    }

    /// Node blocks of 3 and 6 rows form groups of their size, 10-row blocks groups of 8 and 2,
    /// scalar rows groups of one; the grouped product equals the row-by-row one to round-off (each entry
    /// within 4 ulp of the largest term of its row per term: the two-way split reorders the sum) and does not
    /// depend on the threads.
    #[test]
    fn groups_node_rows_and_multiplies_exactly() {
        let a = cloth_dual(9, 1e4);
        for (m, size) in [(a.clone(), 1), (blocks(&a, 3, 3), 3), (blocks(&a, 6, 2), 6), (blocks(&a, 10, 1), 8)] {
            let groups = RowGroups::new(&m);
            assert_eq!(groups.rows(0).len(), size);
            assert_eq!(groups.start.last(), Some(&m.rows()));
            let x: Vec<f64> = (0..m.cols()).map(|j| (j as f64 * 0.71).cos()).collect();
            let (mut y, mut want) = (vec![0.0; m.rows()], vec![0.0; m.rows()]);
            groups.spmv(&m, &x, &mut y);
            spmv(&m, &x, &mut want);
            for (i, row) in m.outer_iterator().enumerate() {
                let largest = row.iter().map(|(j, v)| (v * x[j]).abs()).fold(0.0, f64::max);
                assert!((y[i] - want[i]).abs() <= 4.0 * f64::EPSILON * largest * row.nnz() as f64, "row {i}: {} vs {}", y[i], want[i]);
            }
            let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let mut serial = vec![0.0; m.rows()];
            one_thread.install(|| groups.spmv(&m, &x, &mut serial));
            assert_eq!(y, serial);
        }
    }
}
