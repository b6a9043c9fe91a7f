//! MGPBD's outer loop on the CPU (MGPBD paper Algorithm 1; docs/equations.md). One outer iteration:
//! evaluate every row's C and gradients, `b = −(C + α̃λ)`, refill `A = J M⁻¹ Jᵀ + α̃` in place, solve
//! `A Δλ = b` with the linear solver (set up fully every `setup_interval` frames, refreshed in between as
//! `xpbd_core::mgpbd::setup_schedule` decides), `Δx = M⁻¹ Jᵀ Δλ`, then step both by t: `λ += tΔλ`, `x += tΔx`, with t
//! from backtracking on ‖C + α̃λ‖ (halved while the residual does not decrease, at most
//! [`MAX_HALVINGS`] times) or the fixed `relaxation`. Rows, values and corrections are computed in
//! parallel with rayon, one row, nonzero or vertex per task. With ARAP component rows the loop keeps
//! its own multipliers (nine per tet) and writes the state's cone multipliers after every iteration.
//! With `linear_solver = "primal-amg"` A is never assembled: the primal matrix `K = M + Jᵀα̃⁻¹J` is
//! refilled instead (one block row per task) and solved by `xpbd_core::mgpbd::primal_solve`.

use rayon::prelude::*;
use std::time::Instant;
use xpbd_core::constraint::arap::Polar;
use xpbd_core::linear::{LinearSolver, Setup, SolveStats};
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::assembly::Pattern;
use xpbd_core::mgpbd::primal_solve::PrimalSolver;
use xpbd_core::mgpbd::rows::{Rows, NO_VERTEX};
use xpbd_core::mgpbd::settings::{GlobalSolve, MgpbdSettings};
use xpbd_core::mgpbd::setup_schedule::SetupSchedule;
use xpbd_core::mgpbd::{alpha_tilde, OuterStats, MAX_HALVINGS};
use xpbd_core::model::Model;
use xpbd_core::named::Named;
use xpbd_core::sparse::{norm, Csr};

/// The solver of the dual system each outer iteration.
pub enum DualSolver {
    /// A solver of the assembled `A Δλ = b`.
    Matrix(Box<dyn LinearSolver>),
    /// `primal-amg`: through K, without assembling A.
    Primal(Box<PrimalSolver>),
}

/// The linear solver the settings name (`linear_solver`, configured by `theta`, `max_coarse`,
/// `near_kernel`, `smoother`) for `rows`. The single place that maps settings to solvers.
pub fn linear_solver(settings: &MgpbdSettings, rows: &Rows, inv_mass: &[f64]) -> DualSolver {
    match settings.linear_solver {
        GlobalSolve::Primal => DualSolver::Primal(Box::new(PrimalSolver::new(&rows.vertices, inv_mass, settings.amg_options()))),
        GlobalSolve::Dual(method) => DualSolver::Matrix(method.build(&settings.amg_options())),
    }
}

pub struct Mgpbd {
    settings: MgpbdSettings,
    rows: Rows,
    pattern: Pattern,
    a: Csr,
    solver: DualSolver,
    /// α̃ per row for the substep `h_of_alpha`.
    alpha_tilde: Vec<f64>,
    h_of_alpha: f64,
    c: Vec<f64>,
    grads: Vec<[Vec3; 4]>,
    /// The polar decompositions shared by ARAP component rows ([`Rows::evaluate_all`]).
    polars: Vec<Polar>,
    b: Vec<f64>,
    dlambda: Vec<f64>,
    dx: Vec<Vec3>,
    x_trial: Vec<Vec3>,
    /// C and ∇C of every row at `x_trial`, once a trial has evaluated them: the next outer iteration starts
    /// from the accepted trial and takes them instead of evaluating the rows again, unless something
    /// (soft attachments, contacts) moved the positions since.
    trial_rows: Option<(Vec<f64>, Vec<[Vec3; 4]>)>,
    /// The prediction x̃ (positions at the first outer iteration of the substep), moved along with the
    /// positions by the soft attachments and contacts between outer iterations.
    x_tilde: Vec<Vec3>,
    /// M⁻¹ g = (x − x̃) − M⁻¹ Jᵀ λ per vertex: how far the positions are from the multipliers' motion.
    q: Vec<Vec3>,
    lambda_trial: Vec<f64>,
    /// The rows' multipliers when they are not the state's ([`Rows::own_multipliers`]).
    row_lambda: Vec<f64>,
    /// ‖C(x̃)‖ at the substep's start (λ = 0), for the relative tolerance.
    r0: Option<f64>,
    /// The residual ‖C + α̃λ‖ after the last outer iteration.
    pub residual: f64,
    /// When the linear solver is set up.
    schedule: SetupSchedule,
    /// Counters since the last `take_stats`.
    stats: OuterStats,
}

