//! Helpers shared by the physics tests: a scene header, a model + state + CPU backend bundle.
#![allow(dead_code)]

pub mod implicit_run;
pub mod incline;
pub mod intersections;

use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::schema::Solver;
use xpbd_core::scene::{Built, Scene, SceneBuilder};
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::state::State;
use xpbd_cpu::CpuBackend;

/// Builds a scene; panics with the error message on failure.
pub fn built(scene: &Scene) -> Built {
    xpbd_core::scene::build(scene, Path::new(".")).unwrap_or_else(|e| panic!("scene '{}' does not build: {e}", scene.name))
}

/// A model, its solver configuration, its state and a CPU backend (the constraint solvers', or the implicit one).
pub struct Sim<B: Backend = CpuBackend> {
    pub model: Model,
    pub config: SolverConfig,
    pub state: State,
    pub backend: B,
}

impl Sim {
    pub fn new(scene: &Scene) -> Self {
        Sim::with(scene, CpuBackend::new)
    }
}

impl<B: Backend> Sim<B> {
    fn with(scene: &Scene, backend: impl FnOnce(&Model, &SolverConfig) -> B) -> Self {
        let Built { model, config, .. } = built(scene);
        let state = State::initial(&model);
        let backend = backend(&model, &config);
        Sim { model, config, state, backend }
    }

    /// Advances `n` frames; panics on a non-finite state.
    pub fn frames(&mut self, n: usize) {
        for _ in 0..n {
            self.frame();
        }
    }

    pub fn frame(&mut self) {
        self.backend.step_frame(&self.model, &mut self.state).expect("the CPU backend does not fail");
        if let Some(v) = self.state.first_non_finite() {
            panic!("vertex {v} not finite after frame {}", self.state.frame);
        }
    }

    pub fn total_mass(&self) -> f64 {
        self.model.mass.iter().sum()
    }

    /// Mass-weighted centre of the current positions.
    pub fn centre_of_mass(&self) -> Vec3 {
        self.model.mass.iter().zip(&self.state.x).map(|(m, x)| x * *m).sum::<Vec3>() / self.total_mass()
    }

    /// Largest |x − rest| over all vertices.
    pub fn max_displacement(&self) -> f64 {
        self.state.x.iter().zip(&self.model.rest).map(|(x, r)| (x - r).norm()).fold(0.0, f64::max)
    }
}

/// A scene "test" of one frame without output: the `[simulation]` table and an XPBD `[solver]` with `ordering`.
pub fn sim_header(dt: f64, substeps: usize, iterations: usize, gravity: [f64; 3], damping: f64, ordering: &str) -> SceneBuilder {
    SceneBuilder::new("test")
        .dt(dt)
        .frames(1)
        .substeps(substeps)
        .iterations(iterations)
        .gravity(gravity)
        .velocity_damping(damping)
        .solver(Solver::xpbd(ordering))
        .formats(&["none"])
}

/// The tet material models.
pub const TET_MODELS: [&str; 4] = ["neohookean_block", "neohookean", "stvk", "arap"];
