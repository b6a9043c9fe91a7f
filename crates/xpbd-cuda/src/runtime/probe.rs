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
    /// The device's UUID as `nvidia-smi -L` writes it ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"), if the driver
    /// gives one: tells two devices of the same name apart.
    pub uuid: Option<String>,
    /// (major, minor), e.g. (9, 0).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors: how many blocks a launch needs to reach all of them ([`crate::runtime::launch::spread`]).
    pub multiprocessors: u32,
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

/// The kernel driver's release, e.g. "580.159.04", from `/proc/driver/nvidia/version` (Linux); `None` where
/// that file is missing or unreadable. The CUDA driver API gives only the CUDA version ([`driver_version`]).
pub fn driver_release() -> Option<String> {
    std::fs::read_to_string("/proc/driver/nvidia/version").ok().as_deref().and_then(parse_driver_release)
}

/// The release in the text of `/proc/driver/nvidia/version`: the first word of the `NVRM version:` line that
/// starts with a digit ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ...").
fn parse_driver_release(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM version:"))?;
    line.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.')).map(str::to_owned)
}

/// `nvidia-smi`'s spelling of a device UUID: "GPU-" and the 16 bytes in hex, grouped 4-2-2-2-6.
fn format_uuid(bytes: &[u8; 16]) -> String {
    let hex = |range: std::ops::Range<usize>| bytes[range].iter().map(|b| format!("{b:02x}")).collect::<String>();
    format!("GPU-{}-{}-{}-{}-{}", hex(0..4), hex(4..6), hex(6..8), hex(8..10), hex(10..16))
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
            let message = xpbd_core::error::panic_message(payload.as_ref()).unwrap_or("unknown panic");
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
        let multiprocessors = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(|e| fail("multiprocessor count", e))?;
        let total_memory_bytes = unsafe { result::device::total_mem(dev) }.map_err(|e| fail("memory size", e))?;
        // Optional: an old driver without `cuDeviceGetUuid` still describes its device.
        let uuid = guarded(|| result::device::get_uuid(dev).map_err(|e| fail("UUID", e))).ok().map(|u| format_uuid(&u.bytes.map(|b| b as u8)));
        Ok(DeviceInfo {
            ordinal,
            name,
            uuid,
            compute_capability: (major, minor),
            multiprocessors: multiprocessors.max(1) as u32,
            total_memory_bytes,
            driver_version,
        })
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
    fn driver_releases_parse() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 18:39:21 UTC 2025\nGCC version:  gcc version 12.2.0\n";
        assert_eq!(parse_driver_release(text).as_deref(), Some("580.159.04"));
        assert_eq!(parse_driver_release("GCC version: 12.2.0"), None);
    }

    #[test]
    fn uuids_are_written_as_nvidia_smi_does() {
        let bytes = [0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef];
        assert_eq!(format_uuid(&bytes), "GPU-12345678-9abc-def0-0123-456789abcdef");
    }

    #[test]
    fn guarded_turns_panics_into_errors() {
        let r: Result<()> = guarded(|| panic!("Missing symbol cuFoo"));
        assert!(r.unwrap_err().to_string().contains("Missing symbol cuFoo"));
    }
}
