//! The `[solver]` settings of `kind = "mgpbd"` (docs/scene-format.md), resolved with their defaults
//! and checked with one-line errors naming the field. The outer iteration cap is
//! `simulation.iterations`.

use super::rows::{ArapShape, RowKind, Rows};
use super::setup_schedule::{Refresh, SetupSchedule};
use crate::amg::{AmgOptions, NearKernel, Smoother};
use crate::linear::{Method, DEFAULT_SOLVER};
use crate::model::Model;
use crate::named::{serialize_name, Named};
use crate::scene::schema;
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MgpbdSettings {
    /// The solver of `A Δλ = b`; [`MgpbdSettings::resolve`] chooses it where the scene leaves it `auto`.
    pub linear_solver: GlobalSolve,
    /// Per outer iteration: solve to `‖b − A Δλ‖ ≤ pcg_tol ‖b‖` or `pcg_max_iter` iterations.
    pub pcg_tol: f64,
    pub pcg_max_iter: usize,
    /// Full solver setup every this many frames; refreshes in between as `refresh` says.
    pub setup_interval: usize,
    pub refresh: Refresh,
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
    pub near_kernel: NearKernel,
    pub smoother: Smoother,
    /// ARAP rows: `cone` (one row ‖F − R‖ per tet) or `components` (nine rows (F − R)_k); chosen by
    /// [`MgpbdSettings::resolve`] where the scene leaves it `auto`.
    pub arap_rows: ArapRows,
    /// Component rows' gradient: `exact` (E_k − ∂R_k/∂F) or `fixed` (R held fixed, E_k).
    pub arap_rotation: ArapRotation,
    /// XPBD passes over the soft attachments and contact rows after the prediction, before the outer
    /// iterations (the MGPBD paper's muscle scenes: "a few extra XPBD sweeps were conducted before the
    /// elasticity loop" for the external constraints); 0 by default.
    pub pre_sweeps: usize,
    /// The fields the scene leaves `auto`.
    #[serde(skip)]
    auto: Auto,
}

/// Which of `linear_solver` and `arap_rows` the scene leaves `auto`, for [`MgpbdSettings::resolve`] to
/// choose per model. Until then they hold [`DEFAULT_SOLVER`] and cone rows, which every model takes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Auto {
    linear_solver: bool,
    arap_rows: bool,
}

/// The default of `linear_solver` and `arap_rows`: chosen per model by [`MgpbdSettings::resolve`].
const AUTO: &str = "auto";

/// How MGPBD solves `A Δλ = b`: with a solver of the assembled A, or through the primal matrix
/// `M + Jᵀ α̃⁻¹ J` (`primal-amg`, `mgpbd::primal_solve`), which needs J, not just A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalSolve {
    Dual(Method),
    Primal,
}

impl Named for GlobalSolve {
    fn all() -> Vec<Self> {
        Method::all().into_iter().map(GlobalSolve::Dual).chain([GlobalSolve::Primal]).collect()
    }

    fn name(self) -> &'static str {
        match self {
            GlobalSolve::Dual(m) => m.name(),
            GlobalSolve::Primal => "primal-amg",
        }
    }
}

impl serde::Serialize for GlobalSolve {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serialize_name(self, s)
    }
}

named_enum! {
    /// The rows of an ARAP tet.
    pub enum ArapRows {
        /// One row ‖F − R‖.
        Cone = "cone",
        /// Nine rows (F − R)_k.
        Components = "components",
    }
}

named_enum! {
    /// The component rows' gradient (docs/mgpbd.md, "Exact rotation derivative in the component rows").
    pub enum ArapRotation {
        /// E_k − ∂R_k/∂F.
        Exact = "exact",
        /// R held fixed: E_k.
        Fixed = "fixed",
    }
}

/// The default strength threshold of the primal solve's smoothed aggregation: every connection strong. On the
/// squashed box and bunny it halves the PCG iterations against θ = 0.1 and makes the coarse levels sparser
/// (docs/mgpbd.md, "Strength threshold of the primal solve"); PyAMG's default for smoothed aggregation too.
pub const PRIMAL_THETA: f64 = 0.0;

/// The default strength threshold of the AMG-PCG on the dual matrix, as measured against PyAMG (docs/amg.md).
pub const DUAL_THETA: f64 = 0.1;

/// θ's default for `linear_solver` (resolved, or as `xpbd solve-system --method` names it).
pub fn default_theta(linear_solver: GlobalSolve) -> f64 {
    if linear_solver == GlobalSolve::Primal {
        PRIMAL_THETA
    } else {
        DUAL_THETA
    }
}

/// `auto`'s linear solver for compliant cloth (docs/amg.md: 20–60× faster than the iterative solvers there).
const CLOTH_SOLVER: Method = Method::Direct;

impl MgpbdSettings {
    /// The AMG options these settings name (the rest at their defaults).
    pub fn amg_options(&self) -> AmgOptions {
        AmgOptions {
            theta: self.theta.unwrap_or_else(|| default_theta(self.linear_solver)),
            max_coarse: self.max_coarse,
            smoothed_levels: self.smoothed_levels,
            near_kernel: self.near_kernel,
            smoother: self.smoother,
            ..AmgOptions::default()
        }
    }

