//! The substep limit of the stable neo-Hookean constraints (xpbd_core::stability) predicts where the
//! rest state of a real mesh stops being stable: at the recommended substep count the armadillo keeps its
//! shape, at a quarter of it the block formulation settles into a spurious deformed state.

mod common;

use xpbd_core::metrics;
use xpbd_core::scene::schema::Material;
use xpbd_core::scene::{BodyBuilder, Scene, SceneBuilder};
use xpbd_core::stability::substep_limit;

fn armadillo(substeps: usize) -> Scene {
    let mesh = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/meshes/armadillo_4k.node");
    let body = BodyBuilder::new("a").mesh_file(mesh, 0.5).material(Material::neohookean_block(2.0e6, 0.4, 1000.0));
    SceneBuilder::new("a").dt(0.01).substeps(substeps).gravity([0.0; 3]).body(body).build()
}

/// min det F after 30 frames starting from rest (no gravity, no pins).
fn min_volume_ratio_after_rest(substeps: usize) -> f64 {
    let mut sim = common::Sim::new(&armadillo(substeps));
    sim.frames(30);
    metrics::volume_stats(&sim.model, &sim.state.x).0
}

#[test]
fn neohookean_substep_limit_predicts_rest_state_stability() {
    let model = common::built(&armadillo(1)).model;
    let limit = substep_limit(&model, &model.tet_groups[0]).unwrap();
    let recommended = (0.01 / limit).ceil() as usize;
    let stable = min_volume_ratio_after_rest(recommended);
    let unstable = min_volume_ratio_after_rest(recommended / 4);
    println!("limit {limit:.3e} s → {recommended} substeps: min det F {stable:.4}; at {} substeps: {unstable:.4}", recommended / 4);
    assert!(stable > 0.985, "at the recommended {recommended} substeps the rest state drifted to min det F {stable}");
    assert!(unstable < 0.9, "at {} substeps the rest state held (min det F {unstable}): the estimate is too conservative", recommended / 4);
}
