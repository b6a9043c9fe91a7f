//! The linear solvers of A by name, as scenes' `[solver] linear_solver` and `xpbd solve-system --method`
//! give them; each one named here [`Method::build`] builds.

use super::cg::Cg;
use super::direct::Direct;
use super::pcg::{AmgPreconditioner, JacobiPreconditioner, Pcg};
use super::LinearSolver;
use crate::amg::AmgOptions;
use crate::named::Named;

named_enum! {
    /// A solver of `A x = b` for symmetric positive definite `A`.
    pub enum Method {
        AmgPcg = "amg-pcg",
        Cg = "cg",
        JacobiPcg = "jacobi-pcg",
        Direct = "direct",
    }
}

/// The dual solver for MGPBD scenes the primal solve cannot take (a hard, zero-compliance row; the
/// `auto` default of `MgpbdSettings::resolve`, docs/mgpbd.md "The defaults"): at equal wall time plain CG
/// was ahead of every AMG-PCG variant on tet-edge (10k–217k rows) and exported ARAP and neo-Hookean
/// systems (10k–51k rows), and ahead of the sparse Cholesky on 3-D systems above ~10k rows. Where every
/// row is compliant, `auto` picks the primal solve with smooth ARAP rows instead.
pub const DEFAULT_SOLVER: Method = Method::Cg;

impl Method {
    /// The solver; `options` configure `amg-pcg` ([`AmgOptions::validate`] is the caller's).
    pub fn build(self, options: &AmgOptions) -> Box<dyn LinearSolver> {
        match self {
            Method::AmgPcg => Box::new(Pcg::new(self.name(), AmgPreconditioner::new(options.clone()))),
            Method::Cg => Box::new(Cg::default()),
            Method::JacobiPcg => Box::new(Pcg::new(self.name(), JacobiPreconditioner::default())),
            Method::Direct => Box::new(Direct::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_builds_under_its_name() {
        crate::named::tests::round_trips::<Method>();
        for m in Method::all() {
            assert_eq!(m.build(&AmgOptions::default()).name(), m.name());
        }
    }

    /// Scene `[solver]` fields deserialise onto the options, with defaults for the rest.
    #[test]
    fn options_deserialise_with_defaults() {
        let o: AmgOptions = toml::from_str("theta = 0.25\nnear_kernel = \"gs\"\nsmoother = \"chebyshev\"").unwrap();
        assert_eq!((o.theta, o.max_coarse, o.near_kernel_vectors), (0.25, 400, 6));
        assert_eq!((o.near_kernel, o.smoother), (crate::amg::NearKernel::Gs, crate::amg::Smoother::Chebyshev));
        assert!(toml::from_str::<AmgOptions>("thetta = 1").is_err());
        assert!(toml::from_str::<AmgOptions>("smoother = \"sor\"").unwrap_err().to_string().contains("jacobi"));
        assert!(AmgOptions { theta: 1.5, ..Default::default() }.validate().unwrap_err().to_string().contains("theta"));
    }
}
