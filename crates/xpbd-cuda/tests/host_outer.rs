//! One substep of MGPBD outer iterations with the primal solve on the kernels compiled as host C++
//! (`mgpbd::outer::DeviceOuter` through `common::host_ops`) against the CPU's `xpbd_cpu::mgpbd::Mgpbd`, on the
//! neo-Hookean beam of `mgpbd_beam_nh.toml` and the ARAP component rows of `mgpbd_beam_stiff_primal.toml`
//! from a predicted state (rest positions moved by h²g and by a
//! deterministic perturbation): positions, multipliers and the residual after every outer iteration, the
//! solve's iteration counts, and the first iteration's full setup then refreshes. Skipped (and reported)
//! without a host C++ compiler.

mod common;

use common::host_library::library_or_skip;
use common::host_ops::HostOps;
use common::mgpbd_frames::FRAME_RUNS;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::settings::GlobalSolve;
use xpbd_core::named::Named;
use xpbd_core::sparse::norm;
use xpbd_core::state::State;
use xpbd_cpu::mgpbd::Mgpbd;
use xpbd_cpu::CpuBackend;
use xpbd_cuda::linalg::LinearOps;
use xpbd_cuda::mgpbd::device::MgpbdDevice;
use xpbd_cuda::mgpbd::outer::DeviceOuter;

fn rel(got: &[f64], want: &[f64]) -> f64 {
    norm(&got.iter().zip(want).map(|(a, b)| a - b).collect::<Vec<_>>()) / norm(want)
}

/// `iterations` outer iterations of scene `file` on the device and on the CPU from the same predicted state.
fn outer_iterations_match(file: &str, iterations: usize) {
    let Some(lib) = library_or_skip() else { return };
    let mut built = common::load(file, |_| {});
    common::mgpbd_mut(&mut built).max_coarse = 100;
    let (model, config) = (&built.model, &built.config);
    let settings = config.method.mgpbd().unwrap();
    assert_eq!(settings.linear_solver.name(), "primal-amg", "{file}");
    let h = config.h();
    let mut x: Vec<Vec3> = model
        .rest
        .iter()
        .zip(&model.inv_mass)
        .enumerate()
        .map(|(i, (p, &w))| if w > 0.0 { p + model.gravity * h * h + Vec3::new((1.3 * i as f64).sin(), 0.0, (0.7 * i as f64).cos()) * 1e-3 } else { *p })
        .collect();
    let mut lambda = vec![0.0; model.rows];

    let mut ops = HostOps::<f64>::new(lib);
    let mut dev = DeviceOuter::new(&ops, model, settings, h).unwrap();
    let mut dx = ops.upload(&x.iter().flat_map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>()).unwrap();
    let mut dl = ops.zeros(dev.multiplier_count()).unwrap();
    let mut dev_lambda = vec![0.0; model.rows];
    dev.begin_frame(0);
    dev.reset(&ops, &mut dl).unwrap();

    let mut cpu = Mgpbd::new(model, settings);
    cpu.begin_frame(0);
    cpu.reset(&mut lambda);
    let mut first = 0.0;
    for it in 0..iterations {
        let cpu_done = cpu.iterate(model, &mut x, &mut lambda, h);
        let dev_done = dev.iterate(&mut ops, &mut dx, &mut dl).unwrap();
        dev.state_multipliers(&ops, &dl, &mut dev_lambda).unwrap();
        let (cs, ds) = (cpu.take_stats(), std::mem::take(&mut dev.stats));
        let xs: Vec<f64> = x.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
        let (ex, el) = (rel(&dx, &xs), rel(&dev_lambda, &lambda));
        println!(
            "{file}, iteration {it}: residual cpu {:e} device {:e}; linear iterations {} / {}; full setups {} / {}; |x| {ex:e}, |lambda| {el:e}",
            cpu.residual, dev.residual, cs.linear_iterations, ds.linear_iterations, cs.full_setups, ds.full_setups
        );
        assert_eq!((cs.linear_iterations, cs.full_setups, cpu_done), (ds.linear_iterations, ds.full_setups, dev_done), "iteration {it}");
        if it == 0 {
            first = cpu.residual;
        }
        // Rounding differences scale with the terms of C + α̃λ, not with their (quadratically) shrinking sum.
        assert!((dev.residual - cpu.residual).abs() <= 1e-10 * first, "iteration {it}");
        assert!(ex <= 1e-13 && el <= 1e-10, "iteration {it}");
    }
    assert!(dev.residual < 1e-2 * first, "the outer iterations converge: {first:e} to {:e}", dev.residual);
}

