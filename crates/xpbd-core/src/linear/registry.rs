//! Linear solvers by name, as scenes' `[solver] linear` and `xpbd solve-system --method` give them.

use super::cg::Cg;
use super::direct::Direct;
use super::pcg::{AmgPreconditioner, JacobiPreconditioner, Pcg};
use super::LinearSolver;
use crate::amg::AmgOptions;
use crate::{Error, Result};

/// The accepted names.
pub const SOLVER_NAMES: [&str; 4] = ["amg-pcg", "cg", "jacobi-pcg", "direct"];

/// MGPBD's solve through the primal matrix `M + Jᵀ α̃⁻¹ J` (`mgpbd::primal_solve`): it needs J, not
/// just A, so it is a method of MGPBD's outer loop and of `xpbd solve-system` with an exported J,
/// not a [`LinearSolver`] of A.
pub const PRIMAL_SOLVER: &str = "primal-amg";

/// Every method MGPBD's `solver.linear_solver` accepts.
pub const MGPBD_SOLVER_NAMES: [&str; 5] = ["amg-pcg", "cg", "jacobi-pcg", "direct", PRIMAL_SOLVER];

/// The dual solver for MGPBD scenes the primal solve cannot take (a hard, zero-compliance row; the
/// `auto` default of `MgpbdSettings::resolve`, docs/mgpbd.md "The defaults"): at equal wall time plain CG
/// was ahead of every AMG-PCG variant on tet-edge (10k–217k rows) and exported ARAP and neo-Hookean
/// systems (10k–51k rows), and ahead of the sparse Cholesky on 3-D systems above ~10k rows. Where every
/// row is compliant, `auto` picks [`PRIMAL_SOLVER`] with smooth ARAP rows instead.
pub const DEFAULT_SOLVER: &str = "cg";

/// A solver called `name`; `options` configure `amg-pcg` and are validated for it.
pub fn solver_by_name(name: &str, options: &AmgOptions) -> Result<Box<dyn LinearSolver>> {
    Ok(match name {
        "amg-pcg" => {
            options.validate()?;
            Box::new(Pcg::new("amg-pcg", AmgPreconditioner::new(options.clone())))
        }
        "cg" => Box::new(Cg::default()),
        "jacobi-pcg" => Box::new(Pcg::new("jacobi-pcg", JacobiPreconditioner::default())),
        "direct" => Box::new(Direct::default()),
        PRIMAL_SOLVER => return Err(Error::invalid(format!("`{PRIMAL_SOLVER}` solves through J and needs the rows, not only A"))),
        other => return Err(Error::invalid(format!("unknown linear solver `{other}` (expected one of {})", SOLVER_NAMES.join(", ")))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_an_error() {
        for name in SOLVER_NAMES {
            assert_eq!(solver_by_name(name, &AmgOptions::default()).unwrap().name(), name);
        }
        let e = solver_by_name("multigrid", &AmgOptions::default()).err().unwrap().to_string();
        assert!(e.contains("`multigrid`") && e.contains("amg-pcg"), "{e}");
        let bad = AmgOptions { theta: 1.5, ..Default::default() };
        assert!(solver_by_name("amg-pcg", &bad).err().unwrap().to_string().contains("theta"));
    }

    /// Scene `[solver]` fields deserialise onto the options, with defaults for the rest.
    #[test]
    fn options_deserialise_with_defaults() {
        let o: AmgOptions = toml::from_str("theta = 0.25\nnear_kernel = \"gs\"\nsmoother = \"chebyshev\"").unwrap();
        assert_eq!((o.theta, o.max_coarse, o.near_kernel_vectors), (0.25, 400, 6));
        assert_eq!((o.near_kernel, o.smoother), (crate::amg::NearKernel::Gs, crate::amg::Smoother::Chebyshev));
        assert!(toml::from_str::<AmgOptions>("thetta = 1").is_err());
    }
}
