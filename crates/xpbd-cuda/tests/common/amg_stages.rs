//! The stages of MGPBD's AMG solve phase on any [`MgpbdOps`] in double precision (the host-compiled kernels in
//! `host_amg.rs`, the GPU in `amg_parity.rs`) against the CPU's `amg` on the stiff ARAP beam's K: each
//! relaxation's pre and post sweep, restriction Pᵀ r and prolongation x + P e, the Galerkin refresh of every level
//! after K is refilled at other positions, the coarsest level's dense solve, one V-cycle, and 10 PCG iterations
//! preconditioned by it. Every stage's relative difference is printed and kept in a [`Report`], which fails once
//! all are printed, so that one run names every stage that differs.

use super::primal_system::{beam_system, PrimalSystem};
use xpbd_core::amg::hierarchy::CoarseSolve;
use xpbd_core::amg::{Hierarchy, Smoother};
use xpbd_core::linear::pcg::{Pcg, Preconditioner};
use xpbd_core::linear::{LinearSolver, Setup};
use xpbd_core::sparse::{norm, spmv, Csr};
use xpbd_cuda::linalg::amg::{relax, DeviceCoarsest, DeviceHierarchy};
use xpbd_cuda::linalg::pcg::DevicePcg;
use xpbd_cuda::linalg::LinearOps;
use xpbd_cuda::mgpbd::primal::DevicePrimal;
use xpbd_cuda::mgpbd::MgpbdOps;

/// ‖got − want‖ / ‖want‖.
pub fn rel(got: &[f64], want: &[f64]) -> f64 {
    norm(&got.iter().zip(want).map(|(a, b)| a - b).collect::<Vec<_>>()) / norm(want)
}

/// The stages compared so far and those that differed by more than their tolerance.
#[derive(Default)]
pub struct Report {
    failures: Vec<String>,
}

impl Report {
    /// Prints `what`'s relative difference and records it if it exceeds `tolerance` (or the reference is zero).
    pub fn check(&mut self, what: &str, got: &[f64], want: &[f64], tolerance: f64) {
        let e = rel(got, want);
        println!("{what}: relative difference {e:e}");
        if norm(want) == 0.0 {
            self.failures.push(format!("{what}: the reference is zero"));
        } else if e.is_nan() || e > tolerance {
            self.failures.push(format!("{what}: relative difference {e:e} > {tolerance:e}"));
        }
    }

    /// Fails, naming every stage that differed.
    pub fn finish(self) {
        assert!(self.failures.is_empty(), "stages that differ from the CPU:\n{}", self.failures.join("\n"));
    }
}

/// A right-hand side with every frequency.
pub fn rhs(n: usize) -> Vec<f64> {
    (0..n).map(|i| (0.37 * i as f64).sin() + 0.1 * (i % 7) as f64).collect()
}

/// The device primal state for `s`, with K refilled on the device from `s`'s gradients.
pub fn device_primal<O: MgpbdOps<T = f64>>(ops: &mut O, s: &PrimalSystem) -> DevicePrimal<O> {
    let mut d = DevicePrimal::new(ops, &s.solver.pattern, &s.rows.vertices, &s.model.inv_mass, &s.inv_alpha).unwrap();
    d.fill(ops, &s.grads).unwrap();
    d
}

/// The CPU's V-cycle preconditioner on a hierarchy we hold (AmgPreconditioner keeps its own private).
pub struct VCycle(pub Hierarchy);

impl Preconditioner for VCycle {
    fn setup(&mut self, _a: &Csr, _setup: Setup) {}
    fn apply(&mut self, a: &Csr, r: &[f64], z: &mut [f64]) {
        self.0.precondition(a, r, z);
    }
}

/// A device vector, downloaded.
fn down<O: LinearOps<T = f64>>(ops: &O, v: &O::Vector) -> Vec<f64> {
    ops.download(v).unwrap()
}

