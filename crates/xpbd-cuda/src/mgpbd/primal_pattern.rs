//! The fixed pattern of MGPBD's primal matrix K on the device (`xpbd_core::mgpbd::primal::PrimalPattern`), which
//! `MgpbdOps::primal_fill` refills from the rows' gradients.

use xpbd_core::mgpbd::primal::PrimalPattern;

use crate::convert::{narrow, nonempty, to_t};
use crate::error::Result;
use crate::linalg::LinearOps;
use crate::mgpbd::incidence::DeviceIncidence;

/// [`PrimalPattern`]'s arrays on the device, with J's vertices per row as `row_free`.
pub struct DevicePrimalPattern<O: LinearOps + ?Sized> {
    pub free_count: u32,
    pub rows: u32,
    pub block_start: O::Indices,
    pub block_col: O::Indices,
    pub term_start: O::Indices,
    pub term_row: O::Indices,
    /// a · 4 + c per term.
    pub term_slots: O::Indices,
    /// The rows at each free vertex.
    pub incidence: DeviceIncidence<O>,
    /// 4 per row.
    pub row_free: O::Indices,
    pub inv_mass_free: O::Vector,
}

impl<O: LinearOps> DevicePrimalPattern<O> {
    pub fn upload(ops: &O, p: &PrimalPattern, inv_mass: &[f64]) -> Result<Self> {
        let inv_mass_free: Vec<f64> = p.free_vertices.iter().map(|&v| inv_mass[v as usize]).collect();
        Ok(DevicePrimalPattern {
            free_count: p.free_count() as u32,
            rows: p.row_free.len() as u32,
            block_start: ops.upload_indices(&narrow(&p.block_start))?,
            block_col: ops.upload_indices(&nonempty(&p.block_col))?,
            term_start: ops.upload_indices(&narrow(&p.term_start))?,
            term_row: ops.upload_indices(&nonempty(&p.terms.iter().map(|t| t.0).collect::<Vec<u32>>()))?,
            term_slots: ops.upload_indices(&nonempty(&p.terms.iter().map(|t| 4 * t.1 as u32 + t.2 as u32).collect::<Vec<u32>>()))?,
            incidence: DeviceIncidence::upload(ops, &p.vertex_start, &p.vertex_rows)?,
            row_free: ops.upload_indices(&nonempty(&p.row_free.concat()))?,
            inv_mass_free: ops.upload(&to_t(&nonempty(&inv_mass_free)))?,
        })
    }
}
