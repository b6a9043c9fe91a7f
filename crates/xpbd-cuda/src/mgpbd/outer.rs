//! One MGPBD outer iteration on a device (MGPBD paper Algorithm 1; the CPU backend's `Mgpbd::iterate`, step for
//! step): rows and gradients at x, the inertia term q = x − x̃ − M⁻¹Jᵀλ, b = Jq − (C + α̃λ), the matrix's
//! refill, the linear solve of Δλ, Δx = M⁻¹JᵀΔλ − q, and the backtracking line search on ‖C + α̃λ‖. The
//! linear solve ([`DeviceSolver`]) is MGPBD's primal solve (K refilled, the AMG set up fully by the CPU from K
//! read back every `setup_interval` frames, else refreshed on the device), or plain CG on the assembled dual
//! matrix A, the baseline. Positions and multipliers stay on the device; the host reads back the residuals
//! and the solve's scalars, and K and x at a full setup. The multipliers are the rows' own: with ARAP
//! component rows nine per element, whose state (cone) multipliers [`DeviceOuter::state_multipliers`] gives.
//! The phase times of [`OuterStats`] (the MGPBD paper's Fig. 10 breakdown) are taken between
//! synchronisations of the device. The substep loop around it is `device::MgpbdDevice`.

use std::time::Instant;

use xpbd_core::amg::blocks::rigid_body_modes;
use xpbd_core::amg::{AmgOptions, Hierarchy};
use xpbd_core::linear::{Method, Setup, SolveStats};
use xpbd_core::mgpbd::assembly::Pattern;
use xpbd_core::mgpbd::primal::{inverse_alpha, PrimalPattern};
use xpbd_core::mgpbd::rows::Rows;
use xpbd_core::mgpbd::settings::{GlobalSolve, MgpbdSettings};
use xpbd_core::mgpbd::setup_schedule::SetupSchedule;
use xpbd_core::mgpbd::{alpha_tilde, OuterStats, MAX_HALVINGS};
use xpbd_core::model::Model;
use xpbd_core::named::Named;
use xpbd_core::sparse::Csr;

use crate::convert::{to_f64, to_t, vectors};
use crate::error::{CudaError, Result};
use crate::linalg::LinearOps;
use crate::mgpbd::dual::DeviceDual;
use crate::mgpbd::incidence::DeviceIncidence;
use crate::mgpbd::ops::MgpbdOps;
use crate::mgpbd::primal::DevicePrimal;
use crate::mgpbd::rows::DeviceRows;
use crate::runtime::KernelScalar;

/// The linear solvers [`device_settings`] accepts: the primal solve, and plain CG on A (the baseline).
const DEVICE_SOLVERS: [GlobalSolve; 2] = [GlobalSolve::Primal, GlobalSolve::Dual(Method::Cg)];

/// The solve of Δλ in an outer iteration on the device, with the buffers it shares with the outer iteration:
/// the rows' gradients, b and Δλ.
pub enum DeviceSolver<O: MgpbdOps> {
    /// `primal-amg`, MGPBD's default.
    Primal(Box<PrimalSolve<O>>),
    /// `cg`: A refilled on the device (`assembly::Pattern`), plain CG without setup.
    Dual(Box<DeviceDual<O>>),
}

/// The primal solve: K and its AMG hierarchy on the device, and K's pattern on the host, into which a full
/// setup reads K's values back.
pub struct PrimalSolve<O: MgpbdOps> {
    pub device: DevicePrimal<O>,
    pattern: PrimalPattern,
    k_host: Csr,
    options: AmgOptions,
}

impl<O: MgpbdOps> DeviceSolver<O> {
    /// The rows' gradients (12 per row), b and Δλ on the device.
    fn buffers(&mut self) -> (&mut O::Vector, &mut O::Vector, &mut O::Vector) {
        match self {
            DeviceSolver::Primal(p) => (&mut p.device.grads, &mut p.device.b, &mut p.device.dlambda),
            DeviceSolver::Dual(d) => (&mut d.grads, &mut d.b, &mut d.dlambda),
        }
    }

