//! Linear algebra on a device (`kernels/amg_solve.cu`), as a trait of buffers and the kernels over them: vectors,
//! CSR matrices, SpMV, relaxations, products, axpy-like updates and dot products. The drivers (`amg.rs`, `pcg.rs`
//! and MGPBD's on top, through its extension `mgpbd::MgpbdOps`) are written once against it, run on the GPU
//! through [`crate::CudaOps`], and on the same kernels compiled as host C++ in the tests (no GPU needed). Also the
//! flat device form of a CSR matrix, built on the CPU.

use xpbd_core::sparse::Csr;

use crate::convert::{narrow, nonempty, to_t};
use crate::error::Result;
use crate::runtime::KernelScalar;

/// Buffers of a device and the kernels over them. Every method is one launch (or a copy); the only values that
/// come back to the host are [`LinearOps::dot`]'s scalar and [`LinearOps::dense_cholesky`]'s status.
pub trait LinearOps {
    type T: KernelScalar;
    /// A device array of `T`.
    type Vector;
    /// A device array of `u32`.
    type Indices;

    fn upload(&self, a: &[Self::T]) -> Result<Self::Vector>;
    fn upload_indices(&self, a: &[u32]) -> Result<Self::Indices>;
    fn zeros(&self, n: usize) -> Result<Self::Vector>;
    fn download(&self, a: &Self::Vector) -> Result<Vec<Self::T>>;
    /// Overwrites `dst` (of the same length) from the host.
    fn write(&self, src: &[Self::T], dst: &mut Self::Vector) -> Result<()>;
    fn copy(&self, src: &Self::Vector, dst: &mut Self::Vector) -> Result<()>;
    fn set_zero(&self, a: &mut Self::Vector) -> Result<()>;
    fn len(a: &Self::Vector) -> usize;
    /// Waits until every launch so far has finished (for phase times).
    fn synchronize(&self) -> Result<()>;

    /// `y = A x`.
    fn spmv(&self, a: &DeviceCsr<Self>, x: &Self::Vector, y: &mut Self::Vector) -> Result<()>;
    /// `r = b − A x`.
    fn residual(&self, a: &DeviceCsr<Self>, b: &Self::Vector, x: &Self::Vector, r: &mut Self::Vector) -> Result<()>;
    /// `y += A x`.
    fn spmv_add(&self, a: &DeviceCsr<Self>, x: &Self::Vector, y: &mut Self::Vector) -> Result<()>;
    /// `inv_diag = 1 / diag(A)` (0 where the diagonal is 0).
    fn inverse_diagonal(&self, a: &DeviceCsr<Self>, inv_diag: &mut Self::Vector) -> Result<()>;
    /// `x += ω D⁻¹ (b − r)`.
    fn jacobi_sweep(&self, x: &mut Self::Vector, r: &Self::Vector, b: &Self::Vector, inv_diag: &Self::Vector, omega: Self::T) -> Result<()>;
    /// `d = c_d d + c_r D⁻¹ (b − r); x += d` (`d` not read when `c_d = 0`).
    #[allow(clippy::too_many_arguments)]
    fn chebyshev_step(
        &self,
        x: &mut Self::Vector,
        d: &mut Self::Vector,
        r: &Self::Vector,
        b: &Self::Vector,
        inv_diag: &Self::Vector,
        c_d: Self::T,
        c_r: Self::T,
    ) -> Result<()>;
    /// Gauss-Seidel on rows `rows[first..first + count]` (one colour).
    #[allow(clippy::too_many_arguments)]
    fn gauss_seidel_color(
        &self,
        a: &DeviceCsr<Self>,
        b: &Self::Vector,
        inv_diag: &Self::Vector,
        rows: &Self::Indices,
        first: u32,
        count: u32,
        x: &mut Self::Vector,
    ) -> Result<()>;
    /// `c = a b` on `c`'s pattern, which holds every structural product (Gustavson's order, as the CPU's product).
    fn csr_product(&self, a: &DeviceCsr<Self>, b: &DeviceCsr<Self>, c: &mut DeviceCsr<Self>) -> Result<()>;
    /// The n × n row-major dense form of `a`.
    fn dense_scatter(&self, a: &DeviceCsr<Self>, dense: &mut Self::Vector) -> Result<()>;
    /// In-place Cholesky of the n × n `dense`; `Ok(false)` when a pivot was not positive.
    fn dense_cholesky(&self, dense: &mut Self::Vector, n: u32, status: &mut Self::Indices) -> Result<bool>;
    /// `x = (L Lᵀ)⁻¹ b`.
    fn cholesky_solve(&self, factor: &Self::Vector, n: u32, b: &Self::Vector, x: &mut Self::Vector) -> Result<()>;
    /// `y += a x`.
    fn axpy(&self, y: &mut Self::Vector, a: Self::T, x: &Self::Vector) -> Result<()>;
    /// `y = x + β y`.
    fn xpay(&self, y: &mut Self::Vector, x: &Self::Vector, beta: Self::T) -> Result<()>;
    /// `x += α p; r −= α ap`.
    fn cg_step(&self, x: &mut Self::Vector, r: &mut Self::Vector, p: &Self::Vector, ap: &Self::Vector, alpha: Self::T) -> Result<()>;
    /// `out = s ∘ (b − v)`.
    fn scaled_difference(&self, out: &mut Self::Vector, s: &Self::Vector, b: &Self::Vector, v: &Self::Vector) -> Result<()>;
    /// `aᵀ b`, by block partial sums and one block summing them (a fixed order: reproducible), read back.
    fn dot(&mut self, a: &Self::Vector, b: &Self::Vector) -> Result<f64>;
}

/// A CSR matrix on the device: `rows` rows, `row_ptr` (rows + 1), `col` and `val` (nnz each).
pub struct DeviceCsr<O: LinearOps + ?Sized> {
    pub rows: u32,
    pub row_ptr: O::Indices,
    pub col: O::Indices,
    pub val: O::Vector,
}

impl<O: LinearOps> DeviceCsr<O> {
    /// Uploads pattern and values.
    pub fn upload(ops: &O, a: &Csr) -> Result<Self> {
        let (row_ptr, col) = csr_indices(a);
        let val = nonempty(&to_t(a.data()));
        Ok(DeviceCsr { rows: a.rows() as u32, row_ptr: ops.upload_indices(&row_ptr)?, col: ops.upload_indices(&nonempty(&col))?, val: ops.upload(&val)? })
    }

    /// Uploads the pattern of `a` with zero values (filled on the device).
    pub fn pattern_of(ops: &O, a: &Csr) -> Result<Self> {
        let (row_ptr, col) = csr_indices(a);
        Self::pattern(ops, a.rows(), &row_ptr, &col)
    }

    /// Uploads the pattern `(row_ptr, col)` with zero values (filled on the device).
    pub fn pattern(ops: &O, rows: usize, row_ptr: &[u32], col: &[u32]) -> Result<Self> {
        Ok(DeviceCsr { rows: rows as u32, row_ptr: ops.upload_indices(row_ptr)?, col: ops.upload_indices(&nonempty(col))?, val: ops.zeros(col.len().max(1))? })
    }
}

/// `a`'s row pointers and column indices as `u32`.
pub fn csr_indices(a: &Csr) -> (Vec<u32>, Vec<u32>) {
    (narrow(a.indptr().raw_storage()), narrow(a.indices()))
}
