//! The crate's errors.

/// A device error while stepping, as the run records it.
pub(crate) fn failure(message: String) -> xpbd_core::Error {
    xpbd_core::Error::backend("CUDA", message)
}
