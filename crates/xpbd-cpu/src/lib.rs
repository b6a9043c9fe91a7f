//! `xpbd-cpu`: the CPU backend and the reference for every GPU path. Substep loop of DESIGN.md §7:
//! predict, reset multipliers, iterate the constraints (Gauss-Seidel in serial, colored or clustered
//! order, or Jacobi), attachments, contacts, velocity update, restitution.

mod attachments;
mod contacts;
mod elements;
pub mod gauss_seidel;
pub mod integrate;
pub mod jacobi;
pub mod mgpbd;
pub mod multilayer;
pub mod schedule;
mod shared;

use gauss_seidel::{GaussSeidel, ScheduleKind};
use jacobi::Jacobi;
use mgpbd::Mgpbd;
use multilayer::Multilayer;

use std::time::Instant;
use xpbd_core::backend::{Backend, FrameStats};
use xpbd_core::mesh::Vec3;
use xpbd_core::metrics::residual_norm;
use xpbd_core::model::Model;
use xpbd_core::solver_config::{Method, Ordering, SolverConfig};
use xpbd_core::state::State;

pub struct CpuBackend {
    config: SolverConfig,
    boundary: SubstepBoundary,
    sweep: Sweep,
}

/// What a substep does around its constraint solve (DESIGN.md §7): the prediction before it, the soft
/// attachments after each iteration, and contacts, the velocity update and restitution at its end. Shared
/// by the CPU backend and the device MGPBD backend (`xpbd_cuda`), whose solve runs elsewhere.
pub struct SubstepBoundary {
    velocity_damping: f64,
    x_prev: Vec<Vec3>,
    v_before: Vec<Vec3>,
    attach_lambda: Vec<Vec3>,
    contacts: Vec<contacts::Contact>,
}

impl SubstepBoundary {
    pub fn new(model: &Model, config: &SolverConfig) -> Self {
        let n = model.vertex_count();
        SubstepBoundary {
            velocity_damping: config.velocity_damping,
            x_prev: vec![Vec3::zeros(); n],
            v_before: vec![Vec3::zeros(); n],
            attach_lambda: vec![Vec3::zeros(); model.attachments.len()],
            contacts: Vec::new(),
        }
    }

    /// The prediction x̃ of a substep ending at `t_end` (velocities kept for restitution); attachment
    /// multipliers to zero. The solver resets its own multipliers.
    pub fn begin(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        self.v_before.copy_from_slice(&s.v);
        integrate::predict(model, self.velocity_damping, s, &mut self.x_prev, h, t_end);
        self.attach_lambda.fill(Vec3::zeros());
    }

    /// One pass over the soft attachments, after each solver iteration.
    pub fn attachments(&mut self, model: &Model, x: &mut [Vec3], h: f64, t_end: f64) {
        attachments::iterate(model, x, &mut self.attach_lambda, h, t_end);
    }

    /// Contacts, velocity update and restitution: the end of a substep.
    pub fn end(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        contacts::project(model, &mut s.x, &self.x_prev, &mut self.contacts);
        integrate::update_velocities(s, &self.x_prev, h);
        contacts::restitute(&self.contacts, &mut s.v, &self.v_before, model.gravity.norm(), h);
        s.time = t_end;
    }
}

/// The constraint loop of the XPBD ordering, MGPBD's outer iteration, or the multi-layer solver (which
/// runs whole substeps).
enum Sweep {
    GaussSeidel(GaussSeidel),
    Jacobi(Jacobi),
    Mgpbd(Box<Mgpbd>),
    Multilayer(Box<Multilayer>),
}

impl CpuBackend {
    /// The backend of `config`'s method for `model`.
    pub fn new(model: &Model, config: &SolverConfig) -> Self {
        let h = config.h();
        let sweep = match &config.method {
            Method::Mgpbd(settings) => Sweep::Mgpbd(Box::new(Mgpbd::new(model, settings))),
            Method::Multilayer(settings) => Sweep::Multilayer(Box::new(Multilayer::new(model, settings))),
            Method::Xpbd { ordering: Ordering::Serial } => Sweep::GaussSeidel(GaussSeidel::new(model, h, ScheduleKind::Serial)),
            Method::Xpbd { ordering: Ordering::Colored } => Sweep::GaussSeidel(GaussSeidel::new(model, h, ScheduleKind::Colored)),
            Method::Xpbd { ordering: Ordering::Clustered { cluster_size } } => {
                Sweep::GaussSeidel(GaussSeidel::new(model, h, ScheduleKind::Clustered { cluster_size: *cluster_size }))
            }
            Method::Xpbd { ordering: Ordering::Jacobi { relaxation } } => Sweep::Jacobi(Jacobi::new(model, h, *relaxation)),
        };
        CpuBackend { config: config.clone(), boundary: SubstepBoundary::new(model, config), sweep }
    }

    /// How this backend solves.
    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// One substep ending at time `t_end`. With `report`, returns (‖r₀‖, ‖r‖) of DESIGN.md §7 and the
    /// seconds spent on that evaluation (to exclude from timing).
    pub fn substep(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64, report: bool) -> Option<(f64, f64, f64)> {
        if let Sweep::Multilayer(m) = &mut self.sweep {
            let r = m.substep(model, self.config.velocity_damping, s, h, report);
            s.time = t_end;
            return r;
        }
        self.begin_substep(model, s, h, t_end);
        let mut excluded = 0.0;
        let r0 = report.then(|| timed(&mut excluded, || residual_norm(model, &s.x, &s.lambda, h)));
        for _ in 0..self.config.iterations {
            if self.sweep(model, s, h, t_end) {
                break;
            }
        }
        self.end_substep(model, s, h, t_end);
        r0.map(|r0| {
            let r = timed(&mut excluded, || {
                self.export_multipliers(s);
                residual_norm(model, &s.x, &s.lambda, h)
            });
            (r0, r, excluded)
        })
    }

