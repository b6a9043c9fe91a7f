//! [`LinearOps`] on a CUDA device: each method is one launch of a kernel of `kernels/amg_solve.cu`,
//! `kernels/primal.cu`, `kernels/dual.cu`, `kernels/mgpbd_rows.cu` or `kernels/boundary.cu` on the context's stream (blocks of [`BLOCK`] threads, grid-stride; the single-block kernels
//! on one block), or a copy.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchArgs, LaunchConfig, PushKernelArg};

use crate::amg_ops::{DeviceCsr, DeviceIncidence, LinearOps};
use crate::attachments_device::DeviceSoftAttachments;
use crate::device_model::{blocks, err, BLOCK};
use crate::dual_device::DeviceDualPattern;
use crate::primal_device::DevicePrimalPattern;
use crate::rows_device::DeviceRows;
use crate::{GpuContext, KernelScalar};

/// Most blocks of the first pass of a dot product (its partial sums are added by one block).
const DOT_BLOCKS: u32 = 64;

/// (module, kernel) of every kernel [`CudaOps`] launches (`kernels/<module>.cu`, exported as `<kernel>_f32/_f64`).
pub const SOLVE_KERNELS: &[(&str, &str)] = &[
    ("amg_solve", "csr_spmv"),
    ("amg_solve", "csr_residual"),
    ("amg_solve", "csr_spmv_add"),
    ("amg_solve", "inverse_diagonal"),
    ("amg_solve", "jacobi_sweep"),
    ("amg_solve", "chebyshev_step"),
    ("amg_solve", "gauss_seidel_color"),
    ("amg_solve", "csr_product"),
    ("amg_solve", "dense_scatter"),
    ("amg_solve", "dense_cholesky"),
    ("amg_solve", "cholesky_solve"),
    ("amg_solve", "axpy"),
    ("amg_solve", "xpay"),
    ("amg_solve", "cg_step"),
    ("amg_solve", "scaled_difference"),
    ("amg_solve", "dot_partial"),
    ("amg_solve", "sum_partials"),
    ("primal", "primal_fill"),
    ("primal", "jacobian_transpose"),
    ("primal", "jacobian_rows"),
    ("dual", "dual_fill"),
    ("mgpbd_rows", "evaluate_rows"),
    ("mgpbd_rows", "evaluate_arap_components"),
    ("mgpbd_rows", "dual_rhs"),
    ("mgpbd_rows", "inertia_term"),
    ("boundary", "soft_attachments"),
];

/// The solve phase's kernels of one precision on a [`GpuContext`].
pub struct CudaOps<T> {
    gpu: Arc<GpuContext>,
    kernels: HashMap<&'static str, CudaFunction>,
    partials: CudaSlice<T>,
    scalar: CudaSlice<T>,
}

fn grid(count: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks(count), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// One block: the single-block kernels and the second pass of a reduction.
const ONE_BLOCK: LaunchConfig = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };

fn launch(mut l: LaunchArgs<'_>, cfg: LaunchConfig, name: &str) -> Result<(), String> {
    // SAFETY: every caller pushes the arguments of kernel `name` in the order and types of its C signature in
    // kernels/*.cu, with device arrays of the lengths the kernel indexes (the sizes of the structs they come from).
    unsafe { l.launch(cfg) }.map(|_| ()).map_err(|e| format!("kernel {name} on the GPU: {e}"))
}

impl<T: KernelScalar> CudaOps<T> {
    pub fn new(gpu: Arc<GpuContext>) -> Result<Self, String> {
        let mut kernels = HashMap::new();
        for &(module, name) in SOLVE_KERNELS {
            kernels.insert(name, gpu.function::<T>(module, name)?);
        }
        let s = gpu.stream();
        let e = err("allocating the reduction buffers");
        let partials = s.alloc_zeros(DOT_BLOCKS as usize).map_err(&e)?;
        let scalar = s.alloc_zeros(1).map_err(&e)?;
        Ok(CudaOps { gpu, kernels, partials, scalar })
    }

