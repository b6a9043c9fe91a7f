//! `CudaBackend` against `CpuBackend` (the reference, ARCHITECTURE.md): 20 substeps of the Fig. 5 beam and of the
//! armadillo, colored and clustered (and Jacobi), every supported tet model, pins, soft attachments and a plane
//! collider, and contact between bodies (pair rows), with the contact forces they report. Double precision must agree to 1e-9 of the body's size, single
//! precision to 1e-3; a frame replayed
//! from a CUDA graph must equal the plain launches bit for bit. Without a usable GPU each test prints
//! `skipped: <reason>` and passes (the host logic is tested in `src/layout_tests.rs`).

mod common;

use common::*;
use xpbd_core::backend::{Backend, FrameStats};
use xpbd_core::linear::Method;
use xpbd_core::mgpbd::settings::GlobalSolve;
use xpbd_core::model::Model;
use xpbd_core::scene::Built;
use xpbd_core::state::State;
use xpbd_cpu::CpuBackend;
use xpbd_cuda::{parity, CudaBackend, CudaOptions, Precision};

fn gpu_available() -> bool {
    match xpbd_cuda::probe() {
        Ok(info) => {
            println!("running on {info:?}");
            true
        }
        Err(reason) => {
            println!("skipped: {reason}");
            false
        }
    }
}

/// A backend after one frame from the initial state, with that state and the frame's statistics.
struct Stepped<B> {
    backend: B,
    state: State,
    stats: FrameStats,
}

/// [`Stepped`] of `backend`.
fn step<B: Backend>(mut backend: B, model: &Model) -> Stepped<B> {
    let mut state = State::initial(model);
    let stats = backend.step_frame(model, &mut state).unwrap();
    Stepped { backend, state, stats }
}

/// One frame of `b` on the CPU and on the GPU in `precision`.
fn one_frame(b: &Built, precision: Precision) -> (Stepped<CpuBackend>, Stepped<CudaBackend>) {
    let (model, config) = (&b.model, &b.config);
    let cpu = step(CpuBackend::new(model, config), model);
    (cpu, step(CudaBackend::new(model, config, CudaOptions { ordinal: 0, precision, graph: false }).unwrap(), model))
}

/// One frame on the CPU and on the GPU; (largest position difference, CPU and GPU final residuals).
fn run(b: &Built, precision: Precision) -> (f64, f64, f64) {
    let model = &b.model;
    let (Stepped { backend: cpu, state: s_cpu, stats: stats_cpu }, Stepped { backend: gpu, state: s_gpu, stats: stats_gpu }) = one_frame(b, precision);
    assert_eq!(gpu.colors(), cpu.colors(), "the GPU runs the CPU's schedule");
    let dx = parity::largest_distance(&s_cpu.x, &s_gpu.x);
    let moved = s_cpu.x.iter().zip(&model.rest).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    assert!(moved > 1e-4 * size(model), "the test scene moves ({moved:e} m)");
    (dx, stats_cpu.residual, stats_gpu.residual)
}

/// One frame of `b` on both backends, with positions within `xpbd_cuda::parity::xpbd_position_tolerance` of the
/// body size and, in double precision, residuals within `xpbd_residual_tolerance`.
fn check(name: &str, b: &Built, precision: Precision) {
    let (dx, r_cpu, r_gpu) = run(b, precision);
    let scale = size(&b.model);
    let tolerance = parity::xpbd_position_tolerance(precision);
    println!("{name}: |x_gpu - x_cpu| = {dx:e} m ({:e} of the body size); residual cpu {r_cpu:e}, gpu {r_gpu:e}", dx / scale);
    assert!(dx <= tolerance * scale, "{name}: positions differ by {dx:e} m, more than {tolerance:e} of the body size {scale} m");
    // In single precision the residual after one iteration is not comparable (round-off of C near 1 is 1e-7 per
    // row); in double it must agree.
    if precision == Precision::F64 {
        assert!((r_gpu - r_cpu).abs() <= parity::xpbd_residual_tolerance(r_cpu), "{name}: residual cpu {r_cpu:e}, gpu {r_gpu:e}");
    }
}

#[test]
fn beam_block_neohookean_f64_matches_cpu() {
    if !gpu_available() {
        return;
    }
    for ordering in [COLORED, CLUSTERED] {
        check(&format!("beam {ordering:?}"), &with_ordering(beam("neohookean_block", 0.0), ordering), Precision::F64);
    }
}

