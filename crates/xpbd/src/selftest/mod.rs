//! `xpbd doctor`'s self-test: every GPU path of the CUDA backend on small built-in scenes ([`scenes`]) against
//! the CPU backend, with the parity tests' tolerances ([`compare`], [`xpbd_cuda::parity`]): XPBD colored,
//! clustered and Jacobi in double and single precision, the materials, cloth, colliders, soft attachments, contact
//! between bodies and the contact forces, and MGPBD whole frames with the primal AMG solve and with CG.

mod compare;
mod scenes;

use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;
use xpbd_core::scene::Built;
use xpbd_cuda::{CudaOptions, Precision};

/// One check of the self-test.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// e.g. "xpbd beam clustered f64".
    pub name: String,
    pub passed: bool,
    /// The difference measured, in the unit [`Check::measure`] names, and its tolerance.
    pub difference: f64,
    pub tolerance: f64,
    pub measure: &'static str,
    pub seconds: f64,
    /// Every criterion that failed (the difference's included), or why the check could not run.
    pub failures: Vec<String>,
}

/// The result of every check on one device.
#[derive(Clone, Debug, Serialize)]
pub struct SelfTest {
    pub checks: Vec<Check>,
    pub seconds: f64,
}

impl SelfTest {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }
}

/// What a case compares.
#[derive(Clone, Copy)]
enum Compare {
    /// Positions (and residuals in f64) after one XPBD frame in this precision.
    XpbdFrame(Precision),
    /// The contact forces after one XPBD frame in double precision.
    ContactForces,
    /// MGPBD whole frames in double precision; `from_r0`: the residual within 1e-6 of r0
    /// ([`xpbd_cuda::parity::mgpbd_residual_tolerance`]).
    MgpbdFrames { frames: usize, from_r0: bool },
}

impl Compare {
    fn measure(self) -> &'static str {
        match self {
            Compare::XpbdFrame(_) => "largest position difference / body size",
            Compare::ContactForces => "largest force difference / largest force",
            Compare::MgpbdFrames { .. } => "position difference, relative (largest over the frames)",
        }
    }
}

/// One check: a name, a scene (TOML) and what to compare.
struct Case {
    name: String,
    scene: String,
    compare: Compare,
}

/// The checks, fastest paths first.
fn cases() -> Vec<Case> {
    let case = |name: String, scene: String, compare| Case { name, scene, compare };
    let mut cases = Vec::new();
    for (precision, p) in [(Precision::F64, "f64"), (Precision::F32, "f32")] {
        for ordering in ["colored", "clustered", "jacobi"] {
            cases.push(case(format!("xpbd beam {ordering} {p}"), scenes::beam("neohookean_block", ordering), Compare::XpbdFrame(precision)));
        }
    }
    for material in ["neohookean", "stvk", "arap"] {
        cases.push(case(format!("xpbd beam {material} clustered f64"), scenes::beam(material, "clustered"), Compare::XpbdFrame(Precision::F64)));
    }
    for ordering in ["colored", "jacobi"] {
        cases.push(case(format!("xpbd cloth {ordering} f64"), scenes::cloth(ordering), Compare::XpbdFrame(Precision::F64)));
    }
    for ordering in ["colored", "clustered"] {
        cases.push(case(format!("xpbd colliders {ordering} f64"), scenes::block_on_colliders(ordering), Compare::XpbdFrame(Precision::F64)));
    }
    cases.push(case("xpbd colliders f32".into(), scenes::block_on_colliders("colored"), Compare::XpbdFrame(Precision::F32)));
    cases.push(case("xpbd collider contact forces f64".into(), scenes::block_on_colliders("colored"), Compare::ContactForces));
    for ordering in ["colored", "jacobi"] {
        cases.push(case(format!("xpbd pair contact {ordering} f64"), scenes::stack(ordering), Compare::XpbdFrame(Precision::F64)));
    }
    cases.push(case("xpbd pair contact f32".into(), scenes::stack("colored"), Compare::XpbdFrame(Precision::F32)));
    cases.push(case("xpbd pair contact forces f64".into(), scenes::stack("colored"), Compare::ContactForces));
    let mgpbd = |frames, from_r0| Compare::MgpbdFrames { frames, from_r0 };
    cases.push(case("mgpbd beam primal-amg".into(), scenes::mgpbd_beam("primal-amg", false), mgpbd(1, false)));
    cases.push(case("mgpbd beam primal-amg, soft attachments".into(), scenes::mgpbd_beam("primal-amg", true), mgpbd(2, false)));
    cases.push(case("mgpbd beam cg".into(), scenes::mgpbd_beam("cg", false), mgpbd(1, true)));
    cases.push(case("mgpbd stiff arap beam primal-amg".into(), scenes::mgpbd_stiff_beam(), mgpbd(3, false)));
    cases.push(case("mgpbd cloth primal-amg".into(), scenes::mgpbd_cloth(), mgpbd(1, false)));
    cases
}

