//! The baseline of MGPBD's solve phase on a device: the dual system `A Δλ = b`, `A = J M⁻¹ Jᵀ + α̃`, refilled on
//! the fixed pattern of [`Pattern`] (one thread per nonzero, `kernels/dual.cu`) and solved by plain CG from
//! Δλ = 0 (`xpbd_core::linear::cg`, `LinearSolver::solve`: stop on ‖b − A Δλ‖ ≤ tol ‖b‖). The outer iteration
//! (`outer::DeviceOuter`) runs it for `linear_solver = "cg"` and makes the position correction.

use xpbd_core::linear::SolveStats;
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::assembly::Pattern;

use crate::convert::to_t;
use crate::error::{CudaError, Result};
use crate::linalg::ops::csr_indices;
use crate::linalg::pcg::{DevicePcg, Identity};
use crate::linalg::DeviceCsr;
use crate::mgpbd::dual_pattern::DeviceDualPattern;
use crate::mgpbd::ops::MgpbdOps;
use crate::mgpbd::rows::flat_gradients;

/// The dual system's state on the device.
pub struct DeviceDual<O: MgpbdOps> {
    pub pattern: DeviceDualPattern<O>,
    pub a: DeviceCsr<O>,
    pub alpha_tilde: O::Vector,
    /// ∇C per row, 12 scalars.
    pub grads: O::Vector,
    pub b: O::Vector,
    pub dlambda: O::Vector,
    pcg: DevicePcg<O>,
}

impl<O: MgpbdOps> DeviceDual<O> {
    /// For the CPU's full pattern (`Pattern::new`, not `incidence_only`), the rows' vertices, inverse masses and α̃.
    pub fn new(ops: &O, pattern: &Pattern, vertices: &[[u32; 4]], inv_mass: &[f64], alpha_tilde: &[f64]) -> Result<Self> {
        let rows = vertices.len();
        if pattern.matrix.rows() != rows || pattern.nonzeros() < rows {
            return Err(CudaError::Check(format!(
                "the dual pattern has {} rows and {} nonzeros for {rows} rows: it needs Pattern::new",
                pattern.matrix.rows(),
                pattern.nonzeros()
            )));
        }
        let (row_ptr, col) = csr_indices(&pattern.matrix);
        Ok(DeviceDual {
            pattern: DeviceDualPattern::upload(ops, pattern, vertices, inv_mass)?,
            a: DeviceCsr::pattern(ops, rows, &row_ptr, &col)?,
            alpha_tilde: ops.upload(&to_t(alpha_tilde))?,
            grads: ops.zeros(12 * rows)?,
            b: ops.zeros(rows)?,
            dlambda: ops.zeros(rows)?,
            pcg: DevicePcg::new(ops, rows)?,
        })
    }

    /// Writes the rows' gradients from the host and refills A on the device.
    pub fn fill(&mut self, ops: &O, grads: &[[Vec3; 4]]) -> Result<()> {
        ops.write(&flat_gradients(grads), &mut self.grads)?;
        self.refill(ops)
    }

    /// Refills A from [`Self::grads`] as it is on the device (written by `DeviceRows::evaluate`).
    pub fn refill(&mut self, ops: &O) -> Result<()> {
        ops.dual_fill(&self.pattern, &self.grads, &self.alpha_tilde, &mut self.a.val)
    }

    /// Plain CG on `A Δλ = b` (b in [`Self::b`]) from Δλ = 0 into [`Self::dlambda`].
    pub fn solve(&mut self, ops: &mut O, tol: f64, max_iter: usize) -> Result<SolveStats> {
        let DeviceDual { a, b, dlambda, pcg, .. } = self;
        ops.set_zero(dlambda)?;
        let b_norm = ops.dot(b, b)?.sqrt();
        if b_norm == 0.0 {
            return Ok(SolveStats { iterations: 0, relative_residual: 0.0, converged: true });
        }
        let mut r_norm = 0.0;
        let (iterations, _) = pcg.iterate(ops, a, &mut Identity, b, dlambda, max_iter, |ops, r, _| {
            r_norm = ops.dot(r, r)?.sqrt();
            Ok(r_norm <= tol * b_norm)
        })?;
        let relative_residual = r_norm / b_norm;
        Ok(SolveStats { iterations, relative_residual, converged: relative_residual <= tol })
    }
}
