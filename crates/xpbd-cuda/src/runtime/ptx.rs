//! The PTX modules `build.rs` compiled from `kernels/*.cu` with nvcc (when one was found), and how they were built.

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
