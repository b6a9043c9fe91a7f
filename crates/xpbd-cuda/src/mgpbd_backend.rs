//! MGPBD on a device (issue 7): `xpbd_cpu::CpuBackend`'s substep loop around the device outer iterations
//! ([`DeviceOuter`]). The prediction, contacts, velocity update and restitution stay on the host
//! ([`SubstepBoundary`], O(n) per substep); the soft attachments are iterated on the device after each outer
//! iteration ([`DeviceSoftAttachments`]). Per substep the positions go up after the prediction and come down
//! after the last outer iteration, with the state's multipliers. Per outer iteration only the scalars of control
//! cross the bus (the hand-off), and K and x at a full AMG setup. Generic over [`LinearOps`], so the
//! whole loop runs on the host-compiled kernels in the tests against the CPU backend.

use std::time::Instant;

use xpbd_core::backend::{Backend, FrameStats};
use xpbd_core::metrics::residual_norm;
use xpbd_core::mgpbd::settings::MgpbdSettings;
use xpbd_core::model::Model;
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::state::State;
use xpbd_cpu::{timed, SubstepBoundary};

use crate::amg_ops::LinearOps;
use crate::attachments_device::DeviceSoftAttachments;
use crate::device_model::flat3;
use crate::layout::soft_attachments_distinct;
use crate::outer_device::{device_settings, DeviceOuter};
use crate::KernelScalar;

/// Why the device MGPBD loop cannot run `model` with `settings`, or `Ok` when it can. (Materials without scalar
/// rows are already rejected when the scene is built.)
pub fn check_supported(model: &Model, settings: &MgpbdSettings) -> Result<(), String> {
    device_settings(settings)?;
    soft_attachments_distinct(model)
}

pub struct MgpbdDevice<O: LinearOps> {
    config: SolverConfig,
    ops: O,
    outer: DeviceOuter<O>,
    boundary: SubstepBoundary,
    /// Iterated after each outer iteration (as `CpuBackend` does), on the device.
    attachments: Option<DeviceSoftAttachments<O>>,
    x: O::Vector,
    lambda: O::Vector,
    describe: String,
}

impl<O: LinearOps> MgpbdDevice<O> {
    /// Uploads `model`'s rows and buffers through `ops` for the MGPBD `config` (`describe`: the backend's
    /// description).
    pub fn new(ops: O, model: &Model, config: &SolverConfig, describe: String) -> Result<Self, String> {
        let settings = config.method.mgpbd().ok_or("solver.kind is not mgpbd")?;
        check_supported(model, settings)?;
        let outer = DeviceOuter::new(&ops, model, settings, config.h())?;
        let x = ops.zeros(3 * model.vertex_count())?;
        let lambda = ops.zeros(outer.multiplier_count())?;
        let attachments = DeviceSoftAttachments::upload(&ops, model)?;
        Ok(MgpbdDevice { config: config.clone(), boundary: SubstepBoundary::new(model, config), outer, attachments, x, lambda, ops, describe })
    }

    /// One frame (as `CpuBackend::step_frame`); `Err` when the device reports an error.
    pub fn try_step_frame(&mut self, model: &Model, s: &mut State) -> Result<FrameStats, String> {
        let h = self.config.h();
        let n = self.config.substeps;
        let t0 = s.time;
        let start = Instant::now();
        let (mut stats, mut excluded) = (FrameStats::default(), 0.0);
        self.outer.begin_frame(s.frame);
        for k in 1..=n {
            let t_end = self.config.substep_end(t0, k);
            self.boundary.begin(model, s, h, t_end);
            self.ops.write(&flat3(s.x.iter().copied()), &mut self.x)?;
            self.outer.reset(&self.ops, &mut self.lambda)?;
            if let Some(a) = &mut self.attachments {
                a.begin(&self.ops, t_end)?;
            }
            s.lambda.fill(0.0);
            let report = k == n;
            let r0 = report.then(|| timed(&mut excluded, || residual_norm(model, &s.x, &s.lambda, h)));
            for _ in 0..self.config.iterations {
                let done = self.outer.iterate(&mut self.ops, &mut self.x, &mut self.lambda)?;
                if let Some(a) = &mut self.attachments {
                    a.iterate(&self.ops, &mut self.x, self.outer.inv_mass(), h)?;
                }
                if done {
                    break;
                }
            }
            let x: Vec<f64> = self.ops.download(&self.x)?.into_iter().map(KernelScalar::to_f64).collect();
            for (p, c) in s.x.iter_mut().zip(x.chunks_exact(3)) {
                p.copy_from_slice(c);
            }
            self.outer.state_multipliers(&self.ops, &self.lambda, &mut s.lambda)?;
            self.boundary.end(model, s, h, t_end);
            if let Some(r0) = r0 {
                let r = timed(&mut excluded, || residual_norm(model, &s.x, &s.lambda, h));
                stats.residual = r;
                stats.relative_residual = if r0 > 0.0 { r / r0 } else { 0.0 };
            }
        }
        s.frame += 1;
        stats.mgpbd = Some(std::mem::take(&mut self.outer.stats));
        stats.solve_seconds = (start.elapsed().as_secs_f64() - excluded).max(0.0);
        Ok(stats)
    }
}

impl<O: LinearOps> Backend for MgpbdDevice<O> {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn step_frame(&mut self, model: &Model, state: &mut State) -> xpbd_core::Result<FrameStats> {
        self.try_step_frame(model, state).map_err(crate::backend::failure)
    }
}