    fn builder(&self, name: &str) -> LaunchArgs<'_> {
        self.gpu.stream().launch_builder(&self.kernels[name])
    }
}

impl<T: KernelScalar> LinearOps for CudaOps<T> {
    type T = T;
    type Vector = CudaSlice<T>;
    type Indices = CudaSlice<u32>;

    fn upload(&self, a: &[T]) -> Result<CudaSlice<T>, String> {
        self.gpu.stream().clone_htod(a).map_err(err("uploading"))
    }
    fn upload_indices(&self, a: &[u32]) -> Result<CudaSlice<u32>, String> {
        self.gpu.stream().clone_htod(a).map_err(err("uploading"))
    }
    fn zeros(&self, n: usize) -> Result<CudaSlice<T>, String> {
        self.gpu.stream().alloc_zeros(n.max(1)).map_err(err("allocating"))
    }
    fn download(&self, a: &CudaSlice<T>) -> Result<Vec<T>, String> {
        self.gpu.stream().clone_dtoh(a).map_err(err("downloading"))
    }
    fn write(&self, src: &[T], dst: &mut CudaSlice<T>) -> Result<(), String> {
        self.gpu.stream().memcpy_htod(src, dst).map_err(err("uploading"))
    }
    fn copy(&self, src: &CudaSlice<T>, dst: &mut CudaSlice<T>) -> Result<(), String> {
        self.gpu.stream().memcpy_dtod(src, dst).map_err(err("copying"))
    }
    fn set_zero(&self, a: &mut CudaSlice<T>) -> Result<(), String> {
        self.gpu.stream().memset_zeros(a).map_err(err("zeroing"))
    }
    fn len(a: &CudaSlice<T>) -> usize {
        a.len()
    }
    fn synchronize(&self) -> Result<(), String> {
        self.gpu.stream().synchronize().map_err(err("synchronizing"))
    }

