//! `solver.linear_solver = "pcg"` (thesis "Adaptive methods for elastic deformation", §4.4.2: "LDLᵀ or PCG to
//! 1e-4") against the Cholesky solve of the same runs: a damped tet cantilever and a clamped shell strip (under
//! both preconditioners), the strip under `adaptive`, and a block resting on the ground (contact needs the factor
//! too) settle where the `ldlt` runs do; a PCG capped
//! below its tolerance falls back to the factor on every solve; bad keys are one-line errors naming the field.

mod common;

use common::implicit_run::ImplicitRun as Run;
use std::path::Path;
use xpbd_core::scene::schema::{Collider, Material, Solver};
use xpbd_core::scene::{BodyBuilder, SceneBuilder};

fn header(solver: Solver, substeps: usize, gravity: [f64; 3]) -> SceneBuilder {
    SceneBuilder::new("pcg").dt(0.01).frames(1).substeps(substeps).gravity(gravity).solver(solver).formats(&["none"])
}

/// The cantilever of tests/implicit.rs: 1 × 0.2 × 0.2 m, 10 × 2 × 2 cells, E = 10⁸ Pa, pinned at x = 0, α₀ = 60.
fn cantilever(solver: Solver) -> SceneBuilder {
    let beam = BodyBuilder::new("beam")
        .box_mesh([1.0, 0.2, 0.2], [10, 2, 2])
        .material(Material::tet("neohookean_block", 1e8, 0.3, 1000.0))
        .rayleigh(60.0, 0.0)
        .pin_box([-0.01, -1.0, -1.0], [0.01, 1.0, 1.0]);
    header(solver, 2, [0.0, -9.81, 0.0]).body(beam)
}

/// The clamped strip of tests/shells.rs at 20 cells: 0.2 m × 4 cm, E = 10¹⁰ Pa, t = 1 mm, ν = 0, α₀ = 60.
fn strip(solver: Solver) -> SceneBuilder {
    let a = 0.2 / 20.0;
    let strip = BodyBuilder::new("strip")
        .grid2d([0.2 + a, 0.04], [21, 4])
        .material(Material::shell(1e10, 0.0, 1000.0, 1e-3))
        .rayleigh(60.0, 0.0)
        .pin_box([-1.0, -1.0, -1.0], [1.0001 * a, 1.0, 1.0]);
    header(solver, 10, [0.0, 0.0, -9.81]).body(strip)
}

/// The preconditioners of `pcg`: the lagged complete Cholesky factor (default) and the lagged Curtis–Reid
/// scaling with incomplete Cholesky.
const PRECONDITIONERS: [&str; 2] = ["cholesky", "ict"];

fn pcg(preconditioner: &str) -> Solver {
    Solver::implicit().linear_solver("pcg").pcg_preconditioner(preconditioner)
}

/// Mean displacement along `axis` of the vertices at the largest rest x (the free end).
fn tip(run: &Run, axis: usize) -> f64 {
    let end = run.model.rest.iter().map(|x| x.x).fold(f64::MIN, f64::max);
    let tip: Vec<usize> = (0..run.model.vertex_count()).filter(|&v| (run.model.rest[v].x - end).abs() < 1e-9).collect();
    tip.iter().map(|&v| run.state.x[v][axis] - run.model.rest[v][axis]).sum::<f64>() / tip.len() as f64
}

/// Runs `scene` (of `substeps` steps a frame) under `ldlt` and `pcg` with `preconditioner` for `frames` frames and
/// returns their tips along `axis` at frame `early` and at the end; every PCG solve met the tolerance.
fn both(scene: impl Fn(Solver) -> SceneBuilder, preconditioner: &str, substeps: usize, frames: usize, early: usize, axis: usize) -> ([f64; 2], [f64; 2]) {
    let (mut ldlt, mut pcg) = (Run::build(scene(Solver::implicit())), Run::build(scene(pcg(preconditioner))));
    ldlt.frames(early);
    pcg.frames(early);
    let early = [tip(&ldlt, axis), tip(&pcg, axis)];
    ldlt.frames(frames - ldlt.state.frame);
    pcg.frames(frames - pcg.state.frame);
    let counts = pcg.backend.pcg;
    println!("{preconditioner}: {counts:?}, {:.1} iterations per solve", counts.iterations as f64 / counts.solves as f64);
    assert!(counts.solves == frames * substeps && counts.fallbacks == 0 && counts.iterations > 0, "{counts:?}");
    assert_eq!(ldlt.backend.pcg.solves, 0);
    (early, [tip(&ldlt, axis), tip(&pcg, axis)])
}

