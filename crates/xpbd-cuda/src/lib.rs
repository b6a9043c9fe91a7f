//! The CUDA backend of the XPBD workspace.
//!
//! `build.rs` compiles every `kernels/*.cu` of the workspace to PTX with nvcc (when one is found) and embeds the
//! text; [`ptx_modules`] lists it. At run time [`probe`] says whether a CUDA driver and device answer and the
//! kernels can run there, and gives the reason in words when not. The rooms, lowest first:
//! - `runtime`: the probe, the built-in PTX modules, [`GpuContext`] (a device's context, stream and loaded
//!   modules), [`KernelScalar`], the launch shapes, and [`CudaOps`] (the solve phase's kernels on a context);
//! - [`convert`]: the host ↔ kernel array conversions;
//! - [`linalg`]: [`linalg::LinearOps`] (buffers and algebra, implemented for [`CudaOps`]), the AMG hierarchy and
//!   PCG written once against it;
//! - [`xpbd`]: the XPBD path (layout, device model, substep runner, and [`GpuPredict`] with its
//!   [`reference`](mod@reference));
//! - [`mgpbd`]: MGPBD's solve phase (issue 7) through [`mgpbd::MgpbdOps`], an extension of `LinearOps`: rows,
//!   primal and dual solves, the outer iteration and the substep loop around it;
//! - `backend`: [`CudaBackend`], which picks the XPBD or MGPBD path for a scene;
//! - [`parity`]: how close it must come to the CPU backend (the parity tests' and `xpbd doctor`'s tolerances).
//!
//! The XPBD and MGPBD rooms do not import each other.
//!
//! libcuda is opened at run time (cudarc's `dynamic-loading`), so this crate builds and its tests pass on machines
//! with no CUDA at all; nothing here panics for lack of a driver or device. See `docs/cuda.md`.

mod backend;
mod boundary;
pub mod convert;
mod error;
pub mod linalg;
pub mod mgpbd;
pub mod parity;
mod runtime;
pub mod xpbd;

pub use backend::{CudaBackend, CudaOptions, Precision};
pub use error::{CudaError, Result};
pub use runtime::cuda_ops::SOLVE_KERNELS;
pub use runtime::probe::{devices, driver_release, driver_version, probe, probe_ordinal, DeviceInfo, MIN_COMPUTE_CAPABILITY};
pub use runtime::ptx::{
    build_info, built_with_kernels, kernel_sources, no_kernels_reason, ptx_module, ptx_modules, BuildInfo, CUDA_TOOLKIT, MIN_DRIVER_CUDA, MIN_DRIVER_LINUX,
    MIN_DRIVER_WINDOWS, PTX_ISA, PTX_TARGET,
};
pub use runtime::{cache_dir, nvrtc};
pub use runtime::{CudaOps, GpuContext, KernelScalar};
pub use xpbd::predict::GpuPredict;
pub use xpbd::reference;
