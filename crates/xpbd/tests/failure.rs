//! A simulation that produces a non-finite state, or whose backend fails, stops with a one-line cause,
//! keeps the frames it wrote, and records the failure in summary.json (docs/output-format.md).

use std::path::Path;
use xpbd::core::scene::schema::{Material, Solver};
use xpbd::core::scene::{BodyBuilder, Scene, SceneBuilder};
use xpbd::{Device, Simulation};

/// One cube, 10 frames of 2 substeps.
fn scene() -> Scene {
    let cube = BodyBuilder::new("cube").box_mesh([1.0; 3], [1, 1, 1]).split(5).material(Material::neohookean_block(1.0e5, 0.3, 1000.0));
    SceneBuilder::new("blowup").frames(10).substeps(2).body(cube).build()
}

#[test]
fn non_finite_state_stops_the_run_and_keeps_the_written_frames() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulation::from_scene(scene(), Path::new("."), Some(Device::Cpu), Path::new("blowup.toml")).unwrap();
    let out = dir.path().join("out");
    // Three good frames, then a vertex's velocity becomes NaN.
    sim.run(&out, Some(3), &mut |_, _, _| {}).unwrap();
    sim.state.v[5].x = f64::NAN;
    let err = sim.run(&out, Some(4), &mut |_, _, _| {}).unwrap_err().to_string();
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

/// A backend that runs the CPU backend for `good` frames and then fails as a device would.
struct FailingBackend {
    cpu: xpbd_cpu::CpuBackend,
    good: usize,
}

impl xpbd::core::backend::Backend for FailingBackend {
    fn supports(_: &xpbd::core::model::Model, _: &xpbd::core::solver_config::SolverConfig) -> Result<(), xpbd::core::backend::Unsupported> {
        Ok(())
    }

    fn describe(&self) -> String {
        "test: fails after a few frames".into()
    }

    fn step_frame(&mut self, model: &xpbd::core::model::Model, state: &mut xpbd::core::state::State) -> xpbd::core::Result<xpbd::core::backend::FrameStats> {
        if state.frame == self.good {
            // What a device leaves behind is unspecified: make it as bad as it gets.
            state.x.iter_mut().for_each(|p| p.fill(f64::NAN));
            return Err(xpbd::core::Error::backend("test", "an injected device error"));
        }
        self.cpu.step_frame(model, state)
    }
}

#[test]
fn a_backend_error_stops_the_run_and_is_recorded_without_nan() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulation::from_scene(scene(), Path::new("."), Some(Device::Cpu), Path::new("blowup.toml")).unwrap();
    sim.selection.backend = Box::new(FailingBackend { cpu: xpbd_cpu::CpuBackend::new(&sim.model, &sim.config), good: 2 });
    let out = dir.path().join("out");
    let err = sim.run(&out, Some(5), &mut |_, _, _| {}).unwrap_err().to_string();
    assert!(!err.contains('\n'));
    assert!(err.contains("simulation failed at frame 3") && err.contains("test backend: an injected device error"), "{err}");
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(summary["status"], "failed");
    assert_eq!((summary["failure"]["kind"].as_str(), summary["failure"]["frame"].as_u64()), (Some("backend"), Some(3)));
    assert_eq!((summary["frames"].as_u64(), summary["final"]["nan"].as_bool()), (Some(2), Some(false)));
    fn no_null(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::Null => false,
            serde_json::Value::Array(a) => a.iter().all(no_null),
            serde_json::Value::Object(o) => o.values().all(no_null),
            _ => true,
        }
    }
    assert!(no_null(&summary), "a non-finite number would be written as null: {text}");
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 1 + 2, "a row per good frame");
    for row in metrics.lines().skip(1) {
        assert!(row.split(',').all(|f| f.parse::<f64>().is_ok_and(f64::is_finite)), "{row}");
    }
    assert!(out.join("frames/frame_00002.vtu").is_file());
    assert!(!out.join("frames/frame_00003.vtu").exists());
}

/// A non-finite state in an implicit run stops it at the next step, whose system cannot be factorised: summary.json
/// says `failed` with the frame and the backend's one-line cause, and the frames written before stay. (The
/// non-finite health check after a step is the same for every backend and tested above.)
#[test]
fn a_non_finite_implicit_state_stops_the_next_step_and_keeps_the_written_frames() {
    let cube = BodyBuilder::new("cube").box_mesh([1.0; 3], [1, 1, 1]).split(5).material(Material::neohookean_block(1.0e5, 0.3, 1000.0));
    let scene = SceneBuilder::new("singular").frames(10).substeps(2).solver(Solver::implicit()).body(cube).build();
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulation::from_scene(scene, Path::new("."), Some(Device::Cpu), Path::new("singular.toml")).unwrap();
    let out = dir.path().join("out");
    sim.run(&out, Some(3), &mut |_, _, _| {}).unwrap();
    sim.state.x[5].y = f64::NAN;
    let err = sim.run(&out, Some(5), &mut |_, _, _| {}).unwrap_err().to_string();
    assert!(!err.contains('\n'));
    assert!(err.contains("simulation failed at frame 4") && err.contains("could not be factorised: the matrix has a non-finite entry"), "{err}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "failed");
    assert_eq!(summary["solver"]["kind"], "implicit");
    assert_eq!((summary["failure"]["kind"].as_str(), summary["failure"]["frame"].as_u64()), (Some("backend"), Some(4)));
    assert!(summary["failure"]["cause"].as_str().unwrap().contains("non-finite entry"));
    assert!(out.join("frames/frame_00003.vtu").is_file());
    assert!(!out.join("frames/frame_00004.vtu").exists());
}
