//! The AMG hierarchy (the MGPBD paper §4.1, Alg. 2): levels are added until a level has at most
//! `max_coarse` rows; that coarsest level is solved exactly by dense Cholesky (nalgebra), or by the
//! sparse Cholesky when the coarsest level has more than `MAX_DENSE` rows (coarsening stalled or not worth it).

use super::aggregation::standard_aggregation;
use super::blocks::{block_strength, unknown_aggregates};
use super::galerkin::Galerkin;
use super::near_kernel::near_kernel;
use super::prolongation::tentative;
use super::row_groups::RowGroups;
use super::smoothers::Relaxation;
use super::smoothing::smooth_prolongator;
use super::strength::symmetric_strength;
use super::AmgOptions;
use crate::sparse::cholesky::Cholesky;
use crate::sparse::Csr;
use nalgebra::{DMatrix, DVector};

/// One level above the coarsest: its relaxation, the prolongator to it from the next coarser
/// level and its transpose (the restriction), the next coarser matrix, and work vectors for the V-cycle.
pub struct Level {
    pub relax: Relaxation,
    pub p: Csr,
    pub pt: Csr,
    /// Row groups of `p` and `pt`, for the transfers.
    pub(super) p_groups: RowGroups,
    pub(super) pt_groups: RowGroups,
    pub galerkin: Galerkin,
    pub(super) residual: Vec<f64>,
    pub(super) coarse_b: Vec<f64>,
    pub(super) coarse_x: Vec<f64>,
}

/// Exact solve on the coarsest level.
pub enum CoarseSolve {
    Cholesky(nalgebra::Cholesky<f64, nalgebra::Dyn>),
    /// When round-off leaves the coarsest matrix semi-definite.
    Lu(nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>),
    /// When coarsening stalls above `MAX_DENSE` rows (e.g. a matrix without strong connections).
    Sparse(Box<Cholesky>),
}

impl CoarseSolve {
    pub fn new(a: &Csr) -> Self {
        if a.rows() > MAX_DENSE {
            let mut cholesky = Box::new(Cholesky::default());
            cholesky.factor(a, false);
            return CoarseSolve::Sparse(cholesky);
        }
        let mut d = DMatrix::zeros(a.rows(), a.cols());
        for (v, (i, j)) in a.iter() {
            d[(i, j)] += *v;
        }
        match d.clone().cholesky() {
            Some(c) => CoarseSolve::Cholesky(c),
            None => CoarseSolve::Lu(d.lu()),
        }
    }

    pub fn solve(&mut self, b: &[f64], x: &mut [f64]) {
        let rhs = DVector::from_column_slice(b);
        let sol = match self {
            CoarseSolve::Cholesky(c) => c.solve(&rhs),
            CoarseSolve::Lu(lu) => lu.solve(&rhs).unwrap_or_else(|| DVector::zeros(b.len())),
            CoarseSolve::Sparse(cholesky) => {
                cholesky.solve(b, x);
                return;
            }
        };
        x.copy_from_slice(sol.as_slice());
    }
}

pub struct Hierarchy {
    pub options: AmgOptions,
    pub levels: Vec<Level>,
    pub coarsest: CoarseSolve,
    /// Rows of the coarsest matrix (for reports).
    pub coarsest_rows: usize,
}

/// Largest coarsest level solved densely; a larger one (coarsening stalled, or a primal K too small to
/// be worth coarsening, which stops at its finest level) is factored sparsely. A dense Cholesky costs n³/3
/// at every refresh: at 5000 this was 113 ms per outer iteration for the 1200 rows of the stiff beam's
/// primal K, against a few ms for the sparse factorisation. The default `max_coarse` (400) stays dense.
const MAX_DENSE: usize = 500;

impl Hierarchy {
    /// Full setup of unsmoothed aggregation for `a` (symmetric positive definite), scalar
    /// unknowns, near kernel from `options`.
    pub fn new(a: &Csr, options: &AmgOptions) -> Self {
        let (b, k) = near_kernel(a, options);
        Self::build(a, options, b, k, None)
    }

