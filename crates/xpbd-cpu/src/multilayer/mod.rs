//! Multi-layer XPBD (the multi-layer paper's Algorithm 2; docs/multilayer.md): each substep builds layers
//! from the previous substep's strain rates (Algorithm 1), then runs them coarse to fine. A layer
//! steps the vertices that became elastic with their residual velocities, builds and steps its rigid
//! bodies, and iterates the elastic elements (Gauss-Seidel by colors, each color in parallel: §3.1,
//! `sweep.rs`) followed by the glue constraints (Jacobi per body). The last layer is fully elastic.
//! Velocities are `(x − x_start)/h` at the end. Results do not depend on the thread count.
//! The layer-stop criterion (§3.6) is optional (`solver.layer_stop`). Collider contacts (Eq. 28–29) carry
//! Coulomb friction and follow moving colliders (`contact.rs`). Constraint damping, soft or moving pins
//! and cloth are not built yet (`SolverConfig::requirements` refuses such scenes).

mod bodies;
mod contact;
mod glue;
mod sweep;

use crate::block_families::VERTEX_GRAIN;
use bodies::LayerBodies;
use contact::ContactRows;
use rayon::prelude::*;
use std::time::Instant;
use sweep::ElasticSweep;
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::contact::detect::Detector;
use xpbd_core::contact::restitution::restitute;
use xpbd_core::contact::rows::{Iterate, PairRow};
use xpbd_core::contact::ContactForces;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::layers::hierarchy::{build_layers, rigid_count, Layer};
use xpbd_core::layers::order_key::OrderKey;
use xpbd_core::layers::schedule::{element_order, ElementOrder};
use xpbd_core::layers::settings::MultilayerSettings;
use xpbd_core::mesh::Vec3;
use xpbd_core::metrics::residual_norm;
use xpbd_core::model::Model;
use xpbd_core::state::State;
use xpbd_core::substep::{integrate, SubstepReport};
use xpbd_core::{Error, Result};

pub struct Multilayer {
    settings: MultilayerSettings,
    /// Every tet group's tets in one array, groups in order.
    tets: Vec<[u32; 4]>,
    rest: Vec<TetRest>,
    sweep: ElasticSweep,
    /// Whether each element has a pinned vertex (pins are fixed for the run).
    pinned_element: Vec<bool>,
    /// The ordering key of the previous substep (strain rate or modal stretch, §4.1).
    key: OrderKey,
    x_start: Vec<Vec3>,
    v_start: Vec<Vec3>,
    v_res: Vec<Vec3>,
    contacts: ContactRows,
    /// Contacts between and within bodies: this substep's rows, solved on elastic vertices only (a rigid
    /// vertex counts as immovable in them).
    detector: Detector,
    pairs: Vec<PairRow>,
    substeps: u64,
    /// Seconds spent ordering elements and merging them (sort + union-find), and in whole substeps.
    pub hierarchy_seconds: f64,
    pub substep_seconds: f64,
    /// When set, `layer_residuals` receives ‖C + α̃λ‖ after each layer of every reported substep
    /// (for the studies; the evaluation is excluded from the timings).
    pub record_layers: bool,
    pub layer_residuals: Vec<f64>,
    /// When set, `iteration_trace` receives (solver seconds since the substep began, ‖C + α̃λ‖) after
    /// each iteration of every reported substep, and `rigid_elements` each layer's rigid element count
    /// after `dissolve_pinned` (for benches/multilayer_studies.rs; evaluations excluded from the timings).
    pub record_iterations: bool,
    pub iteration_trace: Vec<(f64, f64)>,
    pub rigid_elements: Vec<usize>,
    /// Iterations each layer ran in the last substep (fewer than scheduled under `layer_stop`).
    pub iterations_run: Vec<usize>,
    /// Collider contact rows solved on rigid vertices, through the glue procedure, in the last substep
    /// (once per row and iteration).
    pub rigid_contacts: usize,
}

