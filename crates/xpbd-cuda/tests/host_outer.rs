//! One substep of MGPBD outer iterations with the primal solve on the kernels compiled as host C++
//! (`outer_device::DeviceOuter` through `common::host_ops`) against the CPU's `xpbd_cpu::mgpbd::Mgpbd`, on the
//! neo-Hookean beam of `mgpbd_beam_nh.toml` and the ARAP component rows of `mgpbd_beam_stiff_primal.toml`
//! from a predicted state (rest positions moved by h²g and by a
//! deterministic perturbation): positions, multipliers and the residual after every outer iteration, the
//! solve's iteration counts, and the first iteration's full setup then refreshes. Skipped (and reported)
//! without a host C++ compiler.

mod common;

use common::host_library::library_or_skip;
use common::host_ops::HostOps;
use xpbd_core::linear::norm;
use xpbd_core::mesh::Vec3;
use xpbd_cpu::mgpbd::Mgpbd;
use xpbd_cuda::amg_ops::LinearOps;
use xpbd_cuda::outer_device::DeviceOuter;

fn rel(got: &[f64], want: &[f64]) -> f64 {
    norm(&got.iter().zip(want).map(|(a, b)| a - b).collect::<Vec<_>>()) / norm(want)
}

/// `iterations` outer iterations of scene `file` on the device and on the CPU from the same predicted state.
fn outer_iterations_match(file: &str, iterations: usize) {
    let Some(lib) = library_or_skip() else { return };
    let mut model = common::load(file, |_| {});
    model.solver.mgpbd.as_mut().unwrap().max_coarse = 100;
    assert_eq!(model.solver.mgpbd.as_ref().unwrap().linear_solver, "primal-amg", "{file}");
    let h = model.h();
    let mut x: Vec<Vec3> = model
        .rest
        .iter()
        .zip(&model.inv_mass)
        .enumerate()
        .map(|(i, (p, &w))| if w > 0.0 { p + model.gravity * h * h + Vec3::new((1.3 * i as f64).sin(), 0.0, (0.7 * i as f64).cos()) * 1e-3 } else { *p })
        .collect();
    let mut lambda = vec![0.0; model.rows];

    let mut ops = HostOps::<f64>::new(lib);
    let mut dev = DeviceOuter::new(&ops, &model).unwrap();
    let mut dx = ops.upload(&x.iter().flat_map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>()).unwrap();
    let mut dl = ops.zeros(dev.multiplier_count()).unwrap();
    let mut dev_lambda = vec![0.0; model.rows];
    dev.begin_frame(0);
    dev.reset(&ops, &mut dl).unwrap();

    let mut cpu = Mgpbd::new(&model);
    cpu.begin_frame(0);
    cpu.reset(&mut lambda);
    let mut first = 0.0;
    for it in 0..iterations {
        let cpu_done = cpu.iterate(&model, &mut x, &mut lambda, h);
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

/// What the device outer iteration does not run is refused with the reason: a dual linear solver.
#[test]
fn unsupported_models_are_refused_with_the_reason() {
    let Some(lib) = library_or_skip() else { return };
    let ops = HostOps::<f64>::new(lib);
    let mut cg = common::load("mgpbd_beam_nh.toml", |_| {});
    cg.solver.mgpbd.as_mut().unwrap().linear_solver = "cg".into();
    let reason = DeviceOuter::new(&ops, &cg).err().expect("cg refused");
    assert!(reason.contains("\"cg\"") && reason.contains("primal-amg"), "{reason}");
}
