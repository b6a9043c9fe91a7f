//! What a substep does around its constraint solve: the prediction and contact detection before it, the soft
//! attachments and contact rows after each iteration, and the velocity update and restitution at its end.

use super::frame::SubstepReport;
use super::{attachments, integrate, timed};
use crate::contact::{ContactForces, ContactSet};
use crate::mesh::Vec3;
use crate::metrics::residual_norm;
use crate::model::Model;
use crate::solver_config::SolverConfig;
use crate::state::State;
use crate::Result;

/// The constraint solve of a substep: what differs between solvers and devices.
pub trait ConstraintSolver {
    /// After the prediction: the multipliers to zero, in `s` and wherever the solver keeps its own (and the
    /// predicted positions to a device).
    fn begin(&mut self, model: &Model, s: &mut State, t_end: f64) -> Result<()>;
    /// One iteration over every elastic constraint, then the soft attachments and contacts (on the host through
    /// `boundary.project`, or on a device); `Ok(true)` once the solver's stopping tolerance is met (MGPBD; XPBD runs
    /// every iteration).
    fn iterate(&mut self, model: &Model, s: &mut State, boundary: &mut SubstepBoundary, h: f64, t_end: f64) -> Result<bool>;
    /// After the last iteration: the positions in `s`, and the multipliers in model order when `report` (the
    /// residual reads them).
    fn finish(&mut self, s: &mut State, report: bool) -> Result<()>;
    /// ‖C(x) + α̃λ‖ over every elastic row at `s` (after `begin`, or after `finish` with `report`): by default
    /// [`residual_norm`]; a solver may evaluate it from its own layout, to round-off.
    fn residual(&mut self, model: &Model, s: &State, h: f64) -> f64 {
        residual_norm(model, &s.x, &s.lambda, h)
    }
}

/// The host half of a substep: the prediction's saved positions and velocities, the soft attachments'
/// multipliers and the substep's contact rows.
pub struct SubstepBoundary {
    velocity_damping: f64,
    /// Positions before the prediction (for damping, friction and the velocity update).
    pub x_prev: Vec<Vec3>,
    v_before: Vec<Vec3>,
    attach_lambda: Vec<Vec3>,
    /// This substep's contact rows.
    pub contacts: ContactSet,
}

impl SubstepBoundary {
    pub fn new(model: &Model, config: &SolverConfig) -> Self {
        let n = model.vertex_count();
        SubstepBoundary {
            velocity_damping: config.velocity_damping,
            x_prev: vec![Vec3::zeros(); n],
            v_before: vec![Vec3::zeros(); n],
            attach_lambda: vec![Vec3::zeros(); model.attachments.len()],
            contacts: ContactSet::default(),
        }
    }

    /// The prediction x̃ of a substep ending at `t_end` (velocities kept for restitution) and the contact
    /// rows that may act in it; attachment multipliers to zero. The solver resets its own multipliers.
    pub fn begin(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        self.v_before.copy_from_slice(&s.v);
        integrate::predict(model, self.velocity_damping, s, &mut self.x_prev, h, t_end);
        self.attach_lambda.fill(Vec3::zeros());
        self.contacts.detect(model, &self.x_prev, &s.x, t_end);
    }

    /// One pass over the soft attachments and then the contact rows, after each solver iteration.
    pub fn project(&mut self, model: &Model, x: &mut [Vec3], h: f64, t_end: f64) {
        attachments::iterate(model, x, &mut self.attach_lambda, h, t_end);
        self.contacts.project(model, x, &self.x_prev, h, t_end);
    }

    /// The normal contact forces of the last substep, of length `h` ([`ContactForces::of`]).
    pub fn contact_forces(&self, model: &Model, h: f64) -> ContactForces {
        ContactForces::of(&self.contacts.pairs, &self.contacts.colliders, model.vertex_count(), h)
    }

    /// Velocity update and restitution: the end of a substep.
    pub fn end(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        integrate::update_velocities(s, &self.x_prev, h);
        self.contacts.restitute(model, &mut s.v, &self.v_before, h);
        s.time = t_end;
    }

    /// One substep ending at `t_end`: the prediction, `solver`'s begin, up to `iterations` iterations (fewer
    /// once it converges), its finish and the end. With `report`, ‖r₀‖ after the prediction and ‖r‖ at the
    /// end (‖C(x) + α̃λ‖ over every elastic row).
    #[allow(clippy::too_many_arguments)]
    pub fn substep(
        &mut self,
        solver: &mut impl ConstraintSolver,
        iterations: usize,
        model: &Model,
        s: &mut State,
        h: f64,
        t_end: f64,
        report: bool,
    ) -> Result<Option<SubstepReport>> {
        self.begin(model, s, h, t_end);
        solver.begin(model, s, t_end)?;
        let mut seconds = 0.0;
        let r0 = report.then(|| timed(&mut seconds, || solver.residual(model, s, h)));
        for _ in 0..iterations {
            if solver.iterate(model, s, self, h, t_end)? {
                break;
            }
        }
        solver.finish(s, report)?;
        self.end(model, s, h, t_end);
        Ok(r0.map(|r0| {
            let r = timed(&mut seconds, || solver.residual(model, s, h));
            SubstepReport { r0, r, seconds }
        }))
    }
}
