//! Newton's method with an Armijo line search on the incremental potential of backward Euler (thesis "Adaptive
//! methods for elastic deformation", Eq. 4.7–4.8, Algorithm 3 without rigid bodies):
//!
//! Q(ẋ) = ½(ẋ − ẋ_t)ᵀM(ẋ − ẋ_t) + Ψ(x_t + hẋ) − h ẋᵀM g + ½ h α₀ ẋᵀMẋ + Σ_springs ½k‖x̄(t) − (x_t + hẋ)‖²,
//!
//! minimised over the elastic vertices' velocities; each iteration solves [(1 + hα₀)M + h(h + α₁)K]Δẋ = −∇Q with
//! K (projected PSD per element) and the forces at the iterate, then halves the step until Q decreases by at least
//! 10⁻⁴ of the step's predicted decrease (at most ten halvings). Stiffness-proportional damping −α₁Kẋ enters the
//! gradient with the iterate's K but not Q, which has no such potential. It runs while no element is rigid; a step
//! with rigid bodies takes the semi-implicit linearised step.

use super::shells::ShellStates;
use super::system::Inputs;
use super::ImplicitBackend;
use std::time::Instant;
use xpbd_core::fem::element::ElementState;
use xpbd_core::implicit::dofs::VertexDof;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::state::State;
use xpbd_core::Result;

/// Armijo's sufficient-decrease fraction σ.
const ARMIJO: f64 = 1e-4;
/// Step halvings before a step is taken as it is.
const HALVINGS: usize = 10;

/// The elastic energy of one evaluation: tets and shell stencils.
fn stored_energy(states: &[ElementState], shells: &ShellStates) -> f64 {
    states.iter().map(|s| s.energy).sum::<f64>() + shells.energy()
}

/// An iterate: velocities, positions x_t + hẋ, the element states there and Q.
struct Iterate {
    v: Vec<Vec3>,
    y: Vec<Vec3>,
    states: Vec<ElementState>,
    shells: ShellStates,
    merit: f64,
}

impl ImplicitBackend {
    /// The iterate of the reduced velocities `va` (every node elastic or fixed): fixed vertices keep their state
    /// velocity (a moving pin its path's).
    fn iterate(&self, model: &Model, s: &State, va: &[f64], h: f64, t_end: f64) -> Iterate {
        let dofs = &self.system.dofs;
        let v: Vec<Vec3> = dofs
            .vertex
            .iter()
            .enumerate()
            .map(|(i, d)| match *d {
                VertexDof::Elastic(k) => {
                    let st = dofs.node_start[k as usize];
                    Vec3::new(va[st], va[st + 1], va[st + 2])
                }
                _ => s.v[i],
            })
            .collect();
        let y: Vec<Vec3> = s.x.iter().zip(&v).map(|(x, v)| x + v * h).collect();
        let states = self.elements.states(&self.system.elastic, &y);
        let shells = self.shells.states(&self.system.shell_active, &y, true);
        let merit = self.merit(model, s, &v, &y, stored_energy(&states, &shells), h, t_end);
        Iterate { v, y, states, shells, merit }
    }

    /// Q at velocities `v` and positions `y` with elastic energy `stored`.
    #[allow(clippy::too_many_arguments)]
    fn merit(&self, model: &Model, s: &State, v: &[Vec3], y: &[Vec3], stored: f64, h: f64, t_end: f64) -> f64 {
        let dofs = &self.system.dofs;
        let mut q = stored;
        for (i, d) in dofs.vertex.iter().enumerate() {
            if let VertexDof::Elastic(_) = d {
                let m = model.mass[i];
                q += 0.5 * m * (v[i] - s.v[i]).norm_squared() - h * m * model.gravity.dot(&v[i])
                    + 0.5 * h * self.elements.mass_damping[i] * m * v[i].norm_squared();
            }
        }
        for sp in self.springs.iter().filter(|sp| matches!(dofs.vertex[sp.vertex as usize], VertexDof::Elastic(_))) {
            q += 0.5 * sp.stiffness * (sp.origin + sp.velocity * t_end - y[sp.vertex as usize]).norm_squared();
        }
        q
    }

    /// Up to `newton_iterations` Newton iterations from ẋ_t; returns ẋ_A before contact. The last factorisation is
    /// the one the contact solve uses.
    pub(super) fn newton(&mut self, model: &Model, s: &State, h: f64, t_end: f64) -> Result<Vec<f64>> {
        let mut va = self.system.reduced(&s.v, &self.bodies);
        let start = Instant::now();
        let mut at = self.iterate(model, s, &va, h, t_end);
        self.phases.assembly += start.elapsed().as_secs_f64();
        for _ in 0..self.settings.newton_iterations {
            let start = Instant::now();
            let inputs = Inputs { x: &at.y, v: &at.v, mass: &model.mass, gravity: model.gravity, springs: &self.springs, t_end, h, start_velocity: Some(&s.v) };
            let rhs = self.system.assemble(&self.elements, &at.states, &self.shells, &at.shells, &self.bodies, &inputs);
            self.phases.assembly += start.elapsed().as_secs_f64();
            self.factor(t_end)?;
            let dv = self.solve(&rhs, t_end)?;
            // −∇Q·Δẋ: the decrease the linear model predicts for a full step.
            let predicted: f64 = rhs.iter().zip(&dv).map(|(r, d)| r * d).sum();
            let start = Instant::now();
            let mut alpha = 1.0;
            let mut trial = va.clone();
            for halving in 0..=HALVINGS {
                trial.iter_mut().zip(&va).zip(&dv).for_each(|((t, a), d)| *t = a + alpha * d);
                let next = self.iterate(model, s, &trial, h, t_end);
                if next.merit <= at.merit - ARMIJO * alpha * predicted || halving == HALVINGS {
                    at = next;
                    break;
                }
                alpha *= 0.5;
            }
            self.phases.assembly += start.elapsed().as_secs_f64();
            let step = dv.iter().fold(0.0f64, |m, d| m.max((alpha * d).abs()));
            va = trial;
            if step <= 1e-12 * (1.0 + va.iter().fold(0.0f64, |m, a| m.max(a.abs()))) {
                break;
            }
        }
        Ok(va)
    }
}
