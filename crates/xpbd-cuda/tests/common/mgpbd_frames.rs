//! The whole-frame MGPBD parity runs of the device backend against `CpuBackend`, shared by the host-compiled
//! kernels' test (`host_outer.rs`) and the GPU's (`amg_parity.rs`).

use xpbd_core::model::Model;

/// A scene, how many frames, and the linear solver of the outer iteration.
pub struct FrameRun {
    pub file: &'static str,
    pub frames: usize,
    pub solver: &'static str,
    /// Whether the final residual is compared relative to the substep's starting residual r0 instead of to
    /// itself, with positions within 1e-8 and velocities within 1e-6: the outer loop ends where C + α̃λ has
    /// cancelled most digits, and the kernels' summation order alone moves the residual by much more than
    /// 1e-6 of itself. The squashed bunny: one outer iteration of 48 PCG iterations stops at r ≈ 1e-4 r0, and
    /// on the host-compiled kernels the order moves the positions by 7e-10 (relative) and r by 1.7e-5 of
    /// itself (1.4e-9 and 2.4e-4, 2.5e-8 of r0, with the scene's own max_coarse). The neo-Hookean beam with
    /// plain CG: 20 outer iterations of up to 100 CG iterations (capped, not converged, so rounding
    /// differences of the dot products grow) reach r ≈ 9e-11 r0, where the residuals differ by 2e-3 of
    /// themselves (2e-13 of r0), positions by 3e-12 and the nearly static beam's velocities by 1.1e-7.
    pub from_r0: bool,
}

const fn run(file: &'static str, frames: usize, solver: &'static str, from_r0: bool) -> FrameRun {
    FrameRun { file, frames, solver, from_r0 }
}

/// With the primal solve: the stiff ARAP beam (component rows), the neo-Hookean beam (10 substeps a frame), the
/// neo-Hookean ball dropped on a plane (contacts and restitution on the host; its mass-dominated K has no strong
/// connections and stays one level of 2469 rows, which the host factors sparsely: `DeviceCoarsest::Host`), the
/// first frame of the hanging cloth of Fig. 14 (edge and hinge rows, two pinned corners; from the second frame
/// the primal solve fails on it, on the CPU as on the device: docs/mgpbd.md "The defaults") and the squashed
/// 31k-tet bunny (R held fixed); and with plain CG on the assembled dual matrix (the baseline) the neo-Hookean
/// beam and three frames of the cloth (capped at 100 CG iterations, 40 outer iterations: CG stagnates there).
pub const FRAME_RUNS: [FrameRun; 7] = [
    run("mgpbd_beam_stiff_primal.toml", 3, "primal-amg", false),
    run("mgpbd_beam_nh.toml", 1, "primal-amg", false),
    run("mgpbd_ball_drop.toml", 12, "primal-amg", false),
    run("mgpbd_cloth_16.toml", 1, "primal-amg", false),
    run("mgpbd_bunny_squash.toml", 1, "primal-amg", true),
    run("mgpbd_beam_nh.toml", 1, "cg", true),
    run("mgpbd_cloth_16.toml", 3, "cg", false),
];

impl FrameRun {
    /// The scene with the run's linear solver.
    pub fn model(&self) -> Model {
        let mut model = super::load(self.file, |_| {});
        model.solver.mgpbd.as_mut().expect("an MGPBD scene").linear_solver = self.solver.into();
        model
    }

    /// `file (solver)`, for messages.
    pub fn name(&self) -> String {
        format!("{} ({})", self.file, self.solver)
    }
}
