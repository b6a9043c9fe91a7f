//! The operations of MGPBD's solve phase on a device (`kernels/amg_solve.cu`, `kernels/primal.cu`), as a trait:
//! the drivers (`amg_device.rs`, `pcg_device.rs`, `primal_device.rs`) are written once against it, run on the GPU
//! through [`crate::CudaOps`], and on the same kernels compiled as host C++ in `tests/host_amg.rs` (no GPU needed).
//! Also the flat device form of a CSR matrix and of a vertex→rows incidence, built on the CPU.

use xpbd_core::sparse::Csr;

use crate::KernelScalar;

/// Buffers of a device and the kernels over them. Every method is one launch (or a copy); the only values that
/// come back to the host are [`LinearOps::dot`]'s scalar and [`LinearOps::dense_cholesky`]'s status.
pub trait LinearOps {
    type T: KernelScalar;
    /// A device array of `T`.
    type Vector;
    /// A device array of `u32`.
    type Indices;

    fn upload(&self, a: &[Self::T]) -> Result<Self::Vector, String>;
    fn upload_indices(&self, a: &[u32]) -> Result<Self::Indices, String>;
    fn zeros(&self, n: usize) -> Result<Self::Vector, String>;
    fn download(&self, a: &Self::Vector) -> Result<Vec<Self::T>, String>;
    /// Overwrites `dst` (of the same length) from the host.
    fn write(&self, src: &[Self::T], dst: &mut Self::Vector) -> Result<(), String>;
    fn copy(&self, src: &Self::Vector, dst: &mut Self::Vector) -> Result<(), String>;
    fn set_zero(&self, a: &mut Self::Vector) -> Result<(), String>;
    fn len(a: &Self::Vector) -> usize;
    /// Waits until every launch so far has finished (for the phase times of `outer_device`).
    fn synchronize(&self) -> Result<(), String>;

    /// `y = A x`.
    fn spmv(&self, a: &DeviceCsr<Self>, x: &Self::Vector, y: &mut Self::Vector) -> Result<(), String>;
    /// `r = b − A x`.
    fn residual(&self, a: &DeviceCsr<Self>, b: &Self::Vector, x: &Self::Vector, r: &mut Self::Vector) -> Result<(), String>;
    /// `y += A x`.
    fn spmv_add(&self, a: &DeviceCsr<Self>, x: &Self::Vector, y: &mut Self::Vector) -> Result<(), String>;
    /// `inv_diag = 1 / diag(A)` (0 where the diagonal is 0).
    fn inverse_diagonal(&self, a: &DeviceCsr<Self>, inv_diag: &mut Self::Vector) -> Result<(), String>;
    /// `x += ω D⁻¹ (b − r)`.
    fn jacobi_sweep(&self, x: &mut Self::Vector, r: &Self::Vector, b: &Self::Vector, inv_diag: &Self::Vector, omega: Self::T) -> Result<(), String>;
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
    ) -> Result<(), String>;
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
    ) -> Result<(), String>;
    /// `c = a b` on `c`'s pattern, which holds every structural product (Gustavson's order, as the CPU's product).
    fn csr_product(&self, a: &DeviceCsr<Self>, b: &DeviceCsr<Self>, c: &mut DeviceCsr<Self>) -> Result<(), String>;
    /// The n × n row-major dense form of `a`.
    fn dense_scatter(&self, a: &DeviceCsr<Self>, dense: &mut Self::Vector) -> Result<(), String>;
    /// In-place Cholesky of the n × n `dense`; `Ok(false)` when a pivot was not positive.
    fn dense_cholesky(&self, dense: &mut Self::Vector, n: u32, status: &mut Self::Indices) -> Result<bool, String>;
    /// `x = (L Lᵀ)⁻¹ b`.
    fn cholesky_solve(&self, factor: &Self::Vector, n: u32, b: &Self::Vector, x: &mut Self::Vector) -> Result<(), String>;
    /// `y += a x`.
    fn axpy(&self, y: &mut Self::Vector, a: Self::T, x: &Self::Vector) -> Result<(), String>;
    /// `y = x + β y`.
    fn xpay(&self, y: &mut Self::Vector, x: &Self::Vector, beta: Self::T) -> Result<(), String>;
    /// `x += α p; r −= α ap`.
    fn cg_step(&self, x: &mut Self::Vector, r: &mut Self::Vector, p: &Self::Vector, ap: &Self::Vector, alpha: Self::T) -> Result<(), String>;
    /// `out = s ∘ (b − v)`.
    fn scaled_difference(&self, out: &mut Self::Vector, s: &Self::Vector, b: &Self::Vector, v: &Self::Vector) -> Result<(), String>;
    /// `aᵀ b`, by block partial sums and one block summing them (a fixed order: reproducible), read back.
    fn dot(&mut self, a: &Self::Vector, b: &Self::Vector) -> Result<f64, String>;

    /// The values of K on the device pattern from the rows' gradients (`kernels/primal.cu`).
    fn primal_fill(
        &self,
        k: &crate::primal_device::DevicePrimalPattern<Self>,
        grads: &Self::Vector,
        inv_alpha: &Self::Vector,
        values: &mut Self::Vector,
    ) -> Result<(), String>;
    /// `out_u = w_u Σ_(r,a) ∇_a C_r s_r λ_r` per vertex of the incidence.
    #[allow(clippy::too_many_arguments)]
    fn jacobian_transpose(
        &self,
        inc: &DeviceIncidence<Self>,
        grads: &Self::Vector,
        s: &Self::Vector,
        lambda: &Self::Vector,
        w: &Self::Vector,
        out: &mut Self::Vector,
    ) -> Result<(), String>;
    /// `out_r = Σ_a scale_u ∇_a C_r · y_u` per row, u = `row_index[4 r + a]` (a free index or a vertex; slots
    /// with `u32::MAX` skipped).
    fn jacobian_rows(
        &self,
        row_index: &Self::Indices,
        rows: u32,
        grads: &Self::Vector,
        scale: &Self::Vector,
        y: &Self::Vector,
        out: &mut Self::Vector,
    ) -> Result<(), String>;
    /// C and ∇C of every row at positions `x` (`kernels/mgpbd_rows.cu`).
    fn evaluate_rows(
        &self,
        rows: &crate::rows_device::DeviceRows<Self>,
        x: &Self::Vector,
        c: &mut Self::Vector,
        grads: &mut Self::Vector,
    ) -> Result<(), String>;
    /// C and ∇C of the ARAP component rows, one polar decomposition per element (`kernels/mgpbd_rows.cu`).
    fn evaluate_arap_components(
        &self,
        rows: &crate::rows_device::DeviceRows<Self>,
        x: &Self::Vector,
        c: &mut Self::Vector,
        grads: &mut Self::Vector,
    ) -> Result<(), String>;
    /// `q_v = x_v − x̃_v − corr_v` at free vertices, 0 at pinned ones (`inv_mass` per vertex).
    fn inertia_term(&self, x: &Self::Vector, x_tilde: &Self::Vector, corr: &Self::Vector, inv_mass: &Self::Vector, q: &mut Self::Vector) -> Result<(), String>;
    /// `b = −(c + α̃ λ)`.
    fn dual_rhs(&self, c: &Self::Vector, alpha_tilde: &Self::Vector, lambda: &Self::Vector, b: &mut Self::Vector) -> Result<(), String>;
    /// The values of the dual matrix A on the device pattern (`kernels/dual.cu`).
    fn dual_fill(
        &self,
        a: &crate::dual_device::DeviceDualPattern<Self>,
        grads: &Self::Vector,
        alpha_tilde: &Self::Vector,
        values: &mut Self::Vector,
    ) -> Result<(), String>;
    /// One pass over the soft attachments on positions `x` at substep `h` (`kernels/boundary.cu`).
    fn soft_attachments(
        &self,
        a: &mut crate::attachments_device::DeviceSoftAttachments<Self>,
        x: &mut Self::Vector,
        inv_mass: &Self::Vector,
        h: f64,
    ) -> Result<(), String>;
}

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
    pub fn upload(ops: &O, start: &[usize], rows: &[(u32, u8)]) -> Result<Self, String> {
        Ok(DeviceIncidence {
            count: (start.len() - 1) as u32,
            start: ops.upload_indices(&start.iter().map(|&v| v as u32).collect::<Vec<_>>())?,
            row: ops.upload_indices(&nonempty(&rows.iter().map(|e| e.0).collect::<Vec<_>>()))?,
            slot: ops.upload_indices(&nonempty(&rows.iter().map(|e| e.1 as u32).collect::<Vec<_>>()))?,
        })
    }
}

