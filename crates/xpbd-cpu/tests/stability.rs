//! The substep limit of the stable neo-Hookean constraints (xpbd_core::stability) predicts where the
//! rest state of a real mesh stops being stable: at the recommended substep count the armadillo keeps its
//! shape, at a quarter of it the block formulation settles into a spurious deformed state.

mod common;

use xpbd_core::metrics;
use xpbd_core::stability::substep_limit;

fn armadillo(substeps: usize) -> String {
    let mesh = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/meshes/armadillo_4k.node");
    format!(
        "name = \"a\"\n[simulation]\ndt = 0.01\nsubsteps = {substeps}\ngravity = [0.0, 0.0, 0.0]\n[[body]]\nname = \"a\"\n\
         mesh = {{ file = \"{mesh}\", scale = 0.5 }}\n\
         material = {{ model = \"neohookean_block\", youngs = 2.0e6, poisson = 0.4, density = 1000.0 }}\n"
    )
}

/// min det F after 30 frames starting from rest (no gravity, no pins).
fn min_volume_ratio_after_rest(substeps: usize) -> f64 {
    let mut sim = common::Sim::new(&armadillo(substeps));
    sim.frames(30);
    metrics::volume_stats(&sim.model, &sim.state.x).0
}

#[test]
fn neohookean_substep_limit_predicts_rest_state_stability() {
    let model = common::built_from_toml(&armadillo(1)).model;
    let limit = substep_limit(&model, &model.tet_groups[0]).unwrap();
    let recommended = (0.01 / limit).ceil() as usize;
    let stable = min_volume_ratio_after_rest(recommended);
    let unstable = min_volume_ratio_after_rest(recommended / 4);
    println!("limit {limit:.3e} s → {recommended} substeps: min det F {stable:.4}; at {} substeps: {unstable:.4}", recommended / 4);
    assert!(stable > 0.985, "at the recommended {recommended} substeps the rest state drifted to min det F {stable}");
    assert!(unstable < 0.9, "at {} substeps the rest state held (min det F {unstable}): the estimate is too conservative", recommended / 4);
}
