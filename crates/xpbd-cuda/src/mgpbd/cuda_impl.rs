//! [`MgpbdOps`] on a CUDA device ([`CudaOps`]): each method is one launch of a kernel of `kernels/primal.cu`,
//! `kernels/dual.cu`, `kernels/mgpbd_rows.cu` or `kernels/boundary.cu` on the context's stream.

use cudarc::driver::{CudaSlice, PushKernelArg};

use crate::error::Result;
use crate::mgpbd::attachments::DeviceSoftAttachments;
use crate::mgpbd::dual_pattern::DeviceDualPattern;
use crate::mgpbd::incidence::DeviceIncidence;
use crate::mgpbd::ops::MgpbdOps;
use crate::mgpbd::primal_pattern::DevicePrimalPattern;
use crate::mgpbd::rows::DeviceRows;
use crate::runtime::cuda_ops::launch;
use crate::runtime::launch::grid;
use crate::runtime::{CudaOps, KernelScalar};

impl<T: KernelScalar> MgpbdOps for CudaOps<T> {
    fn primal_fill(&self, k: &DevicePrimalPattern<Self>, grads: &CudaSlice<T>, inv_alpha: &CudaSlice<T>, values: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("primal_fill");
        l.arg(values)
            .arg(&k.block_start)
            .arg(&k.block_col)
            .arg(&k.term_start)
            .arg(&k.term_row)
            .arg(&k.term_slots)
            .arg(grads)
            .arg(&k.inv_mass_free)
            .arg(inv_alpha)
            .arg(&k.free_count);
        launch(l, grid(k.free_count), "primal_fill")
    }
    fn jacobian_transpose(
        &self,
        inc: &DeviceIncidence<Self>,
        grads: &CudaSlice<T>,
        s: &CudaSlice<T>,
        lambda: &CudaSlice<T>,
        w: &CudaSlice<T>,
        out: &mut CudaSlice<T>,
    ) -> Result<()> {
        let mut l = self.builder("jacobian_transpose");
        l.arg(out).arg(&inc.start).arg(&inc.row).arg(&inc.slot).arg(grads).arg(s).arg(lambda).arg(w).arg(&inc.count);
        launch(l, grid(inc.count), "jacobian_transpose")
    }
    fn jacobian_rows(
        &self,
        row_index: &CudaSlice<u32>,
        rows: u32,
        grads: &CudaSlice<T>,
        scale: &CudaSlice<T>,
        y: &CudaSlice<T>,
        out: &mut CudaSlice<T>,
    ) -> Result<()> {
        let mut l = self.builder("jacobian_rows");
        l.arg(out).arg(row_index).arg(grads).arg(scale).arg(y).arg(&rows);
        launch(l, grid(rows), "jacobian_rows")
    }
    fn dual_fill(&self, a: &DeviceDualPattern<Self>, grads: &CudaSlice<T>, alpha_tilde: &CudaSlice<T>, values: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("dual_fill");
        l.arg(values)
            .arg(&a.nz_row)
            .arg(&a.col)
            .arg(&a.pair_start)
            .arg(&a.pair_slots)
            .arg(&a.row_vertex)
            .arg(grads)
            .arg(&a.inv_mass)
            .arg(alpha_tilde)
            .arg(&a.nnz);
        launch(l, grid(a.nnz), "dual_fill")
    }
    fn soft_attachments(&self, a: &mut DeviceSoftAttachments<Self>, x: &mut CudaSlice<T>, inv_mass: &CudaSlice<T>, h: f64) -> Result<()> {
        let h = T::from_f64(h);
        let mut l = self.builder("soft_attachments");
        l.arg(x).arg(inv_mass).arg(&a.vertex).arg(&a.origin).arg(&a.velocity).arg(&a.compliance).arg(&mut a.lambda).arg(&h).arg(&a.time).arg(&a.count);
        launch(l, grid(a.count), "soft_attachments")
    }
    fn evaluate_rows(&self, rows: &DeviceRows<Self>, x: &CudaSlice<T>, c: &mut CudaSlice<T>, grads: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("evaluate_rows");
        l.arg(c).arg(grads).arg(&rows.kind).arg(&rows.row_vertex).arg(&rows.row_data).arg(x).arg(&rows.count);
        launch(l, grid(rows.count), "evaluate_rows")
    }
    fn evaluate_arap_components(&self, rows: &DeviceRows<Self>, x: &CudaSlice<T>, c: &mut CudaSlice<T>, grads: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("evaluate_arap_components");
        l.arg(c).arg(grads).arg(&rows.first_row).arg(&rows.row_vertex).arg(&rows.row_data).arg(x).arg(&rows.guard).arg(&rows.arap_elements);
        launch(l, grid(rows.arap_elements), "evaluate_arap_components")
    }
    fn dual_rhs(&self, c: &CudaSlice<T>, alpha_tilde: &CudaSlice<T>, lambda: &CudaSlice<T>, b: &mut CudaSlice<T>) -> Result<()> {
        let n = c.len() as u32;
        let mut l = self.builder("dual_rhs");
        l.arg(b).arg(c).arg(alpha_tilde).arg(lambda).arg(&n);
        launch(l, grid(n), "dual_rhs")
    }
    fn inertia_term(&self, x: &CudaSlice<T>, x_tilde: &CudaSlice<T>, corr: &CudaSlice<T>, inv_mass: &CudaSlice<T>, q: &mut CudaSlice<T>) -> Result<()> {
        let n = inv_mass.len() as u32;
        let mut l = self.builder("inertia_term");
        l.arg(q).arg(x).arg(x_tilde).arg(corr).arg(inv_mass).arg(&n);
        launch(l, grid(n), "inertia_term")
    }
}
