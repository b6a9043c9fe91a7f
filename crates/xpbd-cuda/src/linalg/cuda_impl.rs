//! [`LinearOps`] on a CUDA device ([`CudaOps`]): each method is one launch of a kernel of `kernels/amg_solve.cu`
//! on the context's stream (blocks of [`BLOCK`](crate::runtime::launch::BLOCK) threads, grid-stride; the
//! single-block kernels on one block), or a copy.

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use crate::error::{CudaError, Result};
use crate::linalg::{DeviceCsr, LinearOps};
use crate::runtime::cuda_ops::{launch, DOT_BLOCKS};
use crate::runtime::launch::{blocks, grid, ONE_BLOCK};
use crate::runtime::{CudaOps, KernelScalar};

impl<T: KernelScalar> LinearOps for CudaOps<T> {
    type T = T;
    type Vector = CudaSlice<T>;
    type Indices = CudaSlice<u32>;

    fn upload(&self, a: &[T]) -> Result<CudaSlice<T>> {
        self.gpu.stream().clone_htod(a).map_err(CudaError::on_gpu("uploading"))
    }
    fn upload_indices(&self, a: &[u32]) -> Result<CudaSlice<u32>> {
        self.gpu.stream().clone_htod(a).map_err(CudaError::on_gpu("uploading"))
    }
    fn zeros(&self, n: usize) -> Result<CudaSlice<T>> {
        self.gpu.stream().alloc_zeros(n.max(1)).map_err(CudaError::on_gpu("allocating"))
    }
    fn download(&self, a: &CudaSlice<T>) -> Result<Vec<T>> {
        self.gpu.stream().clone_dtoh(a).map_err(CudaError::on_gpu("downloading"))
    }
    fn write(&self, src: &[T], dst: &mut CudaSlice<T>) -> Result<()> {
        self.gpu.stream().memcpy_htod(src, dst).map_err(CudaError::on_gpu("uploading"))
    }
    fn copy(&self, src: &CudaSlice<T>, dst: &mut CudaSlice<T>) -> Result<()> {
        self.gpu.stream().memcpy_dtod(src, dst).map_err(CudaError::on_gpu("copying"))
    }
    fn set_zero(&self, a: &mut CudaSlice<T>) -> Result<()> {
        self.gpu.stream().memset_zeros(a).map_err(CudaError::on_gpu("zeroing"))
    }
    fn len(a: &CudaSlice<T>) -> usize {
        a.len()
    }
    fn synchronize(&self) -> Result<()> {
        self.gpu.stream().synchronize().map_err(CudaError::on_gpu("synchronizing"))
    }

    fn spmv(&self, a: &DeviceCsr<Self>, x: &CudaSlice<T>, y: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("csr_spmv");
        l.arg(y).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(x).arg(&a.rows);
        launch(l, grid(a.rows), "csr_spmv")
    }
    fn residual(&self, a: &DeviceCsr<Self>, b: &CudaSlice<T>, x: &CudaSlice<T>, r: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("csr_residual");
        l.arg(r).arg(b).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(x).arg(&a.rows);
        launch(l, grid(a.rows), "csr_residual")
    }
    fn spmv_add(&self, a: &DeviceCsr<Self>, x: &CudaSlice<T>, y: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("csr_spmv_add");
        l.arg(y).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(x).arg(&a.rows);
        launch(l, grid(a.rows), "csr_spmv_add")
    }
    fn inverse_diagonal(&self, a: &DeviceCsr<Self>, inv_diag: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("inverse_diagonal");
        l.arg(inv_diag).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(&a.rows);
        launch(l, grid(a.rows), "inverse_diagonal")
    }
    fn jacobi_sweep(&self, x: &mut CudaSlice<T>, r: &CudaSlice<T>, b: &CudaSlice<T>, inv_diag: &CudaSlice<T>, omega: T) -> Result<()> {
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
    ) -> Result<()> {
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
    ) -> Result<()> {
        let mut l = self.builder("gauss_seidel_color");
        l.arg(x).arg(b).arg(inv_diag).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(rows).arg(&first).arg(&count);
        launch(l, grid(count), "gauss_seidel_color")
    }
    fn csr_product(&self, a: &DeviceCsr<Self>, b: &DeviceCsr<Self>, c: &mut DeviceCsr<Self>) -> Result<()> {
        let mut l = self.builder("csr_product");
        // One thread per stored entry of c (kernels/amg_solve.cu); c's values have nnz entries (one when empty).
        let nnz = c.val.len() as u32;
        l.arg(&mut c.val).arg(&c.row_ptr).arg(&c.col).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(&b.row_ptr).arg(&b.col).arg(&b.val).arg(&c.rows).arg(&nnz);
        launch(l, grid(nnz), "csr_product")
    }
    fn dense_scatter(&self, a: &DeviceCsr<Self>, dense: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("dense_scatter");
        l.arg(dense).arg(&a.row_ptr).arg(&a.col).arg(&a.val).arg(&a.rows);
        launch(l, grid(a.rows), "dense_scatter")
    }
    fn dense_cholesky(&self, dense: &mut CudaSlice<T>, n: u32, status: &mut CudaSlice<u32>) -> Result<bool> {
        let mut l = self.builder("dense_cholesky");
        l.arg(dense).arg(&n).arg(&mut *status);
        launch(l, ONE_BLOCK, "dense_cholesky")?;
        let status = self.gpu.stream().clone_dtoh(status).map_err(CudaError::on_gpu("reading the Cholesky status"))?;
        Ok(status[0] == 0)
    }
    fn cholesky_solve(&self, factor: &CudaSlice<T>, n: u32, b: &CudaSlice<T>, x: &mut CudaSlice<T>) -> Result<()> {
        let mut l = self.builder("cholesky_solve");
        l.arg(factor).arg(b).arg(x).arg(&n);
        launch(l, ONE_BLOCK, "cholesky_solve")
    }
    fn axpy(&self, y: &mut CudaSlice<T>, a: T, x: &CudaSlice<T>) -> Result<()> {
        let n = x.len() as u32;
        let mut l = self.builder("axpy");
        l.arg(y).arg(&a).arg(x).arg(&n);
        launch(l, grid(n), "axpy")
    }
    fn xpay(&self, y: &mut CudaSlice<T>, x: &CudaSlice<T>, beta: T) -> Result<()> {
        let n = x.len() as u32;
        let mut l = self.builder("xpay");
        l.arg(y).arg(x).arg(&beta).arg(&n);
        launch(l, grid(n), "xpay")
    }
    fn cg_step(&self, x: &mut CudaSlice<T>, r: &mut CudaSlice<T>, p: &CudaSlice<T>, ap: &CudaSlice<T>, alpha: T) -> Result<()> {
        let n = p.len() as u32;
        let mut l = self.builder("cg_step");
        l.arg(x).arg(r).arg(p).arg(ap).arg(&alpha).arg(&n);
        launch(l, grid(n), "cg_step")
    }
    fn scaled_difference(&self, out: &mut CudaSlice<T>, s: &CudaSlice<T>, b: &CudaSlice<T>, v: &CudaSlice<T>) -> Result<()> {
        let n = b.len() as u32;
        let mut l = self.builder("scaled_difference");
        l.arg(out).arg(s).arg(b).arg(v).arg(&n);
        launch(l, grid(n), "scaled_difference")
    }
    fn dot(&mut self, a: &CudaSlice<T>, b: &CudaSlice<T>) -> Result<f64> {
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
        Ok(stream.clone_dtoh(&self.scalar).map_err(CudaError::on_gpu("reading a dot product"))?[0].to_f64())
    }
}
