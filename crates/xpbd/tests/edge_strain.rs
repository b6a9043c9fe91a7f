//! Cloth scenes report the largest edge strain per frame (`metrics.csv` column `max_edge_strain`, and
//! `summary.json` `final.max_edge_strain`); tetrahedral scenes have neither.

use std::path::Path;
use xpbd::core::scene::schema::Material;
use xpbd::core::scene::{BodyBuilder, SceneBuilder};
use xpbd::{Device, Simulation};

fn run(body: BodyBuilder, frames: usize) -> (Simulation, String, serde_json::Value) {
    let scene = SceneBuilder::new("s").frames(frames).substeps(4).formats(&["none"]).body(body).build();
    let mut sim = Simulation::from_scene(scene, Path::new("."), Some(Device::Cpu), Path::new("s.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    sim.run(dir.path(), None, &mut |_, _, _| {}).unwrap();
    let metrics = std::fs::read_to_string(dir.path().join("metrics.csv")).unwrap();
    let summary = serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    (sim, metrics, summary)
}

#[test]
fn cloth_reports_its_largest_edge_strain() {
    let cloth =
        BodyBuilder::new("cloth").grid2d([1.0, 1.0], [6, 6]).material(Material::cloth(0.1, 1e-3, 1.0)).pin_box([-0.01, 0.99, -0.01], [0.01, 1.01, 0.01]);
    let (sim, metrics, summary) = run(cloth, 3);
    let mut lines = metrics.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let k = header.iter().position(|c| *c == "max_edge_strain").expect("column");
    assert_eq!(header[k - 1], "contacts");
    let last: Vec<&str> = lines.last().unwrap().split(',').collect();
    let expect = xpbd::core::metrics::max_edge_strain(&sim.model, &sim.state.x).unwrap();
    assert!(expect > 1e-6, "a compliant cloth hanging from a corner stretches: {expect}");
    assert_eq!(last[k].parse::<f64>().unwrap(), expect);
    assert_eq!(summary["final"]["max_edge_strain"].as_f64().unwrap(), expect);
}

#[test]
fn tetrahedral_scenes_have_no_edge_strain() {
    let tets = BodyBuilder::new("cube").box_mesh([1.0; 3], [1, 1, 1]).material(Material::tet("stvk", 1e6, 0.3, 1000.0));
    let (_, metrics, summary) = run(tets, 1);
    assert!(!metrics.lines().next().unwrap().contains("max_edge_strain"));
    assert!(summary["final"].get("max_edge_strain").is_none());
}
