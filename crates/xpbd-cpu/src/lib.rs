//! `xpbd-cpu`: the CPU backend and the reference for every GPU path. Each substep runs core's host half
//! (`xpbd_core::substep`: prediction, soft attachments, contacts, velocity update, restitution) around the
//! constraint solve of the configured method: Gauss-Seidel in serial, colored or clustered order, Jacobi,
//! MGPBD's outer iterations, or the multi-layer solver's whole substeps.

mod block_families;
mod block_kernel;
mod elements;
pub mod gauss_seidel;
pub mod implicit;
pub mod jacobi;
pub mod mgpbd;
pub mod multilayer;
mod real;
mod shared;
mod tet_blocks;

pub use block_kernel::Isa;
use gauss_seidel::{GaussSeidel, ScheduleKind};
use jacobi::Jacobi;
use mgpbd::Mgpbd;
use multilayer::Multilayer;

use rayon::prelude::*;
use xpbd_core::backend::{Backend, FrameStats, Unsupported};
use xpbd_core::contact::ContactForces;
use xpbd_core::model::Model;
use xpbd_core::solver_config::{Method, Ordering, Precision, SolverConfig};
use xpbd_core::state::State;
use xpbd_core::substep::integrate::VERTEX_GRAIN;
use xpbd_core::substep::{step_frame, ConstraintSolver, SubstepBoundary, SubstepReport};
use xpbd_core::Result;

/// The CPU backend of `config`'s method: [`ImplicitBackend`](implicit::ImplicitBackend) for the implicit
/// solvers, [`CpuBackend`] for the XPBD family.
pub fn backend(model: &Model, config: &SolverConfig) -> Box<dyn Backend> {
    match config.method {
        Method::Implicit(_) => Box::new(implicit::ImplicitBackend::new(model, config)),
        _ => Box::new(CpuBackend::new(model, config)),
    }
}

pub struct CpuBackend {
    config: SolverConfig,
    boundary: SubstepBoundary,
    sweep: Sweep,
}

/// The constraint loop of the XPBD ordering, MGPBD's outer iteration, or the multi-layer solver (which
/// runs whole substeps).
enum Sweep {
    GaussSeidel(Box<GaussSeidel>),
    Jacobi(Box<Jacobi>),
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
            Method::Xpbd { ordering, precision } => {
                let gauss_seidel = |kind| Sweep::GaussSeidel(Box::new(GaussSeidel::new(model, h, config.iterations, kind, *precision)));
                match *ordering {
                    Ordering::Serial => gauss_seidel(ScheduleKind::Serial),
                    Ordering::Colored => gauss_seidel(ScheduleKind::Colored),
                    Ordering::Clustered { cluster_size } => gauss_seidel(ScheduleKind::Clustered { cluster_size }),
                    Ordering::Jacobi { relaxation } => Sweep::Jacobi(Box::new(Jacobi::new(model, h, config.iterations, relaxation, *precision))),
                }
            }
            Method::Implicit(_) => panic!("the implicit solvers are xpbd_cpu::implicit::ImplicitBackend (xpbd_cpu::backend picks it)"),
        };
        CpuBackend { config: config.clone(), boundary: SubstepBoundary::new(model, config), sweep }
    }

    /// How this backend solves.
    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// One substep ending at time `t_end`; with `report`, the residuals of the substep.
    pub fn substep(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64, report: bool) -> Option<SubstepReport> {
        substep(&self.config, &mut self.boundary, &mut self.sweep, model, s, h, t_end, report)
    }

    /// This substep's contact rows and the time spent on contact so far (for benchmarks).
    pub fn contacts(&self) -> &xpbd_core::contact::ContactSet {
        &self.boundary.contacts
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
        self.sweep.begin(model, s, t_end).expect("the CPU solvers do not fail");
    }

    /// One solver iteration (every elastic constraint once, then the soft attachments), leaving the
    /// state's multipliers up to date.
    pub fn iterate(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) {
        self.sweep.iterate(model, s, &mut self.boundary, h, t_end).expect("the CPU solvers do not fail");
        self.sweep.finish(s, true).expect("the CPU solvers do not fail");
    }
}