    /// Full setup of smoothed aggregation (`smoothing.rs`) for a block system: the unknowns of
    /// node `v` are `node_start[v]..node_start[v + 1]` (they are aggregated together), and `b`
    /// (`rows × k`, column-major, e.g. [`super::blocks::rigid_body_modes`]) is the near kernel.
    pub fn smoothed_aggregation(a: &Csr, options: &AmgOptions, node_start: Vec<usize>, b: Vec<f64>, k: usize) -> Self {
        Self::build(a, options, b, k, Some(node_start))
    }

    /// Levels are added until `max_coarse` rows; with `blocks`, aggregation is on the node graph,
    /// the prolongators of the `smoothed_levels` finest levels are smoothed and each coarse aggregate's
    /// columns form the next level's node.
    fn build(a: &Csr, options: &AmgOptions, mut b: Vec<f64>, k: usize, mut blocks: Option<Vec<usize>>) -> Self {
        let mut levels: Vec<Level> = Vec::new();
        loop {
            let cur = levels.last().map_or(a, |l| &l.galerkin.coarse);
            if cur.rows() <= options.max_coarse || levels.len() + 1 >= options.max_levels {
                break;
            }
            let agg = match &blocks {
                None => standard_aggregation(&symmetric_strength(cur, options.theta)),
                Some(start) => unknown_aggregates(&standard_aggregation(&block_strength(cur, start, options.theta)), start),
            };
            let t = tentative(&agg, &b, k);
            let nc = t.p.cols();
            if nc == 0 || nc >= cur.rows() {
                break;
            }
            let relax = Relaxation::new(cur, options.smoother);
            if blocks.is_some() {
                blocks = Some(t.col_start.clone());
            }
            let (p, pt, galerkin) = if blocks.is_some() && levels.len() < options.smoothed_levels {
                let p = smooth_prolongator(cur, &t.p, relax.rho);
                let pt = p.transpose_view().to_csr();
                let galerkin = Galerkin::sparse(cur, &p, &pt);
                (p, pt, galerkin)
            } else {
                let galerkin = Galerkin::new(cur, &t, &agg);
                let pt = t.p.transpose_view().to_csr();
                (t.p, pt, galerkin)
            };
            let n = cur.rows();
            b = t.coarse_b;
            let (p_groups, pt_groups) = (RowGroups::new(&p), RowGroups::new(&pt));
            levels.push(Level { relax, p, pt, p_groups, pt_groups, galerkin, residual: vec![0.0; n], coarse_b: vec![0.0; nc], coarse_x: vec![0.0; nc] });
        }
        let last = levels.last().map_or(a, |l| &l.galerkin.coarse);
        Hierarchy { options: options.clone(), coarsest: CoarseSolve::new(last), coarsest_rows: last.rows(), levels }
    }

    /// Lazy setup: new values of `a` on the same pattern; aggregates, prolongators and smoother
    /// parameters are kept, Galerkin products, diagonals and the coarsest factor recomputed.
    pub fn refresh(&mut self, a: &Csr) {
        for l in 0..self.levels.len() {
            let (done, rest) = self.levels.split_at_mut(l);
            let cur = done.last().map_or(a, |d| &d.galerkin.coarse);
            let level = &mut rest[0];
            level.relax.refresh(cur);
            level.galerkin.refresh(cur, &level.p, &level.pt);
        }
        let last = self.levels.last().map_or(a, |l| &l.galerkin.coarse);
        self.coarsest = CoarseSolve::new(last);
    }

    /// New values of `a` on the same pattern for the finest smoother only (its diagonal); the coarse levels
    /// are those of the last setup. A hierarchy of one level (the coarsest is `a`) refreshes.
    pub fn refresh_smoother(&mut self, a: &Csr) {
        match self.levels.first_mut() {
            Some(finest) => finest.relax.refresh(a),
            None => self.refresh(a),
        }
    }

    /// Number of levels including the coarsest.
    pub fn level_count(&self) -> usize {
        self.levels.len() + 1
    }

    /// Σ nnz(A_l) / nnz(A_0).
    pub fn operator_complexity(&self, a: &Csr) -> f64 {
        let coarse: usize = self.levels.iter().map(|l| l.galerkin.coarse.nnz()).sum();
        (a.nnz() + coarse) as f64 / a.nnz().max(1) as f64
    }

    /// Rows per level, finest first.
    pub fn level_rows(&self, a: &Csr) -> Vec<usize> {
        std::iter::once(a.rows()).chain(self.levels.iter().map(|l| l.galerkin.coarse.rows())).collect()
    }
}
