//! MGPBD's global dual system (docs/equations.md; MGPBD paper Algorithm 1 and Sec. 4.2): the scalar
//! constraint rows (`rows`), the pattern and values of `A = J M⁻¹ Jᵀ + α̃` (`assembly`), and the
//! solver settings (`settings`). The outer loop that solves it each substep is the backends'.

pub mod assembly;
pub mod primal;
pub mod primal_solve;
pub mod rows;
pub mod settings;
pub mod setup_schedule;

#[cfg(test)]
mod primal_tests;
#[cfg(test)]
mod tests;

use crate::mesh::Vec3;
use crate::model::Model;
use crate::sparse::Csr;
use assembly::Pattern;
use rows::Rows;

/// What the outer loop did, summed over a frame: the extra columns of `metrics.csv`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct OuterStats {
    pub outer_iterations: usize,
    /// Iterations of the linear solver, summed over the outer iterations.
    pub linear_iterations: usize,
    /// Full linear-solver setups and refreshes (the other outer iterations kept the coarse levels of the last
    /// setup and renewed only the finest smoother, `Setup::Smoother`).
    pub full_setups: usize,
    pub refreshes: usize,
    /// Seconds in: row evaluation and matrix refill; solver setup; linear solve; Δx and line search.
    pub assembly_s: f64,
    pub setup_s: f64,
    pub solve_s: f64,
    pub line_search_s: f64,
}

impl OuterStats {
    /// The extra `metrics.csv` columns, in the order of [`OuterStats::csv`].
    pub const CSV_HEADER: &'static str = "outer_iterations,linear_iterations,full_setups,refreshes,assembly_ms,setup_ms,linear_solve_ms,line_search_ms";

    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{}",
            self.outer_iterations,
            self.linear_iterations,
            self.full_setups,
            self.refreshes,
            self.assembly_s * 1e3,
            self.setup_s * 1e3,
            self.solve_s * 1e3,
            self.line_search_s * 1e3
        )
    }
}

/// The line search on ‖C + α̃λ‖ gives up halving the step after this many halvings and takes the last,
/// shortest one (on every backend).
pub const MAX_HALVINGS: usize = 8;

/// α̃_i = α_i / h² per row.
pub fn alpha_tilde(rows: &Rows, h: f64) -> Vec<f64> {
    rows.compliance.iter().map(|a| a / (h * h)).collect()
}

/// The system `A Δλ = b` at positions `x` and multipliers `lambda` (for exporting and testing): `A` on
/// `pattern`, `b = −(C(x) + α̃ λ)`.
pub fn assemble(model: &Model, rows: &Rows, pattern: &Pattern, x: &[Vec3], lambda: &[f64], h: f64) -> (Csr, Vec<f64>) {
    let at = alpha_tilde(rows, h);
    let (mut c, mut grads) = (vec![0.0; rows.len()], vec![[Vec3::zeros(); 4]; rows.len()]);
    rows.evaluate_all(model, x, &mut Vec::new(), &mut c, Some(&mut grads));
    let mut a = pattern.matrix.clone();
    pattern.fill(rows, &grads, &model.inv_mass, &at, a.data_mut());
    let b = c.iter().zip(&at).zip(lambda).map(|((c, at), l)| -(c + at * l)).collect();
    (a, b)
}
