//! `[contact]` and the bodies' `friction` → [`ContactModel`]: the surfaces, the thickness (checked against
//! every body's size) and each body's Coulomb coefficients.

use super::build::friction;
use super::schema::Scene;
use crate::contact::{ContactModel, Surface};
use crate::mesh::Vec3;
use crate::model::Model;
use crate::{Error, Result};

/// The default thickness as a fraction of the median surface edge length.
pub const THICKNESS_OF_MEDIAN_EDGE: f64 = 0.1;

/// The contact model of `scene` over the bodies already in `m`.
pub fn contact_model(scene: &Scene, m: &Model) -> Result<ContactModel> {
    let spec = &scene.contact;
    let surface = Surface::new(&m.bodies, m.vertex_count());
    let default = friction(spec.friction, spec.static_friction, "contact")?;
    let mut per_body = Vec::with_capacity(scene.bodies.len());
    for (bi, b) in scene.bodies.iter().enumerate() {
        per_body.push(match b.friction {
            Some(mu) => friction(mu, b.static_friction, &format!("body[{bi}]"))?,
            None if b.static_friction.is_some() => return Err(Error::invalid(format!("body[{bi}].static_friction: needs the body's `friction`"))),
            None => default,
        });
    }
    let thickness = match spec.thickness {
        Some(t) if !(t.is_finite() && t > 0.0) => return Err(Error::invalid(format!("contact.thickness: must be a positive length, got {t}"))),
        Some(t) => t,
        None => THICKNESS_OF_MEDIAN_EDGE * median_edge(&surface.edges, &m.rest),
    };
    if spec.bodies || spec.self_contact {
        for (bi, body) in m.bodies.iter().enumerate() {
            let smallest = smallest_extent(&m.rest[body.vertices.clone()]);
            if thickness > smallest {
                return Err(Error::invalid(format!(
                    "contact.thickness: {thickness} m is larger than body[{bi}] '{}' ({smallest} m at its thinnest)",
                    body.name
                )));
            }
        }
    }
    Ok(ContactModel { bodies: spec.bodies, self_contact: spec.self_contact, thickness, friction: per_body, surface })
}

/// The median length of `edges` at `rest` (0 without edges).
fn median_edge(edges: &[[u32; 2]], rest: &[Vec3]) -> f64 {
    let mut l: Vec<f64> = edges.iter().map(|e| (rest[e[0] as usize] - rest[e[1] as usize]).norm()).collect();
    if l.is_empty() {
        return 0.0;
    }
    let mid = l.len() / 2;
    *l.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// The smallest positive side of the bounding box of `points` (a flat cloth's thinnest in-plane side).
fn smallest_extent(points: &[Vec3]) -> f64 {
    let (lo, hi) = points.iter().fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    (hi - lo).iter().copied().filter(|&e| e > 0.0).fold(f64::INFINITY, f64::min)
}