/// The rows' gradients as the kernels read them: 12 scalars per row (4 slots × 3).
pub fn flat_gradients<T: KernelScalar>(grads: &[[xpbd_core::mesh::Vec3; 4]]) -> Vec<T> {
    grads.iter().flat_map(|g| g.iter().flat_map(|v| [v.x, v.y, v.z])).map(T::from_f64).collect()
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
    pub fn upload(ops: &O, a: &Csr) -> Result<Self, String> {
        let (row_ptr, col) = csr_indices(a);
        let val = nonempty(&to_t(a.data()));
        Ok(DeviceCsr { rows: a.rows() as u32, row_ptr: ops.upload_indices(&row_ptr)?, col: ops.upload_indices(&nonempty(&col))?, val: ops.upload(&val)? })
    }

    /// Uploads the pattern of `a` with zero values (filled on the device).
    pub fn pattern_of(ops: &O, a: &Csr) -> Result<Self, String> {
        let (row_ptr, col) = csr_indices(a);
        Self::pattern(ops, a.rows(), &row_ptr, &col)
    }

    /// Uploads the pattern `(row_ptr, col)` with zero values (filled on the device).
    pub fn pattern(ops: &O, rows: usize, row_ptr: &[u32], col: &[u32]) -> Result<Self, String> {
        Ok(DeviceCsr { rows: rows as u32, row_ptr: ops.upload_indices(row_ptr)?, col: ops.upload_indices(&nonempty(col))?, val: ops.zeros(col.len().max(1))? })
    }
}

/// `a`, or one default element when empty (a device allocation cannot be empty).
pub fn nonempty<T: Copy + Default>(a: &[T]) -> Vec<T> {
    if a.is_empty() {
        vec![T::default()]
    } else {
        a.to_vec()
    }
}

/// `a`'s row pointers and column indices as `u32`.
pub fn csr_indices(a: &Csr) -> (Vec<u32>, Vec<u32>) {
    (a.indptr().raw_storage().iter().map(|&p| p as u32).collect(), a.indices().iter().map(|&c| c as u32).collect())
}

pub fn to_t<T: KernelScalar>(a: &[f64]) -> Vec<T> {
    a.iter().map(|&v| T::from_f64(v)).collect()
}
