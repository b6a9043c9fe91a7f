//! The energy a scene can hold at a frame, the yardstick of the `energy` health check: its energy at
//! frame 0, the work gravity has done since, its energy at unit strain and the kinetic energy of its
//! mass moving at its fastest driver's speed. Elastic + kinetic energy far above it was not put in by
//! anything in the scene: the solve blew up (docs/robustness.md).

use xpbd_core::metrics::{elastic_energy, kinetic_energy};
use xpbd_core::model::Model;
use xpbd_core::state::State;

/// The parts of the budget fixed at load (J, kg).
#[derive(Clone, Debug)]
pub struct EnergyBudget {
    /// Elastic + kinetic energy of the initial state.
    initial: f64,
    /// Σ (μ + λ)V over tetrahedra, Σ ½L₀²/α over compliant cloth edges, Σ ½/α over compliant hinges and
    /// Σ [(μ + λ)t + 2D/t²]A over shell triangles: the elastic energy of the whole scene at strain (or bend) 1.
    unit_strain: f64,
    /// Total mass.
    mass: f64,
}

impl EnergyBudget {
    pub fn of(model: &Model) -> Self {
        let initial = elastic_energy(model, &model.initial_position) + kinetic_energy(model, &model.initial_velocity);
        let tets: f64 = model.tet_groups.iter().map(|g| (g.lame.mu + g.lame.lambda) * g.rest.iter().map(|r| r.volume).sum::<f64>()).sum();
        let cloth: f64 = model
            .cloth_groups
            .iter()
            .map(|g| {
                let stretch = if g.stretch_compliance > 0.0 { g.rest_length.iter().map(|l| 0.5 * l * l).sum::<f64>() / g.stretch_compliance } else { 0.0 };
                let bend = g.bending_compliance.iter().filter(|&&a| a > 0.0).map(|a| 0.5 / a).sum::<f64>();
                stretch + bend
            })
            .sum();
        // A shell at unit membrane strain, and bent to unit strain at its faces (κ = 2/t: D/2·κ² = 2D/t² per area).
        let shells: f64 = model
            .shell_groups
            .iter()
            .map(|g| {
                let (mu, lambda) = g.material.plane_stress();
                let t = g.material.thickness;
                let per_area = (mu + lambda) * t + 2.0 * g.material.plate_modulus() / (t * t);
                per_area * g.triangle_rest.iter().map(|r| r.area).sum::<f64>()
            })
            .sum();
        EnergyBudget { initial, unit_strain: tets + cloth + shells, mass: model.mass.iter().sum() }
    }

    /// The budget at `state`: initial + max(gravity's work, 0) + unit-strain energy + ½ M v_d², v_d the
    /// fastest moving pin, or collider point at the vertices' initial positions.
    pub fn at(&self, model: &Model, state: &State) -> f64 {
        let free = model.inv_mass.iter().map(|&w| w > 0.0);
        let gravity_work: f64 = model
            .mass
            .iter()
            .zip(free)
            .zip(state.x.iter().zip(&model.initial_position))
            .filter(|((_, f), _)| *f)
            .map(|((m, _), (x, x0))| m * model.gravity.dot(&(x - x0)))
            .sum();
        let pins = model.attachments.iter().map(|a| a.velocity.norm());
        let colliders = model.colliders.iter().flat_map(|c| model.initial_position.iter().map(move |x0| c.velocity_at(x0, state.time).norm()));
        let driver = pins.chain(colliders).fold(0.0, f64::max);
        self.initial + gravity_work.max(0.0) + self.unit_strain + 0.5 * self.mass * driver * driver
    }
}
