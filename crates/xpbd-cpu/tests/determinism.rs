//! CPU runs are bit-reproducible, and independent of the thread count: the items of a colored or
//! clustered batch share no vertex or multiplier, and Jacobi sums each vertex's corrections in a fixed
//! order, so no result depends on which thread ran what. MGPBD likewise, and the multi-layer solver (its
//! elastic sweep by colors, its bodies one per task).

mod common;

use common::Sim;
use xpbd_core::scene::schema::{Material, Solver};
use xpbd_core::scene::{BodyBuilder, Scene, SceneBuilder};

/// A spinning beam of `model` clamped at one end, solved by `solver`.
fn scene(solver: Solver, model: &str) -> Scene {
    let beam = BodyBuilder::new("beam")
        .box_mesh([2.0, 0.5, 0.5], [12, 3, 3])
        .split(5)
        .angular_velocity([0.5, 1.0, 0.0])
        .material(Material::tet(model, 1.0e6, 0.4, 1000.0))
        .pin_box([-0.01, -1.0, -1.0], [0.01, 1.0, 1.0]);
    SceneBuilder::new("det").dt(0.01).substeps(10).iterations(2).solver(solver).body(beam).build()
}

fn run(ordering: &str, model: &str, threads: usize) -> Vec<[u64; 3]> {
    run_scene(&scene(Solver::xpbd(ordering), model), threads)
}

fn run_scene(scene: &Scene, threads: usize) -> Vec<[u64; 3]> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut sim = Sim::new(scene);
        sim.frames(20);
        sim.state.x.iter().map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect()
    })
}

#[test]
fn runs_are_bit_identical_across_repeats_and_thread_counts() {
    for ordering in ["serial", "colored", "clustered", "jacobi"] {
        for model in ["neohookean_block", "neohookean"] {
            let a = run(ordering, model, 1);
            assert!(a == run(ordering, model, 1), "{ordering} {model}: two runs on one thread differ");
            assert!(a == run(ordering, model, 2), "{ordering} {model}: one and two threads differ");
        }
    }
}

/// MGPBD computes rows, matrix values and corrections one per task and sums norms in order.
#[test]
fn mgpbd_runs_are_bit_identical_across_thread_counts() {
    for model in ["arap", "neohookean_block"] {
        let scene = scene(Solver::mgpbd(), model);
        let a = run_scene(&scene, 1);
        assert!(a == run_scene(&scene, 1), "mgpbd {model}: two runs on one thread differ");
        assert!(a == run_scene(&scene, 2), "mgpbd {model}: one and two threads differ");
    }
}

/// The multi-layer solver's layers (rigid bodies, glue and colored elastic sweeps), for both stable
/// neo-Hookean forms and StVK; the beam spins, so the layers change every substep. 10 iterations give
/// each of the 5 layers at least one.
#[test]
fn multilayer_runs_are_bit_identical_across_thread_counts() {
    for model in ["stvk", "neohookean_block", "neohookean"] {
        let mut scene = scene(Solver::multilayer(), model);
        scene.simulation.iterations = 10;
        let a = run_scene(&scene, 1);
        assert!(a == run_scene(&scene, 1), "multilayer {model}: two runs on one thread differ");
        assert!(a == run_scene(&scene, 2), "multilayer {model}: one and two threads differ");
    }
}
