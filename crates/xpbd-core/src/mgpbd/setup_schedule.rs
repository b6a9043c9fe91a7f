//! When the outer loop sets its linear solver up (MGPBD paper §4.2, "lazy setup"): fully (aggregates,
//! prolongators, smoother parameters) at the first outer iteration of every `setup_interval`-th frame, and
//! in between either a refresh (Galerkin products, diagonals, coarsest factor: `Setup::Refresh`) or only
//! the finest smoother's diagonal (`Setup::Smoother`), keeping the coarse levels of the last setup.
//!
//! The paper refreshes at every outer iteration. `refresh = "adaptive"` refreshes only once the last
//! solve failed to converge or took more than [`GROWTH`] times the linear iterations of the first solve
//! after the last setup, plus one: coarse levels built for a nearby K still precondition the current one
//! (CG multiplies by the current K, so it solves the current system to the same tolerance), and K changes
//! little between outer iterations. On a stiff neo-Hookean beam 5 refreshes were due in 131 outer iterations
//! (all in the first frame) and the PCG iterations were those of refreshing every time (docs/mgpbd.md). The
//! finest smoother's diagonal is always the current one: a Jacobi smoother with the old diagonal can
//! diverge on a K that stiffened, and the V-cycle is then no longer positive definite; with the current
//! diagonal and any positive definite coarse matrices it is. A K that is its own coarsest level is
//! refreshed instead (`Hierarchy::refresh_smoother`). Where the kept coarse levels still fail a solve, that
//! outer iteration keeps Δλ = 0 and the next one refreshes. A solver whose setup is not a preconditioner
//! (the direct solve) is refreshed every time whatever the setting.

use crate::linear::{Setup, SolveStats};

named_enum! {
    /// `[solver] refresh`: when the linear solver's refresh runs between full setups.
    pub enum Refresh {
        /// Only when the last solve failed or needed [`GROWTH`] times the iterations of the first after the last setup.
        Adaptive = "adaptive",
        /// At every outer iteration (the MGPBD paper's lazy setup).
        Always = "always",
    }
}

/// A refresh is due once a solve takes more than `GROWTH ×` the reference iterations, plus one.
pub const GROWTH: f64 = 1.25;

/// The setup decisions of one outer loop (the CPU's and the device's share it, so they decide alike).
#[derive(Clone, Debug)]
pub struct SetupSchedule {
    interval: usize,
    refresh: Refresh,
    /// A full setup is due (start of a `setup_interval`-th frame, or nothing set up yet).
    full_due: bool,
    /// Linear iterations of the first converged solve after the last setup, once there was one.
    reference: Option<usize>,
    /// A refresh is due before the next solve.
    refresh_due: bool,
}

impl SetupSchedule {
    /// Full setups every `interval` frames; `refresh` between them, `Always` when `preconditioner` is false.
    pub fn new(interval: usize, refresh: Refresh, preconditioner: bool) -> Self {
        let refresh = if preconditioner { refresh } else { Refresh::Always };
        SetupSchedule { interval, refresh, full_due: true, reference: None, refresh_due: false }
    }

    /// Start of frame `frame`: a full setup is due every `interval` frames.
    pub fn begin_frame(&mut self, frame: usize) {
        if frame.is_multiple_of(self.interval) {
            self.full_due = true;
        }
    }

    /// The setup before this outer iteration's solve.
    pub fn before_solve(&mut self) -> Setup {
        let setup = if self.full_due {
            Setup::Full
        } else if self.refresh == Refresh::Always || self.refresh_due {
            Setup::Refresh
        } else {
            return Setup::Smoother;
        };
        (self.full_due, self.refresh_due, self.reference) = (false, false, None);
        setup
    }

    /// Records the solve after [`SetupSchedule::before_solve`].
    pub fn solved(&mut self, solve: &SolveStats) {
        self.refresh_due = !solve.converged || self.reference.is_some_and(|first| solve.iterations as f64 > GROWTH * first as f64 + 1.0);
        if solve.converged && self.reference.is_none() {
            self.reference = Some(solve.iterations);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decisions for a run of solves' iteration counts (0: a solve that failed), one frame per entry of
    /// `frames`.
    fn decisions(schedule: &mut SetupSchedule, frames: &[&[usize]]) -> Vec<Setup> {
        let mut out = Vec::new();
        for (frame, solves) in frames.iter().enumerate() {
            schedule.begin_frame(frame);
            for &iterations in *solves {
                out.push(schedule.before_solve());
                schedule.solved(&SolveStats { iterations, relative_residual: 0.0, converged: iterations > 0 });
            }
        }
        out
    }

    /// Full setups every `interval` frames; adaptive refreshes only after a solve beyond 1.25× + 1 the first
    /// after the last setup (after 10: 13 is not, 14 is; after 20: 26 is not, 27 is), the reference restarting at
    /// each setup, and a refresh due at a full setup is not also run after it.
    #[test]
    fn refreshes_when_the_iterations_grow() {
        let (f, r, s) = (Setup::Full, Setup::Refresh, Setup::Smoother);
        let mut adaptive = SetupSchedule::new(2, Refresh::Adaptive, true);
        let got = decisions(&mut adaptive, &[&[10, 13, 14, 20], &[21, 26, 27], &[5, 5]]);
        assert_eq!(got, [f, s, s, r, s, s, s, f, s]);
        // A failed solve refreshes at once; one after the setup leaves the reference to the next converged one.
        let mut failing = SetupSchedule::new(10, Refresh::Adaptive, true);
        assert_eq!(decisions(&mut failing, &[&[10, 0, 10, 0, 0, 8, 11, 12]]), [f, s, r, s, r, r, s, s]);
        let mut always = SetupSchedule::new(2, Refresh::Always, true);
        assert_eq!(decisions(&mut always, &[&[10, 13], &[21], &[5]]), [f, r, r, f]);
        // A direct solve's setup is its factorisation: refreshed every time, whatever the setting.
        let mut direct = SetupSchedule::new(2, Refresh::Adaptive, false);
        assert_eq!(decisions(&mut direct, &[&[1, 1], &[1]]), [f, r, r]);
    }
}
