//! A model, its state and the implicit backend (`kind = "implicit"` or `"adaptive"`), for the shell and
//! implicit-contact tests: [`Sim`] over [`ImplicitBackend`].

use super::Sim;
use std::path::Path;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::{Scene, SceneBuilder};
use xpbd_cpu::implicit::ImplicitBackend;

pub type ImplicitRun = Sim<ImplicitBackend>;

impl Sim<ImplicitBackend> {
    /// A scene of `solver.kind = "implicit"` or `"adaptive"`.
    pub fn of(scene: &Scene) -> Self {
        Sim::with(scene, ImplicitBackend::new)
    }

    pub fn build(scene: SceneBuilder) -> Self {
        Self::of(&scene.build())
    }

    /// Loads the shipped `scenes/<name>.toml`.
    pub fn load(name: &str) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenes/{name}.toml"));
        Self::of(&xpbd_core::scene::load(&path).unwrap_or_else(|e| panic!("{name}: {e}")))
    }

    /// Σ m v.
    pub fn momentum(&self) -> Vec3 {
        self.model.mass.iter().zip(&self.state.v).map(|(m, v)| v * *m).sum()
    }
}