/// Sets `values` to zero in parallel chunks: the multipliers at the start of every substep, two a tetrahedron,
/// whose serial fill took a few percent of a two-thread substep.
pub(crate) fn zero(values: &mut [f64]) {
    values.par_chunks_mut(VERTEX_GRAIN).for_each(|c| c.fill(0.0));
}

/// [`CpuBackend::substep`] on the backend's parts.
#[allow(clippy::too_many_arguments)]
fn substep(
    config: &SolverConfig,
    boundary: &mut SubstepBoundary,
    sweep: &mut Sweep,
    model: &Model,
    s: &mut State,
    h: f64,
    t_end: f64,
    report: bool,
) -> Option<SubstepReport> {
    match sweep {
        Sweep::Multilayer(m) => {
            let r = m.substep(model, config.velocity_damping, s, h, t_end, report);
            s.time = t_end;
            r
        }
        sweep => boundary.substep(sweep, config.iterations, model, s, h, t_end, report).expect("the CPU solvers do not fail"),
    }
}

impl ConstraintSolver for Sweep {
    fn begin(&mut self, _model: &Model, s: &mut State, _t_end: f64) -> Result<()> {
        match self {
            Sweep::GaussSeidel(g) => g.reset(&mut s.lambda),
            Sweep::Jacobi(_) | Sweep::Multilayer(_) => zero(&mut s.lambda),
            Sweep::Mgpbd(m) => m.reset(&mut s.lambda),
        }
        Ok(())
    }

    /// A colored or clustered sweep keeps its multipliers to itself until [`ConstraintSolver::finish`].
    fn iterate(&mut self, model: &Model, s: &mut State, boundary: &mut SubstepBoundary, h: f64, t_end: f64) -> Result<bool> {
        let converged = match self {
            Sweep::GaussSeidel(g) => {
                g.iterate(model, &mut s.x, &boundary.x_prev, &mut s.lambda, h);
                false
            }
            Sweep::Jacobi(j) => {
                j.iterate(model, &mut s.x, &boundary.x_prev, &mut s.lambda, h);
                false
            }
            Sweep::Mgpbd(m) => m.iterate(model, &mut s.x, &mut s.lambda, h),
            Sweep::Multilayer(_) => unreachable!("multi-layer substeps run whole in CpuBackend::substep"),
        };
        boundary.project(model, &mut s.x, h, t_end);
        Ok(converged)
    }

    fn finish(&mut self, s: &mut State, report: bool) -> Result<()> {
        if let (Sweep::GaussSeidel(g), true) = (self, report) {
            g.export(&mut s.lambda);
        }
        Ok(())
    }

    fn residual(&mut self, model: &Model, s: &State, h: f64) -> f64 {
        match self {
            Sweep::GaussSeidel(g) => g.residual(model, &s.x, &s.lambda, h),
            Sweep::Jacobi(j) => j.residual(model, &s.x, &s.lambda, h),
            _ => xpbd_core::metrics::residual_norm(model, &s.x, &s.lambda, h),
        }
    }
}

impl Backend for CpuBackend {
    /// The CPU runs every method: only the method's own requirements.
    fn supports(model: &Model, config: &SolverConfig) -> std::result::Result<(), Unsupported> {
        config.requirements(model)
    }

    /// The method, its threads, and what f32 applies to when the scene asks for it.
    fn describe(&self) -> String {
        let threads = rayon::current_num_threads();
        let f32_note = |block_families: usize| match (self.config.method.precision(), block_families) {
            (Precision::F64, _) => "",
            (Precision::F32, 0) => ", precision f32 asked but no undamped neohookean_block body: all f64",
            (Precision::F32, _) => ", block kernel in f32",
        };
        match &self.sweep {
            Sweep::GaussSeidel(g) if g.schedules.iter().all(|s| s.batches() == 1) => format!("cpu: serial Gauss-Seidel{}", f32_note(g.block_families())),
            Sweep::GaussSeidel(g) => format!(
                "cpu: parallel Gauss-Seidel, {} batches per sweep, {threads} rayon threads{}",
                g.schedules.iter().map(|s| s.batches()).sum::<usize>(),
                f32_note(g.block_families())
            ),
            Sweep::Jacobi(j) => format!("cpu: Jacobi, {threads} rayon threads{}", f32_note(j.block_families())),
            Sweep::Mgpbd(m) => format!("cpu: MGPBD, linear solver {}, {threads} rayon threads", m.linear_solver_name()),
            Sweep::Multilayer(m) => format!("cpu: multi-layer XPBD, {} layers, colored", m.layer_count()),
        }
    }

