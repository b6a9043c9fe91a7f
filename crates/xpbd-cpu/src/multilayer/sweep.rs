//! The elastic sweep of a layer (Algorithm 2 line 17), skipping the elements rigid in the layer. By default
//! a Gauss-Seidel by colors of the element graph, the parallel layers of the multi-layer paper §3.1: the
//! colors run one after another, the elements of a color (which share no vertex) in parallel with rayon.
//! The coloring is the colored XPBD sweep's (block paper, Algorithm 2), cached per topology by
//! `xpbd_core::graph::partition`, over every tet group's elements at once. An element's update touches only
//! its own vertices and multipliers, so the result does not depend on the thread count. With
//! `layer_sweep = "serial"` one batch holds every element in index order and runs on one thread (XPBD's
//! serial order, which converges faster per iteration on our meshes).

use crate::block_families::GRAIN;
use crate::shared::SharedMut;
use rayon::prelude::*;
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::constraint::tet_model::{gather, project_tet, TetModel, TetParams};
use xpbd_core::graph::partition::partitions;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::layers::settings::LayerSweep;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

pub struct ElasticSweep {
    /// A batch per color, an item per element (elements numbered over all groups, as `Multilayer::tets`);
    /// one batch of every element for the serial sweep.
    schedule: Schedule,
    /// Whether a batch's elements run in parallel (they share no vertex): not for the serial sweep.
    parallel: bool,
    /// The elements in execution order, color after color, so that their data streams through the cache
    /// as in a serial sweep (as the colored XPBD sweep permutes its model).
    elements: Vec<Element>,
}

/// What the sweep reads of one element.
struct Element {
    tet: [u32; 4],
    rest: TetRest,
    /// Its index over all groups (into a layer's `element_body`).
    index: u32,
    group: u32,
    /// Where its multipliers start.
    lambda_at: usize,
}

impl Element {
    /// Projects the element (parameters `p`, `rows` multipliers) at `x` with inverse masses `w`, applying
    /// the change as a correction, as the XPBD sweep does (so one layer is bit-identical to it).
    ///
    /// # Safety
    /// No other thread may access the element's vertices or multipliers meanwhile.
    #[inline(always)]
    unsafe fn project(&self, p: &TetParams, rows: usize, w: &[f64], x: &SharedMut<Vec3>, lambda: &SharedMut<f64>) {
        let t = &self.tet;
        let before = [x.get(t[0] as usize), x.get(t[1] as usize), x.get(t[2] as usize), x.get(t[3] as usize)];
        let mut xl = before;
        project_tet(p, &self.rest, &gather(w, t), &mut xl, &before, lambda.slice(self.lambda_at, rows));
        for n in 0..4 {
            x.update(t[n] as usize, |q| *q += xl[n] - before[n]);
        }
    }
}

impl ElasticSweep {
    /// The `order` schedule of `tets` (with rest data `rest`), every tet group of `model` in group order.
    pub fn new(model: &Model, tets: &[[u32; 4]], rest: &[TetRest], order: LayerSweep) -> Self {
        let schedule = match order {
            LayerSweep::Colored => Schedule::colored(&partitions(tets, model.vertex_count(), 1).colored),
            // One batch of one-element items in index order, run on one thread (below).
            LayerSweep::Serial => Schedule::independent(tets.len()),
        };
        let mut of_group = Vec::with_capacity(tets.len());
        for (g, tg) in model.tet_groups.iter().enumerate() {
            of_group.extend((0..tg.tets.len()).map(|e| (g as u32, tg.lambda_offset + e * tg.model.rows())));
        }
        let element = |e: u32| {
            let (group, lambda_at) = of_group[e as usize];
            Element { tet: tets[e as usize], rest: rest[e as usize], index: e, group, lambda_at }
        };
        let elements = schedule.execution_order().into_iter().map(element).collect();
        ElasticSweep { schedule, parallel: order == LayerSweep::Colored, elements }
    }

    /// The schedule the sweep runs.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// One sweep over the elements that `element_body` leaves elastic, the stable neo-Hookean pair always
    /// as one block ([`coupled`]).
    pub fn run(&self, model: &Model, element_body: &[Option<u32>], x: &mut [Vec3], lambda: &mut [f64], h: f64) {
        let params: Vec<(TetParams, usize)> =
            model.tet_groups.iter().map(|g| (TetParams::new(coupled(g.model), g.lame, g.damping, h), g.model.rows())).collect();
        let (x, lambda, w) = (SharedMut::new(x), SharedMut::new(lambda), &model.inv_mass);
        let project = |el: &Element| {
            if element_body[el.index as usize].is_none() {
                let (p, rows) = &params[el.group as usize];
                // SAFETY: the elements of a color share no vertex (and no multiplier), and each runs on one
                // thread; the serial sweep's one batch runs on this thread alone.
                unsafe { el.project(p, *rows, w, &x, &lambda) }
            }
        };
        // With one item per element, a batch's items are its elements' places in execution order.
        for b in 0..self.schedule.batches() {
            let batch = &self.elements[self.schedule.batch(b)];
            match self.parallel {
                true => batch.par_iter().with_min_len(GRAIN).for_each(project),
                false => batch.iter().for_each(project),
            }
        }
    }
}

/// The projection the multi-layer solver uses for a tet model: the stable neo-Hookean pair is solved
/// as one coupled 2×2 block also for `neohookean` (as Eq. 8 solves coupled rows together). Solved one
/// after the other from λ = 0, the pair's rows (C_H = 1 − γ, C_D = √3 at rest) leave a displacement
/// that depends on the order of the projections; the layers change that order every substep, which
/// turned the decoupled pair's static rest drift into a vibration of ~1 m/s (docs/multilayer.md).
fn coupled(model: TetModel) -> TetModel {
    match model {
        TetModel::NeoHookean => TetModel::NeoHookeanBlock,
        other => other,
    }
}
