//! The `[solver]` settings of `kind = "mgpbd"` (docs/scene-format.md), resolved with their defaults
//! and checked with one-line errors naming the field. The outer iteration cap is
//! `simulation.iterations`.

use super::rows::{RowKind, Rows};
use crate::amg::{AmgOptions, NearKernel, Smoother};
use crate::linear::{DEFAULT_SOLVER, MGPBD_SOLVER_NAMES, PRIMAL_SOLVER};
use crate::model::Model;
use crate::scene::schema;
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MgpbdSettings {
    /// The solver of `A Δλ = b`, by name (`auto` until [`MgpbdSettings::resolve`]).
    pub linear_solver: String,
    /// Per outer iteration: solve to `‖b − A Δλ‖ ≤ pcg_tol ‖b‖` or `pcg_max_iter` iterations.
    pub pcg_tol: f64,
    pub pcg_max_iter: usize,
    /// Full solver setup every this many frames; a refresh every outer iteration in between.
    pub setup_interval: usize,
    /// Backtracking on ‖C + α̃λ‖ (halving the step while it does not decrease), else a fixed step.
    pub line_search: bool,
    /// The fixed step length when `line_search` is off.
    pub relaxation: f64,
    /// Stop a substep's outer iterations at ‖r‖ ≤ tolerance ‖r₀‖ …
    pub tolerance: f64,
    /// … or at ‖r‖ ≤ abs_tolerance.
    pub abs_tolerance: f64,
    /// AMG: strength threshold θ (`None` until [`MgpbdSettings::resolve`] when the scene leaves it: then
    /// [`PRIMAL_THETA`] for `primal-amg`, [`DUAL_THETA`] otherwise), coarsest size, near-kernel vectors and
    /// smoother.
    pub theta: Option<f64>,
    pub max_coarse: usize,
    /// Smoothed aggregation (`primal-amg`): smoothed prolongators on this many finest levels.
    pub smoothed_levels: usize,
    pub near_kernel: String,
    pub smoother: String,
    /// ARAP rows: `cone` (one row ‖F − R‖ per tet) or `components` (nine rows (F − R)_k); `auto` until
    /// [`MgpbdSettings::resolve`].
    pub arap_rows: String,
    /// Component rows' gradient: `exact` (E_k − ∂R_k/∂F) or `fixed` (R held fixed, E_k).
    pub arap_rotation: String,
}

/// The values of `arap_rows`.
pub const ARAP_ROWS: [&str; 2] = ["cone", "components"];

/// The values of `arap_rotation` (docs/mgpbd.md, "Exact rotation derivative in the component rows").
pub const ARAP_ROTATIONS: [&str; 2] = ["exact", "fixed"];

/// The default of `linear_solver` and `arap_rows`: chosen per model by [`MgpbdSettings::resolve`].
pub const AUTO: &str = "auto";

/// The default strength threshold of the primal solve's smoothed aggregation: every connection strong. On the
/// squashed box and bunny it halves the PCG iterations against θ = 0.1 and makes the coarse levels sparser
/// (docs/mgpbd.md, "Strength threshold of the primal solve"); PyAMG's default for smoothed aggregation too.
pub const PRIMAL_THETA: f64 = 0.0;

/// The default strength threshold of the AMG-PCG on the dual matrix, as measured against PyAMG (docs/amg.md).
pub const DUAL_THETA: f64 = 0.1;

/// θ's default for `linear_solver` (resolved, or as a scene or `xpbd solve-system --method` names it).
pub fn default_theta(linear_solver: &str) -> f64 {
    if linear_solver == PRIMAL_SOLVER {
        PRIMAL_THETA
    } else {
        DUAL_THETA
    }
}

/// `auto`'s linear solver for compliant cloth (docs/amg.md: 20–60× faster than the iterative solvers there).
const CLOTH_SOLVER: &str = "direct";

impl MgpbdSettings {
    /// The AMG options these settings name (the rest at their defaults).
    pub fn amg_options(&self) -> AmgOptions {
        AmgOptions {
            theta: self.theta.unwrap_or_else(|| default_theta(&self.linear_solver)),
            max_coarse: self.max_coarse,
            smoothed_levels: self.smoothed_levels,
            near_kernel: NearKernel::from_name(&self.near_kernel).expect("validated near_kernel"),
            smoother: Smoother::from_name(&self.smoother).expect("validated smoother"),
            ..AmgOptions::default()
        }
    }