    /// From the scene's `[solver]` table; `None` fields take their defaults.
    pub fn from_scene(s: &schema::Solver) -> Result<Self> {
        let linear_solver = named("linear_solver", &s.linear_solver, true)?;
        let near_kernel = named("near_kernel", &s.near_kernel, false)?;
        let smoother = named("smoother", &s.smoother, false)?;
        let arap_rows = named("arap_rows", &s.arap_rows, true)?;
        let arap_rotation = named("arap_rotation", &s.arap_rotation, false)?;
        let refresh = named("refresh", &s.refresh, false)?;
        let m = MgpbdSettings {
            linear_solver: linear_solver.unwrap_or(GlobalSolve::Dual(DEFAULT_SOLVER)),
            pcg_tol: s.pcg_tol.unwrap_or(1e-5),
            pcg_max_iter: s.pcg_max_iter.unwrap_or(100),
            setup_interval: s.setup_interval.unwrap_or(20),
            refresh: refresh.unwrap_or(Refresh::Adaptive),
            line_search: s.line_search.unwrap_or(true),
            relaxation: s.relaxation,
            tolerance: s.tolerance.unwrap_or(1e-6),
            abs_tolerance: s.abs_tolerance.unwrap_or(0.0),
            theta: s.theta,
            max_coarse: s.max_coarse.unwrap_or(400),
            smoothed_levels: s.smoothed_levels.unwrap_or(AmgOptions::default().smoothed_levels),
            near_kernel: near_kernel.unwrap_or(NearKernel::Constant),
            smoother: smoother.unwrap_or(Smoother::Jacobi),
            arap_rows: arap_rows.unwrap_or(ArapRows::Cone),
            arap_rotation: arap_rotation.unwrap_or(ArapRotation::Exact),
            pre_sweeps: s.pre_sweeps.unwrap_or(0),
            auto: Auto { linear_solver: linear_solver.is_none(), arap_rows: arap_rows.is_none() },
        };
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
        if self.auto.linear_solver {
            let rows = Rows::new(model, ArapShape::CONE)?;
            let cloth = rows.kind.iter().any(|k| matches!(k, RowKind::Edge | RowKind::Hinge));
            self.linear_solver = match (super::primal::hard_row(&rows), cloth) {
                (Some(_), _) => GlobalSolve::Dual(DEFAULT_SOLVER),
                (None, true) => GlobalSolve::Dual(CLOTH_SOLVER),
                (None, false) => GlobalSolve::Primal,
            };
        }
        if self.auto.arap_rows {
            self.arap_rows = if self.linear_solver == GlobalSolve::Primal { ArapRows::Components } else { ArapRows::Cone };
        }
        self.theta = Some(self.amg_options().theta);
        Ok(())
    }

    /// When the outer loop sets its linear solver up (`setup_interval`, `refresh`).
    pub fn setup_schedule(&self) -> SetupSchedule {
        SetupSchedule::new(self.setup_interval, self.refresh, self.linear_solver != GlobalSolve::Dual(Method::Direct))
    }

    /// The shape of ARAP bodies' rows these settings ask for.
    pub fn arap_shape(&self) -> ArapShape {
        ArapShape { components: self.arap_rows == ArapRows::Components, exact_rotation: self.arap_rotation == ArapRotation::Exact }
    }

    /// The rows MGPBD solves for `model` under these (resolved) settings; for the primal solve, an error for a
    /// row without compliance ([`super::primal::check_compliance`]: it has no primal form).
    pub fn rows(&self, model: &Model) -> Result<Rows> {
        let rows = Rows::new(model, self.arap_shape())?;
        if self.linear_solver == GlobalSolve::Primal {
            super::primal::check_compliance(&rows, model)?;
        }
        Ok(rows)
    }

    /// The first MGPBD field set in a scene whose solver is not MGPBD (`linear_solver`, `pcg_tol` and
    /// `pcg_max_iter`, shared with `implicit` and `adaptive`, are checked by the scene's build).
    pub fn foreign_field(s: &schema::Solver) -> Option<&'static str> {
        let present = [
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
            ("pre_sweeps", s.pre_sweeps.is_some()),
        ];
        present.iter().find(|p| p.1).map(|p| p.0)
    }
}

/// The value the scene names for `field`: `None` when unset, or `auto` where `auto` is allowed.
fn named<T: Named>(field: &str, v: &Option<String>, auto: bool) -> Result<Option<T>> {
    let Some(v) = v.as_deref().filter(|&v| !(auto && v == AUTO)) else {
        return Ok(None);
    };
    T::from_name(v).map(Some).ok_or_else(|| {
        let names = [T::names(), if auto { vec![AUTO] } else { vec![] }].concat();
        Error::invalid(format!("solver.{field}: unknown '{v}' (expected {})", names.join(", ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::named::tests::round_trips;

    /// Each choice serialises (`summary.json`) as the name the scene gives it.
    #[test]
    fn names_round_trip() {
        round_trips::<GlobalSolve>();
        round_trips::<ArapRows>();
        round_trips::<ArapRotation>();
        round_trips::<NearKernel>();
        round_trips::<Smoother>();
    }

    /// An unknown name is a one-line error naming the field and every accepted name (`auto` where allowed).
    #[test]
    fn unknown_names_are_one_line_errors() {
        let err = |edit: fn(&mut schema::Solver)| {
            let mut s = schema::Solver::default();
            edit(&mut s);
            MgpbdSettings::from_scene(&s).unwrap_err().to_string()
        };
        assert_eq!(
            err(|s| s.linear_solver = Some("lu".into())),
            "solver.linear_solver: unknown 'lu' (expected amg-pcg, cg, jacobi-pcg, direct, primal-amg, auto)"
        );
        assert_eq!(err(|s| s.near_kernel = Some("auto".into())), "solver.near_kernel: unknown 'auto' (expected constant, gs)");
        assert_eq!(err(|s| s.arap_rows = Some("nine".into())), "solver.arap_rows: unknown 'nine' (expected cone, components, auto)");
    }
}
