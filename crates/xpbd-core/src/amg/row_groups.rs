//! Consecutive CSR rows with the same column pattern: the unknowns of one node of a block system
//! (3 on the finest level of the primal K, up to 6, the rigid-body modes, on coarser levels). Work
//! on such a group shares the pattern's reads: the matrix-vector product reads each `x_j` once per
//! group, and the Galerkin refill (`product.rs`) each row of the right factor once per group. The
//! product sums each row in four interleaved partial sums (`group_product`), so it equals the row-by-row
//! product to round-off, and does not depend on the threads or the instruction set. Groups are handed out in
//! chunks of whole groups to rayon tasks.

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
    /// Group g's shared columns, `cols[col_start[g]..col_start[g + 1]]`: the product's copy of the pattern in
    /// 32 bits, a third of the bytes of the matrix's per-row indices for a group of three rows.
    cols: Vec<u32>,
    col_start: Vec<usize>,
    /// The matrix's column count: every entry of `cols` lies below it.
    width: usize,
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
        let (mut cols, mut col_start) = (Vec::new(), vec![0]);
        for &first in start.iter().take(start.len().saturating_sub(1)) {
            let shared = pattern(first);
            assert!(shared.iter().all(|&j| j <= u32::MAX as usize), "column index beyond 32 bits");
            cols.extend(shared.iter().map(|&j| j as u32));
            col_start.push(cols.len());
        }
        RowGroups { start, cols, col_start, width: a.cols(), chunks }
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

    /// `y = A x` for `a` with the pattern these groups were made for, chunks in parallel; the same bits with
    /// or without AVX2.
    pub fn spmv(&self, a: &Csr, x: &[f64], y: &mut [f64]) {
        self.spmv_update(a, x, y, |_, _, ax| ax)
    }

    /// `y_i = f(i, y_i, (A x)_i)` for every row i, in the same pass as the product (a relaxation's or a
    /// residual's update, in parallel with it); y must not be x.
    pub fn spmv_update(&self, a: &Csr, x: &[f64], y: &mut [f64], f: impl Fn(usize, f64, f64) -> f64 + Sync) {
        debug_assert_eq!(self.start.last().copied().unwrap_or(0), a.rows(), "groups of another matrix");
        self.spmv_on(avx2(), a, x, y, f)
    }

    /// [`RowGroups::spmv_update`] with (`avx2`, which the processor must have) or without AVX2.
    fn spmv_on(&self, avx2: bool, a: &Csr, x: &[f64], y: &mut [f64], f: impl Fn(usize, f64, f64) -> f64 + Sync) {
        assert!(x.len() >= self.width && a.cols() == self.width, "x has {} entries for {} columns", x.len(), self.width);
        self.split(y, |i| i).into_par_iter().for_each(|(groups, first, y)| {
            let (ptr, val) = (a.indptr(), a.data());
            let ptr = ptr.raw_storage();
            for group in groups {
                let rows = self.rows(group);
                let cols = &self.cols[self.col_start[group]..self.col_start[group + 1]];
                let values = |r: usize| &val[ptr[rows.start + r]..ptr[rows.start + r] + cols.len()];
                let y = &mut y[rows.start - first..];
                let f = |r: usize, old: f64, ax: f64| f(rows.start + r, old, ax);
                match avx2 {
                    // SAFETY: the caller found the instruction set; the groups' columns, copied from a CSR pattern,
                    // lie below its column count `width`, which x covers (checked above).
                    #[cfg(target_arch = "x86_64")]
                    true => unsafe { by_group_size!(rows.len(), store_avx2(cols, values, x, y, f)) },
                    _ => by_group_size!(rows.len(), store(cols, values, x, y, f)),
                }
            }
        });
    }
}

