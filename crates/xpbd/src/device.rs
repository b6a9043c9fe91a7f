//! The dispatcher (DESIGN.md §3): which backend runs a scene, and why.

use xpbd_core::backend::Backend;
use xpbd_core::model::Model;
use xpbd_core::{Error, Result};

/// A requested device: `auto`, `cpu`, `cuda` or `cuda:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Auto,
    Cpu,
    Cuda(usize),
}

impl std::str::FromStr for Device {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda(0)),
            _ => s
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(Device::Cuda)
                .ok_or_else(|| Error::invalid(format!("device: '{s}' is not one of auto, cpu, cuda, cuda:N"))),
        }
    }
}

/// The chosen backend with the name and reason recorded in `summary.json`.
pub struct Selection {
    pub backend: Box<dyn Backend>,
    pub device: String,
    pub reason: String,
}

/// Why the CUDA backend cannot run this model, or `None` when it can.
fn cuda_unavailable(ordinal: usize, _model: &Model) -> String {
    match xpbd_cuda::probe_ordinal(ordinal) {
        Err(reason) => reason,
        Ok(info) => format!("{} found, but the CUDA backend has no XPBD solver path yet", info.name),
    }
}

/// Picks the backend. `Auto` falls back to the CPU with the reason; an explicit CUDA request that
/// cannot be honoured is an error carrying the reason, never a silent fallback.
pub fn select(requested: Device, model: &Model) -> Result<Selection> {
    let cpu = |reason: String| Selection { backend: Box::new(xpbd_cpu::CpuBackend::new(model)), device: "cpu".into(), reason };
    match requested {
        Device::Cpu => Ok(cpu("cpu: requested".into())),
        Device::Auto => Ok(cpu(format!("cpu: {}", cuda_unavailable(0, model)))),
        Device::Cuda(n) => Err(Error::invalid(format!("device cuda:{n} cannot be used: {}", cuda_unavailable(n, model)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_devices() {
        assert_eq!("cuda:2".parse::<Device>().unwrap(), Device::Cuda(2));
        assert_eq!("cpu".parse::<Device>().unwrap(), Device::Cpu);
        assert!("gpu".parse::<Device>().unwrap_err().to_string().contains("'gpu'"));
    }
}
