//! Galerkin coarse matrix `A_c = Pᵀ A P` (the MGPBD paper §4.1).
//!
//! For a tentative prolongator P has one dense block row per node (the columns of its aggregate),
//! so `A_c` is block-sparse: block (a, b) is nonzero when some `a_ij ≠ 0` has i in aggregate a and
//! j in b. That pattern is built once; `refresh` recomputes the values for new values of A on the
//! same pattern, which is all the lazy setup redoes between full setups. Both run in parallel over
//! aggregates, each of which owns its coarse rows, with a fixed order of summation per entry. A smoothed prolongator
//! (`smoothing.rs`) has no such structure: its product is two sparse products `Pᵀ (A P)` whose
//! patterns are computed at the full setup and whose values are refilled in parallel (`product.rs`).

use rayon::prelude::*;

use super::aggregation::Aggregates;
use super::product::ProductPlan;
use super::prolongation::{members, Tentative};
use crate::sparse::Csr;

/// Marks an entry of A with an endpoint in no aggregate: it has no coarse image.
const NONE: usize = usize::MAX;

/// The Galerkin product of one level: the coarse matrix and how to recompute it.
pub struct Galerkin {
    pub coarse: Csr,
    product: Product,
}

/// How `Pᵀ A P` is recomputed.
enum Product {
    /// Tentative P: the block map below.
    Blocks {
        /// For each stored entry `a_ij` of A, the offset of block (agg(i), agg(j)) within the
        /// coarse rows of agg(i), or `NONE`.
        offset: Vec<usize>,
        /// The nodes of each aggregate in ascending order (`prolongation::members`) and its coarse
        /// rows `col_start[a]..col_start[a + 1]`: an aggregate's coarse rows are written only by its
        /// nodes, so aggregates are filled in parallel.
        members: (Vec<usize>, Vec<usize>),
        col_start: Vec<usize>,
    },
    /// Any P: `Pᵀ (A P)` by two sparse products on the patterns of the full setup, with `A P`
    /// and the plans of both products kept.
    Sparse { ap: Csr, ap_plan: ProductPlan, outer_plan: ProductPlan },
}

