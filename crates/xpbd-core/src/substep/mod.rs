//! The host half of a substep and the frame loop, shared by every backend: the prediction
//! x̃ = x + h v + h² M⁻¹ f_ext ([`integrate`]) and the detection of the substep's contacts after it, the soft
//! attachments ([`attachments`]) and the contact rows ([`crate::contact`]) after each solver iteration, and at
//! the substep's end the velocity update v = (x − x_prev)/h and restitution — held together by
//! [`SubstepBoundary`] — and the
//! frame of `substeps` substeps with its residual record and timing ([`frame`]). What a solver does
//! between the prediction and the end (XPBD sweeps, MGPBD's outer iterations, on the CPU or a device)
//! is a [`ConstraintSolver`].

pub mod attachments;
mod boundary;
pub mod frame;
pub mod integrate;

pub use boundary::{ConstraintSolver, SubstepBoundary};
pub use frame::{step_frame, SubstepReport};

use std::time::Instant;

/// Runs `f`, adding its wall time to `acc` (time spent on reporting, excluded from the solve's).
pub fn timed<T>(acc: &mut f64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    *acc += t.elapsed().as_secs_f64();
    r
}