    fn colors(&self) -> Option<usize> {
        match &self.sweep {
            Sweep::GaussSeidel(g) if !g.schedules.iter().all(|s| s.batches() == 1) => Some(g.schedules.iter().map(|s| s.batches()).sum()),
            _ => None,
        }
    }

    /// From the last substep's contact set, or the multi-layer solver's own rows.
    fn contact_forces(&self, model: &Model, state: &State) -> Result<ContactForces> {
        let h = self.config.h();
        match &self.sweep {
            Sweep::Multilayer(m) => Ok(m.contact_forces(&state.x, h)),
            _ => Ok(self.boundary.contact_forces(model, h)),
        }
    }

    /// The multi-layer solver's strain rates; the XPBD sweeps' hinge angles (model order), onto which the
    /// next angles unwrap (empty without cloth).
    fn carried(&self) -> Vec<f64> {
        match &self.sweep {
            Sweep::Multilayer(m) => m.strain_rates().to_vec(),
            Sweep::GaussSeidel(g) => g.hinge_angles(),
            Sweep::Jacobi(j) => j.angles.values(),
            Sweep::Mgpbd(_) => Vec::new(),
        }
    }

    fn restore_carried(&mut self, state: &State, carried: &[f64]) -> xpbd_core::Result<()> {
        match &mut self.sweep {
            Sweep::Multilayer(m) => m.restore(self.config.substeps, state, carried),
            Sweep::GaussSeidel(g) => g.restore_hinge_angles(carried),
            Sweep::Jacobi(j) => j.angles.restore(carried),
            Sweep::Mgpbd(_) => xpbd_core::backend::nothing_carried(carried),
        }
    }

    fn step_frame(&mut self, model: &Model, s: &mut State) -> Result<FrameStats> {
        let CpuBackend { config, boundary, sweep } = self;
        if let Sweep::Mgpbd(m) = sweep {
            m.begin_frame(s.frame);
        }
        let mut stats = step_frame(config, s, |s, h, t_end, report| Ok(substep(config, boundary, sweep, model, s, h, t_end, report)))?;
        stats.contacts = match sweep {
            Sweep::Multilayer(m) => m.active_contacts(),
            _ => boundary.contacts.active(),
        };
        if let Sweep::Mgpbd(m) = sweep {
            stats.mgpbd = Some(m.take_stats());
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use xpbd_core::scene::{build, parse};

    /// `describe` says whether f32 reaches the block kernel: yes for a block neo-Hookean bar, not for StVK.
    #[test]
    fn the_description_says_what_f32_applies_to() {
        for (material, ordering, expected) in [
            ("neohookean_block", "clustered", ", block kernel in f32"),
            ("neohookean_block", "jacobi", ", block kernel in f32"),
            ("stvk", "serial", ", precision f32 asked but no undamped neohookean_block body: all f64"),
        ] {
            let scene = format!(
                "name = \"bar\"\n[solver]\nordering = \"{ordering}\"\nprecision = \"f32\"\n[[body]]\nname = \"bar\"\n\
                 mesh = {{ generator = \"box\", size = [1.0, 0.2, 0.2], cells = [4, 1, 1], split = 5 }}\n\
                 material = {{ model = \"{material}\", youngs = 1.0e6, poisson = 0.3, density = 1000.0 }}\n"
            );
            let built = build(&parse(&scene, Path::new("bar.toml")).unwrap(), Path::new(".")).unwrap();
            let description = CpuBackend::new(&built.model, &built.config).describe();
            assert!(description.ends_with(expected), "{material} {ordering}: {description}");
        }
    }
}
