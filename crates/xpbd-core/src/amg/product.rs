//! A sparse product `C = A B` whose pattern is computed once and whose values are refilled for new
//! values of A and B on the same patterns: the refresh of the smoothed-aggregation Galerkin product
//! `Pᵀ (A P)` (`galerkin.rs`) at every outer iteration of the lazy setup (the MGPBD paper §4.2).
//!
//! The pattern comes from sprs's product at the full setup. The refill is sprs's numeric phase
//! (Gustavson's row-by-row accumulation into a dense work row) without its symbolic phase, sort and
//! allocations, for groups of rows with a common pattern (a node's unknowns, `row_groups.rs`) at
//! once, on chunks of rows in parallel: each entry is summed in the same order as sprs sums it, so the refilled values
//! equal the product recomputed from scratch bit for bit.

use super::row_groups::{by_group_size, RowGroups, MAX_GROUP};
use crate::sparse::Csr;
use rayon::prelude::*;

/// How to refill `C = A B` on the pattern of the full setup.
pub struct ProductPlan {
    /// A's row groups (rows with one pattern give C rows with one pattern).
    groups: RowGroups,
    /// nnz of A and B at the setup: a refill with other patterns is a caller's error.
    nnz: (usize, usize),
}

impl ProductPlan {
    /// The plan for `a b` with the patterns `a` and `b` have now.
    pub fn new(a: &Csr, b: &Csr) -> Self {
        ProductPlan { groups: RowGroups::new(a), nnz: (a.nnz(), b.nnz()) }
    }

    /// `a b` with sprs's pattern (each row's columns sorted, every structural product kept) and
    /// values, and its plan. The symbolic phase runs once per row group, on chunks in parallel.
    pub fn multiply(a: &Csr, b: &Csr) -> (Csr, Self) {
        let plan = Self::new(a, b);
        let (a_ptr, b_ptr) = (a.indptr(), b.indptr());
        let (a_ptr, b_ptr) = (a_ptr.raw_storage(), b_ptr.raw_storage());
        let parts: Vec<(Vec<usize>, Vec<usize>)> = plan
            .groups
            .chunks()
            .par_iter()
            .map_init(
                || vec![false; b.cols()],
                |seen, groups| {
                    let (mut lengths, mut indices) = (Vec::new(), Vec::new());
                    for g in groups.clone() {
                        let (rows, start) = (plan.groups.rows(g), indices.len());
                        for &k in &a.indices()[a_ptr[rows.start]..a_ptr[rows.start + 1]] {
                            for &j in &b.indices()[b_ptr[k]..b_ptr[k + 1]] {
                                if !std::mem::replace(&mut seen[j], true) {
                                    indices.push(j);
                                }
                            }
                        }
                        indices[start..].sort_unstable();
                        indices[start..].iter().for_each(|&j| seen[j] = false);
                        let length = indices.len() - start;
                        for _ in 1..rows.len() {
                            indices.extend_from_within(start..start + length);
                        }
                        lengths.extend(std::iter::repeat_n(length, rows.len()));
                    }
                    (lengths, indices)
                },
            )
            .collect();
        let mut indptr = Vec::with_capacity(a.rows() + 1);
        indptr.push(0);
        for length in parts.iter().flat_map(|(lengths, _)| lengths) {
            indptr.push(indptr.last().expect("starts with 0") + length);
        }
        let indices: Vec<usize> = parts.into_iter().flat_map(|(_, indices)| indices).collect();
        let data = vec![0.0; indices.len()];
        let mut c = Csr::new((a.rows(), b.cols()), indptr, indices, data);
        plan.refill(a, b, &mut c);
        (c, plan)
    }

