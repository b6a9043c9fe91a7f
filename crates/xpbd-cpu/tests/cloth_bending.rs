//! Cloth bending from `bending_stiffness` (docs/cloth.md) against beam theory: a strip of plate modulus D,
//! clamped at one end, sags under its own weight by δ = q L⁴/(8 E I) (Euler–Bernoulli cantilever under a
//! uniform load q); for a strip of width b, E I = D b and q = ρ g b, so δ = ρ g L⁴/(8 D), whatever the mesh.
//!
//! The first two columns of vertices are pinned (one column would be a hinge); L is measured from the
//! second. Its hinge line is a full hinge between a pinned and a free cell, so the clamp acts about half a
//! cell further in: L_eff = L + a/2 (a the cell length). The solver runs many substeps with one iteration
//! each, substeps ∝ cells² (the stiff hinges need h ∝ a² to converge: at 40 substeps × 50 iterations the
//! 40×8 strip still sags 4× too much).

mod common;

use common::{sim_header, Sim};
use xpbd_core::backend::Backend;
use xpbd_core::scene::schema::Material;
use xpbd_core::scene::BodyBuilder;

/// Areal density (kg/m²), gravity (m/s²), plate modulus (N·m), strip length beyond the clamp and width (m).
const RHO: f64 = 0.1;
const G: f64 = 9.81;
const D: f64 = 6.0;
const L: f64 = 1.0;
const WIDTH: f64 = 0.2;

/// δ = ρ g l⁴/(8 D).
fn beam_deflection(l: f64) -> f64 {
    RHO * G * l.powi(4) / (8.0 * D)
}

/// The cell length and the settled tip deflection (mean over the vertices at the free end) of the strip on
/// an `nx` × `ny` cell grid, at `substeps` substeps of one iteration.
fn tip_deflection(nx: usize, ny: usize, substeps: usize) -> (f64, f64) {
    let a = L / (nx - 1) as f64;
    let strip = BodyBuilder::new("strip")
        .grid2d([L + a, WIDTH], [nx, ny])
        .material(Material::cloth_plate(RHO, 0.0, D))
        .pin_box([-0.5 * a, -1.0, -1.0], [1.5 * a, 1.0, 1.0]);
    let mut sim = Sim::new(&sim_header(1.0 / 60.0, substeps, 1, [0.0, 0.0, -G], 8.0, "serial").body(strip).build());
    assert_eq!(sim.model.inv_mass.iter().filter(|&&w| w == 0.0).count(), 2 * (ny + 1), "two clamped columns");
    sim.frames(120);
    let tip: Vec<f64> = sim.model.rest.iter().zip(&sim.state.x).filter(|(r, _)| r.x > L + 0.5 * a).map(|(_, x)| -x.z).collect();
    (a, tip.iter().sum::<f64>() / tip.len() as f64)
}

/// The tip deflections at 20×4 and 40×8 cells, printed with beam theory for L and L_eff.
fn two_resolutions() -> [f64; 2] {
    [(20, 4, 400), (40, 8, 1600)].map(|(nx, ny, substeps)| {
        let (a, d) = tip_deflection(nx, ny, substeps);
        let (beam, beam_eff) = (beam_deflection(L), beam_deflection(L + 0.5 * a));
        println!(
            "cloth cantilever {nx}x{ny} cells, {substeps} substeps: tip deflection {d:.4e} m; beam theory {beam:.4e} m ({:+.1} %), with L + a/2 {beam_eff:.4e} m ({:+.1} %)",
            100.0 * (d / beam - 1.0),
            100.0 * (d / beam_eff - 1.0)
        );
        d
    })
}

/// Deliverable of `bending_stiffness`: the sag does not depend on the mesh resolution.
#[test]
fn cantilever_sag_does_not_depend_on_the_mesh() {
    let [coarse, fine] = two_resolutions();
    assert!((fine / coarse - 1.0).abs() < 0.05, "20x4 sags {coarse:e} m, 40x8 {fine:e} m");
}

/// Within 10 % of beam theory at both resolutions. Fails today: the strips sag 25–40 % more than beam
/// theory (docs/cloth.md, "Calibration"): k = D/6 is calibrated on a cylinder whose generators are mesh
/// lines, but on grid2d's alternating diagonals the sheet relaxes by folding partly along the diagonal
/// hinges (they hold about 13 % of the bending energy at equilibrium), so the mesh is softer than the
/// plate for this mode.
#[test]
#[ignore = "the discrete-shells hinge energy on grid2d's mesh is 25-40 % softer than the plate (docs/cloth.md)"]
fn cantilever_sags_as_beam_theory() {
    let beam = beam_deflection(L);
    for d in two_resolutions() {
        assert!((d / beam - 1.0).abs() < 0.10, "tip deflection {d:e} m vs beam theory {beam:e} m");
    }
}

/// The hinge angles onto which the CPU sweeps unwrap (docs/cloth.md, "Folds through 180°") are carried in
/// model order whatever the ordering permutes: they start at the rest angles, and what a checkpoint gives back
/// is what the backend reports; a count that does not match the hinges is an error.
#[test]
fn hinge_angles_are_carried_in_model_order() {
    for ordering in ["serial", "colored", "clustered", "jacobi"] {
        let sheet = BodyBuilder::new("sheet").grid2d([1.0, 1.0], [6, 5]).material(Material::cloth(0.1, 0.0, 1.0));
        let mut sim = Sim::new(&sim_header(0.01, 2, 2, [0.0, 0.0, -G], 0.0, ordering).body(sheet).build());
        assert_eq!(sim.backend.carried(), sim.model.cloth_groups[0].rest_angle, "{ordering}");
        let values: Vec<f64> = (0..sim.model.cloth_groups[0].hinges.len()).map(|i| 0.01 * i as f64).collect();
        sim.backend.restore_carried(&sim.state, &values).unwrap();
        assert_eq!(sim.backend.carried(), values, "{ordering}");
        assert!(sim.backend.restore_carried(&sim.state, &values[1..]).is_err(), "{ordering}");
    }
}