    fn refill(&mut self, ops: &O) -> Result<()> {
        match self {
            DeviceSolver::Primal(p) => p.device.refill(ops),
            DeviceSolver::Dual(d) => d.refill(ops),
        }
    }

    /// The AMG setup of the primal solve after a refill: the full one by the CPU for K as it is on the device,
    /// with the rigid-body modes at `x` (PrimalSolver::setup), else the refresh or the finest smoother's on the
    /// device. Plain CG has none.
    fn setup(&mut self, ops: &mut O, x: &O::Vector, setup: Setup) -> Result<()> {
        let DeviceSolver::Primal(p) = self else { return Ok(()) };
        let PrimalSolve { device, pattern, k_host, options } = &mut **p;
        if setup != Setup::Full {
            return device.refresh(ops, setup);
        }
        let k = to_f64(&ops.download(&device.k.val)?);
        let n = k_host.nnz();
        k_host.data_mut().copy_from_slice(&k[..n]);
        let positions = vectors(&to_f64(&ops.download(x)?));
        let nf = pattern.free_count();
        let b = rigid_body_modes(&pattern.free_positions(&positions));
        let h = Hierarchy::smoothed_aggregation(k_host, options, (0..=nf).map(|u| 3 * u).collect(), b, 6);
        device.setup(ops, k_host, &h)
    }

    fn solve(&mut self, ops: &mut O, tol: f64, max_iter: usize) -> Result<SolveStats> {
        match self {
            DeviceSolver::Primal(p) => p.device.solve(ops, tol, max_iter),
            DeviceSolver::Dual(d) => d.solve(ops, tol, max_iter),
        }
    }
}

pub struct DeviceOuter<O: MgpbdOps> {
    settings: MgpbdSettings,
    rows_host: Rows,
    pub rows: DeviceRows<O>,
    pub solver: DeviceSolver<O>,
    /// The rows at every vertex (for M⁻¹Jᵀ over all vertices).
    incidence: DeviceIncidence<O>,
    inv_mass: O::Vector,
    ones_rows: O::Vector,
    ones_vertices: O::Vector,
    c: O::Vector,
    x_tilde: O::Vector,
    q: O::Vector,
    corr: O::Vector,
    dx: O::Vector,
    jq: O::Vector,
    pub x_trial: O::Vector,
    pub lambda_trial: O::Vector,
    trial_grads: O::Vector,
    trial_b: O::Vector,
    r0: Option<f64>,
    /// ‖C + α̃λ‖ after the last outer iteration.
    pub residual: f64,
    /// When the linear solver is set up (the CPU's schedule, `Mgpbd`).
    schedule: SetupSchedule,
    pub stats: OuterStats,
}

/// `settings` when the device outer iteration runs their linear solver (`"primal-amg"` or `"cg"`); `Err` is
/// why not.
pub fn device_settings(settings: &MgpbdSettings) -> Result<&MgpbdSettings> {
    if settings.pre_sweeps > 0 {
        // The host would sweep the soft attachments with its own multipliers, which the device's attachment pass
        // (starting from zero) does not see: the pull would settle short of the CPU's.
        return Err(CudaError::Unsupported("MGPBD with solver.pre_sweeps > 0 has no GPU path yet (the CPU backend runs it)".into()));
    }
    if !DEVICE_SOLVERS.contains(&settings.linear_solver) {
        let [primal, cg] = DEVICE_SOLVERS.map(GlobalSolve::name);
        return Err(CudaError::Unsupported(format!(
            "MGPBD with solver.linear_solver = \"{}\" has no GPU path (only \"{primal}\" and \"{cg}\")",
            settings.linear_solver.name()
        )));
    }
    Ok(settings)
}

