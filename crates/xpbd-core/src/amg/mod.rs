//! Unsmoothed-aggregation algebraic multigrid (UA-AMG), the preconditioner of MGPBD's global dual
//! solve (the MGPBD paper, §4; docs/equations.md). Setup: strength of connection →
//! standard aggregation → tentative prolongator from near-kernel vectors → Galerkin coarse
//! matrices, level by level until at most `max_coarse` rows; solve: one V-cycle per PCG iteration.
//! The same pipeline with node (3×3 block) aggregation, rigid-body near kernel and smoothed
//! prolongators (`blocks`, `smoothing`) is the smoothed aggregation of the primal solve
//! (`crate::mgpbd::primal`).
//!
//! Lazy setup: `Hierarchy::refresh` keeps aggregates, prolongators and smoother parameters and
//! recomputes only the Galerkin values (and the coarsest factorisation) for new matrix values.

pub mod aggregation;
pub mod blocks;
pub mod galerkin;
pub mod hierarchy;
pub mod model_problems;
pub mod near_kernel;
pub mod product;
pub mod prolongation;
pub mod row_groups;
pub mod smoothers;
pub mod smoothing;
pub mod strength;
pub mod vcycle;

pub use hierarchy::Hierarchy;

use serde::Deserialize;

named_enum! {
    /// How the near-kernel vectors B that the prolongator reproduces are chosen.
    pub enum NearKernel {
        /// The constant vector (one column).
        Constant = "constant",
        /// `near_kernel_vectors` random vectors smoothed by `near_kernel_sweeps` Gauss-Seidel sweeps on `A x = 0`.
        Gs = "gs",
    }
}

named_enum! {
    /// The relaxation applied before and after each coarse correction.
    pub enum Smoother {
        /// Weighted Jacobi, ω = 4 / (3 ρ(D⁻¹A)).
        Jacobi = "jacobi",
        /// Jacobi-preconditioned Chebyshev polynomial of degree 3 on [ρ/30, 1.1 ρ] of D⁻¹A.
        Chebyshev = "chebyshev",
        /// Multicolour Gauss-Seidel: forward colour order before, backward after (a symmetric V-cycle).
        Gs = "gs",
    }
}

/// AMG settings; field names are those of a scene's `[solver]` table (docs/scene-format.md).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AmgOptions {
    /// Strength threshold θ in `|a_ij| ≥ θ sqrt(|a_ii a_jj|)`.
    pub theta: f64,
    /// Coarsening stops once a level has at most this many rows; that level is solved by dense Cholesky.
    pub max_coarse: usize,
    /// Upper bound on the number of levels (a guard against coarsening that stalls).
    pub max_levels: usize,
    /// Smoothed aggregation (block systems): the prolongators of this many finest levels are smoothed,
    /// the coarser ones are tentative. Smoothing every level made the coarse operators denser with each
    /// level, and refreshing them every outer iteration grew faster than the mesh (docs/mgpbd.md, "Time
    /// to a 1e-3 relative outer residual against size").
    pub smoothed_levels: usize,
    pub near_kernel: NearKernel,
    pub near_kernel_vectors: usize,
    pub near_kernel_sweeps: usize,
    /// Seed of the random starts of the Gauss-Seidel near-kernel vectors.
    pub seed: u64,
    pub smoother: Smoother,
    pub pre_sweeps: usize,
    pub post_sweeps: usize,
}

impl Default for AmgOptions {
    fn default() -> Self {
        AmgOptions {
            theta: 0.1,
            max_coarse: 400,
            max_levels: 10,
            smoothed_levels: 1,
            near_kernel: NearKernel::Constant,
            near_kernel_vectors: 6,
            near_kernel_sweeps: 20,
            seed: 0,
            smoother: Smoother::Jacobi,
            pre_sweeps: 2,
            post_sweeps: 2,
        }
    }
}

impl AmgOptions {
    /// Rejects settings no hierarchy can be built with, naming the field.
    pub fn validate(&self) -> crate::Result<()> {
        if !(self.theta >= 0.0 && self.theta < 1.0) {
            return Err(crate::Error::invalid(format!("solver.theta must be in [0, 1), got {}", self.theta)));
        }
        if self.max_coarse == 0 || self.max_levels == 0 {
            return Err(crate::Error::invalid("solver.max_coarse and solver.max_levels must be at least 1"));
        }
        if self.near_kernel == NearKernel::Gs && self.near_kernel_vectors == 0 {
            return Err(crate::Error::invalid("solver.near_kernel_vectors must be at least 1"));
        }
        Ok(())
    }
}
