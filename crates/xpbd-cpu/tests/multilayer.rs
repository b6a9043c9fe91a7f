//! The multi-layer solver on small scenes (ARCHITECTURE.md, "Cross-cutting concerns", docs/multilayer.md): free fall, a free
//! spinning box keeps its angular momentum and volume, a box at rest stays at rest, the cantilever
//! settles where XPBD does, and scenes asking for parts not built yet are rejected.

mod common;

use common::incline::{assert_coulomb, block_on_incline, slide, small_block, G, SLOPE_DEGREES};
use common::{built, sim_header, Sim};
use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::{signed_tet_volume, Vec3};
use xpbd_core::scene::schema::{Collider, InitialDeform, Material, Solver};
use xpbd_core::scene::{BodyBuilder, Scene, SceneBuilder};

/// The block's body: 1 × 0.5 × 0.5 (4×2×2 cells) of `material` (E = 1e6 Pa), spinning at `omega`.
fn block_body(material: &str, omega: [f64; 3]) -> BodyBuilder {
    BodyBuilder::new("b").box_mesh([1.0, 0.5, 0.5], [4, 2, 2]).split(5).angular_velocity(omega).material(Material::tet(material, 1e6, 0.3, 1000.0))
}

/// The block of `material` spinning at `omega`, solved by `solver` at `substeps` × `iterations` under
/// gravity `gravity` along y.
fn block(solver: Solver, material: &str, gravity: f64, substeps: usize, iterations: usize, omega: [f64; 3]) -> Scene {
    let scene = SceneBuilder::new("t").dt(0.01).substeps(substeps).iterations(iterations).gravity([0.0, gravity, 0.0]).solver(solver).formats(&["none"]);
    scene.body(block_body(material, omega)).build()
}

/// `scene` with its one body's Young's modulus set to `youngs`.
fn with_youngs(mut scene: Scene, youngs: f64) -> Scene {
    scene.bodies[0].material.youngs = Some(youngs);
    scene
}

fn volume(sim: &Sim) -> f64 {
    let x = &sim.state.x;
    sim.model
        .tet_groups
        .iter()
        .flat_map(|g| &g.tets)
        .map(|t| signed_tet_volume(&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize], &x[t[3] as usize]))
        .sum()
}

/// Angular momentum Σ m (x − c) × v about the centre of mass.
fn angular_momentum(sim: &Sim) -> Vec3 {
    let c = sim.centre_of_mass();
    let s = &sim.state;
    sim.model.mass.iter().zip(&s.x).zip(&s.v).map(|((m, x), v)| (x - c).cross(v) * *m).sum()
}

#[test]
fn free_fall_is_symplectic_euler_and_keeps_the_shape() {
    // The centre of mass falls as XPBD's does, and uniform gravity leaves the shape alone for every
    // model: the stable neo-Hookean pair is solved as one block (docs/multilayer.md).
    for material in ["stvk", "neohookean", "neohookean_block"] {
        let mut sim = Sim::new(&block(Solver::multilayer(), material, -9.81, 4, 10, [0.0; 3]));
        let c0 = sim.centre_of_mass();
        sim.frames(10);
        let (h, n) = (0.0025, 40.0);
        let expect = c0 + Vec3::new(0.0, -9.81 * h * h * n * (n + 1.0) / 2.0, 0.0);
        let drop = sim.centre_of_mass() - c0;
        assert!((sim.centre_of_mass() - expect).norm() < 1e-9, "{material}: centre {:?} vs {:?}", sim.centre_of_mass(), expect);
        let shape = sim.state.x.iter().zip(&sim.model.rest).map(|(x, r)| (x - r - drop).norm()).fold(0.0, f64::max);
        assert!(shape < 1e-9, "{material}: shape changed by {shape:e}");
    }
}

#[test]
fn box_at_rest_stays_at_rest() {
    // StVK rows vanish at rest, so nothing may move at all.
    let mut sim = Sim::new(&block(Solver::multilayer(), "stvk", 0.0, 2, 10, [0.0; 3]));
    sim.frames(10);
    assert_eq!(sim.max_displacement(), 0.0);
}

