//! The dispatcher: which backend runs a scene, and why.
//!
//! `auto` picks CUDA when a driver and device answer and the kernels are built in ([`xpbd_cuda::probe_ordinal`]),
//! the scene's solver and model have a GPU path (`CudaBackend`'s [`Backend::supports`]) and the scene has at
//! least `simulation.gpu_min_elements` elements; otherwise the CPU, with the first reason that failed. An explicit
//! `cuda` request that cannot be honoured is an error with that reason (the size threshold applies to `auto`
//! only). `auto` picks it only on a device whose self-test (`xpbd doctor`) passed under the running driver with
//! this binary's kernels ([`crate::validation`]): an untested device, driver or kernel build is never chosen for a
//! user who did not ask for it. The decision itself, [`decide`], takes those facts as values, so it is
//! unit-tested without a GPU.

use xpbd_core::backend::Backend;
use xpbd_core::model::Model;
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::{Error, Result};

/// A requested device: `auto`, `auto:N`, `cpu`, `cuda` or `cuda:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// CUDA device 0 where the dispatcher's rules allow it, else the CPU.
    Auto,
    /// Like `Auto`, with CUDA device N (what `xpbd batch` gives each run of a device it spreads runs over).
    AutoOn(usize),
    Cpu,
    Cuda(usize),
}

impl Device {
    /// The CUDA device considered and whether the choice is automatic; `None` for the CPU.
    fn candidate(self) -> Option<(usize, bool)> {
        match self {
            Device::Auto => Some((0, true)),
            Device::AutoOn(n) => Some((n, true)),
            Device::Cuda(n) => Some((n, false)),
            Device::Cpu => None,
        }
    }
}

impl std::str::FromStr for Device {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda(0)),
            _ => {
                let ordinal = |prefix: &str| s.strip_prefix(prefix).and_then(|n| n.parse().ok());
                ordinal("cuda:")
                    .map(Device::Cuda)
                    .or_else(|| ordinal("auto:").map(Device::AutoOn))
                    .ok_or_else(|| Error::invalid(format!("device: '{s}' is not one of auto, auto:N, cpu, cuda, cuda:N")))
            }
        }
    }
}

/// The chosen backend with the name and reason recorded in `summary.json`.
pub struct Selection {
    pub backend: Box<dyn Backend>,
    pub device: String,
    pub reason: String,
}

/// What the dispatcher learns about a scene and the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The device's name, or why no CUDA device can run the kernels (no kernels, no driver, no device, ...).
    pub device: std::result::Result<String, String>,
    /// Why the CUDA backend cannot run this model (solver, ordering, material, collider, ...), if it cannot.
    pub unsupported: Option<String>,
    pub elements: usize,
    /// `simulation.gpu_min_elements`.
    pub min_elements: usize,
    /// Why the device is not validated for this binary's kernels ([`crate::validation::check`]), if it is not.
    pub unvalidated: Option<String>,
}

/// The dispatcher's choice: which backend, and the reason recorded in `summary.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Cpu(String),
    Cuda { ordinal: usize, reason: String },
}

/// Decides from `facts` (see the module doc); `Err` is the reason an explicit CUDA request cannot be honoured.
pub fn decide(requested: Device, facts: &Facts) -> std::result::Result<Decision, String> {
    let Some((ordinal, auto)) = requested.candidate() else {
        return Ok(Decision::Cpu("cpu: requested".into()));
    };
    let refusal = match (&facts.device, &facts.unsupported) {
        (Err(reason), _) => Some(reason.clone()),
        (Ok(_), Some(reason)) => Some(format!("the CUDA backend cannot run this scene: {reason}")),
        (Ok(_), None) => None,
    };
    match (auto, refusal, &facts.unvalidated) {
        (true, Some(reason), _) => Ok(Decision::Cpu(format!("cpu: {reason}"))),
        (false, Some(reason), _) => Err(format!("device cuda:{ordinal} cannot be used: {reason}")),
        (true, None, _) if facts.elements < facts.min_elements => Ok(Decision::Cpu(format!(
            "cpu: {} elements, fewer than simulation.gpu_min_elements = {} for the GPU ({} found)",
            facts.elements,
            facts.min_elements,
            facts.device.as_deref().unwrap_or("?")
        ))),
        (true, None, Some(reason)) => Ok(Decision::Cpu(format!("cpu: {reason}"))),
        (true, None, None) => Ok(Decision::Cuda {
            ordinal,
            reason: format!(
                "cuda: {} elements, at least simulation.gpu_min_elements = {} ({})",
                facts.elements,
                facts.min_elements,
                facts.device.as_deref().unwrap_or("?")
            ),
        }),
        (false, None, _) => Ok(Decision::Cuda { ordinal, reason: format!("cuda: requested ({})", facts.device.as_deref().unwrap_or("?")) }),
    }
}

