//! `primal-amg`: MGPBD's dual system `(J W Jᵀ + α̃) Δλ = b` solved through the primal matrix
//! `K = M + Jᵀ α̃⁻¹ J` (`primal.rs`) by CG preconditioned with one V-cycle of smoothed aggregation
//! (3×3 vertex blocks, the six rigid-body modes of the free vertices as near kernel;
//! `amg::blocks`, `amg::smoothing`), stopping on the dual residual `‖b − A Δλ‖ = ‖J W r_K‖`.
//!
//! An unconverged y can give a Δλ far worse than Δλ = 0: the error of y is multiplied by α̃⁻¹J
//! (CG on K minimises the K-norm of y's error, not the A-norm of Δλ's). So the solve returns the
//! iterate with the lowest dual residual, and Δλ = 0 when even that is above ‖b‖.

use super::primal::PrimalPattern;
use crate::amg::blocks::rigid_body_modes;
use crate::amg::AmgOptions;
use crate::linear::pcg::{AmgPreconditioner, NodeBlocks, Pcg};
use crate::linear::{LinearSolver, Setup, SetupInfo, SolveStats};
use crate::mesh::Vec3;
use crate::sparse::{norm, Csr};
use rayon::prelude::*;

pub struct PrimalSolver {
    pub pattern: PrimalPattern,
    /// K on `pattern`.
    pub k: Csr,
    pcg: Pcg<AmgPreconditioner>,
    /// 1/α̃ per row.
    inv_alpha: Vec<f64>,
    rhs: Vec<f64>,
    y: Vec<f64>,
    /// The iterate with the lowest dual residual so far.
    best: Vec<f64>,
    /// Partial sums of the dual residual's squares (`PrimalPattern::dual_residual`).
    dual_chunks: Vec<f64>,
    /// W per free vertex.
    inv_mass_free: Vec<f64>,
}

impl PrimalSolver {
    /// For rows with `vertices` ([`super::rows::NO_VERTEX`] for unused slots) and inverse masses.
    pub fn new(vertices: &[[u32; 4]], inv_mass: &[f64], options: AmgOptions) -> Self {
        let pattern = PrimalPattern::new(vertices, inv_mass);
        let n = pattern.matrix.rows();
        PrimalSolver {
            k: pattern.matrix.clone(),
            pattern,
            pcg: Pcg::new("primal-amg", AmgPreconditioner::smoothed(options)),
            inv_alpha: Vec::new(),
            rhs: vec![0.0; n],
            y: vec![0.0; n],
            best: vec![0.0; n],
            dual_chunks: Vec::new(),
            inv_mass_free: Vec::new(),
        }
    }

    /// The rows' α̃ (all > 0; an infinite one is allowed); needed before filling K.
    pub fn set_alpha_tilde(&mut self, alpha_tilde: &[f64]) {
        self.inv_alpha = super::primal::inverse_alpha(alpha_tilde);
    }

    /// The pattern, 1/α̃ and K's values, for a backend that refills K block row by block row.
    pub fn matrix_mut(&mut self) -> (&PrimalPattern, &[f64], &mut [f64]) {
        (&self.pattern, &self.inv_alpha, self.k.data_mut())
    }

    /// Refills K serially from the rows' gradients.
    pub fn fill(&mut self, grads: &[[Vec3; 4]], inv_mass: &[f64]) {
        let (pattern, inv_alpha, values) = self.matrix_mut();
        pattern.fill(grads, inv_mass, inv_alpha, values);
    }

    /// Sets up the AMG for K's current values; a full setup takes the rigid-body modes at the
    /// positions `x` (all vertices) of the free vertices.
    pub fn setup(&mut self, x: &[Vec3], setup: Setup) {
        if self.k.rows() == 0 {
            return;
        }
        if setup == Setup::Full {
            let nf = self.pattern.free_count();
            let b = rigid_body_modes(&self.pattern.free_positions(x));
            self.pcg.preconditioner_mut().set_blocks(NodeBlocks { node_start: (0..=nf).map(|u| 3 * u).collect(), b, k: 6 });
        }
        self.pcg.setup(&self.k, setup);
    }

    /// Solves `A Δλ = b` from Δλ = 0 until `‖b − A Δλ‖ ≤ tol ‖b‖` (the dual residual, `J W` times
    /// K's residual) or `max_iter` PCG iterations on K; J is the rows' gradients on the pattern's vertices.
    pub fn solve(&mut self, grads: &[[Vec3; 4]], inv_mass: &[f64], b: &[f64], dlambda: &mut [f64], tol: f64, max_iter: usize) -> SolveStats {
        let PrimalSolver { pattern, k, pcg, inv_alpha, rhs, y, best, dual_chunks, inv_mass_free } = self;
        let b_norm = norm(b);
        if b_norm == 0.0 {
            dlambda.fill(0.0);
            return SolveStats { iterations: 0, relative_residual: 0.0, converged: true };
        }
        y.fill(0.0);
        best.fill(0.0);
        let mut iterations = 0;
        let mut lowest = f64::INFINITY;
        if k.rows() > 0 {
            pattern.transpose_product(grads, inv_alpha, b, rhs);
            inv_mass_free.clear();
            inv_mass_free.extend(pattern.free_vertices.iter().map(|&v| inv_mass[v as usize]));
            (iterations, _) = pcg.iterate(k, rhs, y, max_iter, |r, y| {
                let dual = pattern.dual_residual(grads, inv_mass_free, r, dual_chunks);
                if dual < lowest {
                    lowest = dual;
                    best.copy_from_slice(y);
                }
                dual <= tol * b_norm
            });
        } else {
            lowest = 0.0;
        }
        if lowest > b_norm {
            dlambda.fill(0.0);
            return SolveStats { iterations, relative_residual: 1.0, converged: false };
        }
        let best = &*best;
        dlambda.par_iter_mut().enumerate().for_each(|(row, dl)| *dl = inv_alpha[row] * (b[row] - pattern.row_product(row, grads, |_| 1.0, best)));
        let relative_residual = lowest / b_norm;
        SolveStats { iterations, relative_residual, converged: relative_residual <= tol }
    }

    /// The AMG hierarchy of the last setup.
    pub fn info(&self) -> SetupInfo {
        self.pcg.info()
    }
}