impl<O: MgpbdOps> DeviceOuter<O> {
    /// For an MGPBD model whose linear solver has a device path ([`device_settings`]); `Err` is why not.
    pub fn new(ops: &O, model: &Model, settings: &MgpbdSettings, h: f64) -> Result<Self> {
        let settings = device_settings(settings)?.clone();
        let rows = settings.rows(model).map_err(|e| CudaError::Unsupported(e.to_string()))?;
        let at = alpha_tilde(&rows, h);
        let (all, solver) = if settings.linear_solver == GlobalSolve::Primal {
            let pattern = PrimalPattern::new(&rows.vertices, &model.inv_mass);
            let device = DevicePrimal::new(ops, &pattern, &rows.vertices, &model.inv_mass, &inverse_alpha(&at))?;
            let solver = DeviceSolver::Primal(Box::new(PrimalSolve { device, k_host: pattern.matrix.clone(), pattern, options: settings.amg_options() }));
            (Pattern::incidence_only(&rows, &model.inv_mass), solver)
        } else {
            let all = Pattern::new(&rows, &model.inv_mass);
            let dual = DeviceDual::new(ops, &all, &rows.vertices, &model.inv_mass, &at)?;
            (all, DeviceSolver::Dual(Box::new(dual)))
        };
        let (n, nv) = (rows.len(), model.vertex_count());
        let one = <O::T as KernelScalar>::from_f64(1.0);
        Ok(DeviceOuter {
            rows: DeviceRows::upload(ops, model, &rows, &at)?,
            solver,
            incidence: DeviceIncidence::upload(ops, &all.vertex_start, &all.vertex_rows)?,
            inv_mass: ops.upload(&to_t(&model.inv_mass))?,
            ones_rows: ops.upload(&vec![one; n.max(1)])?,
            ones_vertices: ops.upload(&vec![one; nv.max(1)])?,
            c: ops.zeros(n)?,
            x_tilde: ops.zeros(3 * nv)?,
            q: ops.zeros(3 * nv)?,
            corr: ops.zeros(3 * nv)?,
            dx: ops.zeros(3 * nv)?,
            jq: ops.zeros(n)?,
            x_trial: ops.zeros(3 * nv)?,
            lambda_trial: ops.zeros(n)?,
            trial_grads: ops.zeros(12 * n)?,
            trial_b: ops.zeros(n)?,
            rows_host: rows,
            schedule: settings.setup_schedule(),
            settings,
            r0: None,
            residual: 0.0,
            stats: OuterStats::default(),
        })
    }

    /// Every vertex's inverse mass on the device.
    pub fn inv_mass(&self) -> &O::Vector {
        &self.inv_mass
    }

    /// How many multipliers `iterate` takes: one per row ([`Rows::len`]).
    pub fn multiplier_count(&self) -> usize {
        self.rows_host.len()
    }

    /// The state's multipliers (`model.rows`) from the rows' `lambda`: read back, and for ARAP component
    /// rows the cone multiplier of each element (`Rows::cone_multipliers`, as `Mgpbd::iterate` reports them).
    pub fn state_multipliers(&self, ops: &O, lambda: &O::Vector, state: &mut [f64]) -> Result<()> {
        let rows = to_f64(&ops.download(lambda)?);
        self.rows_host.cone_multipliers(&rows[..self.rows_host.len()], state);
        Ok(())
    }

    /// Start of a frame: a full setup is due every `setup_interval` frames (Mgpbd::begin_frame).
    pub fn begin_frame(&mut self, frame: usize) {
        self.schedule.begin_frame(frame);
    }

    /// Start of a substep: multipliers to zero, tolerance reference forgotten (Mgpbd::reset).
    pub fn reset(&mut self, ops: &O, lambda: &mut O::Vector) -> Result<()> {
        self.r0 = None;
        ops.set_zero(lambda)
    }

