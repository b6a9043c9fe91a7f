//! Is there a CUDA driver and device, and can the built-in kernels run there? Never panics: a missing
//! `libcuda.so` is checked for before cudarc touches it, and cudarc's calls run under `catch_unwind`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use cudarc::driver::{result, sys, DriverError};

use crate::error::{CudaError, Result};

/// The oldest compute capability the PTX (built for `compute_75`) runs on.
pub const MIN_COMPUTE_CAPABILITY: (i32, i32) = (7, 5);

/// One CUDA device, as the driver describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The driver's device ordinal (after `CUDA_VISIBLE_DEVICES`).
    pub ordinal: usize,
    /// e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// (major, minor), e.g. (9, 0).
    pub compute_capability: (i32, i32),
    pub total_memory_bytes: usize,
    /// The CUDA version the driver supports, (major, minor), e.g. (13, 0).
    pub driver_version: (i32, i32),
}

const NO_DRIVER: &str = "no CUDA driver found (libcuda.so could not be loaded)";
const NO_DEVICE: &str = "no CUDA device found";

/// Device 0, if the kernels are built in, a CUDA driver loads, and device 0 can run them.
/// `Err` is the reason in words, e.g. "built without kernels: nvcc was not found at build time",
/// "no CUDA driver found (libcuda.so could not be loaded)", "no CUDA device found".
pub fn probe() -> Result<DeviceInfo> {
    probe_ordinal(0)
}

/// Like [`probe`], for device `ordinal`.
pub fn probe_ordinal(ordinal: usize) -> Result<DeviceInfo> {
    if let Some(reason) = crate::runtime::ptx::no_kernels_reason() {
        return Err(CudaError::NoKernels(reason.to_owned()));
    }
    let info = device_info(ordinal)?;
    if info.compute_capability < MIN_COMPUTE_CAPABILITY {
        return Err(CudaError::NoDevice(format!(
            "CUDA device {ordinal} ({}) has compute capability {}.{}; the kernels need {}.{} or newer",
            info.name, info.compute_capability.0, info.compute_capability.1, MIN_COMPUTE_CAPABILITY.0, MIN_COMPUTE_CAPABILITY.1
        )));
    }
    // A driver older than the toolkit rejects the embedded PTX; the device is usable only through NVRTC.
    if let Some(release) = crate::runtime::ptx::build_info().nvcc_release.and_then(parse_version) {
        if info.driver_version < release {
            if let Err(why) = crate::runtime::nvrtc::nvrtc() {
                return Err(CudaError::NoDevice(format!(
                    "the CUDA driver supports CUDA {}.{}, but the kernels were built by nvcc {}.{} (PTX ISA {}) and need \
                     a driver for CUDA {}.{} or newer, and the NVRTC fallback is unavailable: {why}",
                    info.driver_version.0,
                    info.driver_version.1,
                    release.0,
                    release.1,
                    crate::runtime::ptx::build_info().ptx_isa.unwrap_or("?"),
                    release.0,
                    release.1
                )));
            }
        }
    }
    Ok(info)
}

/// Every device the driver sees, whether or not this build has kernels (for `xpbd info`).
pub fn devices() -> Result<Vec<DeviceInfo>> {
    let count = device_count()?;
    (0..count).map(device_info).collect()
}

/// The CUDA version the driver supports, (major, minor).
pub fn driver_version() -> Result<(i32, i32)> {
    init_driver()
}

fn parse_version(text: &str) -> Option<(i32, i32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

fn describe(e: &DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(text) => format!("{name}: {}", text.to_string_lossy()),
        Err(_) => name,
    }
}

/// Runs `f`, turning a panic inside cudarc (e.g. a symbol missing from an old libcuda) into an `Err`.
fn guarded<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("unknown panic");
            Err(CudaError::NoDevice(format!("the CUDA driver library could not be used: {message}")))
        }
    }
}

/// Loads libcuda and runs `cuInit` once per process; the driver's CUDA version or why it failed.
fn init_driver() -> Result<(i32, i32)> {
    static DRIVER: OnceLock<Result<(i32, i32)>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            // cudarc panics when it cannot open libcuda; look first (same names cudarc tries: libcuda.so,
            // libcuda.so.1, ...).
            if !unsafe { sys::is_culib_present() } {
                return Err(CudaError::NoDevice(NO_DRIVER.to_owned()));
            }
            guarded(|| {
                result::init().map_err(|e| match e.0 {
                    sys::CUresult::CUDA_ERROR_NO_DEVICE => CudaError::NoDevice(NO_DEVICE.to_owned()),
                    _ => CudaError::NoDevice(format!("the CUDA driver failed to initialise ({})", describe(&e))),
                })?;
                let mut version = 0;
                unsafe { sys::cuDriverGetVersion(&mut version) }
                    .result()
                    .map_err(|e| CudaError::NoDevice(format!("could not read the CUDA driver version ({})", describe(&e))))?;
                Ok((version / 1000, (version % 1000) / 10))
            })
        })
        .clone()
}

fn device_count() -> Result<usize> {
    init_driver()?;
    let count = guarded(|| result::device::get_count().map_err(|e| CudaError::NoDevice(format!("could not count CUDA devices ({})", describe(&e)))))?;
    match count {
        n if n <= 0 => Err(CudaError::NoDevice(NO_DEVICE.to_owned())),
        n => Ok(n as usize),
    }
}

/// What the driver says about device `ordinal`; does not look at the kernels.
fn device_info(ordinal: usize) -> Result<DeviceInfo> {
    let driver_version = init_driver()?;
    let count = device_count()?;
    if ordinal >= count {
        return Err(CudaError::NoDevice(format!("no CUDA device {ordinal}: the driver sees {count} device(s)")));
    }
    guarded(|| {
        let fail = |what: &str, e: DriverError| CudaError::NoDevice(format!("could not read the {what} of CUDA device {ordinal} ({})", describe(&e)));
        let dev = result::device::get(ordinal as i32).map_err(|e| fail("handle", e))?;
        let name = result::device::get_name(dev).map_err(|e| fail("name", e))?;
        let attribute = |a| unsafe { result::device::get_attribute(dev, a) };
        let major = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR).map_err(|e| fail("compute capability", e))?;
        let minor = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR).map_err(|e| fail("compute capability", e))?;
        let total_memory_bytes = unsafe { result::device::total_mem(dev) }.map_err(|e| fail("memory size", e))?;
        Ok(DeviceInfo { ordinal, name, compute_capability: (major, minor), total_memory_bytes, driver_version })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("13.0"), Some((13, 0)));
        assert_eq!(parse_version("12.9"), Some((12, 9)));
        assert_eq!(parse_version("13"), None);
    }

    #[test]
    fn guarded_turns_panics_into_errors() {
        let r: Result<()> = guarded(|| panic!("Missing symbol cuFoo"));
        assert!(r.unwrap_err().to_string().contains("Missing symbol cuFoo"));
    }
}