/// Gathers the [`Facts`] for device `ordinal` (probing the driver), `model` and `config`. The support check (for
/// MGPBD it builds the rows) and the validation cache are asked only when a device answers: [`decide`] reads them
/// only then.
fn facts(ordinal: usize, model: &Model, config: &SolverConfig, min_elements: usize) -> Facts {
    let probed = xpbd_cuda::probe_ordinal(ordinal).map_err(|e| e.to_string());
    Facts {
        unsupported: probed.is_ok().then(|| <xpbd_cuda::CudaBackend as Backend>::supports(model, config).err().map(|u| u.0)).flatten(),
        unvalidated: probed.as_ref().ok().and_then(|info| crate::validation::check(info).err()),
        device: probed.map(|info| info.name),
        elements: model.element_count(),
        min_elements,
    }
}

/// What [`select`] decides for `model` solved by `config`, without starting a backend (`xpbd info`); `Err` is
/// the reason an explicit CUDA request cannot be honoured.
pub fn preview(requested: Device, model: &Model, config: &SolverConfig, min_elements: usize) -> std::result::Result<Decision, String> {
    match requested.candidate() {
        None => Ok(Decision::Cpu("cpu: requested".into())),
        Some((ordinal, _)) => decide(requested, &facts(ordinal, model, config, min_elements)),
    }
}

/// The XPBD path's device arrays in f32 and f64 (`xpbd_cuda::xpbd::footprint`), when the CUDA backend can run
/// `model` solved by `config` with XPBD (MGPBD's device memory is not estimated).
pub fn gpu_bytes(model: &Model, config: &SolverConfig) -> Option<[usize; 2]> {
    config.method.ordering()?;
    <xpbd_cuda::CudaBackend as Backend>::supports(model, config).ok()?;
    let layout = xpbd_cuda::xpbd::layout::Layout::new(model, config).ok()?;
    Some(
        [xpbd_cuda::Precision::F32, xpbd_cuda::Precision::F64]
            .map(|p| xpbd_cuda::xpbd::footprint::Footprint::xpbd(model, &layout, p.bytes(), config.substeps).total()),
    )
}

