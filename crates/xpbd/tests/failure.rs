//! A simulation that produces a non-finite state stops with a one-line cause, keeps the frames it
//! wrote, and records the failure in summary.json (DESIGN.md §5, output-format.md).

use std::path::Path;
use xpbd::{Device, Simulation};

const SCENE: &str = r#"
name = "blowup"
[simulation]
frames = 10
substeps = 2
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
"#;

#[test]
fn non_finite_state_stops_the_run_and_keeps_the_written_frames() {
    let dir = tempfile::tempdir().unwrap();
    let scene = xpbd::core::scene::parse(SCENE, Path::new("blowup.toml")).unwrap();
    let mut sim = Simulation::from_scene(scene, Path::new("."), Some(Device::Cpu), Path::new("blowup.toml")).unwrap();
    let out = dir.path().join("out");
    // Three good frames, then a vertex's velocity becomes NaN.
    sim.run(&out, Some(3), &mut |_, _| {}).unwrap();
    sim.state.v[5].x = f64::NAN;
    let err = sim.run(&out, Some(4), &mut |_, _| {}).unwrap_err().to_string();
    assert!(!err.contains('\n'));
    assert!(err.contains("simulation failed at frame 4") && err.contains("vertex 5 of body 'cube'"), "{err}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "failed");
    assert_eq!(summary["final"]["nan"], true);
    assert_eq!(summary["failure"]["frame"], 4);
    assert!(summary["final"]["elastic_energy"].as_f64().unwrap().is_finite(), "the summary keeps the last finite values");
    // Frames up to the last good one are on disk, the failed one is not.
    assert!(out.join("frames/frame_00003.vtu").is_file());
    assert!(!out.join("frames/frame_00004.vtu").exists());
}
