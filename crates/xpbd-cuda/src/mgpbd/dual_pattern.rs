//! The fixed pattern of MGPBD's dual matrix A on the device (`xpbd_core::mgpbd::assembly::Pattern`), which
//! `MgpbdOps::dual_fill` refills from the rows' gradients, one thread per nonzero.

use xpbd_core::mgpbd::assembly::Pattern;

use crate::convert::{narrow, nonempty, to_t};
use crate::error::Result;
use crate::linalg::ops::csr_indices;
use crate::linalg::LinearOps;

/// [`Pattern`]'s arrays of A's refill on the device, with the rows' vertices (4 per row) and every vertex's
/// inverse mass.
pub struct DeviceDualPattern<O: LinearOps + ?Sized> {
    pub nnz: u32,
    pub nz_row: O::Indices,
    /// A's column indices (the same array as the matrix's).
    pub col: O::Indices,
    pub pair_start: O::Indices,
    /// s · 4 + t per pair.
    pub pair_slots: O::Indices,
    pub row_vertex: O::Indices,
    pub inv_mass: O::Vector,
}

impl<O: LinearOps> DeviceDualPattern<O> {
    /// For the CPU's full pattern (`Pattern::new`), the rows' vertices and every vertex's inverse mass.
    pub fn upload(ops: &O, pattern: &Pattern, vertices: &[[u32; 4]], inv_mass: &[f64]) -> Result<Self> {
        Ok(DeviceDualPattern {
            nnz: pattern.nonzeros() as u32,
            nz_row: ops.upload_indices(&pattern.nz_row)?,
            col: ops.upload_indices(&csr_indices(&pattern.matrix).1)?,
            pair_start: ops.upload_indices(&narrow(&pattern.pair_start))?,
            pair_slots: ops.upload_indices(&nonempty(&pattern.pairs.iter().map(|p| 4 * p[0] as u32 + p[1] as u32).collect::<Vec<_>>()))?,
            row_vertex: ops.upload_indices(&vertices.iter().flatten().copied().collect::<Vec<_>>())?,
            inv_mass: ops.upload(&to_t(inv_mass))?,
        })
    }
}
