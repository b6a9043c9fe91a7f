//! What every backend provides (DESIGN.md §3): advance one frame, report per-frame statistics.

use crate::model::Model;
use crate::state::State;

/// Statistics of one frame, taken at its last substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// ‖C(x) + α̃λ‖ after the last substep's iterations.
    pub residual: f64,
    /// ‖r‖ / ‖r₀‖ with r₀ = C(x̃) at the start of that substep (0 when ‖r₀‖ = 0).
    pub relative_residual: f64,
    /// Wall time of the solver work, excluding the residual evaluation done only for reporting.
    pub solve_seconds: f64,
    /// MGPBD's outer-loop counters over the frame (`None` for other solvers).
    pub mgpbd: Option<crate::mgpbd::OuterStats>,
}

pub trait Backend {
    /// Short description, e.g. "cpu (serial Gauss-Seidel, 1 thread)".
    fn describe(&self) -> String;
    /// Advances `state` by one frame of `model.solver.substeps` substeps.
    fn step_frame(&mut self, model: &Model, state: &mut State) -> FrameStats;
    /// Colors (sequential batches) per sweep over all constraint families, for colored and clustered
    /// orderings; `None` otherwise. Recorded as `colors` in `summary.json` (DESIGN.md §5).
    fn colors(&self) -> Option<usize> {
        None
    }
}
