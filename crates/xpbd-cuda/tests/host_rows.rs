//! MGPBD's row evaluation on the kernels compiled as host C++ (`kernels/mgpbd_rows.cu` through
//! `common::host_ops`) against `Rows::evaluate` and the dual right-hand side of `mgpbd::assemble`: neo-Hookean
//! rows of the beam (`mgpbd_beam_nh.toml`) and the edge and hinge rows of the cloth (`mgpbd_cloth_16.toml`), at
//! perturbed positions with nonzero λ. Then K refilled from the device-evaluated gradients gives the CPU's primal
//! solve. ARAP rows (cone and components) against the CPU's SVD. Skipped (and reported) without a host C++
//! compiler.

mod common;

use common::host_library::library_or_skip;
use common::host_ops::HostOps;
use common::primal_system::{dual_system, dual_system_edited, DualSystem};
use libloading::Library;
use xpbd_core::amg::blocks::rigid_body_modes;
use xpbd_core::amg::{AmgOptions, Hierarchy};
use xpbd_core::linear::Setup;
use xpbd_core::mgpbd::primal::inverse_alpha;
use xpbd_core::mgpbd::primal_solve::PrimalSolver;
use xpbd_core::sparse::norm;
use xpbd_cuda::convert::to_t;
use xpbd_cuda::linalg::LinearOps;
use xpbd_cuda::mgpbd::primal::DevicePrimal;
use xpbd_cuda::mgpbd::rows::flat_gradients;
use xpbd_cuda::mgpbd::rows::DeviceRows;
use xpbd_cuda::KernelScalar;

type Ops = HostOps<f64>;

fn rel(got: &[f64], want: &[f64]) -> f64 {
    norm(&got.iter().zip(want).map(|(a, b)| a - b).collect::<Vec<_>>()) / norm(want)
}

fn flat_x(s: &DualSystem) -> Vec<f64> {
    s.x.iter().flat_map(|p| [p.x, p.y, p.z]).collect()
}

/// (C, ∇C, b, ‖b‖) evaluated on the host-compiled kernels in precision `T`, widened to f64.
fn evaluate<T: KernelScalar>(lib: &'static Library, s: &DualSystem) -> (Vec<f64>, Vec<f64>, Vec<f64>, f64) {
    let mut ops = HostOps::<T>::new(lib);
    let rows = DeviceRows::upload(&ops, &s.model, &s.rows, &s.alpha_tilde).unwrap();
    let n = s.rows.len();
    let x = ops.upload(&to_t(&flat_x(s))).unwrap();
    let (mut c, mut grads, mut b) = (ops.zeros(n).unwrap(), ops.zeros(12 * n).unwrap(), ops.zeros(n).unwrap());
    rows.evaluate(&ops, &x, &mut c, &mut grads).unwrap();
    let lambda = ops.upload(&to_t(&(0..n).map(|i| 1e-6 * (i as f64).cos()).collect::<Vec<_>>())).unwrap();
    let residual = rows.rhs(&mut ops, &c, &lambda, &mut b).unwrap();
    let wide = |v: &Vec<T>| v.iter().map(|a| a.to_f64()).collect();
    (wide(&c), wide(&grads), wide(&b), residual)
}

#[test]
fn rows_and_dual_rhs_match_the_cpu() {
    let Some(lib) = library_or_skip() else { return };
    for (file, kinds) in [("mgpbd_beam_nh.toml", "hydrostatic, deviatoric"), ("mgpbd_cloth_16.toml", "edge, hinge")] {
        let s = dual_system(file, 0.01);
        let (c, grads, b, residual) = evaluate::<f64>(lib, &s);
        let (want_c, _): (Vec<f64>, Vec<_>) = (0..s.rows.len()).map(|i| s.rows.evaluate(&s.model, i, &s.x)).unzip();
        let want_g: Vec<f64> = flat_gradients(&s.grads);
        let (dc, dg, db) = (rel(&c, &want_c), rel(&grads, &want_g), rel(&b, &s.b));
        println!("{file} ({kinds}; {} rows): C {dc:e}, grad C {dg:e}, b {db:e}, residual {residual:e} vs {:e}", s.rows.len(), norm(&s.b));
        assert!(dc <= 1e-14 && dg <= 1e-14 && db <= 1e-14, "{file}");
        assert!((residual - norm(&s.b)).abs() <= 1e-14 * norm(&s.b), "{file}");
    }
}

