//! Checkpoints: a run of N frames and a run of N/2 frames resumed from its checkpoint for N/2 more
//! end in bitwise the same state, with the same metrics rows (docs/output-format.md).

use std::path::Path;
use xpbd::checkpoint;
use xpbd::core::scene::schema::{Collider, Material, Solver};
use xpbd::core::scene::{BodyBuilder, Scene, SceneBuilder};
use xpbd::{Device, Simulation};

/// A beam pinned at one end that falls onto a plane: pins, contacts and restitution all act.
fn scene(solver: Solver) -> Scene {
    let beam = BodyBuilder::new("beam")
        .box_mesh([2.0, 0.5, 0.5], [4, 1, 1])
        .split(5)
        .translate([0.0, 0.3, 0.0])
        .material(Material::neohookean_block(1.0e5, 0.3, 1000.0))
        .pin_box([-0.01, -1.0, -1.0], [0.01, 10.0, 10.0]);
    SceneBuilder::new("ckpt")
        .frames(8)
        .substeps(4)
        .iterations(2)
        .solver(solver)
        .body(beam)
        .collider(Collider::plane([0.0; 3], [0.0, 1.0, 0.0]))
        .probe("tip", "beam", [2.0, 0.3, 0.0])
        .every(2)
        .formats(&["vtu"])
        .build()
}

fn serial() -> Scene {
    scene(Solver::xpbd("serial"))
}

fn sim(scene: &Scene) -> Simulation {
    Simulation::from_scene(scene.clone(), Path::new("."), Some(Device::Cpu), Path::new("ckpt.toml")).unwrap()
}

/// Rows of a CSV file without the timing columns (`ms` and MGPBD's `*_ms`), which differ between runs.
fn rows_without_timing(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let timing: Vec<bool> = text.lines().next().unwrap().split(',').map(|h| h == "ms" || h.ends_with("_ms")).collect();
    text.lines().map(|l| l.split(',').enumerate().filter(|(i, _)| !timing[*i]).map(|(_, f)| f).collect::<Vec<_>>().join(",")).collect()
}

#[test]
fn resumed_run_matches_the_uninterrupted_one_bitwise() {
    // MGPBD with the AMG sets up fully every 2 frames, so the checkpoint at frame 4 falls on a setup.
    let orderings = ["serial", "clustered", "colored", "jacobi"].map(Solver::xpbd);
    let mgpbd = ["cg", "amg-pcg"].map(|l| Solver::mgpbd().linear_solver(l).setup_interval(2).max_coarse(10));
    // Three layers (the half-rigid one keeps its unpinned groups): the layers come from the previous
    // substep's strain rates, or from the substep counter for the random order.
    let multilayer = ["strain_rate", "random"].map(|o| Solver::multilayer().layers(3).layer_order(o));
    for solver in orderings.into_iter().chain(mgpbd).chain(multilayer) {
        let label = format!("{solver:?}");
        let mut case = scene(solver);
        if case.solver.kind == "multilayer" {
            case.simulation.iterations = 6;
        }
        let dir = tempfile::tempdir().unwrap();
        let (straight, split) = (dir.path().join("straight"), dir.path().join("split"));
        let mut a = sim(&case);
        a.run(&straight, Some(8), &mut |_, _, _| {}).unwrap();

        let mut b = sim(&case);
        b.checkpoint_every = 4;
        b.run(&split, Some(6), &mut |_, _, _| {}).unwrap();
        // Killed after frame 6: the checkpoint holds frame 4, the outputs run ahead to frame 6.
        let mut c = sim(&case);
        c.resume(&split).unwrap();
        assert_eq!(c.state.frame, 4);
        c.run(&split, Some(8), &mut |_, _, _| {}).unwrap();

        let bits = |v: &[xpbd::core::mesh::Vec3]| v.iter().flat_map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect::<Vec<_>>();
        assert_eq!(bits(&a.state.x), bits(&c.state.x), "{label}: positions differ");
        assert_eq!(bits(&a.state.v), bits(&c.state.v), "{label}: velocities differ");
        assert_eq!(a.state.time.to_bits(), c.state.time.to_bits());
        assert_eq!(rows_without_timing(&straight.join("metrics.csv")), rows_without_timing(&split.join("metrics.csv")), "{label}: metrics rows");
        assert_eq!(std::fs::read_to_string(straight.join("probes.csv")).unwrap(), std::fs::read_to_string(split.join("probes.csv")).unwrap());
        assert_eq!(std::fs::read_to_string(straight.join("animation.pvd")).unwrap(), std::fs::read_to_string(split.join("animation.pvd")).unwrap());
    }
}