    /// One outer iteration on device positions `x` (3 per vertex) and multipliers `lambda` (one per row,
    /// [`DeviceOuter::multiplier_count`]); whether the stopping tolerance is met afterwards.
    pub fn iterate(&mut self, ops: &mut O, x: &mut O::Vector, lambda: &mut O::Vector) -> Result<bool> {
        let t = Instant::now();
        let Self { rows, solver, incidence, inv_mass, ones_rows, ones_vertices, c, x_tilde, q, corr, jq, .. } = self;
        let (grads, b, _) = solver.buffers();
        rows.evaluate(ops, x, c, grads)?;
        if self.r0.is_none() {
            ops.copy(x, x_tilde)?;
        } else {
            // What moved the positions since the last outer iteration (soft attachments, contacts) stays, as on
            // the CPU (Mgpbd::iterate_rows): x̃ += (x − x_trial), the difference first as there (`corr` is free
            // until M⁻¹Jᵀλ below).
            let unit = |a: f64| <O::T as KernelScalar>::from_f64(a);
            ops.copy(x, corr)?;
            ops.axpy(corr, unit(-1.0), &self.x_trial)?;
            ops.axpy(x_tilde, unit(1.0), corr)?;
        }
        ops.jacobian_transpose(incidence, grads, ones_rows, lambda, inv_mass, corr)?;
        ops.inertia_term(x, x_tilde, corr, inv_mass, q)?;
        let r_start = rows.rhs(ops, c, lambda, b)?;
        let r0 = *self.r0.get_or_insert(r_start);
        ops.jacobian_rows(&rows.row_vertex, rows.count, grads, ones_vertices, q, jq)?;
        ops.axpy(b, <O::T as KernelScalar>::from_f64(1.0), jq)?;
        solver.refill(ops)?;
        self.stats.assembly_s += seconds_since(ops, t)?;

        let t = Instant::now();
        let setup = self.schedule.before_solve();
        self.solver.setup(ops, x, setup)?;
        self.stats.full_setups += (setup == Setup::Full) as usize;
        self.stats.refreshes += (setup == Setup::Refresh) as usize;
        self.stats.setup_s += seconds_since(ops, t)?;

        let t = Instant::now();
        let solve = self.solver.solve(ops, self.settings.pcg_tol, self.settings.pcg_max_iter)?;
        self.schedule.solved(&solve);
        self.stats.linear_iterations += solve.iterations;
        self.stats.solve_s += seconds_since(ops, t)?;

        let t = Instant::now();
        let Self { solver, incidence, inv_mass, ones_rows, q, dx, .. } = self;
        let (grads, _, dlambda) = solver.buffers();
        ops.jacobian_transpose(incidence, grads, ones_rows, dlambda, inv_mass, dx)?;
        ops.axpy(dx, <O::T as KernelScalar>::from_f64(-1.0), q)?;
        let mut step = if self.settings.line_search { 1.0 } else { self.settings.relaxation };
        for halving in 0..=MAX_HALVINGS {
            self.residual = self.trial(ops, x, lambda, step)?;
            if !self.settings.line_search || self.residual < r_start || halving == MAX_HALVINGS {
                break;
            }
            step *= 0.5;
        }
        ops.copy(&self.x_trial, x)?;
        ops.copy(&self.lambda_trial, lambda)?;
        self.stats.line_search_s += seconds_since(ops, t)?;
        self.stats.outer_iterations += 1;
        Ok(self.residual <= self.settings.tolerance * r0 || self.residual <= self.settings.abs_tolerance)
    }

    /// The trial state x + tΔx, λ + tΔλ and its residual ‖C + α̃λ‖ (Mgpbd::trial).
    fn trial(&mut self, ops: &mut O, x: &O::Vector, lambda: &O::Vector, t: f64) -> Result<f64> {
        let t = <O::T as KernelScalar>::from_f64(t);
        ops.copy(x, &mut self.x_trial)?;
        ops.axpy(&mut self.x_trial, t, &self.dx)?;
        ops.copy(lambda, &mut self.lambda_trial)?;
        ops.axpy(&mut self.lambda_trial, t, self.solver.buffers().2)?;
        self.rows.evaluate(ops, &self.x_trial, &mut self.c, &mut self.trial_grads)?;
        self.rows.rhs(ops, &self.c, &self.lambda_trial, &mut self.trial_b)
    }
}

/// Seconds since `start` once the device has finished what was launched.
fn seconds_since<O: LinearOps>(ops: &O, start: Instant) -> Result<f64> {
    ops.synchronize()?;
    Ok(start.elapsed().as_secs_f64())
}
