//! The rows at each vertex on the device, as the Jacobian-transpose kernel reads them (`kernels/primal.cu`).

use crate::convert::{narrow, nonempty};
use crate::error::Result;
use crate::linalg::LinearOps;

/// The rows at each vertex (of some numbering: free vertices for K, all vertices for A): entries
/// `start[v]..start[v + 1]` of `row` and `slot`.
pub struct DeviceIncidence<O: LinearOps + ?Sized> {
    pub count: u32,
    pub start: O::Indices,
    pub row: O::Indices,
    pub slot: O::Indices,
}

impl<O: LinearOps> DeviceIncidence<O> {
    /// From the CPU's `vertex_start` and `vertex_rows` (row, slot).
    pub fn upload(ops: &O, start: &[usize], rows: &[(u32, u8)]) -> Result<Self> {
        Ok(DeviceIncidence {
            count: (start.len() - 1) as u32,
            start: ops.upload_indices(&narrow(start))?,
            row: ops.upload_indices(&nonempty(&rows.iter().map(|e| e.0).collect::<Vec<_>>()))?,
            slot: ops.upload_indices(&nonempty(&rows.iter().map(|e| e.1 as u32).collect::<Vec<_>>()))?,
        })
    }
}