    /// Recomputes the values of `c = a b`, where `c` has the pattern of sprs's `a * b` for the
    /// patterns of [`Self::new`].
    pub fn refill(&self, a: &Csr, b: &Csr, c: &mut Csr) {
        assert_eq!((a.nnz(), b.nnz()), self.nnz, "a fixed-pattern product needs the patterns it was built for");
        assert_eq!((c.rows(), c.cols()), (a.rows(), b.cols()), "product shape");
        let cols = c.cols();
        let (c_ptr, c_idx) = (c.indptr().raw_storage().to_vec(), c.indices().to_vec());
        let f = Factors { a, b, c_ptr: &c_ptr, c_idx: &c_idx };
        self.groups.split(c.data_mut(), |i| c_ptr[i]).into_par_iter().for_each_init(
            || vec![0.0; cols * MAX_GROUP],
            |work, (groups, base, values)| {
                for g in groups {
                    let rows = self.groups.rows(g);
                    by_group_size!(rows.len(), product_group(&f, rows.start, work, values, base));
                }
            },
        );
    }
}

/// The operands of one refill.
struct Factors<'a> {
    a: &'a Csr,
    b: &'a Csr,
    c_ptr: &'a [usize],
    c_idx: &'a [usize],
}

/// Rows `first..first + G` of C (one group) into `values` (C's values from offset `base`):
/// Gustavson's accumulation of `Σ_k a_ik b_k·` over the group's common pattern, in A's order for
/// every row (sprs's order), into `work` (zero on entry and on return, entry (j, r) at `G j + r`).
fn product_group<const G: usize>(f: &Factors, first: usize, work: &mut [f64], values: &mut [f64], base: usize) {
    let (a_ptr, a_idx, a_val) = (f.a.indptr(), f.a.indices(), f.a.data());
    let a_ptr = a_ptr.raw_storage();
    let (b_ptr, b_idx, b_val) = (f.b.indptr(), f.b.indices(), f.b.data());
    let b_ptr = b_ptr.raw_storage();
    for (t, &k) in a_idx[a_ptr[first]..a_ptr[first + 1]].iter().enumerate() {
        let v: [f64; G] = std::array::from_fn(|r| a_val[a_ptr[first + r] + t]);
        for l in b_ptr[k]..b_ptr[k + 1] {
            let (j, bv) = (b_idx[l], b_val[l]);
            let w = &mut work[G * j..G * j + G];
            for r in 0..G {
                w[r] += v[r] * bv;
            }
        }
    }
    for (s, &j) in f.c_idx[f.c_ptr[first]..f.c_ptr[first + 1]].iter().enumerate() {
        for r in 0..G {
            values[f.c_ptr[first + r] + s - base] = std::mem::take(&mut work[G * j + r]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model_problems::cloth_dual;
    use super::super::row_groups::tests::blocks;
    use super::*;

    /// The product, and its refill after new values of both factors (same patterns), equal sprs's
    /// product exactly, pattern and values: scalar rows (groups of one), node
    /// blocks of 3 rows times 3×6 blocks (as `K P` on the finest level), and blocks of 10 rows
    /// (groups of 8 and 2).
    #[test]
    fn refill_equals_product_from_scratch() {
        let a = cloth_dual(9, 1e4);
        for (a, b) in [(a.clone(), a.map(|v| v.sin())), (blocks(&a, 3, 3), blocks(&a, 3, 6)), (blocks(&a, 10, 1), blocks(&a, 1, 2))] {
            let (mut c, plan) = ProductPlan::multiply(&a, &b);
            let want = &a * &b;
            assert_eq!((c.indptr(), c.indices(), c.data()), (want.indptr(), want.indices(), want.data()));
            let (mut a2, mut b2) = (a.clone(), b.clone());
            a2.data_mut().iter_mut().enumerate().for_each(|(k, v)| *v = *v * 1.7 + (k % 5) as f64);
            b2.data_mut().iter_mut().enumerate().for_each(|(k, v)| *v -= 0.3 * (k % 3) as f64);
            plan.refill(&a2, &b2, &mut c);
            let want = &a2 * &b2;
            assert_eq!((c.indptr(), c.indices()), (want.indptr(), want.indices()));
            assert_eq!(c.data(), want.data());
            assert_ne!(c.data(), (&a * &b).data(), "the values changed");
        }
    }

    /// Factors with other patterns than the plan's are refused.
    #[test]
    #[should_panic(expected = "patterns it was built for")]
    fn refuses_other_patterns() {
        let (a, b) = (cloth_dual(6, 1e4), cloth_dual(5, 1e4));
        let mut c = &b * &b;
        ProductPlan::new(&a, &a).refill(&b, &b, &mut c);
    }
}
