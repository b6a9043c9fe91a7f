//! A real MGPBD primal system for the solve-phase tests: the stiff ARAP beam of `mgpbd_beam_stiff_primal.toml`
//! (1200 unknowns of K) at perturbed positions with nonzero multipliers, its K filled by the CPU's
//! `PrimalSolver`, and a smoothed-aggregation hierarchy built for K the way `PrimalSolver::setup` builds it.

use xpbd_core::amg::blocks::rigid_body_modes;
use xpbd_core::amg::{AmgOptions, Hierarchy, Smoother};
use xpbd_core::linear::Setup;
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::alpha_tilde;
use xpbd_core::mgpbd::primal::inverse_alpha;
use xpbd_core::mgpbd::primal_solve::PrimalSolver;
use xpbd_core::mgpbd::rows::Rows;
use xpbd_core::model::Model;

pub struct PrimalSystem {
    pub model: Model,
    pub rows: Rows,
    pub x: Vec<Vec3>,
    pub grads: Vec<[Vec3; 4]>,
    pub inv_alpha: Vec<f64>,
    /// b = −(C + α̃ λ) of the dual system (`xpbd_core::mgpbd::assemble`).
    pub b: Vec<f64>,
    pub options: AmgOptions,
    /// K filled and set up (full) at `x`.
    pub solver: PrimalSolver,
}

/// Positions moved off the rest shape by up to `scale` metres, deterministically.
fn perturbed(m: &Model, scale: f64) -> Vec<Vec3> {
    m.rest.iter().enumerate().map(|(i, p)| p + Vec3::new((1.3 * i as f64).sin(), (0.7 * i as f64).cos(), (2.1 * i as f64).sin()) * scale).collect()
}

/// The rows of a scene at perturbed positions with nonzero λ, and the dual system's α̃ and b.
pub struct DualSystem {
    pub model: Model,
    pub rows: Rows,
    pub x: Vec<Vec3>,
    pub grads: Vec<[Vec3; 4]>,
    pub alpha_tilde: Vec<f64>,
    pub b: Vec<f64>,
}

/// The rows of scene `file` at positions perturbed by `scale`.
pub fn dual_system(file: &str, scale: f64) -> DualSystem {
    dual_system_edited(file, scale, |_| {})
}

/// [`dual_system`] of the scene text after `edit`.
pub fn dual_system_edited(file: &str, scale: f64, edit: impl FnOnce(&mut String)) -> DualSystem {
    let built = super::load(file, edit);
    let model = built.model;
    let rows = built.config.method.mgpbd().expect("an MGPBD scene").rows(&model).unwrap();
    let x = perturbed(&model, scale);
    let lambda: Vec<f64> = (0..rows.len()).map(|i| 1e-6 * (i as f64).cos()).collect();
    let (c, grads): (Vec<f64>, Vec<[Vec3; 4]>) = (0..rows.len()).map(|i| rows.evaluate(&model, i, &x)).unzip();
    let at = alpha_tilde(&rows, built.config.h());
    let b = c.iter().zip(&at).zip(&lambda).map(|((c, at), l)| -(c + at * l)).collect();
    DualSystem { model, rows, x, grads, alpha_tilde: at, b }
}

/// The beam at positions perturbed by `scale`, with AMG `smoother` and coarsening to at most `max_coarse` rows.
pub fn beam_system(smoother: Smoother, max_coarse: usize, scale: f64) -> PrimalSystem {
    let DualSystem { model, rows, x, grads, alpha_tilde: at, b } = dual_system("mgpbd_beam_stiff_primal.toml", scale);
    let options = AmgOptions { smoother, max_coarse, ..AmgOptions::default() };
    let mut solver = PrimalSolver::new(&rows.vertices, &model.inv_mass, options.clone());
    solver.set_alpha_tilde(&at);
    solver.fill(&grads, &model.inv_mass);
    solver.setup(&x, Setup::Full);
    PrimalSystem { inv_alpha: inverse_alpha(&at), model, rows, x, grads, b, options, solver }
}

impl PrimalSystem {
    /// The hierarchy `PrimalSolver::setup` builds for the current K (the same deterministic setup).
    pub fn hierarchy(&self) -> Hierarchy {
        let p = &self.solver.pattern;
        let nf = p.free_count();
        let b = rigid_body_modes(&p.free_positions(&self.x));
        Hierarchy::smoothed_aggregation(&self.solver.k, &self.options, (0..=nf).map(|u| 3 * u).collect(), b, 6)
    }
}
