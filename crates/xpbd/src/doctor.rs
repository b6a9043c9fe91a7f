//! `xpbd doctor`: what this binary and machine offer the CUDA backend, and whether it computes what the CPU
//! does. The kernels built in (nvcc, PTX ISA, modules, their hash), the driver (release and CUDA version), each
//! device (name, UUID, compute capability, memory), whether the kernels run and load there, and the self-test
//! ([`crate::selftest`]); a passing self-test is recorded in the validation cache ([`crate::validation`]), which
//! lets the dispatcher's `auto` pick that device. Never panics for lack of a driver, device or kernels: those are
//! [`Report::problems`].

use serde::Serialize;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::selftest::{self, Check, SelfTest};
use crate::validation::{self, Pass, ValidationCache, ValidationKey};

/// What to examine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// One device (`--device cuda:N`); every device the driver sees when `None`.
    pub device: Option<usize>,
    /// Whether to run the self-test on each usable device.
    pub self_test: bool,
}

/// Everything the doctor found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub kernels: Kernels,
    pub driver: Driver,
    pub devices: Vec<DeviceReport>,
    pub cache: Cache,
    /// Every problem found, the most basic first (no driver, no kernels, a device that cannot run them, a module
    /// that does not load, a failed check); empty when the devices examined are ready.
    pub problems: Vec<String>,
}

/// The kernels built into this binary.
#[derive(Clone, Debug, Serialize)]
pub struct Kernels {
    /// Why there are none ("built without kernels: nvcc was not found at build time"), if there are none.
    pub missing: Option<&'static str>,
    pub nvcc: Option<&'static str>,
    /// Where the build found nvcc ("$CUDA_HOME/bin", "PATH", ...).
    pub nvcc_origin: Option<&'static str>,
    pub nvcc_release: Option<&'static str>,
    pub ptx_isa: Option<&'static str>,
    /// The PTX modules, one per `kernels/<name>.cu`.
    pub modules: Vec<&'static str>,
    /// [`validation::kernel_hash`].
    pub hash: Option<&'static str>,
    /// The NVRTC a rejected module would be compiled with ("NVRTC 12.0 (origin)"), if there is one.
    pub nvrtc: Option<String>,
    /// Why there is none, if there is none.
    pub nvrtc_missing: Option<String>,
}

/// The CUDA driver.
#[derive(Clone, Debug, Serialize)]
pub struct Driver {
    /// The CUDA version it supports, "X.Y".
    pub cuda_version: Option<String>,
    /// Its release, e.g. "580.159.04" (Linux; `None` where it cannot be read).
    pub release: Option<String>,
    /// Why no driver answers, if none does.
    pub error: Option<String>,
}

/// One device and what was checked on it.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceReport {
    pub ordinal: usize,
    pub name: String,
    pub uuid: Option<String>,
    /// "X.Y".
    pub compute_capability: String,
    pub memory_bytes: usize,
    /// Why the kernels cannot run on it (compute capability, a driver older than the kernels), if they cannot.
    pub unusable: Option<String>,
    /// Why no context could be made on it, if none could.
    pub context_error: Option<String>,
    /// Each PTX module loaded on it (JIT-compiled by the driver, or compiled by NVRTC where it rejected one).
    pub modules: Vec<ModuleLoad>,
    /// Why the modules came from NVRTC rather than the embedded PTX, if they did (`XPBD_NVRTC=1`, or a driver
    /// that rejected the PTX).
    pub nvrtc: Option<String>,
    /// `None` with `--no-self-test` or where the modules do not load.
    pub self_test: Option<SelfTest>,
    /// Whether this run recorded a pass in the validation cache.
    pub recorded: bool,
    /// Whether `auto` may pick it: the cache holds a pass for it, the running driver and these kernels.
    pub validated: bool,
    /// Why `auto` does not pick it, if it does not (the dispatcher's `device_reason` without "cpu: ").
    pub auto_reason: Option<String>,
}

/// Whether one PTX module loaded.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleLoad {
    pub name: &'static str,
    pub seconds: f64,
    /// Why it did not load, if it did not.
    pub error: Option<String>,
}