#[test]
fn armadillo_block_neohookean_f64_matches_cpu() {
    if !gpu_available() {
        return;
    }
    for ordering in [COLORED, CLUSTERED] {
        check(&format!("armadillo {ordering:?}"), &with_ordering(armadillo(), ordering), Precision::F64);
        check(&format!("armadillo on plane, sphere, box {ordering:?}"), &with_ordering(armadillo_on_shapes(), ordering), Precision::F64);
    }
}

#[test]
fn damped_decoupled_neohookean_stvk_and_arap_f64_match_cpu() {
    if !gpu_available() {
        return;
    }
    for material in ["neohookean", "stvk", "neohookean_block", "arap"] {
        check(&format!("beam {material} damped"), &with_ordering(beam(material, 0.002), CLUSTERED), Precision::F64);
    }
}

#[test]
fn cloth_f64_matches_cpu() {
    if !gpu_available() {
        return;
    }
    for ordering in [COLORED, CLUSTERED, JACOBI] {
        check(&format!("cloth {ordering:?}"), &with_ordering(cloth(1e-5), ordering), Precision::F64);
    }
}

#[test]
fn pair_contact_f64_matches_cpu() {
    if !gpu_available() {
        return;
    }
    // Rows detected on the host every substep, projected by one device thread in the CPU's order.
    for ordering in [COLORED, CLUSTERED, JACOBI] {
        check(&format!("stack {ordering:?}"), &with_ordering(stack(), ordering), Precision::F64);
    }
    check("stack f32", &stack(), Precision::F32);
}

/// The contact forces after one frame (`Backend::contact_forces`): the device's collider rows of four shapes and its
/// pair rows read back and summed as the CPU's. Positions agree to 1e-9 of the body size and a force is m Δx/h²,
/// the largest here an impact's (about m · 2.5e-4 m/h²), so per vertex within 1e-4 of the largest force.
#[test]
fn contact_forces_f64_match_cpu() {
    if !gpu_available() {
        return;
    }
    for (name, b) in [("armadillo on shapes", with_ordering(armadillo_on_shapes(), COLORED)), ("stack", stack())] {
        let (cpu, gpu) = one_frame(&b, Precision::F64);
        let f_cpu = cpu.backend.contact_forces(&b.model, &cpu.state).unwrap();
        let f_gpu = gpu.backend.contact_forces(&b.model, &gpu.state).unwrap();
        let largest = f_cpu.force.iter().map(|f| f.norm()).fold(0.0, f64::max);
        let diff = f_cpu.force.iter().zip(&f_gpu.force).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
        let active = |f: &xpbd_core::contact::ContactForces| f.active.iter().filter(|&&a| a).count();
        println!("{name}: largest force {largest:e} N, |f_gpu - f_cpu| <= {diff:e} N; active {} cpu, {} gpu", active(&f_cpu), active(&f_gpu));
        assert!(largest > 0.0, "{name}: the scene pushes within the frame");
        assert!(diff <= parity::CONTACT_FORCE_TOLERANCE * largest, "{name}: contact forces differ by {diff:e} N, the largest is {largest:e} N");
    }
}

#[test]
fn jacobi_f64_matches_cpu() {
    if !gpu_available() {
        return;
    }
    // The CPU's Jacobi is deterministic (slots, no atomics), and so is the GPU's: the same tolerance as Gauss-Seidel.
    check("beam jacobi", &with_ordering(beam("neohookean_block", 0.0), JACOBI), Precision::F64);
    check("armadillo jacobi", &with_ordering(armadillo(), JACOBI), Precision::F64);
}

#[test]
fn f32_within_1e_3_of_the_body_size() {
    if !gpu_available() {
        return;
    }
    for ordering in [COLORED, CLUSTERED] {
        check(&format!("beam f32 {ordering:?}"), &with_ordering(beam("neohookean_block", 0.0), ordering), Precision::F32);
        check(&format!("armadillo f32 {ordering:?}"), &with_ordering(armadillo(), ordering), Precision::F32);
    }
}

#[test]
fn graph_replay_equals_plain_launches() {
    if !gpu_available() {
        return;
    }
    let Built { model, config, .. } = with_ordering(armadillo(), CLUSTERED);
    let frames = |graph: bool| {
        let mut gpu = CudaBackend::new(&model, &config, CudaOptions { ordinal: 0, precision: Precision::F64, graph }).unwrap();
        let mut s = State::initial(&model);
        for _ in 0..3 {
            gpu.step_frame(&model, &mut s).unwrap();
        }
        s
    };
    let (plain, graph) = (frames(false), frames(true));
    assert_eq!(plain.x, graph.x, "the graph replays the same launches");
    assert_eq!(plain.v, graph.v);
    assert_eq!(plain.lambda, graph.lambda);
    assert!((plain.time - 3.0 * config.dt).abs() < 1e-12 && plain.frame == 3);
}

