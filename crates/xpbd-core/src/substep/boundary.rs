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
    /// Passes of [`SubstepBoundary::project`] after the prediction, before the solver starts (MGPBD's
    /// `pre_sweeps`).
    pre_sweeps: usize,
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
            pre_sweeps: config.method.mgpbd().map_or(0, |m| m.pre_sweeps),
            x_prev: vec![Vec3::zeros(); n],
            v_before: vec![Vec3::zeros(); n],
            attach_lambda: vec![Vec3::zeros(); model.attachments.len()],
            contacts: ContactSet::default(),
        }
    }

    /// The prediction x̃ of a substep ending at `t_end` (velocities kept for restitution) and the contact
    /// rows that may act in it; attachment multipliers to zero. The solver resets its own multipliers.
    pub fn begin(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        // Only the restitution against colliders reads them.
        if !model.colliders.is_empty() {
            self.v_before.copy_from_slice(&s.v);
        }
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

    /// One substep ending at `t_end`: the prediction, the pre-sweeps over the attachments and contacts,
    /// `solver`'s begin, up to `iterations` iterations (fewer
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
        for _ in 0..self.pre_sweeps {
            self.project(model, &mut s.x, h, t_end);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::schema::{Material, Pin, Solver};
    use crate::scene::{BodyBuilder, SceneBuilder};
    use std::path::Path;

    /// A solver that does nothing but record vertex 0's position when it begins.
    struct Watch(Option<Vec3>);

    impl ConstraintSolver for Watch {
        fn begin(&mut self, _: &Model, s: &mut State, _: f64) -> Result<()> {
            self.0 = Some(s.x[0]);
            Ok(())
        }
        fn iterate(&mut self, model: &Model, s: &mut State, boundary: &mut SubstepBoundary, h: f64, t_end: f64) -> Result<bool> {
            boundary.project(model, &mut s.x, h, t_end);
            Ok(false)
        }
        fn finish(&mut self, _: &mut State, _: bool) -> Result<()> {
            Ok(())
        }
    }

    /// MGPBD's `pre_sweeps` pass over the soft attachments between the prediction and the solver's start: vertex 0,
    /// attached to a target moving at 1 m/s, is where the prediction left it when the solver begins without
    /// them, and one attachment projection further with them.
    #[test]
    fn pre_sweeps_run_between_the_prediction_and_the_solver() {
        let begin_at = |pre_sweeps: usize| {
            let pull = Pin { indices: Some(vec![0]), velocity: [1.0, 0.0, 0.0], compliance: 1e-6, ..Default::default() };
            let body = BodyBuilder::new("b").box_mesh([1.0; 3], [1, 1, 1]).material(Material::tet("arap", 1e5, 0.3, 1000.0)).pin(pull);
            let built =
                SceneBuilder::new("t").dt(0.01).gravity([0.0; 3]).solver(Solver::mgpbd().pre_sweeps(pre_sweeps)).body(body).built(Path::new(".")).unwrap();
            let (model, config) = (built.model, built.config);
            let mut s = State::initial(&model);
            let mut boundary = SubstepBoundary::new(&model, &config);
            let mut watch = Watch(None);
            boundary.substep(&mut watch, 1, &model, &mut s, 0.01, 0.01, false).unwrap();
            (watch.0.unwrap(), model.attachments[0].origin)
        };
        let ((none, rest), (one, _), (three, _)) = (begin_at(0), begin_at(1), begin_at(3));
        assert_eq!(none, rest, "the prediction leaves a resting vertex where it is");
        assert!(one.x > rest.x + 1e-3 && one.y == rest.y && one.z == rest.z, "one pre-sweep pulls it along x: {one:?}");
        // One XPBD pass solves a lone attachment row exactly (the next Δλ is 0), so further passes leave it.
        assert!((three - one).norm() < 1e-15, "{three:?} vs {one:?}");
    }
}
