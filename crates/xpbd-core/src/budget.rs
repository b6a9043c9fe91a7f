//! The run's estimated cost, warned at load when it exceeds a day: frames × substeps × iterations ×
//! elements element updates at an optimistic rate, so the estimate is a lower bound.

use crate::human::{count, duration};
use crate::model::Model;
use crate::scene::schema::Simulation;

/// Element updates per second assumed by the estimate: more than any backend reaches on these models,
/// so a warned run takes at least the time given.
const UPDATES_PER_SECOND: f64 = 1e8;
/// Estimated times above this (s) are warned.
const WARN_SECONDS: f64 = 86_400.0;

/// A warning with the estimate when the run of `model` under `sim` would take more than a day;
/// `iterations` is the solver's per substep (1 for the implicit solvers).
pub fn warning(sim: &Simulation, iterations: usize, model: &Model) -> Option<String> {
    let elements = model.element_count() as f64;
    let updates = sim.frames as f64 * sim.substeps as f64 * iterations as f64 * elements;
    let seconds = updates / UPDATES_PER_SECOND;
    (seconds > WARN_SECONDS).then(|| {
        format!(
            "simulation: frames × substeps × iterations × elements = {} × {} × {} × {} = {} element updates, at least {} at {} a second; lower simulation.substeps or frames",
            count(sim.frames as f64),
            count(sim.substeps as f64),
            count(iterations as f64),
            count(elements),
            count(updates),
            duration(seconds),
            count(UPDATES_PER_SECOND)
        )
    })
}
