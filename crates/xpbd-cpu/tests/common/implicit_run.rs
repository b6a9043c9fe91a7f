//! A model, its state and the implicit backend (`kind = "implicit"` or `"adaptive"`), for the shell and
//! implicit-contact tests.

use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::{Built, SceneBuilder};
use xpbd_core::state::State;
use xpbd_cpu::implicit::ImplicitBackend;

pub struct ImplicitRun {
    pub model: Model,
    pub state: State,
    pub backend: ImplicitBackend,
}

impl ImplicitRun {
    pub fn new(scene: SceneBuilder) -> Self {
        Self::of(&scene.build())
    }

    /// Loads the shipped `scenes/<name>.toml`.
    pub fn load(name: &str) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenes/{name}.toml"));
        Self::of(&xpbd_core::scene::load(&path).unwrap_or_else(|e| panic!("{name}: {e}")))
    }

    pub fn of(scene: &xpbd_core::scene::Scene) -> Self {
        let Built { model, config, .. } = super::built(scene);
        let state = State::initial(&model);
        let backend = ImplicitBackend::new(&model, &config);
        ImplicitRun { model, state, backend }
    }

    /// Advances `n` frames; panics on a non-finite state.
    pub fn frames(&mut self, n: usize) {
        for _ in 0..n {
            self.backend.step_frame(&self.model, &mut self.state).unwrap();
            assert!(self.state.first_non_finite().is_none(), "non-finite state at frame {}", self.state.frame);
        }
    }

    /// Σ m v.
    pub fn momentum(&self) -> Vec3 {
        self.model.mass.iter().zip(&self.state.v).map(|(m, v)| v * *m).sum()
    }
}