/// The validation cache.
#[derive(Clone, Debug, Serialize)]
pub struct Cache {
    /// Its file; `None` where no cache directory is known.
    pub path: Option<String>,
    /// Passes recorded (after this run).
    pub passes: usize,
    /// Why it could not be read or written, if it could not.
    pub warning: Option<String>,
}

impl Report {
    /// Whether the examined devices are ready: no problem found.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Examines this binary and machine (see the module doc); `progress` is called with each device's ordinal and
/// check as the self-test runs them.
pub fn examine(options: &Options, progress: &mut dyn FnMut(usize, &Check)) -> Report {
    let mut problems = Vec::new();
    let build = xpbd_cuda::build_info();
    let nvrtc = xpbd_cuda::nvrtc::nvrtc().map(|n| format!("NVRTC {}.{} ({})", n.version.0, n.version.1, n.origin));
    let kernels = Kernels {
        missing: xpbd_cuda::no_kernels_reason(),
        nvcc: build.nvcc_path,
        nvcc_origin: build.nvcc_origin,
        nvcc_release: build.nvcc_release,
        ptx_isa: build.ptx_isa,
        modules: xpbd_cuda::ptx_modules().iter().map(|(name, _)| *name).collect(),
        hash: validation::kernel_hash(),
        nvrtc: nvrtc.as_ref().ok().cloned(),
        nvrtc_missing: nvrtc.err(),
    };
    let release = xpbd_cuda::driver_release();
    let driver = match xpbd_cuda::driver_version() {
        Ok((major, minor)) => Driver { cuda_version: Some(format!("{major}.{minor}")), release, error: None },
        Err(e) => {
            problems.push(e.to_string());
            Driver { cuda_version: None, release, error: Some(e.to_string()) }
        }
    };
    problems.extend(kernels.missing.map(str::to_owned));
    let found = match driver.error {
        None => xpbd_cuda::devices().unwrap_or_else(|e| {
            problems.push(e.to_string());
            Vec::new()
        }),
        Some(_) => Vec::new(),
    };
    if let (Some(n), false) = (options.device, found.is_empty()) {
        if n >= found.len() {
            problems.push(format!("no CUDA device {n}: the driver sees {} device(s)", found.len()));
        }
    }
    let path = ValidationCache::default_path();
    let (mut cache, mut warning) = match &path {
        Some(path) => ValidationCache::load(path),
        None => (ValidationCache::default(), Some(format!("no cache directory: set {}, XDG_CACHE_HOME or HOME", validation::CACHE_DIR_VAR))),
    };
    let mut devices = Vec::new();
    for info in found.into_iter().filter(|d| options.device.is_none_or(|n| n == d.ordinal)) {
        let mut device = examine_device(&info, options, progress);
        let describe = format!("cuda:{} ({})", info.ordinal, info.name);
        problems.extend(device.unusable.iter().chain(&device.context_error).map(|e| format!("{describe}: {e}")));
        problems.extend(device.modules.iter().filter_map(|m| m.error.as_ref()).map(|e| format!("{describe}: {e}")));
        match (&device.self_test, ValidationKey::of(&info), &path) {
            (Some(test), _, _) if !test.passed() => {
                let failed: Vec<&str> = test.checks.iter().filter(|c| !c.passed).map(|c| c.name.as_str()).collect();
                problems.push(format!("{describe}: the self-test failed {} of {} checks ({})", failed.len(), test.checks.len(), failed.join(", ")));
            }
            (Some(test), Some(key), Some(path)) => {
                let unix_time = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
                cache.record(Pass { key, unix_time, checks: test.checks.len(), seconds: test.seconds, xpbd_version: env!("CARGO_PKG_VERSION").into() });
                match cache.save(path) {
                    Ok(()) => device.recorded = true,
                    Err(e) => {
                        problems.push(format!("{describe}: the pass could not be recorded: {e}"));
                        warning = Some(e.to_string());
                    }
                }
            }
            _ => {}
        }
        device.auto_reason = device.unusable.clone().or_else(|| validation::check(&info).err());
        device.validated = device.auto_reason.is_none();
        devices.push(device);
    }
    let cache = Cache { path: path.map(|p| p.display().to_string()), passes: cache.passes.len(), warning };
    Report { kernels, driver, devices, cache, problems }
}

/// One line on this build's CUDA kernels, for `xpbd --version`: who built them and what driver they need, or
/// why there are none.
pub fn kernels_line() -> String {
    let build = xpbd_cuda::build_info();
    match xpbd_cuda::no_kernels_reason() {
        Some(reason) => format!("CUDA kernels: none ({reason}); the CPU backend only"),
        None => {
            let release = build.nvcc_release.unwrap_or("?");
            // The documented driver minimum holds for the documented toolkit; another nvcc sets its own.
            let drivers = if release == xpbd_cuda::CUDA_TOOLKIT {
                format!(" (Linux >= {}, Windows >= {})", xpbd_cuda::MIN_DRIVER_LINUX, xpbd_cuda::MIN_DRIVER_WINDOWS)
            } else {
                String::new()
            };
            format!(
                "CUDA kernels: {} modules built by nvcc {release} (PTX ISA {}, {}); drivers for CUDA {release} or newer{drivers}, older ones through NVRTC",
                xpbd_cuda::ptx_modules().len(),
                build.ptx_isa.unwrap_or("?"),
                xpbd_cuda::PTX_TARGET,
            )
        }
    }
}

/// A device's probe, module loads and self-test; `recorded`, `validated` and `auto_reason` are left for
/// [`examine`], which owns the cache.
fn examine_device(info: &xpbd_cuda::DeviceInfo, options: &Options, progress: &mut dyn FnMut(usize, &Check)) -> DeviceReport {
    let ordinal = info.ordinal;
    let unusable = xpbd_cuda::probe_ordinal(ordinal).err().map(|e| e.to_string());
    let (context_error, modules, nvrtc) = match unusable {
        Some(_) => (None, Vec::new(), None),
        None => match xpbd_cuda::GpuContext::new(ordinal) {
            Err(e) => (Some(e.to_string()), Vec::new(), None),
            Ok(gpu) => {
                let modules = xpbd_cuda::ptx_modules().iter().map(|(name, _)| load(&gpu, name)).collect();
                (None, modules, gpu.nvrtc_reason())
            }
        },
    };
    let loads = unusable.is_none() && context_error.is_none() && modules.iter().all(|m| m.error.is_none());
    let self_test = (options.self_test && loads).then(|| selftest::run(ordinal, &mut |check| progress(ordinal, check)));
    DeviceReport {
        ordinal,
        name: info.name.clone(),
        uuid: info.uuid.clone(),
        compute_capability: format!("{}.{}", info.compute_capability.0, info.compute_capability.1),
        memory_bytes: info.total_memory_bytes,
        unusable,
        context_error,
        modules,
        nvrtc,
        self_test,
        recorded: false,
        validated: false,
        auto_reason: None,
    }
}

/// Loads PTX module `name` on `gpu`.
fn load(gpu: &xpbd_cuda::GpuContext, name: &'static str) -> ModuleLoad {
    let started = Instant::now();
    let error = gpu.module(name).err().map(|e| e.to_string());
    ModuleLoad { name, seconds: started.elapsed().as_secs_f64(), error }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a driver: the report says so first, lists no device, and runs nothing.
    #[test]
    fn without_a_driver_the_first_problem_is_the_driver() {
        if xpbd_cuda::driver_version().is_ok() {
            return;
        }
        let report = examine(&Options { device: None, self_test: true }, &mut |_, _| panic!("no check runs without a driver"));
        assert!(!report.ok() && report.devices.is_empty());
        assert_eq!(report.problems[0], report.driver.error.clone().unwrap());
        assert!(report.problems[0].contains("no CUDA driver found") || report.problems[0].contains("CUDA"), "{:?}", report.problems);
        assert_eq!(report.kernels.hash.is_some(), xpbd_cuda::built_with_kernels());
    }
}