/// Picks the backend for `model` solved by `config` (`min_elements`: `simulation.gpu_min_elements`). `Auto` falls
/// back to the CPU with the reason; an explicit CUDA request that cannot be honoured is an error carrying the
/// reason.
pub fn select(requested: Device, model: &Model, config: &SolverConfig, min_elements: usize) -> Result<Selection> {
    let cpu = |reason: String| Selection { backend: xpbd_cpu::backend(model, config), device: "cpu".into(), reason };
    match preview(requested, model, config, min_elements).map_err(Error::invalid)? {
        Decision::Cpu(reason) => Ok(cpu(reason)),
        Decision::Cuda { ordinal, reason } => {
            let auto = requested.candidate().is_some_and(|(_, auto)| auto);
            let started =
                xpbd_cuda::CudaOptions::from_env(ordinal, config.method.precision()).and_then(|options| xpbd_cuda::CudaBackend::new(model, config, options));
            match (started, auto) {
                (Ok(backend), _) => Ok(Selection { device: format!("cuda:{ordinal} {}", backend.device().name), backend: Box::new(backend), reason }),
                (Err(e), true) => Ok(cpu(format!("cpu: the CUDA backend failed to start: {e}"))),
                (Err(e), false) => Err(Error::invalid(format!("device cuda:{ordinal} cannot be used: {e}"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_devices() {
        assert_eq!("cuda:2".parse::<Device>().unwrap(), Device::Cuda(2));
        assert_eq!("cpu".parse::<Device>().unwrap(), Device::Cpu);
        assert_eq!("auto:1".parse::<Device>().unwrap(), Device::AutoOn(1));
        assert!("gpu".parse::<Device>().unwrap_err().to_string().contains("'gpu'"));
        assert!("auto:x".parse::<Device>().is_err());
    }

    /// `auto:N` follows `auto`'s rules on device N: CUDA where they allow it, else the CPU with the reason,
    /// never an error.
    #[test]
    fn auto_on_a_device_follows_the_rules_of_auto_there() {
        assert_eq!(
            decide(Device::AutoOn(1), &facts(H100, None, 50_000)),
            Ok(Decision::Cuda { ordinal: 1, reason: "cuda: 50000 elements, at least simulation.gpu_min_elements = 20000 (NVIDIA H100 80GB HBM3)".into() })
        );
        let small = cpu_reason(decide(Device::AutoOn(1), &facts(H100, None, 100)).unwrap());
        assert!(small.starts_with("cpu: 100 elements"), "{small}");
        let refused = cpu_reason(decide(Device::AutoOn(3), &facts(NO_DRIVER, None, 50_000)).unwrap());
        assert!(refused.contains("no CUDA driver"), "{refused}");
    }

    fn facts(device: std::result::Result<&str, &str>, unsupported: Option<&str>, elements: usize) -> Facts {
        Facts {
            device: device.map(String::from).map_err(String::from),
            unsupported: unsupported.map(String::from),
            elements,
            min_elements: 20_000,
            unvalidated: None,
        }
    }

    const H100: std::result::Result<&str, &str> = Ok("NVIDIA H100 80GB HBM3");
    const NO_DRIVER: std::result::Result<&str, &str> = Err("no CUDA driver found (libcuda.so could not be loaded)");
    const NO_KERNELS: std::result::Result<&str, &str> = Err("built without kernels: nvcc was not found at build time");

    fn cpu_reason(d: Decision) -> String {
        match d {
            Decision::Cpu(r) => r,
            other => panic!("expected the CPU, got {other:?}"),
        }
    }

    #[test]
    fn auto_falls_back_to_the_cpu_with_the_first_reason() {
        let r = cpu_reason(decide(Device::Auto, &facts(NO_DRIVER, None, 100_000)).unwrap());
        assert_eq!(r, "cpu: no CUDA driver found (libcuda.so could not be loaded)");
        let r = cpu_reason(decide(Device::Auto, &facts(NO_KERNELS, Some("serial"), 100_000)).unwrap());
        assert_eq!(r, "cpu: built without kernels: nvcc was not found at build time");
        let r = cpu_reason(
            decide(Device::Auto, &facts(H100, Some("solver.kind = \"multilayer\" has no GPU path (only \"xpbd\" and \"mgpbd\")"), 100_000)).unwrap(),
        );
        assert!(r.starts_with("cpu: the CUDA backend cannot run this scene: solver.kind = \"multilayer\""), "{r}");
        let r = cpu_reason(decide(Device::Auto, &facts(H100, Some("body 'b' uses material 'arap', which has no GPU path"), 100_000)).unwrap());
        assert!(r.contains("'arap'"), "{r}");
        let r = cpu_reason(decide(Device::Auto, &facts(H100, None, 3750)).unwrap());
        assert!(r.starts_with("cpu: 3750 elements, fewer than simulation.gpu_min_elements = 20000"), "{r}");
    }

    #[test]
    fn auto_picks_cuda_for_large_supported_scenes() {
        match decide(Device::Auto, &facts(H100, None, 20_000)).unwrap() {
            Decision::Cuda { ordinal: 0, reason } => assert!(reason.starts_with("cuda: 20000 elements") && reason.contains("H100"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let mut f = facts(H100, None, 10);
        f.min_elements = 0;
        assert!(matches!(decide(Device::Auto, &f).unwrap(), Decision::Cuda { .. }));
    }

    /// A device not validated (by `xpbd doctor`) for this driver and kernel build is only used when asked for; the
    /// reason says which check is missing.
    #[test]
    fn auto_does_not_pick_an_unvalidated_device() {
        let mut f = facts(H100, None, 100_000);
        let missing = "the CUDA backend has not been validated on NVIDIA H100 80GB HBM3 with driver 580.159.04 (CUDA 13.0) and \
                       this build's kernels; run `xpbd doctor`";
        f.unvalidated = Some(missing.into());
        assert_eq!(cpu_reason(decide(Device::Auto, &f).unwrap()), format!("cpu: {missing}"));
        assert!(matches!(decide(Device::Cuda(0), &f).unwrap(), Decision::Cuda { .. }));
        // A scene too small for the GPU says so first.
        f.elements = 10;
        assert!(cpu_reason(decide(Device::Auto, &f).unwrap()).starts_with("cpu: 10 elements, fewer than"));
    }

    #[test]
    fn explicit_cuda_fails_with_the_reason_or_ignores_the_size() {
        let e = decide(Device::Cuda(1), &facts(NO_DRIVER, None, 100)).unwrap_err();
        assert_eq!(e, "device cuda:1 cannot be used: no CUDA driver found (libcuda.so could not be loaded)");
        let e = decide(Device::Cuda(0), &facts(H100, Some("solver.ordering = \"serial\" has no GPU path"), 100)).unwrap_err();
        assert!(e.contains("cannot run this scene: solver.ordering = \"serial\""), "{e}");
        assert_eq!(
            decide(Device::Cuda(2), &facts(H100, None, 100)).unwrap(),
            Decision::Cuda { ordinal: 2, reason: "cuda: requested (NVIDIA H100 80GB HBM3)".into() }
        );
        assert_eq!(decide(Device::Cpu, &facts(H100, None, 1_000_000)).unwrap(), Decision::Cpu("cpu: requested".into()));
    }
}
