//! The per-element key that the ascending element orders sort by (the multi-layer paper §4.1): the
//! Green strain rate (Eq. 20) or the modal stretch. It is the one thing a substep takes from the one
//! before, and what a checkpoint saves.

use super::modal_stretch::ModalStretch;
use super::schedule::ElementOrder;
use super::strain_rate::StrainRate;
use crate::constraint::tet::TetRest;
use crate::mesh::Vec3;
use crate::model::Model;

#[derive(Clone, Debug)]
pub enum OrderKey {
    /// Also the key kept (unused) by the random and stripes orders, so every order checkpoints alike.
    StrainRate(StrainRate),
    Stretch(ModalStretch),
}

impl OrderKey {
    /// The key `order` sorts by, with its rest-shape work done for `model`.
    pub fn new(order: ElementOrder, model: &Model) -> Self {
        match order {
            ElementOrder::Stretch => OrderKey::Stretch(ModalStretch::new(model)),
            _ => OrderKey::StrainRate(StrainRate::default()),
        }
    }

    /// Per element after the last [`OrderKey::update`]; zero after the first, empty before it.
    pub fn rate(&self) -> &[f64] {
        match self {
            OrderKey::StrainRate(k) => &k.rate,
            OrderKey::Stretch(k) => &k.shapes.rate,
        }
    }

    /// Records the tets at positions `x`, `h` seconds after the previous call, and sets the key.
    pub fn update(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], h: f64) {
        match self {
            OrderKey::StrainRate(k) => k.update(tets, rest, x, h),
            OrderKey::Stretch(k) => k.update(tets, rest, x, h),
        }
    }

    /// Resumes from a checkpoint holding the saved key `rate` at positions `x`.
    pub fn restore(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], rate: &[f64]) {
        match self {
            OrderKey::StrainRate(k) => k.restore(tets, rest, x, rate),
            OrderKey::Stretch(k) => k.restore(tets, rest, x, rate),
        }
    }
}
