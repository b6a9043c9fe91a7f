//! The contacts of one substep: detected after the prediction, projected after every constraint iteration
//! (the pairs first, the colliders last, each in a fixed order, so runs repeat bit for bit), and restitution
//! after the velocity update.

use super::detect::Detector;
use super::restitution::{restitute, Contact};
use super::rows::{ColliderRow, Iterate, PairRow};
use crate::mesh::Vec3;
use crate::model::Model;
use std::time::Instant;

#[derive(Default)]
pub struct ContactSet {
    pub detector: Detector,
    pub pairs: Vec<PairRow>,
    pub colliders: Vec<ColliderRow>,
    /// Wall seconds spent detecting and projecting since the set was made (for benchmarks).
    pub detect_seconds: f64,
    pub project_seconds: f64,
}

impl ContactSet {
    /// The rows that may act in the substep from `x0` to the prediction `x1` ending at `t_end`: pairs of
    /// surface primitives, and every movable surface vertex within reach of a collider (its signed distance
    /// at x̃ below the thickness plus twice its predicted move).
    pub fn detect(&mut self, model: &Model, x0: &[Vec3], x1: &[Vec3], t_end: f64) {
        let start = Instant::now();
        self.detect_rows(model, x0, x1, t_end);
        self.detect_seconds += start.elapsed().as_secs_f64();
    }

    fn detect_rows(&mut self, model: &Model, x0: &[Vec3], x1: &[Vec3], t_end: f64) {
        let c = &model.contact;
        self.detector.detect(c, &model.rest, &model.inv_mass, x0, x1, &mut self.pairs);
        self.colliders.clear();
        if model.colliders.is_empty() {
            return;
        }
        for &v in &c.surface.vertices {
            let i = v as usize;
            if model.inv_mass[i] == 0.0 {
                continue;
            }
            let reach = c.thickness + 2.0 * (x1[i] - x0[i]).norm();
            for (k, collider) in model.colliders.iter().enumerate() {
                if collider.signed_distance(&x1[i], t_end).0 < reach {
                    self.colliders.push(ColliderRow::new(v, k as u32));
                }
            }
        }
    }

    /// One pass over every row.
    pub fn project(&mut self, model: &Model, x: &mut [Vec3], x0: &[Vec3], h: f64, t_end: f64) {
        let start = Instant::now();
        let mut it = Iterate { x, x_prev: x0, inv_mass: &model.inv_mass, t: t_end, h };
        let thickness = model.contact.thickness;
        self.pairs.iter_mut().for_each(|r| r.project(thickness, &mut it));
        self.colliders.iter_mut().for_each(|r| r.project(&model.colliders[r.collider as usize], &mut it));
        self.project_seconds += start.elapsed().as_secs_f64();
    }

    /// No rows this substep.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty() && self.colliders.is_empty()
    }

    /// Rows that push (λ_n > 0).
    pub fn active(&self) -> usize {
        self.pairs.iter().filter(|r| r.pushes()).count() + self.colliders.iter().filter(|r| r.pushes()).count()
    }

    /// Restitution of the collider contacts that pushed, after the velocity update.
    pub fn restitute(&self, model: &Model, v: &mut [Vec3], v_before: &[Vec3], h: f64) {
        let touched = self.colliders.iter().filter(|r| r.pushes());
        let contacts = touched.map(|r| Contact { vertex: r.vertex, normal: r.normal, restitution: model.colliders[r.collider as usize].restitution });
        restitute(contacts, v, v_before, model.gravity.norm(), h);
    }
}
