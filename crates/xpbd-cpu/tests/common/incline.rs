//! The block on a 20° incline of docs/contact.md's friction tests, shared by the XPBD runs
//! (tests/contact.rs) and the multi-layer ones (tests/multilayer.rs): the scene, how far the block
//! slides, and Coulomb's answer.

use super::{sim_header, Sim};
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::schema::{Collider, Material};
use xpbd_core::scene::{BodyBuilder, Scene, SceneBuilder};

pub const G: f64 = 9.81;
pub const SLOPE_DEGREES: f64 = 20.0;

/// A stiff 0.2 m StVK block of 8 kg (E = 1e6 Pa; the stable neo-Hookean models vibrate when resting on a
/// collider, docs/contact.md), 2 cells a side, its lowest corner at the origin.
pub fn small_block() -> BodyBuilder {
    BodyBuilder::new("block").box_mesh([0.2, 0.2, 0.2], [2, 2, 2]).split(5).material(Material::tet("stvk", 1e6, 0.3, 1000.0))
}

/// The [`small_block`] resting on a plane through the origin tilted by 20° about z (its uphill direction
/// (cos θ, sin θ, 0)), with friction `mu` on the plane; 60 frames per second, 10 substeps × 4 serial XPBD
/// iterations.
pub fn block_on_incline(mu: f64) -> SceneBuilder {
    on_incline(small_block(), mu)
}

/// [`block_on_incline`] with another block (made like [`small_block`]: its lowest corner at the origin).
pub fn on_incline(block: BodyBuilder, mu: f64) -> SceneBuilder {
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    let block = block.rotate([0.0, 0.0, SLOPE_DEGREES]);
    sim_header(1.0 / 60.0, 10, 4, [0.0, -G, 0.0], 0.0, "serial").body(block).collider(Collider::plane([0.0; 3], [-s, c, 0.0]).friction(mu))
}

/// How far `scene`'s first body moved down the slope in `seconds` under the constraint solvers ([`slide_in`]).
pub fn slide(scene: &Scene, seconds: f64, each_frame: impl FnMut(&mut Sim)) -> Slid {
    slide_in(Sim::new(scene), seconds, each_frame)
}

/// How far `sim`'s first body moved down the slope in `seconds`: its centre, and the mean of its bottom
/// face (the vertices that start within 1 cm of the plane: where it slides on the plane, without the
/// tipping of a block on compliant contacts). `each_frame` sees the simulation after every frame.
pub fn slide_in<B: Backend>(mut sim: Sim<B>, seconds: f64, mut each_frame: impl FnMut(&mut Sim<B>)) -> Slid {
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    let x0: Vec<Vec3> = sim.state.x[sim.model.bodies[0].vertices.clone()].to_vec();
    let bottom: Vec<usize> = (0..x0.len()).filter(|&k| x0[k].dot(&Vec3::new(-s, c, 0.0)) < 0.01).collect();
    for _ in 0..(seconds * 60.0).round() as usize {
        sim.frame();
        each_frame(&mut sim);
    }
    let moved: Vec<f64> = sim.state.x[sim.model.bodies[0].vertices.clone()].iter().zip(&x0).map(|(x, x0)| (x0 - x).dot(&Vec3::new(c, s, 0.0))).collect();
    Slid { centre: moved.iter().sum::<f64>() / moved.len() as f64, bottom: bottom.iter().map(|&k| moved[k]).sum::<f64>() / bottom.len() as f64 }
}

/// Slides down the slope (m), [`slide`]'s answer.
pub struct Slid {
    pub centre: f64,
    pub bottom: f64,
}

/// ½ g (sin θ − μ cos θ) t², or 0 when μ ≥ tan θ.
fn coulomb(mu: f64, t: f64) -> f64 {
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    (0.5 * G * (s - mu * c) * t * t).max(0.0)
}

/// Asserts of `slide(μ)`, the slide in 1 s with friction μ, for each of `mus`: under 1 mm where μ ≥ tan 20°
/// (the block sticks), else within 5 % of Coulomb's ½ g (sin θ − μ cos θ) t²; prints each.
pub fn assert_coulomb(label: &str, mus: &[f64], mut slide: impl FnMut(f64) -> f64) {
    for &mu in mus {
        let (slid, expected) = (slide(mu), coulomb(mu, 1.0));
        println!("{label}, mu = {mu}: slid {slid:.4e} m, Coulomb {expected:.4} m");
        if expected == 0.0 {
            assert!(slid.abs() < 1e-3, "{label}: μ = {mu} ≥ tan 20°: the block must stick, it slid {slid} m");
        } else {
            assert!((slid - expected).abs() < 0.05 * expected, "{label}, μ = {mu}: slid {slid} m, Coulomb gives {expected} m");
        }
    }
}
