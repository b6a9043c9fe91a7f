//! The simulation state: what changes during a run.

use crate::mesh::Vec3;
use crate::model::Model;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub x: Vec<Vec3>,
    pub v: Vec<Vec3>,
    /// Multipliers of the elastic rows (reset each substep; kept for reporting the residual).
    pub lambda: Vec<f64>,
    pub time: f64,
    /// Frames completed.
    pub frame: usize,
}

impl State {
    /// The scene's initial positions (the rest state unless a body starts deformed) and velocities.
    pub fn initial(model: &Model) -> Self {
        State { x: model.initial_position.clone(), v: model.initial_velocity.clone(), lambda: vec![0.0; model.rows], time: 0.0, frame: 0 }
    }

    /// The first vertex with a non-finite position or velocity.
    pub fn first_non_finite(&self) -> Option<usize> {
        let bad = |p: &Vec3| !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite());
        self.x.iter().zip(&self.v).position(|(x, v)| bad(x) || bad(v))
    }
}
