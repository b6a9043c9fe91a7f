//! Preconditioned conjugate gradients on a device (Saad, Alg. 9.1; `xpbd_core::linear::pcg::Pcg::iterate`, the
//! same steps in the same order): preconditioned by one V-cycle of a [`DeviceHierarchy`] from zero, or by the
//! identity (plain CG, the baseline). Per iteration the host reads back the two dot products that set α and β
//! and whatever the stopping test reads; the vectors stay on the device.

use crate::error::Result;
use crate::linalg::amg::DeviceHierarchy;
use crate::linalg::{DeviceCsr, LinearOps};
use crate::runtime::KernelScalar;

/// `z ≈ A⁻¹ r` on the device.
pub trait DevicePreconditioner<O: LinearOps> {
    fn apply(&mut self, ops: &mut O, a: &DeviceCsr<O>, r: &O::Vector, z: &mut O::Vector) -> Result<()>;
}

/// z = r: PCG with it is plain CG.
pub struct Identity;

impl<O: LinearOps> DevicePreconditioner<O> for Identity {
    fn apply(&mut self, ops: &mut O, _a: &DeviceCsr<O>, r: &O::Vector, z: &mut O::Vector) -> Result<()> {
        ops.copy(r, z)
    }
}

/// One V-cycle from a zero start (AmgPreconditioner::apply).
impl<O: LinearOps> DevicePreconditioner<O> for DeviceHierarchy<O> {
    fn apply(&mut self, ops: &mut O, a: &DeviceCsr<O>, r: &O::Vector, z: &mut O::Vector) -> Result<()> {
        self.precondition(ops, a, r, z)
    }
}

/// PCG's vectors for a system of `n` unknowns.
pub struct DevicePcg<O: LinearOps> {
    pub r: O::Vector,
    pub z: O::Vector,
    pub p: O::Vector,
    pub ap: O::Vector,
}

impl<O: LinearOps> DevicePcg<O> {
    pub fn new(ops: &O, n: usize) -> Result<Self> {
        Ok(DevicePcg { r: ops.zeros(n)?, z: ops.zeros(n)?, p: ops.zeros(n)?, ap: ops.zeros(n)? })
    }

    /// PCG on `a x = b` from `x` until `done(ops, r, x)` (tested before every iteration) or `max_iter`
    /// iterations; returns the iterations and whether it stopped on `done` (Pcg::iterate).
    #[allow(clippy::too_many_arguments)]
    pub fn iterate(
        &mut self,
        ops: &mut O,
        a: &DeviceCsr<O>,
        precond: &mut impl DevicePreconditioner<O>,
        b: &O::Vector,
        x: &mut O::Vector,
        max_iter: usize,
        mut done: impl FnMut(&mut O, &O::Vector, &O::Vector) -> Result<bool>,
    ) -> Result<(usize, bool)> {
        let DevicePcg { r, z, p, ap } = self;
        ops.residual(a, b, x, r)?;
        precond.apply(ops, a, r, z)?;
        ops.copy(z, p)?;
        let mut rz = ops.dot(r, z)?;
        let mut iterations = 0;
        loop {
            if done(ops, r, x)? {
                return Ok((iterations, true));
            }
            if iterations == max_iter {
                return Ok((iterations, false));
            }
            ops.spmv(a, p, ap)?;
            let pap = ops.dot(p, ap)?;
            if !(pap > 0.0 && rz > 0.0) {
                return Ok((iterations, false));
            }
            ops.cg_step(x, r, p, ap, O::T::from_f64(rz / pap))?;
            precond.apply(ops, a, r, z)?;
            let rz_new = ops.dot(r, z)?;
            ops.xpay(p, z, O::T::from_f64(rz_new / rz))?;
            rz = rz_new;
            iterations += 1;
        }
    }
}
