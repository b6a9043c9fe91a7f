//! What the model says about contact: which pairs collide, the contact thickness, each body's friction,
//! and the surfaces.

use super::{Friction, Surface};
use serde::Serialize;

#[derive(Clone, Debug, Default)]
pub struct ContactModel {
    /// Contact between different bodies.
    pub bodies: bool,
    /// Contact within one body.
    pub self_contact: bool,
    /// The gap d kept between two surfaces: a pair's row is C = d(x) − thickness ≥ 0 (m).
    pub thickness: f64,
    /// Each body's Coulomb coefficients; a pair uses the mean of its two bodies'.
    pub friction: Vec<Friction>,
    pub surface: Surface,
}

/// The scalar settings, for `summary.json` and `xpbd info`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ContactSummary {
    pub bodies: bool,
    #[serde(rename = "self")]
    pub self_contact: bool,
    pub thickness: f64,
    pub surface_vertices: usize,
    pub surface_edges: usize,
    pub surface_triangles: usize,
}

impl ContactModel {
    /// Whether body `a` and body `b` (maybe the same) are a contact pair.
    pub fn pair(&self, a: u32, b: u32) -> bool {
        if a == b {
            self.self_contact
        } else {
            self.bodies
        }
    }

    /// Whether any two surface primitives can be a contact pair.
    pub fn has_pairs(&self) -> bool {
        self.self_contact || (self.bodies && self.friction.len() > 1)
    }

    pub fn summary(&self) -> ContactSummary {
        let s = &self.surface;
        ContactSummary {
            bodies: self.bodies,
            self_contact: self.self_contact,
            thickness: self.thickness,
            surface_vertices: s.vertices.len(),
            surface_edges: s.edges.len(),
            surface_triangles: s.triangles.len(),
        }
    }
}
