//! The CUDA runtime of the crate: whether a driver and device answer ([`probe`](mod@probe)), the built-in PTX
//! modules (or their NVRTC fallback), a device's context and stream ([`GpuContext`]), the kernel scalar types,
//! how launches are shaped,
//! and the solve phase's kernels loaded on a context ([`CudaOps`]).

pub mod cache_dir;
pub mod context;
pub mod cuda_ops;
pub mod launch;
pub mod nvrtc;
pub mod probe;
pub mod ptx;
pub mod scalar;

pub use context::GpuContext;
pub use cuda_ops::CudaOps;
pub use probe::DeviceInfo;
pub use scalar::KernelScalar;