/// (max vertex speed, largest displacement from rest, |P|, |L| about the centre) after 100 frames of a
/// free block at rest, no gravity, 4 substeps × 20 iterations.
fn rest_run(solver: Solver, material: &str) -> (f64, f64, f64, f64) {
    let mut sim = Sim::new(&block(solver, material, 0.0, 4, 20, [0.0; 3]));
    sim.frames(100);
    let speed = sim.state.v.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let p: Vec3 = sim.model.mass.iter().zip(&sim.state.v).map(|(m, v)| v * *m).sum();
    (speed, sim.max_displacement(), p.norm(), angular_momentum(&sim).norm())
}

#[test]
fn neohookean_at_rest_stays_at_rest() {
    // The stable neo-Hookean rows are not zero at rest, but their equilibrium multipliers balance
    // (zero net push on every vertex), and the coupled 2×2 projection reaches them in one step without
    // moving anything. The decoupled pair, solved one row after the other, leaves an order-dependent
    // drift; the layers change the order every substep, so before the pair was solved as a block
    // here a `neohookean` box moved at 1.0 m/s after 100 frames (XPBD: 1.7 cm/s, deformed: min det F
    // 0.955). Now both models stay at rest to rounding (measured ≤ 1e-14 m/s), where XPBD's block does.
    for material in ["neohookean_block", "neohookean"] {
        let (speed, moved, p, l) = rest_run(Solver::multilayer(), material);
        let (xp_speed, xp_moved, _, _) = rest_run(Solver::xpbd("serial"), material);
        println!("{material}: multilayer max speed {speed:.2e} m/s, moved {moved:.2e} m, |P| {p:.1e}, |L| {l:.1e}; xpbd max speed {xp_speed:.2e} m/s, moved {xp_moved:.2e} m");
        assert!(speed < 1e-12, "{material}: moving at {speed:e} m/s");
        assert!(moved < 1e-9, "{material}: moved {moved:e} m from rest");
        assert!(p < 1e-9 && l < 1e-9, "{material}: momentum |P| {p:e}, |L| {l:e}");
    }
}

/// (max relative drift of |L|, max relative volume change) over `frames` frames of a box spinning
/// about its long axis's perpendicular, and the final relative residual.
fn spin(solver: Solver, frames: usize) -> (f64, f64, f64) {
    let mut sim = Sim::new(&block(solver, "stvk", 0.0, 2, 10, [0.0, 0.0, 6.0]));
    let (l0, v0) = (angular_momentum(&sim), volume(&sim));
    let (mut dl, mut dv, mut rel) = (0.0f64, 0.0f64, 0.0);
    for _ in 0..frames {
        rel = sim.backend.step_frame(&sim.model, &mut sim.state).unwrap().relative_residual;
        dl = dl.max((angular_momentum(&sim) - l0).norm() / l0.norm());
        dv = dv.max((volume(&sim) / v0 - 1.0).abs());
    }
    (dl, dv, rel)
}

#[test]
fn first_rigid_layer_solves_a_free_spin() {
    // Study (f): the 100 %-rigid first layer steps the spin exactly, so its residual is a small
    // fraction of the prediction's ‖C(x̃)‖ (target: at least 99.9 % reduction). What it cannot remove
    // is the centrifugal stretch (strain ~ ρω²L²/E against the prediction's ~ (ωh)²), so the box is
    // steel-stiff here.
    let steel = |mut scene: Scene| {
        scene.bodies[0].material.density = Some(7800.0);
        with_youngs(scene, 2e11)
    };
    let mut sim = Sim::new(&steel(block(Solver::multilayer(), "stvk", 0.0, 1, 10, [0.0, 0.0, 6.0])));
    sim.frames(5);
    sim.backend.multilayer().unwrap().record_layers = true;
    let stats = sim.backend.step_frame(&sim.model, &mut sim.state).unwrap();
    let r0 = stats.residual / stats.relative_residual;
    let layers: Vec<f64> = sim.backend.multilayer().unwrap().layer_residuals.iter().map(|r| r / r0).collect();
    let shown: Vec<String> = layers.iter().map(|r| format!("{r:.2e}")).collect();
    println!("‖r₀‖ = {r0:.3e}; relative residual after each layer: {}", shown.join(", "));
    let mut xpbd = Sim::new(&steel(block(Solver::xpbd("serial"), "stvk", 0.0, 1, 10, [0.0, 0.0, 6.0])));
    xpbd.frames(5);
    println!("xpbd, same 10 iterations: relative residual {:.2e}", xpbd.backend.step_frame(&xpbd.model, &mut xpbd.state).unwrap().relative_residual);
    assert_eq!(layers.len(), 5);
    assert!(layers[0] <= 1e-3, "first layer leaves {:e} of the residual", layers[0]);
}