/// The neo-Hookean beam's primal solve with K refilled from the device-evaluated gradients: the CPU's
/// iterations, residual and Δλ (the CPU fills K from its own gradients).
#[test]
fn primal_solve_from_device_rows_matches_the_cpu() {
    let Some(lib) = library_or_skip() else { return };
    let s = dual_system("mgpbd_beam_nh.toml", 0.01);
    let mut ops = Ops::new(lib);
    let (_, grads, b, _) = evaluate::<f64>(lib, &s);
    let options = AmgOptions { max_coarse: 100, ..AmgOptions::default() };
    let mut cpu = PrimalSolver::new(&s.rows.vertices, &s.model.inv_mass, options.clone());
    cpu.set_alpha_tilde(&s.alpha_tilde);
    cpu.fill(&s.grads, &s.model.inv_mass);
    cpu.setup(&s.x, Setup::Full);
    let nf = cpu.pattern.free_count();
    let h = Hierarchy::smoothed_aggregation(&cpu.k, &options, (0..=nf).map(|u| 3 * u).collect(), rigid_body_modes(&cpu.pattern.free_positions(&s.x)), 6);
    let mut d = DevicePrimal::new(&ops, &cpu.pattern, &s.rows.vertices, &s.model.inv_mass, &inverse_alpha(&s.alpha_tilde)).unwrap();
    d.grads = to_t(&grads);
    d.refill(&ops).unwrap();
    d.setup(&mut ops, &cpu.k, &h).unwrap();
    d.b = b;
    let mut want = vec![0.0; s.rows.len()];
    let st_cpu = cpu.solve(&s.grads, &s.model.inv_mass, &s.b, &mut want, 1e-6, 100);
    let st_dev = d.solve(&mut ops, 1e-6, 100).unwrap();
    println!("levels {:?}: cpu {st_cpu:?}, device {st_dev:?}, delta lambda {:e}", h.level_rows(&cpu.k), rel(&d.dlambda, &want));
    assert!(st_cpu.converged && st_cpu.iterations > 1 && h.level_count() >= 2);
    assert_eq!(st_dev.iterations, st_cpu.iterations);
    assert!((st_dev.relative_residual - st_cpu.relative_residual).abs() <= 1e-9 * st_cpu.relative_residual);
    assert!(rel(&d.dlambda, &want) <= 1e-10);
}

/// ARAP rows on the host-compiled kernels (`kernels/polar.cuh`: Jacobi rotations on FᵀF and a Givens QR, not
/// nalgebra's SVD) against `Rows::evaluate`, on the twisted bar's mesh: component rows with the exact rotation
/// derivative and with R held fixed, and cone rows, at positions perturbed by 1 cm (near rest: nearly equal
/// singular values) and by 15 cm (large rotations, inverted elements), in double and in single precision.
#[test]
fn arap_rows_match_the_cpu() {
    let Some(lib) = library_or_skip() else { return };
    for (setting, label) in [("", "components, exact"), ("arap_rotation = \"fixed\"", "components, fixed R"), ("arap_rows = \"cone\"", "cone")] {
        for scale in [0.01, 0.15] {
            let s = dual_system_edited("mgpbd_bar_twist.toml", scale, |t| {
                *t = t.lines().filter(|l| !l.starts_with("arap_")).collect::<Vec<_>>().join("\n");
                *t = t.replace("kind = \"mgpbd\"", &format!("kind = \"mgpbd\"\n{setting}"));
            });
            let inverted = s.model.tet_groups[0].rest.iter().zip(&s.model.tet_groups[0].tets).filter(|(r, t)| {
                let p = t.map(|v| s.x[v as usize]);
                xpbd_core::constraint::tet::deformation_gradient(&p, &r.dm_inv).determinant() <= 0.0
            });
            let inverted = inverted.count();
            let (want_c, _): (Vec<f64>, Vec<_>) = (0..s.rows.len()).map(|i| s.rows.evaluate(&s.model, i, &s.x)).unzip();
            let want_g: Vec<f64> = flat_gradients(&s.grads);
            let (c, grads, b, _) = evaluate::<f64>(lib, &s);
            let (dc, dg, db) = (rel(&c, &want_c), rel(&grads, &want_g), rel(&b, &s.b));
            let (c32, grads32, _, _) = evaluate::<f32>(lib, &s);
            let (dc32, dg32) = (rel(&c32, &want_c), rel(&grads32, &want_g));
            println!(
                "{label}, perturbed by {scale} m ({} rows, {inverted} inverted tets): f64 C {dc:e}, grad C {dg:e}, b {db:e}; f32 C {dc32:e}, grad C {dg32:e}",
                s.rows.len()
            );
            assert!(dc <= 1e-15 && dg <= 1e-15 && db <= 1e-15, "{label}, {scale}");
            assert!(dc32 <= 1e-5 && dg32 <= 1e-5, "{label}, {scale}");
            assert!(scale < 0.1 || inverted > 0, "the large perturbation inverts some elements");
        }
    }
}
