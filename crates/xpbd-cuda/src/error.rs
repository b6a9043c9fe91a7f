//! The crate's error: what went wrong on the device or why it cannot run, in one line of words.

use cudarc::driver::DriverError;

/// Why a CUDA operation failed or cannot run. Its `Display` is the one-line reason users see; at the `Backend`
/// boundary it becomes `xpbd_core::Error::backend("CUDA", reason)`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CudaError {
    /// A driver call failed while doing `action` ("uploading on the GPU", "could not create a CUDA stream on
    /// device 0", ...).
    #[error("{action}: {source}")]
    Driver { action: String, source: DriverError },
    /// The kernels are missing: the crate was built without nvcc, or a module was not built.
    #[error("{0}")]
    NoKernels(String),
    /// No driver or device answers, or the device cannot run the kernels.
    #[error("{0}")]
    NoDevice(String),
    /// A model, solver or setting the GPU path does not run.
    #[error("{0}")]
    Unsupported(String),
    /// A check on the host failed: arrays of the wrong length, steps in the wrong order, a matrix that is not
    /// positive definite.
    #[error("{0}")]
    Check(String),
}

/// The crate's results.
pub type Result<T, E = CudaError> = std::result::Result<T, E>;

impl CudaError {
    /// The error of a driver call made while doing `what` on the GPU, for `map_err`.
    pub fn on_gpu(what: &str) -> impl Fn(DriverError) -> CudaError + '_ {
        move |source| CudaError::Driver { action: format!("{what} on the GPU"), source }
    }
}

impl From<CudaError> for xpbd_core::Error {
    /// A device error while stepping, as the run records it.
    fn from(e: CudaError) -> Self {
        xpbd_core::Error::backend("CUDA", e.to_string())
    }
}