impl Multilayer {
    /// The solver of `settings` for `model`.
    pub fn new(model: &Model, settings: &MultilayerSettings) -> Self {
        let settings = settings.clone();
        let order = settings.order;
        let (mut tets, mut rest) = (Vec::new(), Vec::new());
        for g in &model.tet_groups {
            tets.extend_from_slice(&g.tets);
            rest.extend_from_slice(&g.rest);
        }
        let n = model.vertex_count();
        let sweep = ElasticSweep::new(model, &tets, &rest, settings.sweep);
        let pinned_element = tets.iter().map(|t: &[u32; 4]| t.iter().any(|&v| model.inv_mass[v as usize] == 0.0)).collect();
        Multilayer {
            settings,
            tets,
            rest,
            sweep,
            pinned_element,
            key: OrderKey::new(order, model),
            x_start: vec![Vec3::zeros(); n],
            v_start: vec![Vec3::zeros(); n],
            v_res: vec![Vec3::zeros(); n],
            contacts: ContactRows::new(&model.colliders, n),
            detector: Detector::default(),
            pairs: Vec::new(),
            substeps: 0,
            hierarchy_seconds: 0.0,
            substep_seconds: 0.0,
            record_layers: false,
            layer_residuals: Vec::new(),
            record_iterations: false,
            iteration_trace: Vec::new(),
            rigid_elements: Vec::new(),
            iterations_run: Vec::new(),
            rigid_contacts: 0,
        }
    }

    /// Contact rows that pushed in the last substep: pairs, and vertices on colliders.
    pub fn active_contacts(&self) -> usize {
        self.pairs.iter().filter(|r| r.pushes()).count() + self.contacts.active()
    }

    /// The normal contact forces of the last substep (of length `h`, ending at `x`): its pair rows and its
    /// collider rows ([`ContactForces::of`]; a collider row's penalty multiplier is an impulse like any other).
    pub fn contact_forces(&self, x: &[Vec3], h: f64) -> ContactForces {
        ContactForces::of(&self.pairs, &self.contacts.pushed(x), x.len(), h)
    }

    /// The schedule of the elastic sweep (elements numbered over every tet group, in group order).
    pub fn elastic_schedule(&self) -> &Schedule {
        self.sweep.schedule()
    }

    pub fn layer_count(&self) -> usize {
        self.settings.rigid_fractions.len()
    }

    /// The ordering key (strain rates, or the modal stretch of `layer_order = "stretch"`) of the last
    /// substep, the one thing a substep takes from the one before (empty before the first); saved in
    /// checkpoints.
    pub fn strain_rates(&self) -> &[f64] {
        self.key.rate()
    }

    /// Resumes after `state.frame` frames of `substeps` substeps with the saved strain `rates`: the strains
    /// from the positions, the substep counter (the random order's seed) from the frame.
    pub fn restore(&mut self, substeps: usize, state: &State, rates: &[f64]) -> Result<()> {
        if rates.len() != self.tets.len() && !(rates.is_empty() && state.frame == 0) {
            return Err(Error::invalid(format!("the checkpoint holds {} strain rates, the multi-layer solver needs {}", rates.len(), self.tets.len())));
        }
        if !rates.is_empty() {
            self.key.restore(&self.tets, &self.rest, &state.x, rates);
        }
        self.substeps = (state.frame * substeps) as u64;
        Ok(())
    }

    /// Takes over `other`'s ordering key (when both order by the same key) and substep count, so that this solver's settings run from
    /// the same point of a trajectory as `other` (the studies compare settings side by side).
    pub fn resume_from(&mut self, other: &Multilayer) {
        if std::mem::discriminant(&self.key) == std::mem::discriminant(&other.key) {
            self.key = other.key.clone();
        }
        self.substeps = other.substeps;
    }

    /// Sets the ordering key from the positions at the start of the previous substep, `x_prev`, and of
    /// this one, `x`, `h` apart, as the previous substep leaves it (the studies run orders whose key
    /// the reference run does not keep).
    pub fn prime_key(&mut self, x_prev: &[Vec3], x: &[Vec3], h: f64) {
        self.key.update(&self.tets, &self.rest, x_prev, h);
        self.key.update(&self.tets, &self.rest, x, h);
    }

