//! MGPBD's primal solve on a device (`xpbd_core::mgpbd::primal_solve::PrimalSolver::solve`, step for step): K
//! refilled on the fixed pattern of [`PrimalPattern`] from the rows' gradients, `K y = Jᵀ α̃⁻¹ b` by PCG with one
//! V-cycle of the uploaded smoothed-aggregation hierarchy, stopping on the dual residual `‖J W r_K‖`, keeping the
//! iterate with the lowest one, and `Δλ = α̃⁻¹ (b − J y)`. The rows' gradients and b are written by
//! `DeviceRows::evaluate` on the device ([`DevicePrimal::refill`]) or from the host ([`DevicePrimal::fill`]);
//! per PCG iteration the host reads back scalars for control only.

use xpbd_core::amg::Hierarchy;
use xpbd_core::linear::{Setup, SolveStats};
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::primal::PrimalPattern;
use xpbd_core::sparse::Csr;

use crate::convert::{nonempty, to_t};
use crate::error::{CudaError, Result};
use crate::linalg::amg::DeviceHierarchy;
use crate::linalg::pcg::DevicePcg;
use crate::linalg::DeviceCsr;
use crate::mgpbd::ops::MgpbdOps;
use crate::mgpbd::primal_pattern::DevicePrimalPattern;
use crate::mgpbd::rows::flat_gradients;

/// The primal solve's state on the device.
pub struct DevicePrimal<O: MgpbdOps> {
    pub pattern: DevicePrimalPattern<O>,
    /// K on the pattern.
    pub k: DeviceCsr<O>,
    pub hierarchy: Option<DeviceHierarchy<O>>,
    pub pcg: DevicePcg<O>,
    pub inv_alpha: O::Vector,
    /// ∇C per row, 12 scalars (4 slots × 3).
    pub grads: O::Vector,
    pub b: O::Vector,
    pub dlambda: O::Vector,
    rhs: O::Vector,
    y: O::Vector,
    best: O::Vector,
    /// J W r_K or J y, per row.
    row_values: O::Vector,
    ones_free: O::Vector,
}

impl<O: MgpbdOps> DevicePrimal<O> {
    /// For the CPU's pattern (`PrimalSolver::pattern`), the rows' vertices, inverse masses and 1/α̃.
    pub fn new(ops: &O, pattern: &PrimalPattern, vertices: &[[u32; 4]], inv_mass: &[f64], inv_alpha: &[f64]) -> Result<Self> {
        let (n, rows) = (pattern.matrix.rows().max(1), vertices.len().max(1));
        Ok(DevicePrimal {
            pattern: DevicePrimalPattern::upload(ops, pattern, inv_mass)?,
            k: DeviceCsr::pattern_of(ops, &pattern.matrix)?,
            hierarchy: None,
            pcg: DevicePcg::new(ops, n)?,
            inv_alpha: ops.upload(&to_t(&nonempty(inv_alpha)))?,
            grads: ops.zeros(12 * rows)?,
            b: ops.zeros(rows)?,
            dlambda: ops.zeros(rows)?,
            rhs: ops.zeros(n)?,
            y: ops.zeros(n)?,
            best: ops.zeros(n)?,
            row_values: ops.zeros(rows)?,
            ones_free: ops.upload(&vec![<O::T as crate::runtime::KernelScalar>::from_f64(1.0); pattern.free_count().max(1)])?,
        })
    }

    /// Writes the rows' gradients from the host and refills K on the device.
    pub fn fill(&mut self, ops: &O, grads: &[[Vec3; 4]]) -> Result<()> {
        if !grads.is_empty() {
            ops.write(&flat_gradients(grads), &mut self.grads)?;
        }
        self.refill(ops)
    }

    /// Refills K from [`Self::grads`] as it is on the device (written by `DeviceRows::evaluate`).
    pub fn refill(&mut self, ops: &O) -> Result<()> {
        ops.primal_fill(&self.pattern, &self.grads, &self.inv_alpha, &mut self.k.val)
    }

    /// The hand-off of a full setup: `h` was built by the CPU for `k` (K with the device's current values).
    pub fn setup(&mut self, ops: &mut O, k: &Csr, h: &Hierarchy) -> Result<()> {
        self.hierarchy = None;
        if k.rows() > 0 {
            self.hierarchy = Some(DeviceHierarchy::upload(ops, k, h, &self.k)?);
        }
        Ok(())
    }

    /// The lazy setup after [`Self::fill`] on the device: `Setup::Refresh`: Galerkin products, diagonals and the
    /// coarsest factor; `Setup::Smoother`: the finest diagonal.
    pub fn refresh(&mut self, ops: &mut O, setup: Setup) -> Result<()> {
        match &mut self.hierarchy {
            Some(h) if setup == Setup::Smoother => h.refresh_smoother(ops, &self.k),
            Some(h) => h.refresh(ops, &self.k),
            None if self.k.rows == 0 => Ok(()),
            None => Err(CudaError::Check("the primal solve was refreshed before its first full setup".into())),
        }
    }

    /// Solves `A Δλ = b` (b in [`Self::b`]) from Δλ = 0 into [`Self::dlambda`] until the dual residual is at most
    /// `tol ‖b‖` or `max_iter` PCG iterations (PrimalSolver::solve).
    pub fn solve(&mut self, ops: &mut O, tol: f64, max_iter: usize) -> Result<SolveStats> {
        let DevicePrimal { pattern, k, hierarchy, pcg, inv_alpha, grads, b, dlambda, rhs, y, best, row_values, ones_free } = self;
        let b_norm = ops.dot(b, b)?.sqrt();
        if b_norm == 0.0 {
            ops.set_zero(dlambda)?;
            return Ok(SolveStats { iterations: 0, relative_residual: 0.0, converged: true });
        }
        ops.set_zero(y)?;
        ops.set_zero(best)?;
        let mut iterations = 0;
        let mut lowest = f64::INFINITY;
        if k.rows > 0 {
            let h = hierarchy.as_mut().ok_or_else(|| CudaError::Check("the primal solve ran before its first full setup".into()))?;
            ops.jacobian_transpose(&pattern.incidence, grads, inv_alpha, b, ones_free, rhs)?;
            (iterations, _) = pcg.iterate(ops, k, h, rhs, y, max_iter, |ops, r, y| {
                ops.jacobian_rows(&pattern.row_free, pattern.rows, grads, &pattern.inv_mass_free, r, row_values)?;
                let dual = ops.dot(row_values, row_values)?.sqrt();
                if dual < lowest {
                    lowest = dual;
                    ops.copy(y, best)?;
                }
                Ok(dual <= tol * b_norm)
            })?;
        } else {
            lowest = 0.0;
        }
        if lowest > b_norm {
            ops.set_zero(dlambda)?;
            return Ok(SolveStats { iterations, relative_residual: 1.0, converged: false });
        }
        ops.jacobian_rows(&pattern.row_free, pattern.rows, grads, ones_free, best, row_values)?;
        ops.scaled_difference(dlambda, inv_alpha, b, row_values)?;
        let relative_residual = lowest / b_norm;
        Ok(SolveStats { iterations, relative_residual, converged: relative_residual <= tol })
    }
}
