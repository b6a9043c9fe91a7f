//! MGPBD on a device: core's frame loop and substep boundary around the device outer iterations
//! ([`DeviceOuter`]), as the CPU backend runs them around its own. The prediction, contacts, velocity update
//! and restitution stay on the host ([`SubstepBoundary`], O(n) per substep); the soft attachments are iterated on the device after each outer
//! iteration ([`DeviceSoftAttachments`]). Per substep the positions go up after the prediction and come down
//! after the last outer iteration, with the state's multipliers. Per outer iteration only the scalars of control
//! cross the bus (the hand-off), and K and x at a full AMG setup. Generic over [`MgpbdOps`], so the
//! whole loop runs on the host-compiled kernels in the tests against the CPU backend.

use xpbd_core::backend::{Backend, FrameStats, Unsupported};
use xpbd_core::contact::ContactForces;
use xpbd_core::mgpbd::settings::MgpbdSettings;
use xpbd_core::model::Model;
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::state::State;
use xpbd_core::substep::{step_frame, ConstraintSolver, SubstepBoundary};

use crate::boundary::soft_attachments_distinct;
use crate::convert::{flat3, to_f64};
use crate::error::{CudaError, Result};
use crate::mgpbd::attachments::DeviceSoftAttachments;
use crate::mgpbd::ops::MgpbdOps;
use crate::mgpbd::outer::{device_settings, DeviceOuter};

/// Why the device MGPBD loop cannot run `model` with `settings`, or `Ok` when it can. (Materials without scalar
/// rows are already rejected when the scene is built.)
pub fn check_supported(model: &Model, settings: &MgpbdSettings) -> Result<()> {
    device_settings(settings)?;
    soft_attachments_distinct(model)
}

/// The MGPBD backend on a device: the host's substep boundary and frame loop around [`DeviceSolve`].
pub struct MgpbdDevice<O: MgpbdOps> {
    config: SolverConfig,
    boundary: SubstepBoundary,
    solve: DeviceSolve<O>,
    describe: String,
}

/// The constraint solve of a substep on the device: the outer iterations and the soft attachments, with the
/// positions and multipliers that stay there between them.
struct DeviceSolve<O: MgpbdOps> {
    ops: O,
    outer: DeviceOuter<O>,
    /// Iterated after each outer iteration (as `CpuBackend` does), on the device.
    attachments: Option<DeviceSoftAttachments<O>>,
    x: O::Vector,
    lambda: O::Vector,
    h: f64,
}

impl<O: MgpbdOps> MgpbdDevice<O> {
    /// Uploads `model`'s rows and buffers through `ops` for the MGPBD `config` (`describe`: the backend's
    /// description). What [`Backend::supports`] refuses is refused here too: the device path by
    /// [`check_supported`], MGPBD's own needs by the rows [`DeviceOuter::new`] builds (built once, not once per
    /// check).
    pub fn new(ops: O, model: &Model, config: &SolverConfig, describe: String) -> Result<Self> {
        let settings = config.method.mgpbd().ok_or_else(|| CudaError::Unsupported("solver.kind is not mgpbd".into()))?;
        check_supported(model, settings)?;
        let outer = DeviceOuter::new(&ops, model, settings, config.h())?;
        let x = ops.zeros(3 * model.vertex_count())?;
        let lambda = ops.zeros(outer.multiplier_count())?;
        let attachments = DeviceSoftAttachments::upload(&ops, model)?;
        let solve = DeviceSolve { outer, attachments, x, lambda, ops, h: config.h() };
        Ok(MgpbdDevice { config: config.clone(), boundary: SubstepBoundary::new(model, config), solve, describe })
    }
}

impl<O: MgpbdOps> DeviceSolve<O> {
    fn download_positions(&self, s: &mut State) -> xpbd_core::Result<()> {
        let x = to_f64(&self.ops.download(&self.x)?);
        for (p, c) in s.x.iter_mut().zip(x.chunks_exact(3)) {
            p.copy_from_slice(c);
        }
        Ok(())
    }
}

impl<O: MgpbdOps> ConstraintSolver for DeviceSolve<O> {
    /// The predicted positions up, the multipliers (device and state) and the attachments' to zero.
    fn begin(&mut self, _model: &Model, s: &mut State, t_end: f64) -> xpbd_core::Result<()> {
        self.ops.write(&flat3(s.x.iter().copied()), &mut self.x)?;
        self.outer.reset(&self.ops, &mut self.lambda)?;
        if let Some(a) = &mut self.attachments {
            a.begin(&self.ops, t_end)?;
        }
        s.lambda.fill(0.0);
        Ok(())
    }

    /// One outer iteration, then the soft attachments on the device (the host boundary's are not used), then
    /// the substep's contact rows on the host when it has any (positions down and up: O(n) per outer
    /// iteration, small beside its linear solve).
    fn iterate(&mut self, model: &Model, s: &mut State, boundary: &mut SubstepBoundary, h: f64, t_end: f64) -> xpbd_core::Result<bool> {
        let done = self.outer.iterate(&mut self.ops, &mut self.x, &mut self.lambda)?;
        if let Some(a) = &mut self.attachments {
            self.ops.soft_attachments(a, &mut self.x, self.outer.inv_mass(), self.h)?;
        }
        if !boundary.contacts.is_empty() {
            self.download_positions(s)?;
            boundary.contacts.project(model, &mut s.x, &boundary.x_prev, h, t_end);
            self.ops.write(&flat3(s.x.iter().copied()), &mut self.x)?;
        }
        Ok(done)
    }

    /// Positions and the state's multipliers down (the host's velocity update and residual need both).
    fn finish(&mut self, s: &mut State, _report: bool) -> xpbd_core::Result<()> {
        self.download_positions(s)?;
        Ok(self.outer.state_multipliers(&self.ops, &self.lambda, &mut s.lambda)?)
    }
}

impl<O: MgpbdOps> Backend for MgpbdDevice<O> {
    /// MGPBD's own requirements and what the device outer iteration covers ([`check_supported`]).
    fn supports(model: &Model, config: &SolverConfig) -> std::result::Result<(), Unsupported> {
        config.requirements(model)?;
        let settings = config.method.mgpbd().ok_or_else(|| Unsupported(format!("solver.kind = \"{}\" is not mgpbd", config.method.kind())))?;
        check_supported(model, settings).map_err(|e| Unsupported(e.to_string()))
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    /// From the host's rows, as on the CPU.
    fn contact_forces(&self, model: &Model, _state: &State) -> xpbd_core::Result<ContactForces> {
        Ok(self.boundary.contact_forces(model, self.config.h()))
    }

    /// One frame (as `CpuBackend::step_frame`); `Err` when the device reports an error.
    fn step_frame(&mut self, model: &Model, s: &mut State) -> xpbd_core::Result<FrameStats> {
        let MgpbdDevice { config, boundary, solve, .. } = self;
        solve.outer.begin_frame(s.frame);
        let mut stats = step_frame(config, s, |s, h, t_end, report| boundary.substep(solve, config.iterations, model, s, h, t_end, report))?;
        stats.mgpbd = Some(std::mem::take(&mut solve.outer.stats));
        stats.contacts = boundary.contacts.active();
        Ok(stats)
    }
}