impl Galerkin {
    /// Pattern and values of `Pᵀ A P` for the tentative `t` built from `aggregates`. Aggregates in
    /// parallel: each one's sorted neighbour aggregates (the blocks of its coarse rows) and, per
    /// stored entry of A, the offset of its block within them.
    pub fn new(a: &Csr, t: &Tentative, aggregates: &Aggregates) -> Self {
        let agg: Vec<usize> = aggregates.of_node.iter().map(|a| a.unwrap_or(NONE)).collect();
        let (start, nodes) = members(aggregates);
        let count = t.col_start.len() - 1;
        assert_eq!(count, aggregates.count, "the tentative prolongator of these aggregates");
        let width = |b: usize| t.col_start[b + 1] - t.col_start[b];
        let (a_ptr, a_idx) = (a.indptr(), a.indices());
        let a_ptr = a_ptr.raw_storage();
        let nb: Vec<Vec<usize>> = (0..count)
            .into_par_iter()
            .map(|g| {
                let mut list: Vec<usize> =
                    nodes[start[g]..start[g + 1]].iter().flat_map(|&i| a_idx[a_ptr[i]..a_ptr[i + 1]].iter().map(|&j| agg[j])).filter(|&b| b != NONE).collect();
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        // Offset of each neighbour's block within the aggregate's coarse rows.
        let block_offset: Vec<Vec<usize>> = nb
            .par_iter()
            .map(|list| {
                list.iter()
                    .scan(0, |at, &b| {
                        let o = *at;
                        *at += width(b);
                        Some(o)
                    })
                    .collect()
            })
            .collect();
        let offset: Vec<usize> = (0..a.rows())
            .into_par_iter()
            .flat_map_iter(|i| {
                let (nb, block_offset, agg) = (&nb, &block_offset, &agg);
                a_idx[a_ptr[i]..a_ptr[i + 1]].iter().map(move |&j| {
                    if agg[i] == NONE || agg[j] == NONE {
                        return NONE;
                    }
                    let pos = nb[agg[i]].binary_search(&agg[j]).expect("neighbour recorded above");
                    block_offset[agg[i]][pos]
                })
            })
            .collect();
        let rows: Vec<Vec<usize>> = nb.par_iter().map(|list| list.iter().flat_map(|&b| t.col_start[b]..t.col_start[b + 1]).collect()).collect();
        let nc = t.col_start[count];
        let mut indptr = Vec::with_capacity(nc + 1);
        let mut indices = Vec::with_capacity(rows.iter().enumerate().map(|(g, r)| width(g) * r.len()).sum());
        indptr.push(0);
        for (g, row) in rows.iter().enumerate() {
            for _ in 0..width(g) {
                indices.extend_from_slice(row);
                indptr.push(indices.len());
            }
        }
        let data = vec![0.0; indices.len()];
        let mut coarse = Csr::new((nc, nc), indptr, indices, data);
        let (members, col_start) = ((start, nodes), t.col_start.clone());
        fill_blocks(a, &t.p, &offset, &members, &col_start, &mut coarse);
        Galerkin { coarse, product: Product::Blocks { offset, members, col_start } }
    }

    /// `Pᵀ A P` for any prolongator `p` (a smoothed one) and its transpose `pt`, by sparse products.
    pub fn sparse(a: &Csr, p: &Csr, pt: &Csr) -> Self {
        let (ap, ap_plan) = ProductPlan::multiply(a, p);
        let (coarse, outer_plan) = ProductPlan::multiply(pt, &ap);
        Galerkin { coarse, product: Product::Sparse { ap, ap_plan, outer_plan } }
    }

    /// `A P` of the last refresh when the product is sparse (a smoothed P; its pattern is that of the full
    /// setup); `None` for the block product of a tentative P, which does not form it.
    pub fn ap(&self) -> Option<&Csr> {
        match &self.product {
            Product::Sparse { ap, .. } => Some(ap),
            Product::Blocks { .. } => None,
        }
    }

    /// Recomputes the values of `Pᵀ A P` for `a` with the pattern this was built for (`pt` = Pᵀ).
    pub fn refresh(&mut self, a: &Csr, p: &Csr, pt: &Csr) {
        match &mut self.product {
            Product::Blocks { offset, members, col_start } => fill_blocks(a, p, offset, members, col_start, &mut self.coarse),
            Product::Sparse { ap, ap_plan, outer_plan } => {
                ap_plan.refill(a, p, ap);
                outer_plan.refill(pt, ap, &mut self.coarse);
            }
        }
    }
}

/// The values of `Pᵀ A P` for a tentative `p` on the block pattern of `coarse` (see [`Product::Blocks`]),
/// aggregates in parallel. Each coarse entry adds its terms in the order of the fine rows (ascending
/// nodes of the aggregate, then each row's entries), so the result does not depend on the threads.
fn fill_blocks(a: &Csr, p: &Csr, offset: &[usize], members: &(Vec<usize>, Vec<usize>), col_start: &[usize], coarse: &mut Csr) {
    assert_eq!(a.nnz(), offset.len(), "Galerkin refresh needs the pattern of the full setup");
    let (start, nodes) = members;
    let (a_ptr, a_idx, a_val) = (a.indptr(), a.indices(), a.data());
    let a_ptr = a_ptr.raw_storage();
    let p_ptr = p.indptr();
    let p_ptr = p_ptr.raw_storage();
    let (p_idx, p_val) = (p.indices(), p.data());
    let c_ptr = coarse.indptr().raw_storage().to_vec();
    // Aggregate g's coarse rows as one slice, starting at entry c_ptr[col_start[g]].
    let mut blocks: Vec<(usize, &mut [f64])> = Vec::with_capacity(col_start.len() - 1);
    let mut rest = coarse.data_mut();
    for g in 0..col_start.len() - 1 {
        let (block, tail) = std::mem::take(&mut rest).split_at_mut(c_ptr[col_start[g + 1]] - c_ptr[col_start[g]]);
        blocks.push((g, block));
        rest = tail;
    }
    blocks.into_par_iter().for_each(|(g, block)| {
        block.fill(0.0);
        let base = c_ptr[col_start[g]];
        for &i in &nodes[start[g]..start[g + 1]] {
            let pi = &p_val[p_ptr[i]..p_ptr[i + 1]];
            let Some(&first_row) = p_idx[p_ptr[i]..p_ptr[i + 1]].first() else { continue };
            for k in a_ptr[i]..a_ptr[i + 1] {
                let (j, v, off) = (a_idx[k], a_val[k], offset[k]);
                if off == NONE {
                    continue;
                }
                let pj = &p_val[p_ptr[j]..p_ptr[j + 1]];
                for (r, &pir) in pi.iter().enumerate() {
                    let row = c_ptr[first_row + r] + off - base;
                    for (c, &pjc) in pj.iter().enumerate() {
                        block[row + c] += pir * v * pjc;
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::super::aggregation::standard_aggregation;
    use super::super::model_problems::cloth_dual;
    use super::super::near_kernel::near_kernel;
    use super::super::prolongation::tentative;
    use super::super::strength::symmetric_strength;
    use super::super::{AmgOptions, NearKernel};
    use super::*;
    use nalgebra::DMatrix;

    fn dense(m: &Csr) -> DMatrix<f64> {
        let mut d = DMatrix::zeros(m.rows(), m.cols());
        for (v, (i, j)) in m.iter() {
            d[(i, j)] += *v;
        }
        d
    }

    /// `Pᵀ A P` equals the dense product, after the full setup and after a refresh with new
    /// values (A scaled and shifted) on the same pattern.
    #[test]
    fn matches_dense_product_and_refreshes() {
        let a = cloth_dual(8, 1e4);
        for nk in [NearKernel::Constant, NearKernel::Gs] {
            let o = AmgOptions { near_kernel: nk, near_kernel_vectors: 3, ..Default::default() };
            let (b, k) = near_kernel(&a, &o);
            let agg = standard_aggregation(&symmetric_strength(&a, o.theta));
            let t = tentative(&agg, &b, k);
            let mut g = Galerkin::new(&a, &t, &agg);
            let (dp, check) = (dense(&t.p), |g: &Galerkin, a: &Csr| {
                let want = dense(&t.p).transpose() * dense(a) * dense(&t.p);
                let err = (dense(&g.coarse) - &want).abs().max();
                assert!(err < 1e-9 * want.abs().max(), "{nk:?}: |Ac - PtAP| = {err}");
            });
            assert_eq!(dp.ncols(), g.coarse.rows());
            check(&g, &a);
            let mut a2 = a.clone();
            for (idx, v) in a2.data_mut().iter_mut().enumerate() {
                *v = *v * 3.0 + 0.1 * (idx % 7) as f64;
            }
            g.refresh(&a2, &t.p, &t.p.transpose_view().to_csr());
            check(&g, &a2);
        }
    }

    /// With a smoothed prolongator, the refresh after new values of A on the same pattern equals
    /// `Pᵀ (A P)` recomputed from scratch by sprs bit for bit, and the dense product to round-off.
    #[test]
    fn smoothed_refresh_equals_product_from_scratch() {
        let a = cloth_dual(10, 1e4);
        let o = AmgOptions::default();
        let (b, k) = near_kernel(&a, &o);
        let agg = standard_aggregation(&symmetric_strength(&a, o.theta));
        let rho = super::super::smoothers::Relaxation::new(&a, o.smoother).rho;
        let p = super::super::smoothing::smooth_prolongator(&a, &tentative(&agg, &b, k).p, rho);
        let pt = p.transpose_view().to_csr();
        let mut g = Galerkin::sparse(&a, &p, &pt);
        let mut a2 = a.clone();
        a2.data_mut().iter_mut().enumerate().for_each(|(idx, v)| *v = *v * 2.5 + 0.2 * (idx % 5) as f64);
        g.refresh(&a2, &p, &pt);
        let want = &pt * &(&a2 * &p);
        assert_eq!((g.coarse.indptr(), g.coarse.indices()), (want.indptr(), want.indices()));
        assert_eq!(g.coarse.data(), want.data());
        let dense_want = dense(&p).transpose() * dense(&a2) * dense(&p);
        let err = (dense(&g.coarse) - &dense_want).abs().max();
        assert!(err < 1e-9 * dense_want.abs().max(), "|Ac - PtAP| = {err}");
    }
}
