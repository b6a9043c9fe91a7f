//! `xpbd-cpu`: the CPU backend and the reference for every GPU path. Substep loop of DESIGN.md §7:
//! predict, reset multipliers, iterate the constraints (serial Gauss-Seidel or rayon Jacobi),
//! attachments, contacts, velocity update, restitution.

mod attachments;
mod contacts;
mod elements;
pub mod gauss_seidel;
pub mod integrate;
pub mod jacobi;

use std::time::Instant;
use xpbd_core::backend::{Backend, FrameStats};
use xpbd_core::mesh::Vec3;
use xpbd_core::metrics::residual_norm;
use xpbd_core::model::{Model, Ordering};
use xpbd_core::state::State;

pub struct CpuBackend {
    x_prev: Vec<Vec3>,
    v_before: Vec<Vec3>,
    attach_lambda: Vec<Vec3>,
    contacts: Vec<contacts::Contact>,
    jacobi: Option<jacobi::Jacobi>,
}

impl CpuBackend {
    pub fn new(model: &Model) -> Self {
        let n = model.vertex_count();
        CpuBackend {
            x_prev: vec![Vec3::zeros(); n],
            v_before: vec![Vec3::zeros(); n],
            attach_lambda: vec![Vec3::zeros(); model.attachments.len()],
            contacts: Vec::new(),
            jacobi: (model.solver.ordering == Ordering::Jacobi).then(|| jacobi::Jacobi::new(model)),
        }
    }

    /// One substep ending at time `t_end`. With `report`, returns (‖r₀‖, ‖r‖) of DESIGN.md §7 and the
    /// seconds spent on that evaluation (to exclude from timing).
    pub fn substep(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64, report: bool) -> Option<(f64, f64, f64)> {
        self.v_before.copy_from_slice(&s.v);
        integrate::predict(model, s, &mut self.x_prev, h, t_end);
        s.lambda.fill(0.0);
        self.attach_lambda.fill(Vec3::zeros());
        let mut excluded = 0.0;
        let r0 = report.then(|| {
            let t = Instant::now();
            let r = residual_norm(model, &s.x, &s.lambda, h);
            excluded += t.elapsed().as_secs_f64();
            r
        });
        for _ in 0..model.solver.iterations {
            match &mut self.jacobi {
                None => gauss_seidel::iterate(model, &mut s.x, &self.x_prev, &mut s.lambda, h),
                Some(j) => j.iterate(model, &mut s.x, &self.x_prev, &mut s.lambda, h, model.solver.relaxation),
            }
            attachments::iterate(model, &mut s.x, &mut self.attach_lambda, h, t_end);
        }
        contacts::project(model, &mut s.x, &self.x_prev, &mut self.contacts);
        integrate::update_velocities(s, &self.x_prev, h);
        contacts::restitute(&self.contacts, &mut s.v, &self.v_before, model.gravity.norm(), h);
        s.time = t_end;
        r0.map(|r0| {
            let t = Instant::now();
            let r = residual_norm(model, &s.x, &s.lambda, h);
            (r0, r, excluded + t.elapsed().as_secs_f64())
        })
    }
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        match self.jacobi {
            None => "cpu: serial Gauss-Seidel".into(),
            Some(_) => format!("cpu: Jacobi, {} rayon threads", rayon::current_num_threads()),
        }
    }

    fn step_frame(&mut self, model: &Model, s: &mut State) -> FrameStats {
        let h = model.h();
        let n = model.solver.substeps;
        let t0 = s.time;
        let start = Instant::now();
        let mut stats = FrameStats::default();
        let mut excluded = 0.0;
        for k in 1..=n {
            let t_end = t0 + model.solver.dt * k as f64 / n as f64;
            if let Some((r0, r, ex)) = self.substep(model, s, h, t_end, k == n) {
                stats.residual = r;
                stats.relative_residual = if r0 > 0.0 { r / r0 } else { 0.0 };
                excluded += ex;
            }
        }
        s.frame += 1;
        stats.solve_seconds = (start.elapsed().as_secs_f64() - excluded).max(0.0);
        stats
    }
}
