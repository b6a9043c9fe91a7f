//! Where an implicit or adaptive step spends its time, by phase, in seconds: the backend's running totals, and
//! per frame in `metrics.csv` (docs/output-format.md; the thesis "Adaptive methods for elastic deformation"
//! reports its speed-ups with and without the contact phase, Tables 3.1 and 4.1).

/// Seconds spent in each phase of the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Phases {
    /// Element energies, forces and projected stiffnesses, and their sum into A_A and the right-hand side.
    pub assembly: f64,
    /// Sparse Cholesky (numeric, and symbolic after a rigid-pattern change).
    pub factorisation: f64,
    /// The solve for Δẋ_A.
    pub solve: f64,
    /// Detection, the Delassus operator and PGS.
    pub contact: f64,
    /// The elastification oracle (its preconditioner's factorisation included, once).
    pub oracle: f64,
    /// Rigidification flags and rebuilding bodies and the block pattern.
    pub bodies: f64,
}

impl Phases {
    /// The extra `metrics.csv` columns, in the order of [`Phases::csv`].
    pub const CSV_HEADER: &'static str = "assembly_ms,factorisation_ms,solve_ms,contact_ms,oracle_ms,bodies_ms";

    /// The time spent since `earlier`, running totals of the same backend.
    pub fn since(&self, earlier: &Phases) -> Phases {
        Phases {
            assembly: self.assembly - earlier.assembly,
            factorisation: self.factorisation - earlier.factorisation,
            solve: self.solve - earlier.solve,
            contact: self.contact - earlier.contact,
            oracle: self.oracle - earlier.oracle,
            bodies: self.bodies - earlier.bodies,
        }
    }

    /// The phases in milliseconds, comma-separated.
    pub fn csv(&self) -> String {
        [self.assembly, self.factorisation, self.solve, self.contact, self.oracle, self.bodies].map(|s| (s * 1e3).to_string()).join(",")
    }
}
