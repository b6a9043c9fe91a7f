//! MGPBD's operations on a device, as an extension of [`LinearOps`]: the constraint rows' evaluation
//! (`kernels/mgpbd_rows.cu`), the refills of the primal and dual matrices and the Jacobian products
//! (`kernels/primal.cu`, `kernels/dual.cu`), and the soft attachments (`kernels/boundary.cu`). Implemented for
//! [`crate::CudaOps`] and, in the tests, for the same kernels compiled as host C++.

use crate::error::Result;
use crate::linalg::LinearOps;
use crate::mgpbd::attachments::DeviceSoftAttachments;
use crate::mgpbd::dual_pattern::DeviceDualPattern;
use crate::mgpbd::incidence::DeviceIncidence;
use crate::mgpbd::primal_pattern::DevicePrimalPattern;
use crate::mgpbd::rows::DeviceRows;

/// The kernels of MGPBD's outer iteration over the device forms of its rows, patterns and attachments; one
/// launch per method.
pub trait MgpbdOps: LinearOps {
    /// The values of K on the device pattern from the rows' gradients (`kernels/primal.cu`).
    fn primal_fill(&self, k: &DevicePrimalPattern<Self>, grads: &Self::Vector, inv_alpha: &Self::Vector, values: &mut Self::Vector) -> Result<()>;
    /// `out_u = w_u Σ_(r,a) ∇_a C_r s_r λ_r` per vertex of the incidence.
    #[allow(clippy::too_many_arguments)]
    fn jacobian_transpose(
        &self,
        inc: &DeviceIncidence<Self>,
        grads: &Self::Vector,
        s: &Self::Vector,
        lambda: &Self::Vector,
        w: &Self::Vector,
        out: &mut Self::Vector,
    ) -> Result<()>;
    /// `out_r = Σ_a scale_u ∇_a C_r · y_u` per row, u = `row_index[4 r + a]` (a free index or a vertex; slots
    /// with `u32::MAX` skipped).
    fn jacobian_rows(
        &self,
        row_index: &Self::Indices,
        rows: u32,
        grads: &Self::Vector,
        scale: &Self::Vector,
        y: &Self::Vector,
        out: &mut Self::Vector,
    ) -> Result<()>;
    /// C and ∇C of every row at positions `x` (`kernels/mgpbd_rows.cu`).
    fn evaluate_rows(&self, rows: &DeviceRows<Self>, x: &Self::Vector, c: &mut Self::Vector, grads: &mut Self::Vector) -> Result<()>;
    /// C and ∇C of the ARAP component rows, one polar decomposition per element (`kernels/mgpbd_rows.cu`).
    fn evaluate_arap_components(&self, rows: &DeviceRows<Self>, x: &Self::Vector, c: &mut Self::Vector, grads: &mut Self::Vector) -> Result<()>;
    /// `q_v = x_v − x̃_v − corr_v` at free vertices, 0 at pinned ones (`inv_mass` per vertex).
    fn inertia_term(&self, x: &Self::Vector, x_tilde: &Self::Vector, corr: &Self::Vector, inv_mass: &Self::Vector, q: &mut Self::Vector) -> Result<()>;
    /// `b = −(c + α̃ λ)`.
    fn dual_rhs(&self, c: &Self::Vector, alpha_tilde: &Self::Vector, lambda: &Self::Vector, b: &mut Self::Vector) -> Result<()>;
    /// The values of the dual matrix A on the device pattern (`kernels/dual.cu`).
    fn dual_fill(&self, a: &DeviceDualPattern<Self>, grads: &Self::Vector, alpha_tilde: &Self::Vector, values: &mut Self::Vector) -> Result<()>;
    /// One pass over the soft attachments on device positions `x` (3 per vertex) with every vertex's inverse
    /// mass `inv_mass` (the outer iteration's, `DeviceOuter::inv_mass`), substep `h` (`kernels/boundary.cu`).
    fn soft_attachments(&self, a: &mut DeviceSoftAttachments<Self>, x: &mut Self::Vector, inv_mass: &Self::Vector, h: f64) -> Result<()>;
}

impl<O: MgpbdOps> DeviceRows<O> {
    /// C (per row) and ∇C (12 per row) at positions `x` (3 per vertex).
    pub fn evaluate(&self, ops: &O, x: &O::Vector, c: &mut O::Vector, grads: &mut O::Vector) -> Result<()> {
        ops.evaluate_rows(self, x, c, grads)?;
        if self.arap_elements > 0 {
            ops.evaluate_arap_components(self, x, c, grads)?;
        }
        Ok(())
    }

    /// b = −(C + α̃λ); returns ‖C + α̃λ‖ = ‖b‖, the outer loop's (and its line search's) residual.
    pub fn rhs(&self, ops: &mut O, c: &O::Vector, lambda: &O::Vector, b: &mut O::Vector) -> Result<f64> {
        ops.dual_rhs(c, &self.alpha_tilde, lambda, b)?;
        Ok(ops.dot(b, b)?.sqrt())
    }
}
