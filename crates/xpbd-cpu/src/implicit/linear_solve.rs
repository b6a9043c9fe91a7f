//! The solve of each step's reduced system A_A Δẋ_A = b (thesis "Adaptive methods for elastic deformation",
//! §4.4.2, Eq. 4.7–4.8: "LDLᵀ or PCG to 1e-4"): the sparse Cholesky factor, or conjugate gradients started from
//! the previous solve's answer and preconditioned by the complete Cholesky factor of an earlier step's A_A
//! (`sparse::lagged_cholesky`) or by Curtis–Reid scaling and the incomplete Cholesky factor of an earlier
//! S A_A S (`sparse::scaled_pcg`). The preconditioner is kept from step to step (as the thesis keeps the
//! oracle's) and rebuilt when a solve takes more than [`REFRESH_GROWTH`] times the iterations of the first solve
//! after the last rebuild, or missed its tolerance. A PCG solve that misses its tolerance within its iteration
//! cap falls back to the factor (counted in [`PcgCounts::fallbacks`]). Contact needs the factor for the Delassus
//! operator, so a PCG step with contacts factorises as well ([`LinearSolver::factor_for_columns`]).

use xpbd_core::implicit::settings::{ImplicitSettings, LinearSolve, PcgPreconditioner};
use xpbd_core::linear::SolveStats;
use xpbd_core::sparse::cholesky::Cholesky;
use xpbd_core::sparse::forward_columns::ForwardColumns;
use xpbd_core::sparse::lagged_cholesky::LaggedCholeskyPcg;
use xpbd_core::sparse::scaled_pcg::ScaledPcg;
use xpbd_core::sparse::Csr;

/// A PCG solve taking more than this many times the iterations of the first solve after the last setup (plus
/// [`REFRESH_SLACK`]) has the next prepare rebuild the preconditioner.
const REFRESH_GROWTH: f64 = 1.5;
const REFRESH_SLACK: f64 = 5.0;

/// What the PCG solves did so far (`solver.linear_solver = "pcg"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PcgCounts {
    pub solves: usize,
    pub iterations: usize,
    /// Preconditioners built (a Cholesky factor, or a scaling and an incomplete factor).
    pub setups: usize,
    /// Solves that missed `pcg_tol` within `pcg_max_iter` iterations and took the Cholesky solve instead.
    pub fallbacks: usize,
}

pub struct LinearSolver {
    kind: LinearSolve,
    /// Iteration cap of a PCG solve (`None`: one per row).
    max_iterations: Option<usize>,
    cholesky: Cholesky,
    pcg: Iterative,
    /// The Cholesky factor is that of the last prepared matrix.
    factored: bool,
    /// The last solve's answer: the next PCG solve's guess (the pattern, so its length, holds for this solver's life).
    last: Vec<f64>,
    /// Iterations of the first PCG solve after the last setup (`None`: none since), and whether the next
    /// prepare rebuilds the setup.
    baseline: Option<usize>,
    stale: bool,
}

impl LinearSolver {
    /// The solver `settings` ask for, of a system whose node k holds rows `node_start[k]..node_start[k + 1]`
    /// (its Cholesky factors are ordered by node, [`Cholesky::blocked`]).
    pub fn new(settings: &ImplicitSettings, node_start: &[usize]) -> Self {
        LinearSolver {
            kind: settings.linear_solver,
            max_iterations: settings.pcg_max_iter,
            cholesky: Cholesky::blocked(node_start.to_vec()),
            pcg: match settings.pcg_preconditioner {
                PcgPreconditioner::Cholesky => Iterative::Cholesky(LaggedCholeskyPcg::new(settings.pcg_tol, Cholesky::blocked(node_start.to_vec()))),
                PcgPreconditioner::Ict => Iterative::Ict(ScaledPcg::new(settings.pcg_tol, ScaledPcg::DROP_TOLERANCE)),
            },
            factored: false,
            last: Vec::new(),
            baseline: None,
            stale: true,
        }
    }

