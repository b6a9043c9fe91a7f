//! The whole-frame MGPBD parity runs of the device backend against `CpuBackend`, shared by the host-compiled
//! kernels' test (`host_outer.rs`) and the GPU's (`amg_parity.rs`).

use xpbd_core::mgpbd::settings::GlobalSolve;
use xpbd_core::named::Named;
use xpbd_core::scene::Built;

/// A scene, how many frames, and the linear solver of the outer iteration.
pub struct FrameRun {
    pub file: &'static str,
    pub frames: usize,
    pub solver: &'static str,
    /// Whether the final residual is compared relative to the substep's starting residual r0 instead of to
    /// itself, with positions within 1e-8 and velocities within 1e-6: the outer loop ends where C + α̃λ has
    /// cancelled most digits, and the kernels' summation order alone moves the residual by much more than
    /// 1e-6 of itself. The squashed bunny: one outer iteration of 44 PCG iterations stops at r ≈ 1e-4 r0, and
    /// on the host-compiled kernels the order moves the positions by 9.7e-10 (relative) and r by 9.2e-5 of
    /// itself (9.8e-9 of r0). The neo-Hookean beam with
    /// plain CG: 20 outer iterations of up to 100 CG iterations (capped, not converged, so rounding
    /// differences of the dot products grow) reach r ≈ 9e-11 r0, where the residuals differ by 2e-3 of
    /// themselves (2e-13 of r0), positions by 3e-12 and the nearly static beam's velocities by 1.1e-7. The
    /// cloth with plain CG likewise (40 outer iterations of CG capped at 100 iterations): on the host-compiled
    /// kernels its sums happen to run in the CPU's order and agree bitwise, on a GPU they will not.
    pub from_r0: bool,
    /// Whether every outer iteration's linear solve stops at its cap without converging (the cloth with plain
    /// CG: 40 outer iterations of 100 CG iterations). Rounding in another summation order then grows from frame
    /// to frame: on an H200 the cloth's positions ended 1.2e-8, 4.3e-7 and 1.4e-6 (relative) from the CPU's
    /// after its three frames, and its final residual 20 % of itself (1.9e-4 of r0) apart already in the first.
    /// The GPU test (`amg_parity.rs`) compares such a run's first frame only, on iterations and positions.
    pub capped: bool,
    /// Text replaced in the scene file (`from`, `to`), if any.
    pub edit: Option<(&'static str, &'static str)>,
}

const fn run(file: &'static str, frames: usize, solver: &'static str, from_r0: bool) -> FrameRun {
    FrameRun { file, frames, solver, from_r0, capped: false, edit: None }
}

/// The neo-Hookean beam's clamp, and the same with a soft attachment on the tip face pulled upwards at 0.5 m/s.
const BEAM_CLAMP: &str = "pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }";
const BEAM_CLAMP_AND_SOFT_TIP: &str = "pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }, \
    { box = { min = [3.99, -1.0, -1.0], max = [4.01, 10.0, 10.0] }, compliance = 1e-6, velocity = [0.0, 0.5, 0.0] }";

/// With the primal solve: the stiff ARAP beam (component rows), the neo-Hookean beam (10 substeps a frame), the
/// neo-Hookean ball dropped on a plane (contacts and restitution on the host) with θ = 0.1 (the primal solve's
/// default until θ = 0), where its mass-dominated K has no strong connections and stays one level of 2469 rows,
/// which the host factors sparsely (`DeviceCoarsest::Host`; with θ = 0 it coarsens to 426 and 6 rows), the
/// first frame of the hanging cloth of Fig. 14 (edge and hinge rows, two pinned corners; from the second frame
/// the primal solve fails on it, on the CPU as on the device: docs/mgpbd.md "The defaults") and the squashed
/// 31k-tet bunny (R held fixed); and with plain CG on the assembled dual matrix (the baseline) the neo-Hookean
/// beam and three frames of the cloth (capped at 100 CG iterations, 40 outer iterations: CG stagnates there);
/// and the neo-Hookean beam with its tip pulled by soft attachments (iterated after each outer iteration).
pub const FRAME_RUNS: [FrameRun; 8] = [
    run("mgpbd_beam_stiff_primal.toml", 3, "primal-amg", false),
    run("mgpbd_beam_nh.toml", 1, "primal-amg", false),
    FrameRun { edit: Some(("[solver]", "[solver]\ntheta = 0.1")), ..run("mgpbd_ball_drop.toml", 12, "primal-amg", false) },
    // `refresh = "always"`: with the coarse levels of the frame's full setup kept (the adaptive default) this
    // ill-conditioned system (the primal solve is not the cloth's default) moves by 6e-11 to 7e-10 in
    // positions and 3e-3 in the final residual for a change of summation order alone (the CPU's spmv in row
    // order against two partial sums, measured), so it would compare round-off amplification, not the
    // device's arithmetic; the other primal runs keep the default and compare the adaptive schedule's
    // decisions.
    FrameRun { edit: Some(("[solver]", "[solver]\nrefresh = \"always\"")), ..run("mgpbd_cloth_16.toml", 1, "primal-amg", false) },
    run("mgpbd_bunny_squash.toml", 1, "primal-amg", true),
    run("mgpbd_beam_nh.toml", 1, "cg", true),
    FrameRun { capped: true, ..run("mgpbd_cloth_16.toml", 3, "cg", true) },
    FrameRun { edit: Some((BEAM_CLAMP, BEAM_CLAMP_AND_SOFT_TIP)), ..run("mgpbd_beam_nh.toml", 2, "primal-amg", false) },
];

impl FrameRun {
    /// How far the device's final relative residual (relative to r0) may be from the CPU's `cpu`
    /// ([`xpbd_cuda::parity::mgpbd_residual_tolerance`]: 1e-6 of r0 where `from_r0`, else 1e-6 of itself plus a
    /// round-off floor of 1e-12).
    pub fn residual_tolerance(&self, cpu: f64) -> f64 {
        xpbd_cuda::parity::mgpbd_residual_tolerance(self.from_r0, cpu)
    }

    /// The scene, edited, with the run's linear solver.
    pub fn model(&self) -> Built {
        let mut model = super::load(self.file, |text| {
            if let Some((from, to)) = self.edit {
                assert!(text.contains(from), "{}: no {from:?} to replace", self.file);
                *text = text.replace(from, to);
            }
        });
        super::mgpbd_mut(&mut model).linear_solver = GlobalSolve::from_name(self.solver).expect("a linear solver's name");
        model
    }

    /// `file (solver)`, for messages.
    pub fn name(&self) -> String {
        let edited = if self.edit.is_some() { ", edited" } else { "" };
        format!("{} ({}{edited})", self.file, self.solver)
    }
}
