//! Contact on the CPU (docs/contact.md): Coulomb friction on an incline against the analytic answer.

mod common;

use common::{sim_header, Sim};
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::schema::{Collider, Material};
use xpbd_core::scene::{BodyBuilder, SceneBuilder};

const G: f64 = 9.81;
const SLOPE_DEGREES: f64 = 20.0;

/// A stiff 0.2 m StVK block (E = 1e6 Pa; the stable neo-Hookean models vibrate when resting on a collider, docs/contact.md) resting on a plane through the origin tilted by 20° about z (its
/// uphill direction (cos θ, sin θ, 0)), with friction `mu` on the plane; 60 frames per second.
fn block_on_incline(mu: f64) -> SceneBuilder {
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    let block = BodyBuilder::new("block")
        .box_mesh([0.2, 0.2, 0.2], [2, 2, 2])
        .split(5)
        .rotate([0.0, 0.0, SLOPE_DEGREES])
        .material(Material::tet("stvk", 1e6, 0.3, 1000.0));
    sim_header(1.0 / 60.0, 10, 4, [0.0, -G, 0.0], 0.0, "serial").body(block).collider(Collider::plane([0.0; 3], [-s, c, 0.0]).friction(mu))
}

/// How far the block's centre moved down the slope in `seconds`.
fn slide(scene: SceneBuilder, seconds: f64) -> f64 {
    let mut sim = Sim::new(&scene.build());
    let c0 = sim.centre_of_mass();
    sim.frames((seconds * 60.0).round() as usize);
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    (c0 - sim.centre_of_mass()).dot(&Vec3::new(c, s, 0.0))
}

/// ½ g (sin θ − μ cos θ) t², or 0 when μ ≥ tan θ.
fn coulomb(mu: f64, t: f64) -> f64 {
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    (0.5 * G * (s - mu * c) * t * t).max(0.0)
}

#[test]
fn a_block_on_a_20_degree_plane_sticks_at_mu_half_and_slides_as_coulomb_at_mu_0_2() {
    let stuck = slide(block_on_incline(0.5), 1.0);
    println!("mu = 0.5: slid {stuck:e} m");
    assert!(stuck.abs() < 1e-3, "μ = 0.5 > tan 20°: the block must stick, it slid {stuck} m");
    let slid = slide(block_on_incline(0.2), 1.0);
    let expected = coulomb(0.2, 1.0);
    println!("mu = 0.2: slid {slid} m, Coulomb {expected} m");
    assert!((slid - expected).abs() < 0.05 * expected, "μ = 0.2: slid {slid} m, Coulomb gives {expected} m");
    let free = slide(block_on_incline(0.0), 1.0);
    println!("mu = 0: slid {free} m, Coulomb {} m", coulomb(0.0, 1.0));
    assert!((free - coulomb(0.0, 1.0)).abs() < 0.05 * coulomb(0.0, 1.0));
}


