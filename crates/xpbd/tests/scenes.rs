//! Every scene shipped in `scenes/` loads and builds, and those up to 10k elements take one frame on
//! the CPU to a finite state that passes the health checks, so a change of the scene format or of a
//! solver's accepted settings cannot leave a shipped scene broken. (The larger ones cost tens of
//! seconds a frame; they are run by the benchmarks that use them.)

use std::path::PathBuf;
use xpbd::{Device, Simulation};

#[test]
fn every_shipped_scene_builds_and_steps_one_frame() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    scenes.sort();
    assert!(scenes.len() >= 10, "found only {} scenes in {}", scenes.len(), dir.display());
    let out = tempfile::tempdir().unwrap();
    for path in &scenes {
        let mut sim = Simulation::load(path, Some(Device::Cpu)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if sim.model.element_count() > 10_000 {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let summary = sim.run(&out.path().join(&name), Some(1), &mut |_, _| {}).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(sim.state.first_non_finite().is_none(), "{name}: non-finite state after one frame");
        assert_eq!((summary.status, summary.frames), ("completed", 1), "{name}");
    }
}
