//! The CUDA backend of the XPBD workspace.
//!
//! `build.rs` compiles every `kernels/*.cu` of the workspace to PTX with nvcc (when one is found) and embeds the
//! text; [`ptx_modules`] lists it. At run time [`probe`] says whether a CUDA driver and device answer and the
//! kernels can run there, and gives the reason in words when not. [`GpuContext`] holds a device's context, stream
//! and loaded modules; [`GpuPredict`] runs the prediction kernels (the first GPU path, with a parity test against
//! [`reference`](mod@reference)). MGPBD's solve phase (issue 7): [`amg_ops::LinearOps`] and its drivers
//! [`amg_device`], [`pcg_device`], [`primal_device`], the plain-CG baseline [`dual_device`] and the row evaluation
//! [`rows_device`], one outer iteration [`outer_device`] and the substep loop around it [`mgpbd_backend`] (which
//! [`CudaBackend`] runs for MGPBD scenes), on the GPU through [`CudaOps`].
//!
//! libcuda is opened at run time (cudarc's `dynamic-loading`), so this crate builds and its tests pass on machines
//! with no CUDA at all; nothing here panics for lack of a driver or device. See `docs/cuda.md`.

pub mod amg_device;
pub mod amg_ops;
pub mod attachments_device;
mod backend;
mod context;
mod cuda_ops;
mod device_model;
pub mod dual_device;
mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}
pub mod layout;
pub mod mgpbd_backend;
pub mod outer_device;
pub mod pcg_device;
mod predict;
pub mod primal_device;
mod probe;
pub mod reference;
pub mod rows_device;
mod scalar;

pub use backend::{CudaBackend, CudaOptions, Precision};
pub use context::GpuContext;
pub use cuda_ops::{CudaOps, SOLVE_KERNELS};
pub use predict::GpuPredict;
pub use probe::{devices, driver_version, probe, probe_ordinal, DeviceInfo, MIN_COMPUTE_CAPABILITY};
pub use scalar::KernelScalar;

/// The PTX modules built into this crate: `(name, PTX text)`, one per `kernels/<name>.cu`, sorted by name.
/// Empty when the crate was built without nvcc.
pub fn ptx_modules() -> &'static [(&'static str, &'static str)] {
    kernels::PTX
}

/// The PTX text of module `name` (`kernels/<name>.cu`), if it was built.
pub fn ptx_module(name: &str) -> Option<&'static str> {
    kernels::PTX.iter().find(|(n, _)| *n == name).map(|(_, ptx)| *ptx)
}

/// Whether `CudaBackend` has passed its parity tests (`tests/backend_parity.rs`) on a GPU. Until then the
/// dispatcher's `auto` does not choose it and only an explicit `--device cuda` runs it (docs/gpu.md): the kernels
/// are checked against the CPU backend only as host C++ (`tests/host_kernels.rs`). The first session with a GPU
/// sets this after `bash benches/gpu/run.sh` passes.
pub const VALIDATED_ON_GPU: bool = false;

/// Whether nvcc compiled the kernels into this build.
pub fn built_with_kernels() -> bool {
    cfg!(xpbd_has_ptx) && !kernels::PTX.is_empty()
}

/// Why this build has no kernels ("built without kernels: nvcc was not found at build time", ...); `None` when
/// it has them.
pub fn no_kernels_reason() -> Option<&'static str> {
    (!built_with_kernels()).then_some(if kernels::NO_KERNELS_REASON.is_empty() { "built without kernels" } else { kernels::NO_KERNELS_REASON })
}

/// How the kernels were built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    /// The nvcc that compiled them, if one was found.
    pub nvcc_path: Option<&'static str>,
    /// Where build.rs found it: "$NVCC", "$CUDA_HOME/bin", "$CUDA_PATH/bin", "PATH" or ".toolchain/cuda/bin".
    pub nvcc_origin: Option<&'static str>,
    /// nvcc's release, "X.Y" (e.g. "13.0"). A driver must support at least this CUDA version to load the PTX.
    pub nvcc_release: Option<&'static str>,
    /// The PTX ISA version of the modules, "X.Y" (e.g. "9.0").
    pub ptx_isa: Option<&'static str>,
}

/// How the kernels were built (all `None` without nvcc).
pub fn build_info() -> BuildInfo {
    BuildInfo { nvcc_path: kernels::NVCC_PATH, nvcc_origin: kernels::NVCC_ORIGIN, nvcc_release: kernels::NVCC_RELEASE, ptx_isa: kernels::PTX_ISA }
}
