//! The frame loop: `substeps` substeps of h = dt / substeps, the residual of the last one, and the solve
//! time without the time spent evaluating that residual.

use crate::backend::FrameStats;
use crate::solver_config::SolverConfig;
use crate::state::State;
use crate::Result;
use std::time::Instant;

/// What a reported substep measured: ‖r₀‖ = ‖C(x̃)‖ at its prediction (λ = 0), ‖r‖ = ‖C(x) + α̃λ‖ at its
/// end, and the seconds spent evaluating them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubstepReport {
    pub r0: f64,
    pub r: f64,
    pub seconds: f64,
}

/// One frame of `config`'s substeps: `substep(s, h, t_end, report)` advances `s` by one substep ending at
/// `t_end`, with `report` on the last. Sets the state's frame counter; returns the last substep's residual and
/// relative residual and the solve time (the caller adds solver counters).
pub fn step_frame(
    config: &SolverConfig,
    s: &mut State,
    mut substep: impl FnMut(&mut State, f64, f64, bool) -> Result<Option<SubstepReport>>,
) -> Result<FrameStats> {
    let (h, n, t0) = (config.h(), config.substeps, s.time);
    let start = Instant::now();
    let (mut stats, mut excluded) = (FrameStats::default(), 0.0);
    for k in 1..=n {
        if let Some(report) = substep(s, h, config.substep_end(t0, k), k == n)? {
            stats.residual = report.r;
            stats.relative_residual = if report.r0 > 0.0 { report.r / report.r0 } else { 0.0 };
            excluded += report.seconds;
        }
    }
    s.frame += 1;
    stats.solve_seconds = (start.elapsed().as_secs_f64() - excluded).max(0.0);
    Ok(stats)
}