    /// From the scene's `[solver]` table; `None` fields take their defaults.
    pub fn from_scene(s: &schema::Solver) -> Result<Self> {
        let m = MgpbdSettings {
            linear_solver: s.linear_solver.clone().unwrap_or_else(|| AUTO.into()),
            pcg_tol: s.pcg_tol.unwrap_or(1e-5),
            pcg_max_iter: s.pcg_max_iter.unwrap_or(100),
            setup_interval: s.setup_interval.unwrap_or(20),
            line_search: s.line_search.unwrap_or(true),
            relaxation: s.relaxation,
            tolerance: s.tolerance.unwrap_or(1e-6),
            abs_tolerance: s.abs_tolerance.unwrap_or(0.0),
            theta: s.theta,
            max_coarse: s.max_coarse.unwrap_or(400),
            smoothed_levels: s.smoothed_levels.unwrap_or(AmgOptions::default().smoothed_levels),
            near_kernel: s.near_kernel.clone().unwrap_or_else(|| "constant".into()),
            smoother: s.smoother.clone().unwrap_or_else(|| "jacobi".into()),
            arap_rows: s.arap_rows.clone().unwrap_or_else(|| AUTO.into()),
            arap_rotation: s.arap_rotation.clone().unwrap_or_else(|| "exact".into()),
        };
        one_of("linear_solver", &m.linear_solver, &[&MGPBD_SOLVER_NAMES[..], &[AUTO]].concat())?;
        one_of("near_kernel", &m.near_kernel, &NearKernel::NAMES)?;
        one_of("smoother", &m.smoother, &Smoother::NAMES)?;
        one_of("arap_rows", &m.arap_rows, &[&ARAP_ROWS[..], &[AUTO]].concat())?;
        one_of("arap_rotation", &m.arap_rotation, &ARAP_ROTATIONS)?;
        let checks = [
            ("pcg_tol", m.pcg_tol > 0.0 && m.pcg_tol < 1.0, "must lie in (0, 1)", m.pcg_tol),
            ("tolerance", m.tolerance >= 0.0 && m.tolerance < 1.0, "must lie in [0, 1)", m.tolerance),
            ("abs_tolerance", m.abs_tolerance >= 0.0 && m.abs_tolerance.is_finite(), "must be ≥ 0", m.abs_tolerance),
            ("theta", m.theta.is_none_or(|t| (0.0..1.0).contains(&t)), "must lie in [0, 1)", m.theta.unwrap_or(0.0)),
        ];
        for (field, ok, what, v) in checks {
            if !ok {
                return Err(Error::invalid(format!("solver.{field}: {what}, got {v}")));
            }
        }
        for (field, v) in [("pcg_max_iter", m.pcg_max_iter), ("setup_interval", m.setup_interval), ("max_coarse", m.max_coarse)] {
            if v == 0 {
                return Err(Error::invalid(format!("solver.{field}: must be at least 1")));
            }
        }
        Ok(m)
    }

    /// Resolves the `auto` defaults and θ for `model` (docs/mgpbd.md, "The defaults"): plain CG with cone rows
    /// when a row is hard (cloth with inextensible edges or rigid hinges: no primal form); else the sparse
    /// direct solve for cloth (its primal K has the soft bending modes of the sheet outside the rigid-mode
    /// coarse space: capped at `pcg_max_iter` the primal solve lets the outer loop diverge, where the
    /// direct solve converges in 2 outer iterations); else the primal solve with smooth ARAP rows (it beat
    /// CG and the direct solve on stiff ARAP and neo-Hookean systems and removes the cone rows' outer-loop
    /// stall). Errors are those of [`Rows::new`] (a material without scalar rows).
    pub fn resolve(&mut self, model: &Model) -> Result<()> {
        if self.linear_solver == AUTO {
            // Rows::new reads an unresolved `auto` as cone rows without the primal check.
            let rows = Rows::new(model, Some(&*self))?;
            let cloth = rows.kind.iter().any(|k| matches!(k, RowKind::Edge | RowKind::Hinge));
            self.linear_solver = match (super::primal::hard_row(&rows), cloth) {
                (Some(_), _) => DEFAULT_SOLVER,
                (None, true) => CLOTH_SOLVER,
                (None, false) => PRIMAL_SOLVER,
            }
            .into();
        }
        if self.arap_rows == AUTO {
            self.arap_rows = if self.linear_solver == PRIMAL_SOLVER { "components" } else { "cone" }.into();
        }
        self.theta = Some(self.amg_options().theta);
        Ok(())
    }

    /// The first MGPBD field set in a scene whose solver is not MGPBD.
    pub fn foreign_field(s: &schema::Solver) -> Option<&'static str> {
        let present = [
            ("linear_solver", s.linear_solver.is_some()),
            ("pcg_tol", s.pcg_tol.is_some()),
            ("pcg_max_iter", s.pcg_max_iter.is_some()),
            ("setup_interval", s.setup_interval.is_some()),
            ("line_search", s.line_search.is_some()),
            ("tolerance", s.tolerance.is_some()),
            ("abs_tolerance", s.abs_tolerance.is_some()),
            ("theta", s.theta.is_some()),
            ("max_coarse", s.max_coarse.is_some()),
            ("smoothed_levels", s.smoothed_levels.is_some()),
            ("near_kernel", s.near_kernel.is_some()),
            ("smoother", s.smoother.is_some()),
            ("arap_rows", s.arap_rows.is_some()),
            ("arap_rotation", s.arap_rotation.is_some()),
        ];
        present.iter().find(|p| p.1).map(|p| p.0)
    }
}

fn one_of(field: &str, v: &str, names: &[&str]) -> Result<()> {
    if names.contains(&v) {
        Ok(())
    } else {
        Err(Error::invalid(format!("solver.{field}: unknown '{v}' (expected {})", names.join(", "))))
    }
}