#[test]
fn spinning_box_keeps_angular_momentum_and_volume() {
    let (ml_l, ml_v, ml_r) = spin(Solver::multilayer(), 100);
    let (xp_l, xp_v, xp_r) = spin(Solver::xpbd("serial"), 100);
    println!("multilayer: |ΔL|/|L| {ml_l:.2e}, |ΔV|/V {ml_v:.2e}, last relative residual {ml_r:.2e}");
    println!("xpbd:       |ΔL|/|L| {xp_l:.2e}, |ΔV|/V {xp_v:.2e}, last relative residual {xp_r:.2e}");
    assert!(ml_v < 1e-3, "multilayer volume drift {ml_v:e}");
    assert!(ml_l < 1e-3, "multilayer angular momentum drift {ml_l:e}");
    assert!(ml_v < xp_v, "multilayer volume drift {ml_v:e} not below XPBD's {xp_v:e}");
}

/// The pinned cantilever of docs/multilayer.md after `frames` frames with `solver` lines.
fn cantilever(solver: Solver, material: &str, iterations: usize, frames: usize) -> Sim {
    let beam = BodyBuilder::new("beam")
        .box_mesh([2.0, 0.5, 0.5], [8, 2, 2])
        .split(5)
        .material(Material::tet(material, 1e7, 0.3, 1000.0))
        .pin_box([-0.01, -1.0, -1.0], [0.01, 2.0, 2.0]);
    let mut sim = Sim::new(&sim_header(0.01, 10, iterations, [0.0, -9.81, 0.0], 25.0, "serial").solver(solver).body(beam).build());
    sim.frames(frames);
    sim
}

#[test]
fn one_layer_or_a_pinned_first_layer_is_xpbd() {
    // One layer is fully elastic: the residual step is XPBD's prediction and the sweep XPBD's colored
    // one (the same cached coloring, each element projected as XPBD's StVK projects it), or with
    // `layer_sweep = "serial"` XPBD's serial one. With two layers the first is one body holding the pins,
    // which is dissolved (pinned groups stay elastic), so its 3 and the last layer's 7 iterations are
    // XPBD's 10. The two orders differ from each other.
    let colored = cantilever(Solver::xpbd("colored"), "stvk", 10, 20);
    let serial = cantilever(Solver::xpbd("serial"), "stvk", 10, 20);
    assert_ne!(colored.state.x, serial.state.x);
    for layers in [1, 2] {
        assert_eq!(cantilever(Solver::multilayer().layers(layers), "stvk", 10, 20).state.x, colored.state.x, "{layers} layers");
        let sweep = Solver::multilayer().layers(layers).layer_sweep("serial");
        assert_eq!(cantilever(sweep, "stvk", 10, 20).state.x, serial.state.x, "{layers} layers, serial sweep");
    }
}