/// The neo-Hookean beam: hydrostatic and deviatoric rows, multipliers the state's.
#[test]
fn outer_iterations_match_the_cpu() {
    outer_iterations_match("mgpbd_beam_nh.toml", 5);
}

/// The stiff ARAP beam: component rows with the exact rotation derivative (one polar decomposition per
/// element on the device), their own multipliers, the state's cone multipliers from them.
#[test]
fn arap_component_outer_iterations_match_the_cpu() {
    outer_iterations_match("mgpbd_beam_stiff_primal.toml", 3);
}

/// Whole frames of the device MGPBD backend (`MgpbdDevice`: the host's prediction, contacts and velocities around
/// the device outer iterations) against `CpuBackend` on [`FRAME_RUNS`], coarsened to at most 100 rows (the
/// squashed bunny's levels: 23730, 2526, 30 rows): the same outer, linear iteration and full-setup counts every
/// frame, and the final residuals within `FrameRun::residual_tolerance`.
#[test]
fn frames_match_the_cpu_backend() {
    let Some(lib) = library_or_skip() else { return };
    for r in &FRAME_RUNS {
        let mut built = r.model();
        common::mgpbd_mut(&mut built).max_coarse = 100;
        let (model, config) = (&built.model, &built.config);
        let mut dev = MgpbdDevice::new(HostOps::<f64>::new(lib), model, config, "host".into()).unwrap();
        let mut cpu = CpuBackend::new(model, config);
        let (mut sd, mut sc) = (State::initial(model), State::initial(model));
        let mut linear_iterations = 0;
        for f in 0..r.frames {
            let (d, c) = (dev.step_frame(model, &mut sd).unwrap(), cpu.step_frame(model, &mut sc).unwrap());
            let (dm, cm) = (d.mgpbd.unwrap(), c.mgpbd.unwrap());
            let flat = |v: &[Vec3]| v.iter().flat_map(|p| [p.x, p.y, p.z]).collect::<Vec<f64>>();
            let (ex, ev, el) = (rel(&flat(&sd.x), &flat(&sc.x)), rel(&flat(&sd.v), &flat(&sc.v)), rel(&sd.lambda, &sc.lambda));
            let what = format!("{}, frame {f}", r.name());
            println!(
                "{what}: outer {} / {}, linear {} / {}, residual {:e} / {:e}; |x| {ex:e} |v| {ev:e} |lambda| {el:e}",
                dm.outer_iterations, cm.outer_iterations, dm.linear_iterations, cm.linear_iterations, d.relative_residual, c.relative_residual
            );
            assert_eq!((dm.outer_iterations, dm.linear_iterations, dm.full_setups), (cm.outer_iterations, cm.linear_iterations, cm.full_setups), "{what}");
            linear_iterations += dm.linear_iterations;
            let (tol_x, tol_v) = if r.from_r0 { (1e-8, 1e-6) } else { (1e-12, 1e-8) };
            assert!((d.relative_residual - c.relative_residual).abs() <= r.residual_tolerance(c.relative_residual), "{what}");
            assert!(ex <= tol_x && ev <= tol_v && el <= 1e-9, "{what}");
            assert_eq!((sd.frame, sd.time), (sc.frame, sc.time));
        }
        assert!(linear_iterations > 0, "{}: the linear solver ran", r.name());
        if r.file == "mgpbd_ball_drop.toml" {
            let lowest = sd.x.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
            assert!(lowest > -0.01, "the plane stopped the ball (falling freely its bottom would be 0.4 m below it): {lowest}");
        }
    }
}

/// What the device outer iteration does not run is refused with the reason: the dual linear solvers other
/// than plain CG.
#[test]
fn unsupported_models_are_refused_with_the_reason() {
    let Some(lib) = library_or_skip() else { return };
    let ops = HostOps::<f64>::new(lib);
    for solver in ["amg-pcg", "jacobi-pcg", "direct"] {
        let mut built = common::load("mgpbd_beam_nh.toml", |_| {});
        common::mgpbd_mut(&mut built).linear_solver = GlobalSolve::from_name(solver).unwrap();
        let settings = built.config.method.mgpbd().unwrap();
        let reason = DeviceOuter::new(&ops, &built.model, settings, built.config.h()).err().expect("refused").to_string();
        assert!(reason.contains(&format!("\"{solver}\"")) && reason.contains("primal-amg") && reason.contains("\"cg\""), "{reason}");
    }
}
