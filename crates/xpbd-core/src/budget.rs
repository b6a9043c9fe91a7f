//! The run's estimated cost: substeps × iterations × elements element updates per frame at an optimistic rate,
//! so the estimate is a lower bound. `xpbd info` shows it per frame; a run estimated at over a day is warned at
//! load.

use crate::human::{count, duration};
use crate::model::Model;
use crate::solver_config::{Method, SolverConfig};

/// Element updates per second assumed by the estimate: more than any backend reaches on these models,
/// so a warned run takes at least the time given.
pub const UPDATES_PER_SECOND: f64 = 1e8;
/// Estimated times above this (s) are warned.
pub const WARN_SECONDS: f64 = 86_400.0;

/// The solver's element updates per substep: its iterations (1 for the implicit solvers, one linear solve).
fn iterations(config: &SolverConfig) -> usize {
    if matches!(config.method, Method::Implicit(_)) {
        1
    } else {
        config.iterations
    }
}

/// Element updates of one frame of `model` under `config`: substeps × iterations × elements.
pub fn updates_per_frame(config: &SolverConfig, model: &Model) -> f64 {
    config.substeps as f64 * iterations(config) as f64 * model.element_count() as f64
}

/// A warning with the estimate when `frames` frames of `model` under `config` would take more than a day.
pub fn warning(frames: usize, config: &SolverConfig, model: &Model) -> Option<String> {
    let updates = frames as f64 * updates_per_frame(config, model);
    let seconds = updates / UPDATES_PER_SECOND;
    (seconds > WARN_SECONDS).then(|| {
        format!(
            "simulation: frames × substeps × iterations × elements = {} × {} × {} × {} = {} element updates, at least {} at {} a second; lower simulation.substeps or frames",
            count(frames as f64),
            count(config.substeps as f64),
            count(iterations(config) as f64),
            count(model.element_count() as f64),
            count(updates),
            duration(seconds),
            count(UPDATES_PER_SECOND)
        )
    })
}
