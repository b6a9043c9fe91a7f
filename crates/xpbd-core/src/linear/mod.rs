//! Linear solvers for the symmetric positive definite systems of MGPBD's global dual step
//! `(J M⁻¹ Jᵀ + α̃) Δλ = −(C + α̃λ)` (docs/equations.md), on the sparse matrices of `crate::sparse` with the
//! AMG hierarchy of `crate::amg` as a preconditioner.
//!
//! A solver is set up once per matrix pattern and refreshed when only the values change: this is
//! MGPBD's lazy setup, where the AMG hierarchy is rebuilt every `setup_interval` frames and only
//! the Galerkin products are refreshed in between.

pub mod cg;
pub mod direct;
pub mod dual_operator;
pub mod pcg;
pub mod registry;

use crate::sparse::Csr;
pub use registry::{Method, DEFAULT_SOLVER};

/// What a solve did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveStats {
    pub iterations: usize,
    /// ‖b − A x‖ / ‖b‖ at return (0 when b = 0).
    pub relative_residual: f64,
    pub converged: bool,
}

/// What a solver's setup built, for reports (a single level with complexity 1 for non-multigrid solvers).
#[derive(Clone, Debug, PartialEq)]
pub struct SetupInfo {
    pub levels: usize,
    /// Σ nnz(A_l) / nnz(A_0).
    pub operator_complexity: f64,
    /// Rows per level, finest first (empty when not multigrid).
    pub level_rows: Vec<usize>,
}

impl Default for SetupInfo {
    fn default() -> Self {
        SetupInfo { levels: 1, operator_complexity: 1.0, level_rows: Vec::new() }
    }
}

/// How much of a solver's preparation to redo for a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// Everything that depends on the matrix (aggregates, prolongators, smoother parameters).
    Full,
    /// Only what depends on the values with the structure kept (Galerkin products, diagonals).
    Refresh,
    /// Only the finest level's smoother (its diagonal) for the new values, the rest of the last setup kept:
    /// the V-cycle stays a symmetric positive definite preconditioner of the new matrix, where a smoother
    /// left with the old diagonal can diverge on it (`mgpbd::setup_schedule`). A solver with nothing cheaper
    /// refreshes.
    Smoother,
}

/// A solver of `A x = b` for symmetric positive definite `A`.
pub trait LinearSolver: Send {
    /// Name as given on the command line, e.g. `cg` or `amg-pcg`.
    fn name(&self) -> &'static str;
    /// Prepares for `a`; must be called with `Setup::Full` before the first solve and whenever the
    /// pattern of `a` changes.
    fn setup(&mut self, a: &Csr, setup: Setup);
    /// Solves `a x = b` from the initial guess in `x` until `‖b − A x‖ ≤ tol ‖b‖` or `max_iter`.
    fn solve(&mut self, a: &Csr, b: &[f64], x: &mut [f64], tol: f64, max_iter: usize) -> SolveStats;
    /// What the last setup built (levels, operator complexity).
    fn info(&self) -> SetupInfo {
        SetupInfo::default()
    }
}