    fn spmv(&self, a: &DeviceCsr<Self>, x: &CudaSlice<T>, y: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("csr_spmv");
        l.arg(y).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(x).arg(&a.rows);
        launch(l, grid(a.rows), "csr_spmv")
    }
    fn residual(&self, a: &DeviceCsr<Self>, b: &CudaSlice<T>, x: &CudaSlice<T>, r: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("csr_residual");
        l.arg(r).arg(b).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(x).arg(&a.rows);
        launch(l, grid(a.rows), "csr_residual")
    }
    fn spmv_add(&self, a: &DeviceCsr<Self>, x: &CudaSlice<T>, y: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("csr_spmv_add");
        l.arg(y).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(x).arg(&a.rows);
        launch(l, grid(a.rows), "csr_spmv_add")
    }
    fn inverse_diagonal(&self, a: &DeviceCsr<Self>, inv_diag: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("inverse_diagonal");
        l.arg(inv_diag).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(&a.rows);
        launch(l, grid(a.rows), "inverse_diagonal")
    }
    fn jacobi_sweep(&self, x: &mut CudaSlice<T>, r: &CudaSlice<T>, b: &CudaSlice<T>, inv_diag: &CudaSlice<T>, omega: T) -> Result<(), String> {
        let n = b.len() as u32;
        let mut l = self.builder("jacobi_sweep");
        l.arg(x).arg(r).arg(b).arg(inv_diag).arg(&omega).arg(&n);
        launch(l, grid(n), "jacobi_sweep")
    }
    fn chebyshev_step(
        &self,
        x: &mut CudaSlice<T>,
        d: &mut CudaSlice<T>,
        r: &CudaSlice<T>,
        b: &CudaSlice<T>,
        inv_diag: &CudaSlice<T>,
        c_d: T,
        c_r: T,
    ) -> Result<(), String> {
        let n = b.len() as u32;
        let mut l = self.builder("chebyshev_step");
        l.arg(x).arg(d).arg(r).arg(b).arg(inv_diag).arg(&c_d).arg(&c_r).arg(&n);
        launch(l, grid(n), "chebyshev_step")
    }
    fn gauss_seidel_color(
        &self,
        a: &DeviceCsr<Self>,
        b: &CudaSlice<T>,
        inv_diag: &CudaSlice<T>,
        rows: &CudaSlice<u32>,
        first: u32,
        count: u32,
        x: &mut CudaSlice<T>,
    ) -> Result<(), String> {
        let mut l = self.builder("gauss_seidel_color");
        l.arg(x).arg(b).arg(inv_diag).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(rows).arg(&first).arg(&count);
        launch(l, grid(count), "gauss_seidel_color")
    }
    fn csr_product(&self, a: &DeviceCsr<Self>, b: &DeviceCsr<Self>, c: &mut DeviceCsr<Self>) -> Result<(), String> {
        let mut l = self.builder("csr_product");
        l.arg(&mut c.val).arg(&c.row_ptr).arg(&c.col).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(&b.row_ptr).arg(&b.col).arg(&b.val).arg(&c.rows);
        launch(l, grid(c.rows), "csr_product")
    }
    fn dense_scatter(&self, a: &DeviceCsr<Self>, dense: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("dense_scatter");
        l.arg(dense).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(&a.rows);
        launch(l, grid(a.rows), "dense_scatter")
    }
    fn dense_cholesky(&self, dense: &mut CudaSlice<T>, n: u32, status: &mut CudaSlice<u32>) -> Result<bool, String> {
        let mut l = self.builder("dense_cholesky");
        l.arg(dense).arg(&n).arg(&mut *status);
        launch(l, ONE_BLOCK, "dense_cholesky")?;
        let status = self.gpu.stream().clone_dtoh(status).map_err(err("reading the Cholesky status"))?;
        Ok(status[0] == 0)
    }
    fn cholesky_solve(&self, factor: &CudaSlice<T>, n: u32, b: &CudaSlice<T>, x: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("cholesky_solve");
        l.arg(factor).arg(b).arg(x).arg(&n);
        launch(l, ONE_BLOCK, "cholesky_solve")
    }
    fn axpy(&self, y: &mut CudaSlice<T>, a: T, x: &CudaSlice<T>) -> Result<(), String> {
        let n = x.len() as u32;
        let mut l = self.builder("axpy");
        l.arg(y).arg(&a).arg(x).arg(&n);
        launch(l, grid(n), "axpy")
    }
    fn xpay(&self, y: &mut CudaSlice<T>, x: &CudaSlice<T>, beta: T) -> Result<(), String> {
        let n = x.len() as u32;
        let mut l = self.builder("xpay");
        l.arg(y).arg(x).arg(&beta).arg(&n);
        launch(l, grid(n), "xpay")
    }
    fn cg_step(&self, x: &mut CudaSlice<T>, r: &mut CudaSlice<T>, p: &CudaSlice<T>, ap: &CudaSlice<T>, alpha: T) -> Result<(), String> {
        let n = p.len() as u32;
        let mut l = self.builder("cg_step");
        l.arg(x).arg(r).arg(p).arg(ap).arg(&alpha).arg(&n);
        launch(l, grid(n), "cg_step")
    }
    fn scaled_difference(&self, out: &mut CudaSlice<T>, s: &CudaSlice<T>, b: &CudaSlice<T>, v: &CudaSlice<T>) -> Result<(), String> {
        let n = b.len() as u32;
        let mut l = self.builder("scaled_difference");
        l.arg(out).arg(s).arg(b).arg(v).arg(&n);
        launch(l, grid(n), "scaled_difference")
    }
    fn dot(&mut self, a: &CudaSlice<T>, b: &CudaSlice<T>) -> Result<f64, String> {
        let n = a.len() as u32;
        let used = blocks(n).min(DOT_BLOCKS);
        let cfg = LaunchConfig { grid_dim: (used, 1, 1), ..grid(n) };
        let stream = self.gpu.stream().clone();
        let mut l = stream.launch_builder(&self.kernels["dot_partial"]);
        l.arg(&mut self.partials).arg(a).arg(b).arg(&n);
        launch(l, cfg, "dot_partial")?;
        let mut l = stream.launch_builder(&self.kernels["sum_partials"]);
        l.arg(&mut self.scalar).arg(&self.partials).arg(&used);
        launch(l, ONE_BLOCK, "sum_partials")?;
        Ok(stream.clone_dtoh(&self.scalar).map_err(err("reading a dot product"))?[0].to_f64())
    }