#[test]
fn the_elastic_sweep_is_a_valid_colored_schedule() {
    // §3.1: every element once, and no two elements of one color (a batch run in parallel) share a vertex.
    let mut sim = cantilever(Solver::multilayer(), "stvk", 10, 0);
    let tets: Vec<[u32; 4]> = sim.model.tet_groups.iter().flat_map(|g| g.tets.clone()).collect();
    let schedule = sim.backend.multilayer().unwrap().elastic_schedule().clone();
    let mut seen = vec![false; tets.len()];
    for b in 0..schedule.batches() {
        let mut owner = vec![None; sim.model.vertex_count()];
        for e in schedule.batch(b).flat_map(|i| schedule.item(i).to_vec()) {
            assert!(!std::mem::replace(&mut seen[e as usize], true), "element {e} scheduled twice");
            for v in tets[e as usize] {
                assert_eq!(std::mem::replace(&mut owner[v as usize], Some(e)), None, "color {b}: elements share vertex {v}");
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "an element is never swept");
    assert!(schedule.batches() > 1);
}

#[test]
fn cantilever_settles_where_xpbd_does() {
    let tip = |sim: &Sim| {
        let tips: Vec<usize> = (0..sim.model.vertex_count()).filter(|&i| (sim.model.rest[i].x - 2.0).abs() < 1e-9).collect();
        tips.iter().map(|&i| sim.state.x[i].y - sim.model.rest[i].y).sum::<f64>() / tips.len() as f64
    };
    for material in ["stvk", "neohookean_block"] {
        // XPBD colored, the order of the multi-layer sweep: the two agree to 1e-4 (serial XPBD's
        // neo-Hookean tip, −0.06234 m, is 2 % off the multi-layer solver's −0.06376 m at this iteration count).
        let (ml, xp) = (tip(&cantilever(Solver::multilayer(), material, 20, 150)), tip(&cantilever(Solver::xpbd("colored"), material, 20, 150)));
        println!("{material}: tip deflection after 1.5 s: multilayer {ml:.6} m, xpbd {xp:.6} m");
        assert!(xp < -0.04, "{material}: the beam should bend: {xp}");
        assert!((ml - xp).abs() < 1e-3 * xp.abs(), "{material}: multilayer {ml} vs xpbd {xp}");
    }
}

#[test]
fn decoupled_neohookean_is_solved_as_the_block() {
    // The multi-layer solver projects the `neohookean` pair as one block (docs/multilayer.md): the
    // same beam bit for bit. XPBD's decoupled pair ends 28 % stiffer here (−0.0446 vs −0.0623 m),
    // the order-dependent drift of its row-by-row solve at this substep; both models give −0.0657 m at
    // 40 substeps, which is why the cantilever above compares the block.
    let (decoupled, coupled) = (cantilever(Solver::multilayer(), "neohookean", 20, 20), cantilever(Solver::multilayer(), "neohookean_block", 20, 20));
    assert_eq!(decoupled.state.x, coupled.state.x);
    let warnings = built(&block(Solver::multilayer(), "neohookean", 0.0, 4, 20, [0.0; 3])).warnings;
    assert!(warnings.iter().any(|w| w.contains("body 'b'") && w.contains("neohookean_block") && !w.contains('\n')), "{warnings:?}");
}

#[test]
fn dropped_box_comes_to_rest_on_the_floor() {
    // The block (0.5 m tall, resting height of its centre 0.25 m) starts 5 cm above a plane at y = 0.
    // Contacts are penalty rows with compliance 1e-4 m/N, so it sinks by about α·(m g / n_bottom).
    for material in ["stvk", "neohookean_block"] {
        let mut scene = block(Solver::multilayer(), material, -9.81, 4, 20, [0.0; 3]);
        scene.bodies[0].translate = [0.0, 0.05, 0.0];
        scene.colliders.push(Collider::plane([0.0; 3], [0.0, 1.0, 0.0]).restitution(0.0));
        let mut sim = Sim::new(&scene);
        sim.frames(100);
        let bottom = sim.state.x.iter().map(|x| x.y).fold(f64::INFINITY, f64::min);
        let speed = sim.state.v.iter().map(|v| v.norm()).fold(0.0, f64::max);
        let sink = sim.total_mass() * 9.81 / 15.0 * 1e-4; // 15 vertices on the bottom face
        println!("{material}: centre y {:.5} m, lowest vertex {bottom:.5} m (penalty estimate −{sink:.5}), max speed {speed:.2e} m/s", sim.centre_of_mass().y);
        assert!(bottom < 0.0 && bottom > -2.0 * sink, "{material}: lowest vertex {bottom}");
        assert!((sim.centre_of_mass().y - 0.25).abs() < 2.0 * sink, "{material}: centre {}", sim.centre_of_mass().y);
        // The penalty rows are undamped springs; restitution 0 takes the impact (≈ 1 m/s) out, and
        // what stays is a small vibration on them.
        assert!(speed < 0.05 * (2.0f64 * 9.81 * 0.05).sqrt(), "{material}: still moving at {speed} m/s");
    }
}

#[test]
fn layer_stop_cuts_settled_layers_short() {
    // A stiff block stretched 10 % and released, 31 iterations (1, 2, 4, 8, 16). With no threshold
    // every layer runs its share; with an unreachable change threshold every layer but the last ends
    // at the first iteration after the residual first decreases.
    let runs = |solver: Solver| {
        let mut sim = Sim::new(&with_youngs(block(solver, "stvk", 0.0, 1, 31, [0.0; 3]), 1e9));
        sim.state.x.iter_mut().for_each(|x| x.x = 0.5 + 1.1 * (x.x - 0.5));
        sim.frame();
        sim.backend.multilayer().unwrap().iterations_run.clone()
    };
    assert_eq!(runs(Solver::multilayer()), vec![1, 2, 4, 8, 16]);
    assert_eq!(runs(Solver::multilayer().layer_stop(0.0)), vec![1, 2, 4, 8, 16]);
    let cut = runs(Solver::multilayer().layer_stop(1e300));
    println!("iterations run with layer_stop = 1e300: {cut:?}");
    assert_eq!(cut[4], 16, "the last layer always runs its share");
    assert!(cut[..4].iter().sum::<usize>() < 15, "{cut:?}");
    assert!(cut[..4].iter().zip([1, 2, 4, 8]).all(|(&c, s)| c >= 1 && c <= s), "{cut:?}");
}

#[test]
fn unbuilt_parts_are_rejected_with_one_line() {
    let build = |scene: &Scene| xpbd_core::scene::build(scene, Path::new(".")).err().map(|e| e.to_string());
    let mut damped = block(Solver::multilayer(), "stvk", -9.81, 2, 10, [0.0; 3]);
    damped.bodies[0].damping = 0.01;
    let e = build(&damped).expect("body damping is not supported yet");
    assert!(e.contains("multilayer") && e.contains("body damping") && !e.contains('\n'), "{e}");
    let e = build(&block(Solver::xpbd("serial").layers(3), "stvk", 0.0, 2, 10, [0.0; 3])).unwrap();
    assert!(e.contains("solver.layers") && e.contains("only for kind = \"multilayer\""), "{e}");
    let e = build(&block(Solver::multilayer().layers(5), "stvk", 0.0, 2, 4, [0.0; 3])).unwrap();
    assert!(e.contains("simulation.iterations"), "{e}");
    let e = build(&block(Solver::multilayer().layer_stop(-1.0), "stvk", 0.0, 2, 10, [0.0; 3])).unwrap();
    assert!(e.contains("solver.layer_stop"), "{e}");
    let e = build(&block(Solver::multilayer().layer_order("zigzag"), "stvk", 0.0, 2, 10, [0.0; 3])).unwrap();
    assert!(e.contains("solver.layer_order") && e.contains("zigzag"), "{e}");
}

#[test]
fn iteration_trace_follows_the_layers_and_resumes_from_a_reference() {
    // The studies' record (benches/multilayer_studies.rs): one entry per iteration, the layer ends at
    // the per-layer record, the last one the reported residual. A fresh solver resumed from a
    // reference's strain rates takes the substep the recording reference takes, bit for bit (so the
    // record does not perturb the solve); without them it orders the elements differently.
    let mut sim = Sim::new(&with_youngs(block(Solver::multilayer(), "stvk", 0.0, 1, 31, [0.0; 3]), 1e9));
    sim.state.x.iter_mut().for_each(|x| x.x = 0.5 + 1.1 * (x.x - 0.5));
    sim.frame();
    let start = sim.state.clone();
    let mut resumed = xpbd_cpu::CpuBackend::new(&sim.model, &sim.config);
    resumed.multilayer().unwrap().resume_from(sim.backend.multilayer().unwrap());
    let mut fresh = xpbd_cpu::CpuBackend::new(&sim.model, &sim.config);

    let m = sim.backend.multilayer().unwrap();
    (m.record_iterations, m.record_layers) = (true, true);
    let stats = sim.backend.step_frame(&sim.model, &mut sim.state).unwrap();
    let m = sim.backend.multilayer().unwrap();
    assert_eq!(m.iteration_trace.len(), 31);
    assert_eq!(m.rigid_elements, vec![80, 60, 40, 20, 0], "linear fractions of 80 tets, nothing pinned");
    let ends: Vec<f64> = m
        .iterations_run
        .iter()
        .scan(0, |k, &n| {
            *k += n;
            Some(m.iteration_trace[*k - 1].1)
        })
        .collect();
    assert_eq!(ends, m.layer_residuals);
    assert_eq!(m.iteration_trace.last().unwrap().1, stats.residual);
    assert!(m.iteration_trace.windows(2).all(|w| 0.0 <= w[0].0 && w[0].0 <= w[1].0));

    let step = |backend: &mut xpbd_cpu::CpuBackend| {
        let mut s = start.clone();
        backend.step_frame(&sim.model, &mut s).unwrap();
        s.x
    };
    assert_eq!(step(&mut resumed), sim.state.x);
    assert_ne!(step(&mut fresh), sim.state.x);
}

#[test]
fn stretch_order_resumes_from_its_saved_key() {
    // layer_order = "stretch" (the multi-layer paper §4.1): the key a checkpoint saves and the positions
    // give the next substep bit for bit; on a spinning, ringing block it is not the strain rate, and
    // it orders the layers differently from it.
    let stretched = |order: &str| {
        let mut sim = Sim::new(&block(Solver::multilayer().layer_order(order), "stvk", 0.0, 1, 31, [0.0, 0.0, 4.0]));
        sim.state.x.iter_mut().for_each(|x| x.x = 0.5 + 1.05 * (x.x - 0.5));
        sim.frame();
        sim.frame();
        sim
    };
    let mut sim = stretched("stretch");
    let start = sim.state.clone();
    let key = sim.backend.multilayer().unwrap().strain_rates().to_vec();
    assert!(key.iter().all(|&s| s >= 0.0) && key.iter().any(|&s| s > 0.0));
    let mut by_strain = stretched("strain_rate");
    assert_ne!(key, by_strain.backend.multilayer().unwrap().strain_rates());
    let mut resumed = xpbd_cpu::CpuBackend::new(&sim.model, &sim.config);
    resumed.multilayer().unwrap().restore(sim.config.substeps, &start, &key).unwrap();
    sim.frame();
    by_strain.frame();
    let mut s = start.clone();
    resumed.step_frame(&sim.model, &mut s).unwrap();
    assert_eq!(s.x, sim.state.x);
    assert_ne!(by_strain.state.x, sim.state.x);
}

/// A free 3 × 1 × 1 StVK block (6×2×2 cells, E = 1e7 Pa) stretched 1 % along x and released with no
/// gravity, `substeps` × 20 iterations: the largest |P| and |L| (about the centre of mass; both start
/// at 0) over 20 frames.
fn released_stretch(solver: Solver, substeps: usize) -> (f64, f64) {
    let body = BodyBuilder::new("b")
        .box_mesh([3.0, 1.0, 1.0], [6, 2, 2])
        .split(5)
        .initial_deform(InitialDeform { scale: [1.01, 1.0, 1.0], twist_axis: None, twist_degrees: 0.0 })
        .material(Material::tet("stvk", 1e7, 0.3, 1000.0));
    let scene = SceneBuilder::new("t").dt(0.01).substeps(substeps).iterations(20).gravity([0.0; 3]).solver(solver).formats(&["none"]);
    let mut sim = Sim::new(&scene.body(body).build());
    let (mut p, mut l) = (0.0f64, 0.0f64);
    for _ in 0..20 {
        sim.frame();
        p = p.max(sim.model.mass.iter().zip(&sim.state.v).map(|(m, v)| v * *m).sum::<Vec3>().norm());
        l = l.max(angular_momentum(&sim).norm());
    }
    (p, l)
}

#[test]
fn released_stretched_block_keeps_its_momentum() {
    // Momenta here are ~1e3 (3000 kg moving at ~1 m/s). Before the fixes of docs/multilayer.md
    // ("A released stretched block gained angular momentum") the strain-rate order reached |L| = 3.6
    // and `random` 0.71 at 4 substeps; XPBD 0.073. With boundary members held at the rigid positions
    // during the elastic sweeps it was still 0.13–0.20 at 4 and 0.015–0.090 (15–90 × XPBD's) at 16
    // substeps; since they take their deformation step with the body's, every order stays below XPBD's
    // drift at 4 substeps and within 10 × XPBD's at 16, and the strain-rate and random drifts shrink with
    // the substep as XPBD's does. XPBD runs colored, the order of the multi-layer sweep (docs/multilayer.md,
    // "Parallel sweep"); measured: XPBD 0.048 / 0.011, the strain-rate, random and stripes orders 0.014 /
    // 0.033 / 0.031 at 4 substeps and 0.38 / 0.34 / 1.8 × XPBD's at 16. (Against serial XPBD, 0.073 / 0.0010,
    // the stripes order's 0.019 at 16 substeps was 19 ×; with the serial multi-layer sweep it was 8.4 ×.)
    let xp: Vec<f64> = [4, 16]
        .iter()
        .map(|&substeps| {
            let (p, l) = released_stretch(Solver::xpbd("colored"), substeps);
            println!("{substeps} substeps, xpbd: max |P| {p:.2e} kg m/s, max |L| {l:.2e} kg m²/s");
            assert!(p < 1e-7 && l < 0.1, "xpbd |P| {p:e}, |L| {l:e}");
            l
        })
        .collect();
    for order in ["strain_rate", "random", "stripes"] {
        let solver = Solver::multilayer().layer_order(order);
        let ((p4, l4), (p16, l16)) = (released_stretch(solver.clone(), 4), released_stretch(solver, 16));
        println!("multilayer, {order} order: max |P| {p4:.2e} / {p16:.2e} kg m/s, max |L| {l4:.2e} / {l16:.2e} kg m²/s (4 / 16 substeps)");
        assert!(p4 < 1e-7 && p16 < 1e-6, "{order}: linear momentum {p4:e}, {p16:e}");
        assert!(l4 < xp[0] && l16 < 10.0 * xp[1], "{order}: angular momentum {l4:e} / {l16:e} against XPBD's {:e} / {:e}", xp[0], xp[1]);
        if order != "stripes" {
            assert!(l16 < 0.5 * l4, "{order}: angular momentum {l16:e} at 16 substeps, {l4:e} at 4");
        }
    }
}

/// Where the penalty rows (compliance 1e-4 m/N) hold the incline tests' 8 kg block on its 9 bottom
/// vertices against the share `cos_theta` of gravity along the normal: α m g cos θ / 9 into the plane.
fn penalty_depth(cos_theta: f64) -> f64 {
    1e-4 * 8.0 * G * cos_theta / 9.0
}

/// How far the bottom face of the block on a 20° plane of docs/contact.md (friction `mu`) slides in 1 s
/// under the multi-layer `solver` at 10 substeps × `iterations`, and how many collider contact rows it
/// solved on rigid vertices in the last substep of each frame, summed. The block starts where the penalty rows (compliance α = 1e-4
/// m/N) hold its weight, α m g cos θ / 9 into the plane: from the surface, the contacts take the first
/// 20 ms to load (a spring's quarter period), and the unloaded block slips 0.9 mm meanwhile. The face,
/// not the centre: on those springs the block also tips under the friction's torque (≈ 0.45 mm at its
/// centre, and twice that in the undamped swing), which is not sliding.
fn incline_slide(solver: Solver, iterations: usize, mu: f64) -> (f64, usize) {
    let mut scene = block_on_incline(mu).iterations(iterations).solver(solver).build();
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    let sink = penalty_depth(c);
    scene.bodies[0].translate = [s * sink, -c * sink, 0.0];
    let mut rigid = 0;
    let slid = slide(&scene, 1.0, |sim| rigid += sim.backend.multilayer().unwrap().rigid_contacts);
    (slid.bottom, rigid)
}

#[test]
fn an_elastic_block_on_a_20_degree_plane_sticks_at_mu_half_and_slides_as_coulomb_at_mu_0_2() {
    // One layer: every vertex is elastic, and each contact an elastic penalty row with friction.
    assert_coulomb("multilayer, elastic", &[0.5, 0.2, 0.0], |mu| {
        let (slid, rigid) = incline_slide(Solver::multilayer().layers(1), 4, mu);
        assert_eq!(rigid, 0, "one layer has no rigid body");
        slid
    });
}

#[test]
fn a_rigid_block_on_a_20_degree_plane_sticks_at_mu_half_and_slides_as_coulomb_at_mu_0_2() {
    // Two layers, 7 and 3 iterations: in the first every element is rigid, so the block is one body
    // and its contacts go through the glue procedure (counted); the last layer is elastic.
    let solver = Solver { layer_iterations: Some("halving".into()), ..Solver::multilayer().layers(2) };
    assert_coulomb("multilayer, rigid layer", &[0.5, 0.2, 0.0], |mu| {
        let (slid, rigid) = incline_slide(solver.clone(), 10, mu);
        assert!(rigid >= 60 * 7, "each rigid iteration solves contacts of the bottom face: {rigid} rows in the last substeps of 60 frames");
        slid
    });
}

#[test]
fn a_block_on_a_moving_plane_is_carried_at_its_speed() {
    // The block at rest on a horizontal plane moving along x at 1 m/s (a conveyor belt), μ = 0.5:
    // friction accelerates it at μ g until it moves with the belt, so in 1 s it travels
    // 1 m − (1 m/s)² / (2 μ g) = 0.898 m. Elastic (one layer) and with a rigid first layer.
    let belt = Collider::plane([0.0; 3], [0.0, 1.0, 0.0]).friction(0.5).velocity([1.0, 0.0, 0.0]);
    let expected = 1.0 - 1.0 / (2.0 * 0.5 * G);
    for (label, solver) in
        [("elastic", Solver::multilayer().layers(1)), ("rigid layer", Solver { layer_iterations: Some("halving".into()), ..Solver::multilayer().layers(2) })]
    {
        let scene = sim_header(1.0 / 60.0, 10, 10, [0.0, -G, 0.0], 0.0, "serial")
            .solver(solver)
            .body(small_block().translate([0.0, -penalty_depth(1.0), 0.0]))
            .collider(belt.clone());
        let mut sim = Sim::new(&scene.build());
        let x0 = sim.centre_of_mass();
        sim.frames(60);
        let (moved, speed) = ((sim.centre_of_mass() - x0).x, sim.model.mass.iter().zip(&sim.state.v).map(|(m, v)| m * v.x).sum::<f64>() / sim.total_mass());
        println!("{label}: carried {moved:.4} m (expected {expected:.4} m), speed {speed:.4} m/s");
        assert!((moved - expected).abs() < 0.02 * expected, "{label}: carried {moved} m, expected {expected} m");
        assert!((speed - 1.0).abs() < 0.01, "{label}: moving at {speed} m/s, the belt at 1 m/s");
    }
}

/// The mechanical energy (elastic + kinetic, J) after `frames` frames of the free 3 × 1 × 1 StVK block
/// (6×2×2 cells, E = 1e6 Pa) stretched 30 % along x and released with no gravity, 10 substeps × 10
/// iterations.
fn released_block_energy(solver: Solver, frames: usize) -> f64 {
    let body = BodyBuilder::new("b")
        .box_mesh([3.0, 1.0, 1.0], [6, 2, 2])
        .split(5)
        .initial_deform(InitialDeform { scale: [1.3, 1.0, 1.0], twist_axis: None, twist_degrees: 0.0 })
        .material(Material::tet("stvk", 1e6, 0.3, 1000.0));
    let scene = SceneBuilder::new("t").dt(0.01).substeps(10).iterations(10).gravity([0.0; 3]).solver(solver).formats(&["none"]);
    let mut sim = Sim::new(&scene.body(body).build());
    sim.frames(frames);
    xpbd_core::metrics::elastic_energy(&sim.model, &sim.state.x) + xpbd_core::metrics::kinetic_energy(&sim.model, &sim.state.v)
}

#[test]
#[ignore = "known problem (docs/multilayer.md, \"A vibrating body loses its energy\"): the glue of partly rigid layers is inelastic"]
fn a_released_block_keeps_the_energy_xpbd_keeps() {
    // XPBD's own numerical damping leaves 1.2e5 J of the block's energy after 20 frames at these
    // settings (colored; serial alike), one layer is XPBD bit for bit, and a fully rigid first layer
    // followed by the elastic one keeps it too (no glue in a fully rigid layer). With partly rigid layers
    // the glue pulls each boundary member back to the body after its deformation step, an inelastic
    // collision per boundary vertex and layer: measured 670 J with 5 layers. The paper's solver converges
    // to XPBD's solution, so its energy should be XPBD's; half of it is the bound asked here.
    let xpbd = released_block_energy(Solver::xpbd("colored"), 20);
    assert_eq!(released_block_energy(Solver::multilayer().layers(1), 20), xpbd);
    let two = released_block_energy(Solver::multilayer().layers(2), 20);
    assert!((two / xpbd - 1.0).abs() < 0.05, "2 layers: {two:.4e} J against XPBD's {xpbd:.4e} J");
    let five = released_block_energy(Solver::multilayer(), 20);
    println!("energy after 20 frames: xpbd {xpbd:.4e} J, 2 layers {two:.4e} J, 5 layers {five:.4e} J");
    assert!(five > 0.5 * xpbd, "5 layers keep {five:.4e} J of XPBD's {xpbd:.4e} J");
}
