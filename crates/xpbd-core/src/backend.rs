//! What every backend provides: advance one frame, report per-frame statistics, fail with an error
//! rather than a poisoned state. A backend is built from a [`Model`] and a
//! [`SolverConfig`](crate::solver_config::SolverConfig) and owns its working copies.

use crate::contact::ContactForces;
pub use crate::error::Unsupported;
use crate::model::Model;
use crate::solver_config::SolverConfig;
use crate::state::State;
use crate::{Error, Result};

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
    /// Contact rows that pushed (λ_n > 0) in the frame's last substep.
    pub contacts: usize,
    /// Adaptive rigidification's rigid bodies and rigid elements at the frame's end (`None` for other solvers).
    pub rigid: Option<RigidStats>,
    /// The implicit and adaptive solvers' time per phase over the frame (`None` for other solvers).
    pub phases: Option<crate::implicit::phases::Phases>,
}

/// Rigid bodies and the elements they hold (thesis "Adaptive methods for elastic deformation", §3.3.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct RigidStats {
    pub bodies: usize,
    pub elements: usize,
}

pub trait Backend {
    /// Whether this backend can run `model` under `config`, asked before it is built (by the dispatcher;
    /// the backend's constructor asks it too). Every backend includes the method's own requirements
    /// ([`SolverConfig::requirements`]), which scene building checks for every scene.
    fn supports(model: &Model, config: &SolverConfig) -> std::result::Result<(), Unsupported>
    where
        Self: Sized;
    /// Short description, e.g. "cpu (serial Gauss-Seidel, 1 thread)".
    fn describe(&self) -> String;
    /// Advances `state` by one frame of the configuration's substeps. An error (a device failure) leaves
    /// `state` unspecified: the caller stops the run and keeps what it wrote before.
    fn step_frame(&mut self, model: &Model, state: &mut State) -> Result<FrameStats>;
    /// Colors (sequential batches) per sweep over all constraint families, for colored and clustered
    /// orderings; `None` otherwise. Recorded as `colors` in `summary.json` (docs/output-format.md).
    fn colors(&self) -> Option<usize> {
        None
    }
    /// What the solver carries from one frame to the next beyond [`State`], for checkpoints: the
    /// multi-layer solver's strain rates (Eq. 20), the CPU XPBD sweeps' cloth hinge angles (docs/cloth.md).
    /// Empty for solvers that rebuild everything.
    fn carried(&self) -> Vec<f64> {
        Vec::new()
    }
    /// The normal contact forces of the last substep of the frame that brought `state` where it is
    /// ([`ContactForces::of`]), for `[output] contact_forces`; an error saying why from a backend that does not
    /// report them. Asked at load and for frames that write them only, so a run without the option pays nothing.
    fn contact_forces(&self, _model: &Model, _state: &State) -> Result<ContactForces> {
        Err(Error::invalid(format!("the backend '{}' does not report contact forces", self.describe())))
    }
    /// The rigid body of each element in the model's element order (−1: elastic), for `rigid_body` cell data;
    /// `None` for solvers without rigid bodies.
    fn element_bodies(&self) -> Option<Vec<i32>> {
        None
    }
    /// Takes back what [`Backend::carried`] gave at a checkpoint, after `state` has been restored.
    fn restore_carried(&mut self, _state: &State, carried: &[f64]) -> Result<()> {
        nothing_carried(carried)
    }
}

/// [`Backend::restore_carried`] of a solver that carries nothing: an error unless `carried` is empty.
pub fn nothing_carried(carried: &[f64]) -> Result<()> {
    match carried.len() {
        0 => Ok(()),
        k => Err(Error::invalid(format!("the checkpoint carries {k} solver values this solver does not use"))),
    }
}