#[test]
fn checkpoints_of_other_scenes_versions_and_truncated_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = sim(&serial());
    a.checkpoint_every = 2;
    a.run(dir.path(), Some(2), &mut |_, _, _| {}).unwrap();
    let file = dir.path().join(checkpoint::FILE);
    // A resumed run keeps checkpointing at the interval of the run it continues.
    let mut resumed = sim(&serial());
    resumed.resume(dir.path()).unwrap();
    assert_eq!(resumed.checkpoint_every, 2);

    // The frame count and output options may differ; the physics may not.
    let mut longer = serial();
    (longer.simulation.frames, longer.output.every) = (80, 3);
    sim(&longer).resume(dir.path()).unwrap();
    let mut stiffer = serial();
    stiffer.bodies[0].material.youngs = Some(2.0e5);
    let err = sim(&stiffer).resume(dir.path()).unwrap_err().to_string();
    assert!(err.contains("checkpoint.bin") && err.contains("another scene") && !err.contains('\n'), "{err}");

    let good = std::fs::read(&file).unwrap();
    let mut other_version = good.clone();
    other_version[8] = 9;
    std::fs::write(&file, &other_version).unwrap();
    let err = sim(&serial()).resume(dir.path()).unwrap_err().to_string();
    assert!(err.contains("version 9 is not supported"), "{err}");

    // Version 2 (no checkpoint interval) is still read, and the run keeps its own interval.
    std::fs::write(&file, [&good[..8], &2u32.to_le_bytes(), &good[12..60], &good[68..]].concat()).unwrap();
    let mut v2 = sim(&serial());
    v2.checkpoint_every = 5;
    v2.resume(dir.path()).unwrap();
    assert_eq!(v2.checkpoint_every, 5);
    // Version 1 (no carried values either) is still read; the multi-layer solver needs its strain rates.
    let v1 = |v3: &[u8]| {
        let carried = u64::from_le_bytes(v3[52..60].try_into().unwrap()) as usize;
        [&v3[..8], &1u32.to_le_bytes(), &v3[12..52], &v3[68..v3.len() - 8 * carried]].concat()
    };
    std::fs::write(&file, v1(&good)).unwrap();
    sim(&serial()).resume(dir.path()).unwrap();
    let layered = scene(Solver::multilayer().layers(2));
    let mut ml = sim(&layered);
    ml.checkpoint_every = 2;
    let ml_dir = tempfile::tempdir().unwrap();
    ml.run(ml_dir.path(), Some(2), &mut |_, _, _| {}).unwrap();
    let ml_file = ml_dir.path().join(checkpoint::FILE);
    std::fs::write(&ml_file, v1(&std::fs::read(&ml_file).unwrap())).unwrap();
    let err = sim(&layered).resume(ml_dir.path()).unwrap_err().to_string();
    assert!(err.contains("checkpoint.bin") && err.contains("strain rates") && !err.contains('\n'), "{err}");

    std::fs::write(&file, &good[..good.len() - 8]).unwrap();
    let err = sim(&serial()).resume(dir.path()).unwrap_err().to_string();
    assert!(err.contains("truncated"), "{err}");

    std::fs::write(&file, b"not a checkpoint").unwrap();
    let err = sim(&serial()).resume(dir.path()).unwrap_err().to_string();
    assert!(err.contains("bad magic"), "{err}");
}