    fn primal_fill(&self, k: &DevicePrimalPattern<Self>, grads: &CudaSlice<T>, inv_alpha: &CudaSlice<T>, values: &mut CudaSlice<T>) -> Result<(), String> {
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
    ) -> Result<(), String> {
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
    ) -> Result<(), String> {
        let mut l = self.builder("jacobian_rows");
        l.arg(out).arg(row_index).arg(grads).arg(scale).arg(y).arg(&rows);
        launch(l, grid(rows), "jacobian_rows")
    }
    fn dual_fill(&self, a: &DeviceDualPattern<Self>, grads: &CudaSlice<T>, alpha_tilde: &CudaSlice<T>, values: &mut CudaSlice<T>) -> Result<(), String> {
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
    fn soft_attachments(&self, a: &mut DeviceSoftAttachments<Self>, x: &mut CudaSlice<T>, inv_mass: &CudaSlice<T>, h: f64) -> Result<(), String> {
        let h = T::from_f64(h);
        let mut l = self.builder("soft_attachments");
        l.arg(x).arg(inv_mass).arg(&a.vertex).arg(&a.origin).arg(&a.velocity).arg(&a.compliance).arg(&mut a.lambda).arg(&h).arg(&a.time).arg(&a.count);
        launch(l, grid(a.count), "soft_attachments")
    }
    fn evaluate_rows(&self, rows: &DeviceRows<Self>, x: &CudaSlice<T>, c: &mut CudaSlice<T>, grads: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("evaluate_rows");
        l.arg(c).arg(grads).arg(&rows.kind).arg(&rows.row_vertex).arg(&rows.row_data).arg(x).arg(&rows.count);
        launch(l, grid(rows.count), "evaluate_rows")
    }
    fn evaluate_arap_components(&self, rows: &DeviceRows<Self>, x: &CudaSlice<T>, c: &mut CudaSlice<T>, grads: &mut CudaSlice<T>) -> Result<(), String> {
        let mut l = self.builder("evaluate_arap_components");
        l.arg(c).arg(grads).arg(&rows.first_row).arg(&rows.row_vertex).arg(&rows.row_data).arg(x).arg(&rows.guard).arg(&rows.arap_elements);
        launch(l, grid(rows.arap_elements), "evaluate_arap_components")
    }
    fn dual_rhs(&self, c: &CudaSlice<T>, alpha_tilde: &CudaSlice<T>, lambda: &CudaSlice<T>, b: &mut CudaSlice<T>) -> Result<(), String> {
        let n = c.len() as u32;
        let mut l = self.builder("dual_rhs");
        l.arg(b).arg(c).arg(alpha_tilde).arg(lambda).arg(&n);
        launch(l, grid(n), "dual_rhs")
    }
    fn inertia_term(&self, x: &CudaSlice<T>, x_tilde: &CudaSlice<T>, corr: &CudaSlice<T>, inv_mass: &CudaSlice<T>, q: &mut CudaSlice<T>) -> Result<(), String> {
        let n = inv_mass.len() as u32;
        let mut l = self.builder("inertia_term");
        l.arg(q).arg(x).arg(x_tilde).arg(corr).arg(inv_mass).arg(&n);
        launch(l, grid(n), "inertia_term")
    }
}
