//! `metrics.csv` of implicit and adaptive runs ends with the frame's time per phase (`assembly_ms`,
//! `factorisation_ms`, `solve_ms`, `contact_ms`, `oracle_ms`, `bodies_ms`; docs/output-format.md): the phases are
//! parts of the frame's solve time `ms`, contact takes time while a box rests on the ground, and only the
//! adaptive run spends any in the oracle and on bodies. XPBD runs have no such columns.

use std::path::Path;
use xpbd::core::implicit::phases::Phases;
use xpbd::core::scene::schema::{Collider, Material, Solver};
use xpbd::core::scene::{BodyBuilder, SceneBuilder};
use xpbd::{Device, Simulation};

const FRAMES: usize = 4;

/// The columns and rows of `metrics.csv` of a 0.2 m box dropped from 1 mm onto the ground, under `solver`.
fn metrics(solver: Solver) -> (Vec<String>, Vec<Vec<f64>>) {
    let block = BodyBuilder::new("box").box_mesh([0.2; 3], [2, 2, 2]).translate([0.0, 0.101, 0.0]).material(Material::tet("neohookean", 1e5, 0.3, 1000.0));
    let scene = SceneBuilder::new("box")
        .dt(0.01)
        .frames(FRAMES)
        .gravity([0.0, -9.81, 0.0])
        .solver(solver)
        .formats(&["none"])
        .body(block)
        .collider(Collider::plane([0.0; 3], [0.0, 1.0, 0.0]))
        .build();
    let mut sim = Simulation::from_scene(scene, Path::new("."), Some(Device::Cpu), Path::new("box.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    sim.run(dir.path(), None, &mut |_, _, _| {}).unwrap();
    let text = std::fs::read_to_string(dir.path().join("metrics.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    (header, lines.map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect())
}

/// Each row's phases by name, and its `ms`.
fn phases(header: &[String], row: &[f64]) -> ([f64; 6], f64) {
    let at = |name: &str| row[header.iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}"))];
    let names: Vec<&str> = Phases::CSV_HEADER.split(',').collect();
    (std::array::from_fn(|k| at(names[k])), at("ms"))
}

#[test]
fn implicit_and_adaptive_runs_report_their_phases() {
    for (solver, adaptive) in [(Solver::implicit(), false), (Solver::adaptive(), true)] {
        let (header, rows) = metrics(solver);
        assert_eq!(rows.len(), FRAMES);
        let tail: Vec<&str> = header.iter().rev().take(6).rev().map(String::as_str).collect();
        assert_eq!(tail.join(","), Phases::CSV_HEADER, "the phases are the last columns");
        let (mut oracle, mut bodies) = (0.0, 0.0);
        for row in &rows {
            let ([assembly, factorisation, solve, contact, o, b], ms) = phases(&header, row);
            assert!([assembly, factorisation, solve, contact, o, b].iter().all(|&t| t >= 0.0), "{row:?}");
            assert!(assembly + factorisation + solve + contact + o + b <= ms, "the phases are parts of the solve time: {row:?}");
            assert!(assembly > 0.0 && factorisation > 0.0 && contact > 0.0, "{row:?}");
            (oracle, bodies) = (oracle + o, bodies + b);
        }
        assert_eq!(oracle > 0.0 && bodies > 0.0, adaptive, "oracle {oracle} ms, bodies {bodies} ms");
    }
    let (header, _) = metrics(Solver::xpbd("serial"));
    assert!(!header.iter().any(|c| c == "contact_ms"));
}