/// True when this x86-64 processor has AVX2 (the standard library caches the answer).
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `y[..G]` = the G rows whose values are `values(r)`, all on the columns `cols`, times `x`: each row summed
/// in four partial sums s_k, of its entries t ≡ k (mod 4) in column order, combined as (s₀ + s₂) + (s₁ + s₃).
/// Four independent chains of additions that the processor overlaps, and with AVX2 ([`store_avx2`]) one
/// register per row, with the same roundings (no fused multiply-add), so the same bits. The sums differ from
/// the row-by-row order by round-off. Row r stores `f(r, y[r], sum)`.
#[inline(always)]
fn store<'v, const G: usize>(cols: &[u32], values: impl Fn(usize) -> &'v [f64], x: &[f64], y: &mut [f64], f: impl Fn(usize, f64, f64) -> f64) {
    let n = cols.len();
    let rows: [&[f64]; G] = std::array::from_fn(|r| &values(r)[..n]);
    let mut s = [[0.0f64; 4]; G];
    for (t, &c) in cols.iter().enumerate() {
        let xc = x[c as usize];
        for r in 0..G {
            s[r][t % 4] += rows[r][t] * xc;
        }
    }
    for r in 0..G {
        y[r] = f(r, y[r], (s[r][0] + s[r][2]) + (s[r][1] + s[r][3]));
    }
}

/// [`store`] with AVX2: the four partial sums of a row in one register; the last 1–3 entries by a masked load,
/// with x = 0 in the unused lanes.
///
/// # Safety
/// The processor must have AVX2, and every entry of `cols` must lie below `x.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn store_avx2<'v, const G: usize>(cols: &[u32], values: impl Fn(usize) -> &'v [f64], x: &[f64], y: &mut [f64], f: impl Fn(usize, f64, f64) -> f64) {
    use std::arch::x86_64::*;
    let n = cols.len();
    let mut rows = [&[][..]; G];
    for (r, row) in rows.iter_mut().enumerate() {
        *row = &values(r)[..n];
    }
    let xat = |t: usize| *x.get_unchecked(*cols.get_unchecked(t) as usize);
    let mut s = [_mm256_setzero_pd(); G];
    let mut t = 0;
    while t + 4 <= n {
        let xs = _mm256_set_pd(xat(t + 3), xat(t + 2), xat(t + 1), xat(t));
        for r in 0..G {
            s[r] = _mm256_add_pd(s[r], _mm256_mul_pd(_mm256_loadu_pd(rows[r].as_ptr().add(t)), xs));
        }
        t += 4;
    }
    let rest = n - t;
    if rest > 0 {
        let lane = |k: usize| if k < rest { xat(t + k) } else { 0.0 };
        let xs = _mm256_set_pd(0.0, lane(2), lane(1), lane(0));
        let on = |k: usize| if k < rest { -1 } else { 0 };
        let mask = _mm256_set_epi64x(0, on(2), on(1), on(0));
        for r in 0..G {
            s[r] = _mm256_add_pd(s[r], _mm256_mul_pd(_mm256_maskload_pd(rows[r].as_ptr().add(t), mask), xs));
        }
    }
    for r in 0..G {
        // [s₀ + s₂, s₁ + s₃], then their sum.
        let half = _mm_add_pd(_mm256_castpd256_pd128(s[r]), _mm256_extractf128_pd::<1>(s[r]));
        y[r] = f(r, y[r], _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half)));
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
    /// within 4 ulp of the largest term of its row per term: the four-way split reorders the sum) and depends
    /// neither on the threads nor on the instruction set (AVX2 or not, where the processor has it).
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
            let mut portable = vec![0.0; m.rows()];
            groups.spmv_on(false, &m, &x, &mut portable, |_, _, ax| ax);
            assert_eq!(y, portable, "the AVX2 product differs from the portable one");
        }
    }

    /// `spmv_update` hands each row its index, its old entry and its product: y_i ← y_i + i (A x)_i.
    #[test]
    fn update_sees_each_rows_index_old_value_and_product() {
        let m = blocks(&cloth_dual(6, 1e4), 3, 3);
        let groups = RowGroups::new(&m);
        let x: Vec<f64> = (0..m.cols()).map(|j| (j as f64 * 0.3).sin()).collect();
        let mut ax = vec![0.0; m.rows()];
        groups.spmv(&m, &x, &mut ax);
        let mut y: Vec<f64> = (0..m.rows()).map(|i| i as f64 * 0.5).collect();
        groups.spmv_update(&m, &x, &mut y, |i, old, ax| old + i as f64 * ax);
        for i in 0..m.rows() {
            assert_eq!(y[i], i as f64 * 0.5 + i as f64 * ax[i], "row {i}");
        }
    }
}