/// Each relaxation's sweeps on the finest level, restriction and prolongation, then the Galerkin refresh of
/// every level and the coarsest dense solve after K is refilled at other positions.
pub fn sweeps_transfers_and_refresh<O: MgpbdOps<T = f64>>(ops: &mut O, smoother: Smoother, report: &mut Report) {
    let mut s = beam_system(smoother, 100, 0.02);
    let mut h = s.hierarchy();
    assert!(h.level_count() >= 2, "{smoother:?}: the beam's K coarsens ({:?})", h.level_rows(&s.solver.k));
    let mut d = device_primal(ops, &s);
    let mut dh = DeviceHierarchy::upload(ops, &s.solver.k, &h, &d.k).unwrap();
    let k = s.solver.k.clone();
    let n = k.rows();
    let b = rhs(n);
    let db = ops.upload(&b).unwrap();
    for forward in [true, false] {
        let mut want: Vec<f64> = (0..n).map(|i| (1.1 * i as f64).cos()).collect();
        let mut got = ops.upload(&want).unwrap();
        h.levels[0].relax.sweep(&k, &b, &mut want, forward);
        relax(ops, &mut dh.levels[0], &d.k, &db, &mut got, 1, forward, false).unwrap();
        report.check(&format!("{smoother:?} sweep (forward {forward})"), &down(ops, &got), &want, 1e-14);
    }
    let p = &h.levels[0].p;
    let mut want = vec![0.0; p.cols()];
    for (i, row) in p.outer_iterator().enumerate() {
        for (j, &v) in row.iter() {
            want[j] += v * b[i];
        }
    }
    let mut got = ops.zeros(p.cols()).unwrap();
    ops.spmv(&dh.levels[0].pt, &db, &mut got).unwrap();
    report.check(&format!("{smoother:?} restriction P^T r"), &down(ops, &got), &want, 1e-14);
    let e = rhs(p.cols());
    let mut want = b.clone();
    let mut pe = vec![0.0; n];
    spmv(p, &e, &mut pe);
    want.iter_mut().zip(&pe).for_each(|(w, v)| *w += v);
    let mut got = ops.upload(&b).unwrap();
    ops.spmv_add(&dh.levels[0].p, &ops.upload(&e).unwrap(), &mut got).unwrap();
    report.check(&format!("{smoother:?} prolongation x + P e"), &down(ops, &got), &want, 1e-15);

    // New values of K on the same pattern: the device refreshes from its own refill.
    let moved = beam_system(smoother, 100, 0.05);
    s.solver.fill(&moved.grads, &s.model.inv_mass);
    h.refresh(&s.solver.k);
    d.fill(ops, &moved.grads).unwrap();
    dh.refresh(ops, &d.k).unwrap();
    report.check(&format!("{smoother:?} K refill at new positions"), &down(ops, &d.k.val), s.solver.k.data(), 1e-15);
    for (l, (cpu, dev)) in h.levels.iter().zip(&dh.levels).enumerate() {
        let values = down(ops, &dev.coarse.val);
        let want = cpu.galerkin.coarse.data();
        assert_eq!(values.len(), want.len(), "{smoother:?}: level {} keeps the pattern of the full setup", l + 1);
        report.check(&format!("{smoother:?} Galerkin P^T A P, level {}", l + 1), &values, want, 1e-13);
    }
    // The coarsest level's solve, on the same right-hand side.
    let (CoarseSolve::Cholesky(_), DeviceCoarsest::Dense { n: nc, factor, .. }) = (&h.coarsest, &dh.coarsest) else {
        panic!("{smoother:?}: the beam's coarsest level is factored densely");
    };
    let cb = rhs(*nc as usize);
    let mut want = vec![0.0; cb.len()];
    h.coarsest.solve(&cb, &mut want);
    let mut got = ops.zeros(cb.len()).unwrap();
    ops.cholesky_solve(factor, *nc, &ops.upload(&cb).unwrap(), &mut got).unwrap();
    report.check(&format!("{smoother:?} coarsest dense solve ({nc} rows)"), &down(ops, &got), &want, 1e-12);
}

/// One V-cycle from zero, then 10 PCG iterations preconditioned by it.
pub fn vcycle_and_ten_pcg_iterations<O: MgpbdOps<T = f64>>(ops: &mut O, smoother: Smoother, report: &mut Report) {
    let s = beam_system(smoother, 100, 0.02);
    let d = device_primal(ops, &s);
    let h = s.hierarchy();
    let mut dh = DeviceHierarchy::upload(ops, &s.solver.k, &h, &d.k).unwrap();
    let mut cpu = VCycle(h);
    let k = &s.solver.k;
    let n = k.rows();
    let b = rhs(n);
    let db = ops.upload(&b).unwrap();
    let mut want = vec![0.0; n];
    let mut got = ops.zeros(n).unwrap();
    cpu.apply(k, &b, &mut want);
    dh.precondition(ops, &d.k, &db, &mut got).unwrap();
    report.check(&format!("{smoother:?} V-cycle ({} levels)", cpu.0.level_count()), &down(ops, &got), &want, 1e-12);

    let mut pcg = Pcg::new("amg-pcg", cpu);
    pcg.setup(k, Setup::Full);
    want.fill(0.0);
    ops.set_zero(&mut got).unwrap();
    let (mut cpu_norms, mut dev_norms) = (Vec::new(), Vec::new());
    let (it_cpu, _) = pcg.iterate(k, &b, &mut want, 10, |r, _| {
        cpu_norms.push(norm(r));
        false
    });
    let mut dpcg = DevicePcg::new(ops, n).unwrap();
    let (it_dev, _) = dpcg
        .iterate(ops, &d.k, &mut dh, &db, &mut got, 10, |ops, r, _| {
            dev_norms.push(ops.dot(r, r)?.sqrt());
            Ok(false)
        })
        .unwrap();
    assert_eq!((it_cpu, it_dev), (10, 10));
    assert!(cpu_norms[10] < 1e-3 * cpu_norms[0], "{smoother:?}: PCG converges ({cpu_norms:?})");
    report.check(&format!("{smoother:?} x after 10 PCG iterations"), &down(ops, &got), &want, 1e-12);
    report.check(&format!("{smoother:?} residual norms of 10 PCG iterations"), &dev_norms, &cpu_norms, 1e-10);
}