impl Mgpbd {
    /// The outer iteration of `settings` for `model`. Panics when the model has no scalar rows (scene
    /// validation rejects such models first).
    pub fn new(model: &Model, settings: &MgpbdSettings) -> Self {
        let settings = settings.clone();
        let rows = settings.rows(model).expect("scene validation accepts only models with scalar rows");
        // The primal solve never forms A: only the rows at each vertex are needed.
        let pattern =
            if settings.linear_solver == GlobalSolve::Primal { Pattern::incidence_only(&rows, &model.inv_mass) } else { Pattern::new(&rows, &model.inv_mass) };
        let (n, schedule) = (rows.len(), settings.setup_schedule());
        Mgpbd {
            solver: linear_solver(&settings, &rows, &model.inv_mass),
            settings,
            a: pattern.matrix.clone(),
            pattern,
            alpha_tilde: Vec::new(),
            h_of_alpha: f64::NAN,
            c: vec![0.0; n],
            grads: vec![[Vec3::zeros(); 4]; n],
            polars: Vec::new(),
            b: vec![0.0; n],
            dlambda: vec![0.0; n],
            dx: vec![Vec3::zeros(); model.vertex_count()],
            x_trial: vec![Vec3::zeros(); model.vertex_count()],
            trial_rows: None,
            x_tilde: vec![Vec3::zeros(); model.vertex_count()],
            q: vec![Vec3::zeros(); model.vertex_count()],
            lambda_trial: vec![0.0; n],
            row_lambda: if rows.own_multipliers() { vec![0.0; n] } else { Vec::new() },
            r0: None,
            residual: 0.0,
            rows,
            schedule,
            stats: OuterStats::default(),
        }
    }

