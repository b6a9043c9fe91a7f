//! The PTX modules `build.rs` compiled from `kernels/*.cu` with nvcc (when one was found), and how they were built.

/// The CUDA release of the default toolchain (`scripts/install-cuda-toolchain.sh`: NVRTC 12.0.76 behind
/// scripts/nvrtc-nvcc.py). The oldest CUDA 12, chosen so that the PTX loads on as many drivers as possible.
pub const CUDA_TOOLKIT: &str = "12.0";
/// The PTX ISA version (`.version`) every embedded module has when built by the default toolchain: CUDA 12.0
/// writes PTX ISA 8.0 (NVIDIA, "PTX ISA Release History" in the PTX ISA manual). A driver loads PTX only up to the
/// ISA of its own CUDA version, so this fixes [`MIN_DRIVER_LINUX`]; `tests/ptx_version.rs` fails when it changes.
pub const PTX_ISA: &str = "8.0";
/// The PTX target (`.target`) of every module: `-arch=compute_75` in build.rs, so compute capability 7.5 (Turing)
/// and newer ([`crate::MIN_COMPUTE_CAPABILITY`]).
pub const PTX_TARGET: &str = "sm_75";
/// The oldest Linux x86_64 driver for CUDA 12.0 ("CUDA 12.0 GA: >= 525.60.13", NVIDIA CUDA Toolkit Release Notes,
/// table "CUDA Toolkit and Corresponding Driver Versions"): the oldest that loads PTX ISA [`PTX_ISA`].
pub const MIN_DRIVER_LINUX: &str = "525.60.13";
/// The same for Windows x86_64 ("CUDA 12.0 GA: >= 527.41", same table).
pub const MIN_DRIVER_WINDOWS: &str = "527.41";
/// The CUDA version, as `cuDriverGetVersion` reports it (major, minor), that a driver must support at least.
pub const MIN_DRIVER_CUDA: (i32, i32) = (12, 0);

mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

/// The PTX modules built into this crate: `(name, PTX text)`, one per `kernels/<name>.cu`, sorted by name.
/// Empty when the crate was built without nvcc.
pub fn ptx_modules() -> &'static [(&'static str, &'static str)] {
    kernels::PTX
}

/// Every `kernels/*.cu` and `*.cuh` as `(file name, text)`, embedded whether or not nvcc was found: what the
/// NVRTC fallback compiles (`runtime::nvrtc`).
pub fn kernel_sources() -> &'static [(&'static str, &'static str)] {
    kernels::SOURCES
}

/// The PTX text of module `name` (`kernels/<name>.cu`), if it was built.
pub fn ptx_module(name: &str) -> Option<&'static str> {
    kernels::PTX.iter().find(|(n, _)| *n == name).map(|(_, ptx)| *ptx)
}

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
    /// Where build.rs found it: "$NVCC", "$CUDA_HOME/bin", "$CUDA_PATH/bin", "PATH", "/usr/local/cuda/bin" or
    /// ".toolchain/cuda/bin".
    pub nvcc_origin: Option<&'static str>,
    /// nvcc's release, "X.Y" (e.g. "12.0"). A driver must support at least this CUDA version to load the PTX.
    pub nvcc_release: Option<&'static str>,
    /// The PTX ISA version of the modules, "X.Y" (e.g. "8.0", [`PTX_ISA`] with the default toolchain).
    pub ptx_isa: Option<&'static str>,
}

/// How the kernels were built (all `None` without nvcc).
pub fn build_info() -> BuildInfo {
    BuildInfo { nvcc_path: kernels::NVCC_PATH, nvcc_origin: kernels::NVCC_ORIGIN, nvcc_release: kernels::NVCC_RELEASE, ptx_isa: kernels::PTX_ISA }
}
