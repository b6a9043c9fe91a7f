//! The PBD baseline of the XPBD cloth report (docs/cloth.md, "PBD bodies"): PBD with k = 1 is XPBD with zero
//! compliance, PBD stiffens with iterations and substeps where XPBD converges to its compliance, and the
//! per-iteration stiffness k′ = 1 − (1 − k)^(1/n) removes the iteration count from a soft PBD body; and the
//! guard on rows their free vertices cannot move (a clamped sheet with rigid hinges used to blow up).

mod common;

use common::{sim_header, Sim};
use xpbd_core::scene::schema::{Material, MeshSource, Solver};
use xpbd_core::scene::{BodyBuilder, SceneBuilder};

/// A 1.2 m × 0.6 m sheet of 12 × 6 cells hanging in its plane from its two top corners (gravity along −y),
/// `material`, `iterations` × `substeps` per 1/60 s frame, velocity damping 4/s so that it settles.
fn hanging(material: Material, ordering: &str, iterations: usize, substeps: usize) -> SceneBuilder {
    let sheet = BodyBuilder::new("sheet")
        .grid2d([1.2, 0.6], [12, 6])
        .material(material)
        .pin_box([-0.01, 0.59, -0.01], [0.01, 0.61, 0.01])
        .pin_box([1.19, 0.59, -0.01], [1.21, 0.61, 0.01]);
    sim_header(1.0 / 60.0, substeps, iterations, [0.0, -9.81, 0.0], 4.0, ordering).body(sheet)
}

/// How far the middle of the bottom edge has dropped after `frames` frames.
fn drop(scene: SceneBuilder, frames: usize) -> f64 {
    let mut sim = Sim::new(&scene.build());
    sim.frames(frames);
    let bottom_middle = sim.model.rest.iter().position(|r| (r.x - 0.6).abs() < 1e-9 && r.y.abs() < 1e-9).expect("a vertex at (0.6, 0)");
    sim.model.rest[bottom_middle].y - sim.state.x[bottom_middle].y
}

/// k = 1 gives k′ = 1 and the full projection, which is XPBD's with α = 0 (the multiplier term α̃λ vanishes):
/// the same positions bit for bit, in every ordering.
#[test]
fn pbd_at_full_stiffness_is_xpbd_without_compliance() {
    for ordering in ["serial", "colored", "clustered", "jacobi"] {
        let run = |material: Material| {
            let mut sim = Sim::new(&hanging(material, ordering, 7, 2).build());
            sim.frames(10);
            sim.state.x
        };
        let (pbd, xpbd) = (run(Material::cloth_pbd(0.3, 1.0, 1.0)), run(Material::cloth(0.3, 0.0, 0.0)));
        assert!(pbd.iter().zip(&xpbd).all(|(a, b)| a == b), "{ordering}: PBD k = 1 and XPBD α = 0 differ");
    }
}

/// The report's Figure 1 claim, measured on a small sheet: PBD with k = 1 is stiffer the more iterations and
/// substeps it gets; with k′ the soft PBD body (k = 0.99) hardly depends on the iteration count; XPBD with a
/// compliance that dominates the sheet's mass settles at one drop whatever the iteration count.
#[test]
fn pbd_stiffens_with_iterations_and_substeps_and_xpbd_does_not() {
    let frames = 150;
    let pbd = |k: f64, n: usize, substeps: usize| drop(hanging(Material::cloth_pbd(5.0, k, 1.0), "serial", n, substeps), frames);
    let (few, many) = (pbd(1.0, 5, 1), pbd(1.0, 40, 1));
    println!("PBD k = 1: drop {few:.4} m at 5 iterations, {many:.4} m at 40");
    assert!(few > 3.0 * many, "PBD k = 1 should stiffen with iterations: {few} vs {many}");
    let substepped = pbd(1.0, 20, 4);
    let one = pbd(1.0, 20, 1);
    println!("PBD k = 1, 20 iterations: drop {one:.4} m at 1 substep, {substepped:.4} m at 4");
    assert!(one > 3.0 * substepped, "PBD k = 1 should stiffen with substeps: {one} vs {substepped}");
    let (soft_few, soft_many) = (pbd(0.99, 5, 1), pbd(0.99, 40, 1));
    println!("PBD k = 0.99: drop {soft_few:.4} m at 5 iterations, {soft_many:.4} m at 40");
    assert!((soft_few / soft_many - 1.0).abs() < 0.15, "k′ should remove most of the iteration count: {soft_few} vs {soft_many}");
    let xpbd = |n: usize| drop(hanging(Material::cloth(5.0, 2e-2, 1.0), "serial", n, 1), frames);
    let (x20, x40) = (xpbd(20), xpbd(40));
    println!("XPBD α = 2e-2 m/N: drop {x20:.5} m at 20 iterations, {x40:.5} m at 40");
    assert!((x20 / x40 - 1.0).abs() < 1e-3, "XPBD at a dominating compliance should not depend on the iterations: {x20} vs {x40}");
}

/// A sheet clamped along one edge (two columns pinned) with rigid hinges (bending compliance 0) on the
/// alternating grid: at its degree-4 vertices a hinge's one free vertex has ∂θ/∂x = 0 at rest, and the
/// projection divided round-off by round-off (non-finite positions in the first frame). The guard skips
/// such rows; the sheet now droops a little and stays finite and slow.
#[test]
fn rigid_hinges_on_a_clamped_alternating_sheet_stay_finite() {
    let mesh = MeshSource {
        generator: Some("grid2d".into()),
        size: Some(vec![1.5, 0.7]),
        cells: Some(vec![30, 14]),
        pattern: Some("alternating".into()),
        ..Default::default()
    };
    let sheet = BodyBuilder::new("sheet").mesh(mesh).material(Material::cloth(0.1, 0.0, 0.0)).pin_box([-0.001, -0.001, -0.001], [0.051, 0.701, 0.001]);
    let mut sim = Sim::new(&sim_header(1.0 / 60.0, 10, 20, [0.0, 0.0, -9.81], 4.0, "serial").body(sheet).build());
    for _ in 0..30 {
        sim.frame();
        let fastest = sim.state.v.iter().map(|v| v.norm()).fold(0.0, f64::max);
        assert!(fastest < 5.0, "frame {}: a vertex moves at {fastest} m/s", sim.state.frame);
    }
    let droop = sim.model.rest.iter().zip(&sim.state.x).map(|(r, x)| r.z - x.z).fold(0.0, f64::max);
    assert!(droop > 0.0 && droop < 1.5, "droop {droop} m");
}

/// PBD bodies are projected by the XPBD sweeps only.
#[test]
fn pbd_bodies_need_the_xpbd_sweeps() {
    let sheet = BodyBuilder::new("sheet").grid2d([1.0, 0.5], [4, 2]).material(Material::cloth_pbd(0.2, 1.0, 1.0)).pin_indices(&[0]);
    let scene = SceneBuilder::new("pbd").solver(Solver::mgpbd()).body(sheet).build();
    let err = xpbd_core::scene::build(&scene, std::path::Path::new(".")).expect_err("MGPBD refuses a PBD body").to_string();
    assert!(err.contains("body 'sheet': material.pbd_stretch/pbd_bending make a PBD body"), "{err}");
}