    pub fn linear_solver_name(&self) -> &'static str {
        self.settings.linear_solver.name()
    }

    /// Start of a frame: a full setup is due every `setup_interval` frames.
    pub fn begin_frame(&mut self, frame: usize) {
        self.schedule.begin_frame(frame);
    }

    /// Start of a substep: multipliers to zero, tolerance reference forgotten.
    pub fn reset(&mut self, lambda: &mut [f64]) {
        crate::zero(lambda);
        crate::zero(&mut self.row_lambda);
        self.r0 = None;
    }

    /// The counters since the last call, reset.
    pub fn take_stats(&mut self) -> OuterStats {
        std::mem::take(&mut self.stats)
    }

    /// One outer iteration on positions `x` and the state's multipliers `lambda` at substep `h`.
    /// Returns whether the stopping tolerance is met afterwards.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], lambda: &mut [f64], h: f64) -> bool {
        if self.row_lambda.is_empty() {
            return self.iterate_rows(model, x, lambda, h);
        }
        let mut row_lambda = std::mem::take(&mut self.row_lambda);
        let done = self.iterate_rows(model, x, &mut row_lambda, h);
        self.rows.cone_multipliers(&row_lambda, lambda);
        self.row_lambda = row_lambda;
        done
    }

    /// One outer iteration with the rows' own multipliers `lambda`.
    fn iterate_rows(&mut self, model: &Model, x: &mut [Vec3], lambda: &mut [f64], h: f64) -> bool {
        if h != self.h_of_alpha {
            self.alpha_tilde = alpha_tilde(&self.rows, h);
            self.h_of_alpha = h;
            if let DualSolver::Primal(p) = &mut self.solver {
                p.set_alpha_tilde(&self.alpha_tilde);
            }
        }
        let t = Instant::now();
        let (rows, pattern, at) = (&self.rows, &self.pattern, &self.alpha_tilde);
        match &mut self.trial_rows {
            Some((c, grads)) if x == self.x_trial.as_slice() => {
                std::mem::swap(c, &mut self.c);
                std::mem::swap(grads, &mut self.grads);
            }
            _ => rows.evaluate_all(model, x, &mut self.polars, &mut self.c, Some(&mut self.grads)),
        }
        if self.r0.is_none() {
            self.x_tilde.copy_from_slice(x);
        } else {
            // What moved the positions since the last outer iteration (soft attachments, contacts) stays: the
            // step below rebuilds x from x̃ and would undo it, and the rows would push again with their
            // multipliers counted twice.
            self.x_tilde.par_iter_mut().zip(x.par_iter().zip(&self.x_trial)).for_each(|(xt, (x, last))| *xt += x - last);
        }
        let grads = &self.grads;
        let (xt, w) = (&self.x_tilde, &model.inv_mass);
        self.q
            .par_iter_mut()
            .enumerate()
            .for_each(|(v, q)| *q = if w[v] > 0.0 { x[v] - xt[v] - pattern.correction(v, grads, w, lambda) } else { Vec3::zeros() });
        self.b.par_iter_mut().enumerate().for_each(|(i, b)| *b = self.c[i] + at[i] * lambda[i]);
        let r_start = norm(&self.b);
        let r0 = *self.r0.get_or_insert(r_start);
        let q = &self.q;
        self.b.par_iter_mut().enumerate().for_each(|(i, b)| {
            let jq: f64 = rows.vertices[i].iter().zip(&grads[i]).filter(|(&v, _)| v != NO_VERTEX).map(|(&v, g)| g.dot(&q[v as usize])).sum();
            *b = jq - *b
        });
        match &mut self.solver {
            DualSolver::Matrix(_) => self.a.data_mut().par_iter_mut().enumerate().for_each(|(k, a)| *a = pattern.value(k, rows, grads, &model.inv_mass, at)),
            DualSolver::Primal(p) => refill_primal(p, grads, &model.inv_mass),
        }
        self.stats.assembly_s += t.elapsed().as_secs_f64();

        let t = Instant::now();
        let setup = self.schedule.before_solve();
        match &mut self.solver {
            DualSolver::Matrix(s) => s.setup(&self.a, setup),
            DualSolver::Primal(p) => p.setup(x, setup),
        }
        self.stats.full_setups += (setup == Setup::Full) as usize;
        self.stats.refreshes += (setup == Setup::Refresh) as usize;
        self.stats.setup_s += t.elapsed().as_secs_f64();

        let t = Instant::now();
        self.dlambda.fill(0.0);
        let (tol, max_iter) = (self.settings.pcg_tol, self.settings.pcg_max_iter);
        let solve: SolveStats = match &mut self.solver {
            DualSolver::Matrix(s) => s.solve(&self.a, &self.b, &mut self.dlambda, tol, max_iter),
            DualSolver::Primal(p) => p.solve(grads, &model.inv_mass, &self.b, &mut self.dlambda, tol, max_iter),
        };
        self.schedule.solved(&solve);
        self.stats.linear_iterations += solve.iterations;
        self.stats.solve_s += t.elapsed().as_secs_f64();

        let t = Instant::now();
        let dl = &self.dlambda;
        self.dx.par_iter_mut().enumerate().for_each(|(v, d)| *d = if w[v] > 0.0 { pattern.correction(v, grads, w, dl) - q[v] } else { Vec3::zeros() });
        let mut step = if self.settings.line_search { 1.0 } else { self.settings.relaxation };
        for halving in 0..=MAX_HALVINGS {
            self.residual = self.trial(model, x, lambda, step);
            if !self.settings.line_search || self.residual < r_start || halving == MAX_HALVINGS {
                break;
            }
            step *= 0.5;
        }
        x.copy_from_slice(&self.x_trial);
        lambda.copy_from_slice(&self.lambda_trial);
        self.stats.line_search_s += t.elapsed().as_secs_f64();
        self.stats.outer_iterations += 1;
        self.residual <= self.settings.tolerance * r0 || self.residual <= self.settings.abs_tolerance
    }

    /// Sets the trial state `x + tΔx`, `λ + tΔλ`, evaluates the rows there (`trial_rows`) and returns its residual
    /// ‖C + α̃λ‖ (overwriting `c`).
    fn trial(&mut self, model: &Model, x: &[Vec3], lambda: &[f64], t: f64) -> f64 {
        self.x_trial.par_iter_mut().zip(x.par_iter().zip(&self.dx)).for_each(|(xt, (x, d))| *xt = x + d * t);
        self.lambda_trial.par_iter_mut().zip(lambda.par_iter().zip(&self.dlambda)).for_each(|(lt, (l, d))| *lt = l + d * t);
        let (at, lt) = (&self.alpha_tilde, &self.lambda_trial);
        let n = self.rows.len();
        let (c_trial, grads_trial) = self.trial_rows.get_or_insert_with(|| (vec![0.0; n], vec![[Vec3::zeros(); 4]; n]));
        self.rows.evaluate_all(model, &self.x_trial, &mut self.polars, c_trial, Some(grads_trial));
        // Rows in parallel, the sum in order: results do not depend on the thread count.
        self.c.par_iter_mut().zip(&*c_trial).enumerate().for_each(|(i, (r, c))| *r = c + at[i] * lt[i]);
        norm(&self.c)
    }
}

/// Refills K in parallel, one free vertex's block row per task (its entries are contiguous).
fn refill_primal(p: &mut PrimalSolver, grads: &[[Vec3; 4]], inv_mass: &[f64]) {
    let (pattern, inv_alpha, mut values) = p.matrix_mut();
    let mut block_rows = Vec::with_capacity(pattern.free_count());
    for u in 0..pattern.free_count() {
        let (row, rest) = std::mem::take(&mut values).split_at_mut(pattern.block_row_range(u).len());
        block_rows.push((u, row));
        values = rest;
    }
    block_rows.into_par_iter().for_each(|(u, row)| pattern.fill_block_row(u, grads, inv_mass, inv_alpha, row));
}
