//! What the XPBD path takes of a device's memory, known before it is allocated (the block paper's Table 3):
//! bytes per buffer family, from the same layout and model that [`DeviceModel::upload`] allocates from, and the
//! check against the device's free memory that `CudaBackend::new` makes first. Pair-contact rows start at
//! [`PAIR_CAPACITY`] slots and grow with the candidates; the footprint counts their start. The GPU test
//! `backend_parity.rs::footprint_is_what_the_upload_allocates` holds it to the allocations themselves.
//!
//! [`DeviceModel::upload`]: crate::xpbd::device_model::DeviceModel::upload

use xpbd_core::model::Model;

use crate::xpbd::device_model::{PAIR_CAPACITY, RESIDUAL_BLOCKS, WEDGE_CAPACITY};
use crate::xpbd::layout::{collider_table, Layout};

/// Bytes per buffer family of the XPBD path on a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// (family, bytes): state, elements, jacobi, attachments, colliders, pair contact; families the scene does
    /// not use are left out.
    pub families: Vec<(&'static str, usize)>,
}

/// Bytes of a device index (`u32`).
const INDEX: usize = 4;

impl Footprint {
    /// The device arrays of `model` in `layout`, with scalars of `scalar` bytes (4 for f32, 8 for f64) and room
    /// for the substep end times of a frame of `substeps`. Mirrors `DeviceModel::upload`, array by array
    /// (`nonempty` keeps one element of an array that would be empty).
    pub fn xpbd(model: &Model, layout: &Layout, scalar: usize, substeps: usize) -> Self {
        let at_least_one = |n: usize| n.max(1);
        let n = at_least_one(model.vertex_count());
        let mut families = Vec::new();
        let state = 3 * 3 * n + n + at_least_one(model.rows) + at_least_one(substeps) + 2 * RESIDUAL_BLOCKS as usize * at_least_one(layout.families.len());
        families.push(("state", scalar * state));
        let elements: usize = layout
            .families
            .iter()
            .map(|f| {
                INDEX * (at_least_one(f.idx.len()) + at_least_one(f.item_start.len())) + scalar * (at_least_one(f.data0.len()) + at_least_one(f.data1.len()))
            })
            .sum();
        families.push(("elements", elements));
        if let Some(j) = &layout.jacobi {
            let slots = 3 * at_least_one(j.adj.len());
            let per_vertex = at_least_one(j.split_inv_mass.len()) + at_least_one(j.inv_count.len());
            families.push(("jacobi", scalar * (per_vertex + slots) + INDEX * (j.start.len() + at_least_one(j.adj.len()))));
        }
        // Hard pins that move and soft attachments: vertex, origin, velocity, compliance, λ.
        let attached = model.attachments.len();
        if attached > 0 {
            families.push(("attachments", attached * (INDEX + scalar * (3 + 3 + 1 + 3))));
        }
        let surface = model.contact.surface.vertices.len();
        if !model.colliders.is_empty() && surface > 0 {
            let rows = surface * model.colliders.len();
            let scalars = collider_table(model).len() + 3 * rows + rows + 3 * rows + 3 * n;
            families.push(("colliders", scalar * scalars + INDEX * (surface + surface)));
        }
        if model.contact.has_pairs() {
            let (c, w) = (PAIR_CAPACITY, WEDGE_CAPACITY);
            families.push(("pair contact", INDEX * (4 * c + 6 * w + c) + scalar * (2 * c + 4 * c + 3 * c + c + 3 * c)));
        }
        Footprint { families }
    }

    /// All families together.
    pub fn total(&self) -> usize {
        self.families.iter().map(|(_, bytes)| bytes).sum()
    }

    /// "12.3 MiB (state 1.2 MiB, elements 10.8 MiB, ...)".
    pub fn describe(&self) -> String {
        let mib = |b: usize| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64);
        let parts: Vec<String> = self.families.iter().map(|(name, bytes)| format!("{name} {}", mib(*bytes))).collect();
        format!("{} ({})", mib(self.total()), parts.join(", "))
    }

    /// `Err` with a one-line reason when the footprint exceeds `free` bytes of the device `device`.
    pub fn fits(&self, free: usize, device: &str) -> Result<(), String> {
        if self.total() <= free {
            return Ok(());
        }
        Err(format!("the scene needs {} of GPU memory, but {device} has {:.1} MiB free", self.describe(), free as f64 / (1u64 << 20) as f64))
    }
}