impl Case {
    /// The scene, built.
    fn build(&self) -> Result<Built, String> {
        let path = Path::new("selftest.toml");
        let scene = xpbd_core::scene::parse(&self.scene, path).map_err(|e| format!("the built-in scene does not parse: {e}"))?;
        xpbd_core::scene::build(&scene, Path::new(".")).map_err(|e| format!("the built-in scene does not build: {e}"))
    }

    /// Runs the check on device `ordinal`; a panic in either backend is a failed check, not the end of the
    /// self-test.
    fn run(&self, ordinal: usize) -> Check {
        let started = Instant::now();
        let compare = self.compare;
        let precision = match compare {
            Compare::XpbdFrame(p) => p,
            Compare::ContactForces | Compare::MgpbdFrames { .. } => Precision::F64,
        };
        let options = CudaOptions { ordinal, precision, graph: false };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let b = self.build()?;
            match compare {
                Compare::XpbdFrame(_) => compare::xpbd_frame(&b, options),
                Compare::ContactForces => compare::contact_forces(&b, options),
                Compare::MgpbdFrames { frames, from_r0 } => compare::mgpbd_frames(&b, options, frames, from_r0),
            }
        }))
        .unwrap_or_else(|payload| Err(format!("panicked: {}", xpbd_core::error::panic_message(payload.as_ref()).unwrap_or("unknown panic"))));
        let (difference, tolerance, failures) = match outcome {
            Ok(o) => (o.difference, o.tolerance, o.failures),
            Err(e) => (f64::NAN, f64::NAN, vec![e]),
        };
        Check {
            name: self.name.clone(),
            passed: failures.is_empty(),
            difference,
            tolerance,
            measure: compare.measure(),
            seconds: started.elapsed().as_secs_f64(),
            failures,
        }
    }
}

/// Runs every check on device `ordinal`, calling `progress` after each.
pub fn run(ordinal: usize, progress: &mut dyn FnMut(&Check)) -> SelfTest {
    let started = Instant::now();
    let checks = cases()
        .iter()
        .map(|case| {
            let check = case.run(ordinal);
            progress(&check);
            check
        })
        .collect();
    SelfTest { checks, seconds: started.elapsed().as_secs_f64() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_core::backend::Backend;
    use xpbd_core::state::State;

    /// Without a GPU: every built-in scene builds, the CUDA backend's support check accepts it, and its first
    /// CPU frame moves it (MGPBD: converges to a finite state), so each check compares something on a GPU.
    #[test]
    fn every_scene_builds_is_supported_and_moves() {
        let cases = cases();
        assert!(cases.len() >= 20);
        let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), cases.len(), "check names are unique");
        for case in &cases {
            let b = case.build().unwrap_or_else(|e| panic!("{}: {e}", case.name));
            <xpbd_cuda::CudaBackend as Backend>::supports(&b.model, &b.config).unwrap_or_else(|u| panic!("{}: {}", case.name, u.0));
            let mut state = State::initial(&b.model);
            xpbd_cpu::backend(&b.model, &b.config).step_frame(&b.model, &mut state).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            let moved = xpbd_cuda::parity::largest_distance(&state.x, &b.model.rest);
            assert!(moved > 1e-4 * xpbd_cuda::parity::body_size(&b.model), "{}: moved {moved:e} m", case.name);
            assert!(state.first_non_finite().is_none(), "{}", case.name);
        }
    }

    /// Without a GPU every check fails with the probe's reason, without a panic.
    #[test]
    fn without_a_gpu_every_check_fails_with_the_reason() {
        if xpbd_cuda::probe().is_ok() {
            return;
        }
        let mut seen = 0;
        let result = run(0, &mut |_| seen += 1);
        assert_eq!(seen, result.checks.len());
        assert!(!result.passed());
        for c in &result.checks {
            assert!(!c.passed && c.failures.len() == 1 && c.difference.is_nan(), "{c:?}");
        }
    }
}
