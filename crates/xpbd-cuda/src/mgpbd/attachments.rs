//! The soft attachments of the device MGPBD loop (`device::MgpbdDevice`): one pass after each outer iteration, as
//! `xpbd_core::substep::SubstepBoundary::attachments` does on the CPU (per axis C = x − target(t), Δλ = −(C + α̃λ)/(w + α̃),
//! Δx = w Δλ; docs/equations.md), by `soft_attachments` of `kernels/boundary.cu`, one thread per attachment. The
//! positions stay on the device; per substep only the end time goes up.

use xpbd_core::model::Model;

use crate::convert::{flat3, to_t};
use crate::error::Result;
use crate::linalg::LinearOps;

/// The soft attachments (`compliance > 0`) on the device, with 3 multipliers each.
pub struct DeviceSoftAttachments<O: LinearOps + ?Sized> {
    pub count: u32,
    pub vertex: O::Indices,
    /// Target at time 0 and its velocity, 3 per attachment.
    pub origin: O::Vector,
    pub velocity: O::Vector,
    pub compliance: O::Vector,
    pub lambda: O::Vector,
    /// The substep's end time, the attachments' target time (one scalar).
    pub time: O::Vector,
}

impl<O: LinearOps> DeviceSoftAttachments<O> {
    /// `None` when `model` has no soft attachment. The support check (`device::check_supported`) has
    /// made sure that no vertex has two, which a parallel pass could not update in order.
    pub fn upload(ops: &O, model: &Model) -> Result<Option<Self>> {
        let soft: Vec<_> = model.attachments.iter().filter(|a| a.compliance > 0.0).collect();
        if soft.is_empty() {
            return Ok(None);
        }
        Ok(Some(DeviceSoftAttachments {
            count: soft.len() as u32,
            vertex: ops.upload_indices(&soft.iter().map(|a| a.vertex).collect::<Vec<_>>())?,
            origin: ops.upload(&flat3(soft.iter().map(|a| a.origin)))?,
            velocity: ops.upload(&flat3(soft.iter().map(|a| a.velocity)))?,
            compliance: ops.upload(&to_t(&soft.iter().map(|a| a.compliance).collect::<Vec<_>>()))?,
            lambda: ops.zeros(3 * soft.len())?,
            time: ops.zeros(1)?,
        }))
    }

    /// Start of a substep ending at `t_end`: multipliers to zero, the target time set.
    pub fn begin(&mut self, ops: &O, t_end: f64) -> Result<()> {
        ops.set_zero(&mut self.lambda)?;
        ops.write(&to_t(&[t_end]), &mut self.time)
    }
}
