//! `[contact]` and the bodies' `friction` → [`ContactModel`]: the surfaces, the thickness (checked against
//! every body's size) and each body's Coulomb coefficients.

use super::build::friction;
use super::schema::Scene;
use crate::contact::{ContactModel, Surface};
use crate::mesh::bvh::Aabb;
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

/// Warnings for bodies whose surfaces cross at t = 0 where contact is on between them (contact holds
/// surfaces apart; it cannot undo a crossing, and the run goes on with it).
pub fn initial_crossings(m: &Model) -> Vec<String> {
    let c = &m.contact;
    if !c.has_pairs() {
        return Vec::new();
    }
    let name = |b: u32| &m.bodies[b as usize].name;
    crate::contact::crossings::crossings(&c.surface, &m.initial_position)
        .into_iter()
        .filter(|&((a, b), _)| c.pair(a, b))
        .map(|((a, b), n)| match a == b {
            true => format!("body '{}' starts intersecting itself: {n} surface edges cross its surface; contact will not undo that", name(a)),
            false => {
                format!("bodies '{}' and '{}' start intersecting: {n} surface edges cross the other's surface; contact will not undo that", name(a), name(b))
            }
        })
        .collect()
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

/// The smallest side of the bounding box of `points` that is not flat (a flat sheet's thinnest in-plane side; a
/// side below 10⁻⁹ of the largest is a rotated sheet's round-off thickness).
fn smallest_extent(points: &[Vec3]) -> f64 {
    let b = Aabb::around(points);
    let sides = b.max - b.min;
    let largest = sides.max();
    sides.iter().copied().filter(|&e| e > 1e-9 * largest).fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use crate::scene::schema::{Contact, Material};
    use crate::scene::{BodyBuilder, SceneBuilder};
    use std::path::Path;

    /// Two 0.2 m boxes (cells of 0.1 m) and a 1 × 0.5 m cloth, with `contact` and the cloth's `friction`.
    fn built(contact: Contact, cloth_friction: Option<f64>) -> crate::Result<crate::scene::Built> {
        let block = |name: &str, x: f64| {
            BodyBuilder::new(name).box_mesh([0.2; 3], [2, 2, 2]).translate([x, 0.0, 0.0]).material(Material::tet("stvk", 1e6, 0.3, 1000.0))
        };
        let mut cloth = BodyBuilder::new("cloth").grid2d([1.0, 0.5], [4, 2]).translate([0.0, 1.0, 0.0]).material(Material::cloth(0.1, 0.0, 1.0));
        if let Some(mu) = cloth_friction {
            cloth = cloth.friction(mu);
        }
        SceneBuilder::new("t").body(block("a", 0.0)).body(block("b", 0.5)).body(cloth).contact(contact).built(Path::new("."))
    }

    #[test]
    fn defaults_thickness_friction_and_surfaces() {
        let m = built(Contact::default(), Some(0.2)).unwrap().model;
        let c = &m.contact;
        assert!(c.bodies && c.self_contact && c.has_pairs());
        // The median surface edge of boxes of 0.1 m cells split in five and of the cloth's 0.25 m cells.
        assert!(c.thickness > 0.0 && c.thickness < 0.03, "{}", c.thickness);
        assert_eq!(c.friction.iter().map(|f| f.mu_k).collect::<Vec<_>>(), [0.5, 0.5, 0.2]);
        let s = c.summary();
        assert_eq!((s.surface_vertices, s.surface_triangles), (2 * 26 + 15, 2 * 48 + 16));
        let off = built(Contact { bodies: false, self_contact: false, ..Default::default() }, None).unwrap().model;
        assert!(!off.contact.has_pairs());
    }

    #[test]
    fn bad_fields_are_named() {
        let err = |contact: Contact, mu: Option<f64>| built(contact, mu).unwrap_err().to_string();
        assert_eq!(err(Contact { thickness: Some(0.0), ..Default::default() }, None), "contact.thickness: must be a positive length, got 0");
        assert!(err(Contact { thickness: Some(0.3), ..Default::default() }, None).starts_with("contact.thickness: 0.3 m is larger than body[0] 'a' (0.2 m"));
        assert_eq!(err(Contact { friction: -0.1, ..Default::default() }, None), "contact.friction: must be ≥ 0, got -0.1");
        assert_eq!(err(Contact { static_friction: Some(f64::NAN), ..Default::default() }, None), "contact.static_friction: must be ≥ 0, got NaN");
        assert_eq!(err(Contact::default(), Some(-1.0)), "body[2].friction: must be ≥ 0, got -1");
    }

    #[test]
    fn bodies_that_start_intersecting_are_named_in_a_warning() {
        let block = |name: &str, x: f64| {
            BodyBuilder::new(name).box_mesh([0.2; 3], [2, 2, 2]).translate([x, 0.3 * x, 0.4 * x]).material(Material::tet("stvk", 1e6, 0.3, 1000.0))
        };
        let scene = |x: f64| SceneBuilder::new("t").body(block("a", 0.0)).body(block("b", x)).built(Path::new(".")).unwrap().warnings;
        assert!(scene(0.3).iter().all(|w| !w.contains("intersect")));
        let w = scene(0.15);
        assert!(w.iter().any(|w| w.starts_with("bodies 'a' and 'b' start intersecting: ")), "{w:?}");
    }
}