/// Relative difference.
fn rel(a: f64, b: f64) -> f64 {
    (a / b - 1.0).abs()
}

/// Each PCG solve leaves ‖S(b − A Δẋ)‖ ≤ 10⁻⁴ ‖S b‖, an error in each step's Δẋ of about 10⁻⁴ of it (at most
/// κ(SAS) times that), which the run carries: during the swing (frame 5) the tips agree within 10⁻⁴ (measured:
/// 10⁻⁷, the errors of successive steps do not add up). Settled, the right-hand side is the force residual and
/// goes to zero, as does the PCG error (its tolerance is relative), so both runs stop at the same equilibrium:
/// within 10⁻⁵ (measured: 10⁻¹²).
#[test]
fn pcg_cantilever_settles_at_the_ldlt_deflection() {
    for p in PRECONDITIONERS {
        let (early, settled) = both(cantilever, p, 2, 100, 5, 1);
        println!("tip at frame 5: ldlt {:.9e}, pcg {:.9e}; settled: ldlt {:.9e}, pcg {:.9e}", early[0], early[1], settled[0], settled[1]);
        assert!(settled[0] < -1e-4, "the load bends the beam ({})", settled[0]);
        assert!(rel(early[1], early[0]) < 1e-4 && rel(settled[1], settled[0]) < 1e-5, "{p}: {early:?} {settled:?}");
    }
}

/// The clamped shell strip (its A_A spans stiff membrane and soft bending modes: the harder system) sags under
/// `pcg` as under `ldlt`, within the same bounds.
#[test]
fn pcg_shell_strip_sags_like_ldlt() {
    for p in PRECONDITIONERS {
        let (early, settled) = both(strip, p, 10, 60, 5, 2);
        println!("sag at frame 5: ldlt {:.9e}, pcg {:.9e}; settled: ldlt {:.9e}, pcg {:.9e}", early[0], early[1], settled[0], settled[1]);
        assert!(settled[0] < -1e-3, "the strip sags ({})", settled[0]);
        assert!(rel(early[1], early[0]) < 1e-4 && rel(settled[1], settled[0]) < 1e-5, "{p}: {early:?} {settled:?}");
    }
}

/// Under `adaptive` the reduced system mixes rigid bodies' 6-DOF blocks with elastic vertices (the case the
/// Curtis–Reid scaling is for): the strip (τ_R = 10⁻⁶) rigidifies and settles under `pcg` as under `ldlt`.
#[test]
fn pcg_adaptive_strip_settles_like_ldlt() {
    let adaptive = || Solver::adaptive().rigidify_threshold(1e-6);
    let (mut ldlt, mut pcg) = (Run::build(strip(adaptive())), Run::build(strip(adaptive().linear_solver("pcg"))));
    ldlt.frames(60);
    pcg.frames(60);
    let (a, b) = (tip(&ldlt, 2), tip(&pcg, 2));
    println!(
        "sag: ldlt {a:.9e}, pcg {b:.9e}; rigid (bodies, triangles): {:?} {:?}; {:?}",
        ldlt.backend.rigid_counts(),
        pcg.backend.rigid_counts(),
        pcg.backend.pcg
    );
    assert!(pcg.backend.rigid_counts().0 > 0 && pcg.backend.pcg.fallbacks == 0);
    assert!(rel(b, a) < 1e-3, "{a} against {b}");
}

