//! `[output] contact_forces`: a soft box resting on the ground carries its weight in the VTU frames'
//! `contact_force` point data, on the vertices `contact_active` marks; without the option neither array is written.

use base64::Engine;
use std::path::Path;
use xpbd::core::scene::schema::{Collider, Material, Solver};
use xpbd::core::scene::{BodyBuilder, SceneBuilder};
use xpbd::{Device, Simulation};

const G: f64 = 9.81;
const FRAMES: usize = 60;

/// A soft 0.2 m ARAP box (E = 1e5 Pa, 8 kg) placed on a ground plane, one second at 60 frames per second; its
/// vertical vibration (±50 % of the weight in the first frames) is damped by velocity damping 10/s to ±0.2 % by
/// frames 50–60.
/// Solved by `solver`, on a plane of friction `mu`.
fn resting_box(solver: Solver, mu: f64, contact_forces: bool) -> SceneBuilder {
    let block = BodyBuilder::new("box").box_mesh([0.2; 3], [3, 3, 3]).split(5).material(Material::tet("arap", 1e5, 0.3, 1000.0));
    SceneBuilder::new("resting")
        .dt(1.0 / 60.0)
        .frames(FRAMES)
        .substeps(10)
        .iterations(5)
        .gravity([0.0, -G, 0.0])
        .velocity_damping(10.0)
        .every(FRAMES / 2)
        .solver(solver)
        .contact_forces(contact_forces)
        .body(block)
        .collider(Collider::plane([0.0; 3], [0.0, 1.0, 0.0]).friction(mu))
}

/// The values of the point-data array `name` of a frame written by `write_vtu` (one base64 stream: an 8-byte
/// length, then little-endian values of `size` bytes), or `None` when the frame has no such array.
fn point_data(path: &Path, name: &str, size: usize) -> Option<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find(&format!("Name=\"{name}\""))?;
    let body = &text[start..];
    let data = &body[body.find('>').unwrap() + 1..body.find("</DataArray>").unwrap()];
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim()).unwrap();
    let values = bytes[8..].chunks_exact(size).map(|c| match size {
        8 => f64::from_le_bytes(c.try_into().unwrap()),
        _ => i32::from_le_bytes(c.try_into().unwrap()) as f64,
    });
    Some(values.collect())
}

/// The frames of [`resting_box`] under `solver` carry the box's weight on its bottom face.
fn carries_its_weight(name: &str, solver: Solver, mu: f64) {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulation::from_scene(resting_box(solver, mu, true).build(), Path::new("."), Some(Device::Cpu), Path::new("resting.toml")).unwrap();
    sim.run(dir.path(), None, &mut |_, _, _| {}).unwrap();
    let weight = G * sim.model.inv_mass.iter().map(|w| 1.0 / w).sum::<f64>();
    let frame = |f: usize| dir.path().join(format!("frames/frame_{f:05}.vtu"));

    // Frame 0 is the state before any substep: no row has pushed yet.
    assert!(point_data(&frame(0), "contact_force", 8).unwrap().iter().all(|&f| f == 0.0));
    let force = point_data(&frame(FRAMES), "contact_force", 8).unwrap();
    let active = point_data(&frame(FRAMES), "contact_active", 4).unwrap();
    let total: [f64; 3] = std::array::from_fn(|k| force.iter().skip(k).step_by(3).sum());
    println!("{name}: weight {weight:.4} N, contact forces summed {total:?} N ({:+.3} %)", 100.0 * (total[1] / weight - 1.0));
    assert!((total[1] - weight).abs() < 0.02 * weight, "Σ contact_force_y = {} N against the weight {weight} N", total[1]);
    assert!(total[0].abs().max(total[2].abs()) < 0.02 * weight, "a normal force on a level plane is vertical: {total:?}");
    // The pushed vertices are the bottom face's 4 × 4, and only they carry force.
    let bottom: Vec<bool> = sim.state.x.iter().map(|p| p.y < 1e-3).collect();
    let pushed: Vec<bool> = active.iter().map(|&a| a == 1.0).collect();
    println!("{} active vertices, {} on the bottom face", pushed.iter().filter(|&&a| a).count(), bottom.iter().filter(|&&b| b).count());
    assert_eq!(pushed, bottom);
    assert!(force.chunks_exact(3).zip(&pushed).all(|(f, &a)| a || f.iter().all(|&c| c == 0.0)));
}

#[test]
fn a_resting_box_carries_its_weight_in_the_frames() {
    carries_its_weight("serial", Solver::xpbd("serial"), 0.5);
    carries_its_weight("jacobi", Solver::xpbd("jacobi"), 0.5);
    carries_its_weight("multilayer", Solver::multilayer(), 0.0);
    carries_its_weight("mgpbd", Solver::mgpbd(), 0.5);
}

/// The default writes the frames as before: no contact arrays.
#[test]
fn without_the_option_the_frames_have_no_contact_arrays() {
    let off = tempfile::tempdir().unwrap();
    let scene = resting_box(Solver::default(), 0.5, false).frames(1).build();
    let mut sim = Simulation::from_scene(scene, Path::new("."), Some(Device::Cpu), Path::new("resting.toml")).unwrap();
    sim.run(off.path(), None, &mut |_, _, _| {}).unwrap();
    let text = std::fs::read_to_string(off.path().join("frames/frame_00000.vtu")).unwrap();
    assert!(text.contains("Name=\"velocity\"") && !text.contains("contact_"), "without the option the frames have no contact arrays");
}
