//! MGPBD's constraint rows on a device (`kernels/mgpbd_rows.cu`), from which `MgpbdOps` evaluates C and ∇C of
//! every row at device positions, written straight into the buffers the primal (or dual) refill reads, and the
//! dual right-hand side b = −(C + α̃λ) with its norm, the outer loop's residual (`DeviceRows::evaluate`, `rhs`). With these the per-iteration gradients and b need not
//! cross the bus. Neo-Hookean (hydrostatic, deviatoric), edge, hinge and ARAP rows (cone, and components with
//! one polar decomposition per element, `kernels/polar.cuh`).

use xpbd_core::constraint::arap::MIN_PAIR_SUM;
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::rows::{RowKind, Rows};
use xpbd_core::model::Model;

use crate::convert::{flat3, nonempty, to_t};
use crate::error::Result;
use crate::linalg::LinearOps;
use crate::runtime::KernelScalar;

/// The row kinds of `kernels/mgpbd_rows.cu` (`ROW_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum RowCode {
    Hydrostatic = 0,
    Deviatoric = 1,
    Edge = 2,
    Hinge = 3,
    Arap = 4,
    ArapComponent = 5,
}

/// Scalars of per-row data: D_m⁻¹ (9, row-major) and γ for tets; the rest length or angle first for cloth.
pub const ROW_DATA: usize = 10;

/// The rows' kinds, vertices (4 per row), data and α̃ on the device.
pub struct DeviceRows<O: LinearOps + ?Sized> {
    pub count: u32,
    pub kind: O::Indices,
    pub row_vertex: O::Indices,
    pub row_data: O::Vector,
    pub alpha_tilde: O::Vector,
    /// The first of each ARAP element's nine component rows ([`Rows::slot_row`]), and how many.
    pub first_row: O::Indices,
    pub arap_elements: u32,
    /// The component rows' rotation guard: [`MIN_PAIR_SUM`] with the exact ∂R/∂F, infinite with R held fixed.
    pub guard: O::T,
}

impl<O: LinearOps> DeviceRows<O> {
    /// Uploads the rows of `model` with α̃ (per row).
    pub fn upload(ops: &O, model: &Model, rows: &Rows, alpha_tilde: &[f64]) -> Result<Self> {
        let n = rows.len();
        let (mut kind, mut data) = (Vec::with_capacity(n), vec![0.0; ROW_DATA * n.max(1)]);
        for i in 0..n {
            let (g, e) = (rows.group[i] as usize, rows.element[i] as usize);
            let d = &mut data[ROW_DATA * i..ROW_DATA * (i + 1)];
            let code = match rows.kind[i] {
                RowKind::Edge => {
                    d[0] = model.cloth_groups[g].rest_length[e];
                    RowCode::Edge
                }
                RowKind::Hinge => {
                    d[0] = model.cloth_groups[g].rest_angle[e];
                    RowCode::Hinge
                }
                tet => {
                    let t = &model.tet_groups[g];
                    let m = &t.rest[e].dm_inv;
                    for r in 0..3 {
                        for c in 0..3 {
                            d[3 * r + c] = m[(r, c)];
                        }
                    }
                    d[9] = xpbd_core::constraint::neohookean::gamma(&t.lame);
                    match tet {
                        RowKind::Hydrostatic => RowCode::Hydrostatic,
                        RowKind::Deviatoric => RowCode::Deviatoric,
                        RowKind::Arap => RowCode::Arap,
                        _ => RowCode::ArapComponent,
                    }
                }
            };
            kind.push(code as u32);
        }
        Ok(DeviceRows {
            count: n as u32,
            kind: ops.upload_indices(&nonempty(&kind))?,
            row_vertex: ops.upload_indices(&nonempty(&rows.vertices.iter().flatten().copied().collect::<Vec<_>>()))?,
            row_data: ops.upload(&to_t(&data))?,
            alpha_tilde: ops.upload(&to_t(&nonempty(alpha_tilde)))?,
            first_row: ops.upload_indices(&nonempty(&rows.slot_row))?,
            arap_elements: rows.slot_row.len() as u32,
            guard: O::T::from_f64(if rows.exact_rotation { MIN_PAIR_SUM } else { f64::INFINITY }),
        })
    }
}

/// The rows' gradients as the kernels read them: 12 scalars per row (4 slots × 3).
pub fn flat_gradients<T: KernelScalar>(grads: &[[Vec3; 4]]) -> Vec<T> {
    flat3(grads.iter().flatten().copied())
}