    /// Readies a solve with the assembled `a`: factorises it (`ldlt`), or takes its values and, when the last
    /// setup went stale, builds the preconditioner again (`pcg`, counted in `counts.setups`); an error says why
    /// the factorisation failed.
    pub fn prepare(&mut self, a: &Csr, counts: &mut PcgCounts) -> Result<(), String> {
        self.factored = false;
        match self.kind {
            LinearSolve::Ldlt => self.factor(a),
            LinearSolve::Pcg if self.stale => {
                self.pcg.setup(a);
                counts.setups += 1;
                (self.stale, self.baseline) = (false, None);
                Ok(())
            }
            LinearSolve::Pcg => {
                self.pcg.update(a);
                Ok(())
            }
        }
    }

    /// x = A⁻¹ b for the prepared `a`. For `pcg`, from the last answer, its work added to `counts`; a solve that
    /// misses the tolerance within the cap is redone by the factor (`counts.fallbacks`). An error: that
    /// factorisation failed.
    pub fn solve(&mut self, a: &Csr, b: &[f64], counts: &mut PcgCounts) -> Result<Vec<f64>, String> {
        if self.kind == LinearSolve::Pcg {
            let cap = self.max_iterations.unwrap_or(b.len()).max(1);
            let (y, stats) = self.pcg.solve(b, Some(&self.last), cap);
            counts.solves += 1;
            counts.iterations += stats.iterations;
            let baseline = *self.baseline.get_or_insert(stats.iterations);
            self.stale = !stats.converged || stats.iterations as f64 > REFRESH_GROWTH * baseline as f64 + REFRESH_SLACK;
            if stats.converged {
                self.last.clone_from(&y);
                return Ok(y);
            }
            counts.fallbacks += 1;
            self.factor_for_columns(a)?;
        }
        let x = self.solve_factored(b);
        self.last.clone_from(&x);
        Ok(x)
    }

    /// x = A⁻¹ b by the factor (`ldlt`'s prepare or [`LinearSolver::factor_for_columns`]).
    pub fn solve_factored(&self, b: &[f64]) -> Vec<f64> {
        debug_assert!(self.factored, "the factor is of the prepared matrix");
        let mut x = vec![0.0; b.len()];
        let solved = self.cholesky.solve(b, &mut x);
        debug_assert!(solved, "a factor exists");
        x
    }

    /// Factorises the prepared `a` when it is not factorised yet (a `pcg` step with contacts, or a fallback).
    pub fn factor_for_columns(&mut self, a: &Csr) -> Result<(), String> {
        if self.factored {
            Ok(())
        } else {
            self.factor(a)
        }
    }

    /// Z = L⁻¹ P Jᵀ for sparse rows J; needs the factor.
    pub fn forward_columns(&self, rows: &[Vec<(usize, f64)>]) -> ForwardColumns {
        debug_assert!(self.factored, "factor_for_columns runs before the contact solve");
        self.cholesky.forward_columns(rows).expect("a blocked factor exists and is supernodal")
    }

    /// Pᵀ L⁻ᵀ w (A⁻¹ Jᵀ λ for w = Z λ); needs the factor.
    pub fn backward(&self, w: &[f64]) -> Vec<f64> {
        self.cholesky.backward(w).expect("a blocked factor exists and is supernodal")
    }

    /// The numeric Cholesky factorisation, with the symbolic one of the first kept (a `LinearSolver` lives as
    /// long as its pattern).
    fn factor(&mut self, a: &Csr) -> Result<(), String> {
        self.cholesky.try_factor(a, true)?;
        self.factored = true;
        Ok(())
    }
}

/// PCG with one of the preconditioners of [`PcgPreconditioner`].
enum Iterative {
    Cholesky(LaggedCholeskyPcg),
    Ict(ScaledPcg),
}

impl Iterative {
    fn setup(&mut self, a: &Csr) {
        match self {
            Iterative::Cholesky(p) => p.setup(a),
            Iterative::Ict(p) => p.setup(a),
        }
    }

    fn update(&mut self, a: &Csr) {
        match self {
            Iterative::Cholesky(p) => p.update(a),
            Iterative::Ict(p) => p.update(a),
        }
    }

    fn solve(&mut self, b: &[f64], guess: Option<&[f64]>, max_iterations: usize) -> (Vec<f64>, SolveStats) {
        match self {
            Iterative::Cholesky(p) => p.solve(b, guess, max_iterations),
            Iterative::Ict(p) => p.solve(b, guess, max_iterations),
        }
    }
}