#[test]
fn unsupported_scene_is_refused_with_the_reason() {
    let mut b = load("mgpbd_beam_nh.toml", |_| {});
    mgpbd_mut(&mut b).linear_solver = GlobalSolve::Dual(Method::AmgPcg);
    let reason = match CudaBackend::new(&b.model, &b.config, CudaOptions { ordinal: 0, precision: Precision::F64, graph: false }) {
        Ok(_) => panic!("the CUDA backend accepted MGPBD with AMG-PCG on the dual matrix"),
        Err(reason) => reason.to_string(),
    };
    assert!(reason.contains("\"amg-pcg\" has no GPU path"), "{reason}");
}

#[test]
fn pair_contact_is_refused_in_a_cuda_graph() {
    // Runs without a GPU: the refusal comes before a context is made.
    let b = stack();
    let reason = match CudaBackend::new(&b.model, &b.config, CudaOptions { ordinal: 0, precision: Precision::F64, graph: true }) {
        Ok(_) => panic!("a CUDA graph accepted contact detected on the host"),
        Err(reason) => reason.to_string(),
    };
    assert!(reason.contains("contact between or within bodies is detected on the host"), "{reason}");
}

#[test]
fn test_scenes_are_supported_and_exercise_every_path() {
    // Runs without a GPU: the scenes above build, the backend's support check accepts them, and they contain what
    // the parity tests claim to cover.
    for material in ["neohookean_block", "neohookean", "stvk", "arap"] {
        let b = with_ordering(beam(material, 0.002), CLUSTERED);
        CudaBackend::supports(&b.model, &b.config).unwrap();
        let (m, config) = (&b.model, &b.config);
        assert_eq!(config.substeps, 20);
        assert!(m.tet_groups[0].damping > 0.0 && config.velocity_damping > 0.0);
        assert!(m.attachments.iter().any(|a| a.compliance > 0.0 && a.velocity.norm() > 0.0), "a moving soft attachment");
        assert!(m.inv_mass.contains(&0.0), "hard pins");
    }
    let a = with_ordering(armadillo(), COLORED);
    CudaBackend::supports(&a.model, &a.config).unwrap();
    assert_eq!((a.config.substeps, a.model.colliders.len()), (20, 1));
    assert!(a.model.element_count() > 3000);
    assert!(!a.model.contact.has_pairs() && !beam("stvk", 0.0).model.contact.has_pairs() && !cloth(0.0).model.contact.has_pairs());
    let s = stack();
    CudaBackend::supports(&s.model, &s.config).unwrap();
    assert!(s.model.contact.has_pairs() && s.model.contact.bodies && s.model.contact.self_contact && s.model.bodies.len() == 2);
    for (name, b) in footprint_scenes() {
        CudaBackend::supports(&b.model, &b.config).unwrap_or_else(|e| panic!("footprint scene {name}: {e}"));
    }
}

/// One scene per family the footprint counts (`footprint_is_what_the_upload_allocates`).
fn footprint_scenes() -> [(&'static str, Built); 4] {
    [
        ("beam", beam("neohookean_block", 0.0)),
        ("armadillo on shapes", with_ordering(armadillo_on_shapes(), COLORED)),
        ("cloth jacobi", with_ordering(cloth(1e-5), JACOBI)),
        ("stack", stack()),
    ]
}

/// The footprint (`xpbd::footprint::Footprint`, what `CudaBackend::new` checks against the free memory before it
/// allocates) is, family by family and byte for byte, what the upload allocated: pins and soft attachments,
/// colliders, cloth with Jacobi slots, pair contact; in both precisions.
#[test]
fn footprint_is_what_the_upload_allocates() {
    if !gpu_available() {
        return;
    }
    for (name, b) in &footprint_scenes() {
        for precision in [Precision::F32, Precision::F64] {
            let backend = CudaBackend::new(&b.model, &b.config, CudaOptions { ordinal: 0, precision, graph: false }).unwrap();
            let layout = xpbd_cuda::xpbd::layout::Layout::new(&b.model, &b.config).unwrap();
            let footprint = xpbd_cuda::xpbd::footprint::Footprint::xpbd(&b.model, &layout, precision.bytes(), b.config.substeps);
            println!("{name} {precision:?}: {}", footprint.describe());
            assert_eq!(backend.allocated().unwrap(), footprint.families, "{name} {precision:?}");
        }
    }
}
