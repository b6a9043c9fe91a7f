//! `CudaOps`: the solve phase's kernels of one precision loaded on a [`GpuContext`], with the buffers of its
//! reductions. The linear algebra (`linalg::LinearOps`) and MGPBD's operations (`mgpbd::MgpbdOps`) are
//! implemented for it in their own rooms, each method one launch on the context's stream.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchArgs, LaunchConfig};

use crate::error::{CudaError, Result};
use crate::runtime::{GpuContext, KernelScalar};

/// Most blocks of the first pass of a dot product (its partial sums are added by one block).
pub const DOT_BLOCKS: u32 = 64;

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
    pub(crate) gpu: Arc<GpuContext>,
    /// Every kernel of [`SOLVE_KERNELS`] by name.
    pub(crate) kernels: HashMap<&'static str, CudaFunction>,
    /// The first pass's partial sums of a dot product ([`DOT_BLOCKS`]) and the second's one scalar.
    pub(crate) partials: CudaSlice<T>,
    pub(crate) scalar: CudaSlice<T>,
}

impl<T: KernelScalar> CudaOps<T> {
    pub fn new(gpu: Arc<GpuContext>) -> Result<Self> {
        let mut kernels = HashMap::new();
        for &(module, name) in SOLVE_KERNELS {
            kernels.insert(name, gpu.function::<T>(module, name)?);
        }
        let s = gpu.stream();
        let e = CudaError::on_gpu("allocating the reduction buffers");
        let partials = s.alloc_zeros(DOT_BLOCKS as usize).map_err(&e)?;
        let scalar = s.alloc_zeros(1).map_err(&e)?;
        Ok(CudaOps { gpu, kernels, partials, scalar })
    }

    /// The arguments of a launch of kernel `name` on the context's stream.
    pub(crate) fn builder(&self, name: &str) -> LaunchArgs<'_> {
        self.gpu.stream().launch_builder(&self.kernels[name])
    }
}

/// Launches kernel `name` with the arguments in `l`.
pub(crate) fn launch(mut l: LaunchArgs<'_>, cfg: LaunchConfig, name: &str) -> Result<()> {
    // SAFETY: every caller pushes the arguments of kernel `name` in the order and types of its C signature in
    // kernels/*.cu, with device arrays of the lengths the kernel indexes (the sizes of the structs they come from).
    unsafe { l.launch(cfg) }.map(|_| ()).map_err(|source| CudaError::Driver { action: format!("kernel {name} on the GPU"), source })
}