    /// One substep of length `h` ending at time `t_end` (Algorithm 2; colliders are where they are at
    /// `t_end`) with velocity damping `velocity_damping` (1/s). With `report`, returns ‖r₀‖ at the
    /// prediction x̃ = x + h v (what XPBD starts from), ‖r‖ = ‖C + α̃λ‖ at the end, and the seconds spent
    /// evaluating them.
    pub fn substep(&mut self, model: &Model, velocity_damping: f64, s: &mut State, h: f64, t_end: f64, report: bool) -> Option<SubstepReport> {
        let start = Instant::now();
        let mut excluded = 0.0;
        // Lines 1–2: x^{t+1} = x^t, residual velocities v + h M⁻¹ f_ext (damped as in `integrate::predict`).
        let damp = (-velocity_damping * h).exp();
        self.x_start.copy_from_slice(&s.x);
        self.v_start.copy_from_slice(&s.v);
        self.contacts.reset(h, t_end);
        self.rigid_contacts = 0;
        let g = model.gravity * h;
        let (v_res, v, w) = (self.v_res.par_iter_mut().with_min_len(VERTEX_GRAIN), &s.v, &model.inv_mass);
        v_res.zip(v).zip(w).for_each(|((r, v), &w)| *r = if w > 0.0 { v * damp + g } else { Vec3::zeros() });
        s.lambda.fill(0.0);
        let predicted: Vec<Vec3> = s.x.par_iter().with_min_len(VERTEX_GRAIN).zip(&self.v_res).map(|(x, v)| x + v * h).collect();
        self.detector.detect(&model.contact, &model.rest, &model.inv_mass, &self.x_start, &predicted, &mut self.pairs);
        let r0 = report.then(|| {
            let t = Instant::now();
            let r0 = residual_norm(model, &predicted, &s.lambda, h);
            excluded += t.elapsed().as_secs_f64();
            r0
        });
        // Line 3: the layers from the previous substep's strain rates (all zero on the first substep).
        let t = Instant::now();
        if self.key.rate().len() != self.tets.len() {
            self.key.update(&self.tets, &self.rest, &s.x, h);
        }
        let centroid: Vec<Vec3> = match self.settings.order {
            ElementOrder::Stripes { .. } => self.tets.iter().map(|t| t.iter().map(|&v| s.x[v as usize]).sum::<Vec3>() / 4.0).collect(),
            _ => Vec::new(),
        };
        let counts: Vec<usize> = self.settings.rigid_fractions.iter().map(|&f| rigid_count(f, self.tets.len())).collect();
        let order = element_order(self.settings.order, self.key.rate(), &centroid, self.substeps, &counts);
        let mut layers = build_layers(&self.tets, s.x.len(), &order, &self.settings.rigid_fractions);
        if self.pinned_element.iter().any(|&p| p) {
            layers.iter_mut().for_each(|l| dissolve_pinned(l, &self.pinned_element));
        }
        self.hierarchy_seconds += t.elapsed().as_secs_f64();
        let mut was_rigid: Option<Vec<Option<u32>>> = None;
        self.layer_residuals.clear();
        self.iterations_run.clear();
        self.iteration_trace.clear();
        self.rigid_elements.clear();
        let trace = report && self.record_iterations;
        let mut stop = self.settings.layer_stop.map(|tol| LayerStop { tol, last: residual_norm(model, &s.x, &s.lambda, h), armed: false });
        for (l, layer) in layers.iter().enumerate() {
            let rigid = layer.vertex_body(&self.tets, s.x.len());
            // Lines 5–8: vertices elastic from this layer on take their residual step.
            let (x, v_res) = (s.x.par_iter_mut().with_min_len(VERTEX_GRAIN), self.v_res.par_iter_mut());
            x.zip(v_res).enumerate().filter(|&(i, _)| rigid[i].is_none() && was_rigid.as_ref().is_none_or(|w| w[i].is_some())).for_each(|(_, (x, v))| {
                *x += *v * h;
                *v = Vec3::zeros();
            });
            // Lines 9–16.
            let mut lb = LayerBodies::build(layer, &self.tets, &s.x, &self.v_res, &model.mass);
            lb.step(h, &mut s.x, &mut self.v_res);
            // Lines 17–19: elastic constraints and contacts, then the rigid constraints last.
            let interior = lb.interior_mask(s.x.len());
            let elastic_inv_mass: Vec<f64> =
                model.inv_mass.par_iter().with_min_len(VERTEX_GRAIN).zip(&interior).map(|(&w, &r)| if r { 0.0 } else { w }).collect();
            let last_layer = l + 1 == layers.len();
            if trace {
                let t = Instant::now();
                self.rigid_elements.push(layer.element_body.iter().filter(|b| b.is_some()).count());
                excluded += t.elapsed().as_secs_f64();
            }
            let mut run = 0;
            while run < self.settings.layer_iterations[l] {
                self.sweep.run(model, &layer.element_body, &mut s.x, &mut s.lambda, h);
                self.contacts.solve_elastic(&mut s.x, &self.x_start, &model.inv_mass, &interior);
                if !self.pairs.is_empty() {
                    let mut it = Iterate { x: &mut s.x, x_prev: &self.x_start, inv_mass: &elastic_inv_mass, t: t_end, h };
                    self.pairs.iter_mut().for_each(|r| r.project(model.contact.thickness, &mut it));
                }
                self.rigid_contacts += glue::solve(&mut lb, &mut s.x, &self.x_start, &model.inv_mass, &mut self.contacts);
                run += 1;
                if trace {
                    let t = Instant::now();
                    let r = residual_norm(model, &s.x, &s.lambda, h);
                    self.iteration_trace.push((t.duration_since(start).as_secs_f64() - excluded, r));
                    excluded += t.elapsed().as_secs_f64();
                }
                if let Some(stop) = stop.as_mut().filter(|_| !last_layer) {
                    if stop.settled(residual_norm(model, &s.x, &s.lambda, h)) {
                        break;
                    }
                }
            }
            self.iterations_run.push(run);
            // Lines 20–22.
            lb.rotate_residuals(&mut self.v_res);
            was_rigid = Some(rigid);
            if report && self.record_layers {
                let t = Instant::now();
                self.layer_residuals.push(residual_norm(model, &s.x, &s.lambda, h));
                excluded += t.elapsed().as_secs_f64();
            }
        }
        // Line 24.
        // Lines 24–25.
        integrate::update_velocities(s, &self.x_start, h);
        restitute(self.contacts.contacts(&s.x), &mut s.v, &self.v_start, model.gravity.norm(), h);
        self.key.update(&self.tets, &self.rest, &s.x, h);
        self.substeps += 1;
        self.substep_seconds += start.elapsed().as_secs_f64() - excluded;
        r0.map(|r0| {
            let t = Instant::now();
            let r = residual_norm(model, &s.x, &s.lambda, h);
            SubstepReport { r0, r, seconds: excluded + t.elapsed().as_secs_f64() }
        })
    }
}

/// Makes the groups that hold a pinned vertex (an element with `pinned_element`) elastic. A pinned
/// group cannot move, and glueing elastic vertices to it acts as an extra pin whose reactions no elastic
/// multiplier records: the solver then settles away from XPBD's answer (docs/multilayer.md).
fn dissolve_pinned(layer: &mut Layer, pinned_element: &[bool]) {
    let mut pinned = vec![false; layer.bodies];
    for (&p, b) in pinned_element.iter().zip(&layer.element_body) {
        if let Some(b) = b {
            pinned[*b as usize] |= p;
        }
    }
    layer.dissolve(&pinned);
}

/// The layer-stop criterion (§3.6) over one substep.
struct LayerStop {
    tol: f64,
    /// ‖C + α̃λ‖ after the previous iteration.
    last: f64,
    /// Set at the first decrease of the residual.
    armed: bool,
}

impl LayerStop {
    /// Takes the residual after an iteration; true when the layer should end.
    fn settled(&mut self, r: f64) -> bool {
        let change = (self.last - r).abs();
        self.armed |= r < self.last;
        self.last = r;
        self.armed && change < self.tol
    }
}