    /// The multi-layer solver, when the scene's solver is `multilayer` (for its timings and traces).
    pub fn multilayer(&mut self) -> Option<&mut Multilayer> {
        match &mut self.sweep {
            Sweep::Multilayer(m) => Some(m),
            _ => None,
        }
    }

    /// Prediction and multiplier reset: the start of a substep ending at `t_end`.
    pub fn begin_substep(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        self.boundary.begin(model, s, h, t_end);
        match &mut self.sweep {
            Sweep::GaussSeidel(g) => g.reset(&mut s.lambda),
            Sweep::Jacobi(_) | Sweep::Multilayer(_) => s.lambda.fill(0.0),
            Sweep::Mgpbd(m) => m.reset(&mut s.lambda),
        }
    }

    /// One solver iteration (every elastic constraint once, then the soft attachments), leaving the
    /// state's multipliers up to date.
    pub fn iterate(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        self.sweep(model, s, h, t_end);
        self.export_multipliers(s);
    }

    /// One iteration; a colored or clustered sweep keeps its multipliers to itself until exported.
    /// Returns whether the solver's stopping tolerance is met (MGPBD; XPBD runs every iteration).
    fn sweep(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) -> bool {
        let converged = match &mut self.sweep {
            Sweep::GaussSeidel(g) => {
                g.iterate(model, &mut s.x, &self.boundary.x_prev, &mut s.lambda, h);
                false
            }
            Sweep::Jacobi(j) => {
                j.iterate(model, &mut s.x, &self.boundary.x_prev, &mut s.lambda, h);
                false
            }
            Sweep::Mgpbd(m) => m.iterate(model, &mut s.x, &mut s.lambda, h),
            Sweep::Multilayer(_) => unreachable!("multi-layer substeps run whole in CpuBackend::substep"),
        };
        self.boundary.attachments(model, &mut s.x, h, t_end);
        converged
    }

    fn export_multipliers(&self, s: &mut State) {
        if let Sweep::GaussSeidel(g) = &self.sweep {
            g.export(&mut s.lambda);
        }
    }

    /// Contacts, velocity update and restitution: the end of a substep.
    pub fn end_substep(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        self.boundary.end(model, s, h, t_end);
    }
}

/// Runs `f`, adding its wall time to `acc` (time spent on reporting, excluded from the solve's).
pub fn timed<T>(acc: &mut f64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    *acc += t.elapsed().as_secs_f64();
    r
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        let threads = rayon::current_num_threads();
        match &self.sweep {
            Sweep::GaussSeidel(g) if g.schedules.iter().all(|s| s.batches() == 1) => "cpu: serial Gauss-Seidel".into(),
            Sweep::GaussSeidel(g) => {
                format!("cpu: parallel Gauss-Seidel, {} batches per sweep, {threads} rayon threads", g.schedules.iter().map(|s| s.batches()).sum::<usize>())
            }
            Sweep::Jacobi(_) => format!("cpu: Jacobi, {threads} rayon threads"),
            Sweep::Mgpbd(m) => format!("cpu: MGPBD, linear solver {}, {threads} rayon threads", m.linear_solver_name()),
            Sweep::Multilayer(m) => format!("cpu: multi-layer XPBD, {} layers, serial", m.layer_count()),
        }
    }

    fn colors(&self) -> Option<usize> {
        match &self.sweep {
            Sweep::GaussSeidel(g) if !g.schedules.iter().all(|s| s.batches() == 1) => Some(g.schedules.iter().map(|s| s.batches()).sum()),
            _ => None,
        }
    }

    fn carried(&self) -> Vec<f64> {
        match &self.sweep {
            Sweep::Multilayer(m) => m.strain_rates().to_vec(),
            _ => Vec::new(),
        }
    }

    fn restore_carried(&mut self, state: &State, carried: &[f64]) -> xpbd_core::Result<()> {
        match &mut self.sweep {
            Sweep::Multilayer(m) => m.restore(self.config.substeps, state, carried),
            _ => xpbd_core::backend::nothing_carried(carried),
        }
    }

    fn step_frame(&mut self, model: &Model, s: &mut State) -> xpbd_core::Result<FrameStats> {
        let h = self.config.h();
        let n = self.config.substeps;
        let t0 = s.time;
        let start = Instant::now();
        let mut stats = FrameStats::default();
        let mut excluded = 0.0;
        if let Sweep::Mgpbd(m) = &mut self.sweep {
            m.begin_frame(s.frame);
        }
        for k in 1..=n {
            let t_end = self.config.substep_end(t0, k);
            if let Some((r0, r, ex)) = self.substep(model, s, h, t_end, k == n) {
                stats.residual = r;
                stats.relative_residual = if r0 > 0.0 { r / r0 } else { 0.0 };
                excluded += ex;
            }
        }
        s.frame += 1;
        if let Sweep::Mgpbd(m) = &mut self.sweep {
            stats.mgpbd = Some(m.take_stats());
        }
        stats.solve_seconds = (start.elapsed().as_secs_f64() - excluded).max(0.0);
        Ok(stats)
    }
}