/// With contacts the step factorises for the Delassus columns whatever the solver: a block resting on the
/// ground comes to the same place under both. At rest the unconstrained solve's Δẋ is still g·h (contact
/// removes it after), so PCG errs by 10⁻⁴·g·h each step, which the Baumgarte feedback k_b·h = 0.2 turns into
/// a shift of the resting depth of 10⁻⁴·g·h²/0.2 = 4.9·10⁻⁷ m: the vertices agree within five times that.
#[test]
fn pcg_block_rests_on_the_ground_like_ldlt() {
    let block = |solver: Solver| {
        let b =
            BodyBuilder::new("block").box_mesh([0.2, 0.2, 0.2], [2, 2, 2]).material(Material::tet("neohookean_block", 1e7, 0.3, 1000.0)).rayleigh(20.0, 0.0);
        header(solver, 1, [0.0, -9.81, 0.0]).body(b).collider(Collider::plane([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]))
    };
    let (mut ldlt, mut pcg) = (Run::build(block(Solver::implicit())), Run::build(block(Solver::implicit().linear_solver("pcg"))));
    ldlt.frames(100);
    pcg.frames(100);
    let low = |run: &Run| run.state.x.iter().map(|x| x.y).fold(f64::MAX, f64::min);
    let gap: f64 = ldlt.state.x.iter().zip(&pcg.state.x).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    println!("lowest y: ldlt {:.6e}, pcg {:.6e}; largest vertex gap {gap:.3e} m; {:?}", low(&ldlt), low(&pcg), pcg.backend.pcg);
    assert!(!pcg.backend.normal_impulses().is_empty() && gap < 5.0 * 1e-4 * 9.81 * 0.01 * 0.01 / 0.2, "gap {gap}");
}

/// A PCG with the incomplete preconditioner capped at one iteration cannot reach 10⁻¹⁰: every solve falls back to
/// the Cholesky solve, counted, and the run is the `ldlt` run.
#[test]
fn pcg_that_misses_its_tolerance_falls_back_to_the_factor() {
    let (mut ldlt, mut capped) = (Run::build(cantilever(Solver::implicit())), Run::build(cantilever(pcg("ict").pcg_tol(1e-10).pcg_max_iter(1))));
    ldlt.frames(10);
    capped.frames(10);
    let counts = capped.backend.pcg;
    println!("{counts:?}; tips {:.9e} {:.9e}", tip(&ldlt, 1), tip(&capped, 1));
    assert_eq!((counts.solves, counts.fallbacks), (20, 20));
    assert!(rel(tip(&capped, 1), tip(&ldlt, 1)) < 1e-12);
}

#[test]
fn bad_linear_solver_keys_are_one_line_errors() {
    let err = |solver: &str| {
        let text = format!("name = \"t\"\n[solver]\n{solver}\n[[body]]\nname = \"b\"\nmesh = {{ generator = \"box\", size = [1.0, 1.0, 1.0], cells = [1, 1, 1] }}\nmaterial = {{ model = \"neohookean_block\", youngs = 1e6, poisson = 0.3, density = 1000.0 }}\n");
        let scene = xpbd_core::scene::parse(&text, Path::new("t.toml")).unwrap();
        xpbd_core::scene::build(&scene, Path::new(".")).expect_err("an error").to_string()
    };
    assert_eq!(err("kind = \"implicit\"\nlinear_solver = \"lu\""), "solver.linear_solver: unknown 'lu' (expected ldlt, pcg)");
    assert_eq!(err("kind = \"adaptive\"\npcg_tol = 2.0"), "solver.pcg_tol: must lie in (0, 1), got 2");
    assert_eq!(err("kind = \"xpbd\"\nlinear_solver = \"pcg\""), "solver.linear_solver: only for kind = \"mgpbd\", \"implicit\" or \"adaptive\"");
    assert!(err("kind = \"mgpbd\"\nlinear_solver = \"pcg\"").starts_with("solver.linear_solver: unknown 'pcg'"));
    assert_eq!(err("kind = \"implicit\"\npcg_preconditioner = \"ilu\""), "solver.pcg_preconditioner: unknown 'ilu' (expected cholesky, ict)");
    assert_eq!(err("kind = \"mgpbd\"\npcg_preconditioner = \"ict\""), "solver.pcg_preconditioner: only for kind = \"implicit\" or \"adaptive\"");
}
