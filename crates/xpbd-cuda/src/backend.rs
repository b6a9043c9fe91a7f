//! `CudaBackend`: the facade that picks a device path for a scene. XPBD: the substep loop of
//! `xpbd_cpu::CpuBackend` (docs/equations.md) on the GPU ([`crate::xpbd`]), for tet groups of block or decoupled
//! neo-Hookean and StVK and for cloth (distance and bending rows) in colored, clustered or Jacobi order, with
//! moving pins, soft attachments and contact rows against plane, sphere, box and cylinder colliders and between and
//! within bodies (detected on the host, projected by one device thread), its launches one by one or as one CUDA
//! graph per frame ([`CudaOptions::graph`]; not with contact between or within bodies). MGPBD: the device outer iterations inside the host's substep loop
//! ([`crate::mgpbd`]).

use std::sync::Arc;

use xpbd_core::backend::{Backend, FrameStats, Unsupported};
use xpbd_core::contact::ContactForces;
use xpbd_core::model::Model;
use xpbd_core::solver_config::{Method, Ordering, SolverConfig};
use xpbd_core::state::State;

use crate::error::{CudaError, Result};
use crate::mgpbd::device::MgpbdDevice;
use crate::runtime::{CudaOps, DeviceInfo, GpuContext};
use crate::xpbd::footprint::Footprint;
use crate::xpbd::layout::Layout;
use crate::xpbd::runner::Gpu;

/// Scalar type of the device arrays (the scene's `solver.precision`).
pub use xpbd_core::solver_config::Precision;

/// How the CUDA backend runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaOptions {
    pub ordinal: usize,
    pub precision: Precision,
    /// Capture a frame's launches in a CUDA graph once and replay it, instead of launching kernel by kernel.
    pub graph: bool,
}

impl CudaOptions {
    /// `precision` (the scene's), plain launches, on device `ordinal`; `XPBD_CUDA_PRECISION=f32|f64` and
    /// `XPBD_CUDA_GRAPH=1` override them (for benchmarks from the command line; docs/gpu.md).
    pub fn from_env(ordinal: usize, precision: Precision) -> Result<Self> {
        let precision = match std::env::var("XPBD_CUDA_PRECISION").as_deref() {
            Err(_) | Ok("") => precision,
            Ok(name) => Precision::named(name).ok_or_else(|| CudaError::Unsupported(format!("XPBD_CUDA_PRECISION: '{name}' is not f32 or f64")))?,
        };
        let graph = match std::env::var("XPBD_CUDA_GRAPH").as_deref() {
            Err(_) | Ok("") | Ok("0") => false,
            Ok("1") => true,
            Ok(other) => return Err(CudaError::Unsupported(format!("XPBD_CUDA_GRAPH: '{other}' is not 0 or 1"))),
        };
        Ok(CudaOptions { ordinal, precision, graph })
    }
}

/// The CUDA backend (see the module doc).
pub struct CudaBackend {
    runner: Runner,
    info: DeviceInfo,
    options: CudaOptions,
    colors: Option<usize>,
    ordering: &'static str,
}

enum Runner {
    F32(Gpu<f32>),
    F64(Gpu<f64>),
    MgpbdF32(Box<MgpbdDevice<CudaOps<f32>>>),
    MgpbdF64(Box<MgpbdDevice<CudaOps<f64>>>),
}

impl CudaBackend {
    /// Uploads `model` to the device of `options` for `config`; `Err` says why not (no device,
    /// unsupported model or solver, driver error).
    pub fn new(model: &Model, config: &SolverConfig, options: CudaOptions) -> Result<Self> {
        if let Some(settings) = config.method.mgpbd() {
            // The device path is checked before a context is made; MGPBD's own needs by the rows that
            // `MgpbdDevice::new` builds once, instead of once more here.
            crate::mgpbd::device::check_supported(model, settings)?;
            return Self::mgpbd(model, config, options);
        }
        Self::supports(model, config).map_err(|u| CudaError::Unsupported(u.0))?;
        if options.graph && model.contact.has_pairs() {
            return Err(CudaError::Unsupported(crate::xpbd::layout::NO_GRAPH_WITH_PAIRS.into()));
        }
        let gpu = Arc::new(GpuContext::new(options.ordinal)?);
        // One stream only: cudarc's cross-stream events are not needed, and they must stay out of graph capture.
        // SAFETY: every slice of this backend is created after this call and used on `gpu.stream()` only.
        unsafe { gpu.context().disable_event_tracking() };
        let layout = Layout::new(model, config)?;
        let info = gpu.info().clone();
        let (free, _) = gpu.context().mem_get_info().map_err(CudaError::on_gpu("reading the free memory"))?;
        Footprint::xpbd(model, &layout, options.precision.bytes(), config.substeps)
            .fits(free, &format!("cuda:{} ({})", info.ordinal, info.name))
            .map_err(CudaError::NoDevice)?;
        let colors = layout.colors();
        let runner = match options.precision {
            Precision::F32 => Runner::F32(Gpu::new(gpu, model, config, layout, options.graph)?),
            Precision::F64 => Runner::F64(Gpu::new(gpu, model, config, layout, options.graph)?),
        };
        let ordering = match config.method.ordering() {
            Some(Ordering::Colored) => "colored Gauss-Seidel",
            Some(Ordering::Clustered { .. }) => "clustered Gauss-Seidel",
            _ => "Jacobi",
        };
        Ok(CudaBackend { runner, info, options, colors, ordering })
    }

    /// MGPBD: the device outer iterations inside the host's substep loop ([`MgpbdDevice`]).
    fn mgpbd(model: &Model, config: &SolverConfig, options: CudaOptions) -> Result<Self> {
        if options.graph {
            return Err(CudaError::Unsupported(
                "XPBD_CUDA_GRAPH=1: MGPBD's frames are not captured as a graph (their outer iterations stop on the residual)".into(),
            ));
        }
        let gpu = Arc::new(GpuContext::new(options.ordinal)?);
        let info = gpu.info().clone();
        let ordering = "MGPBD outer iterations, primal AMG-PCG";
        let describe = format!("cuda: {} ({}), {ordering}, {}, plain launches", info.name, info.ordinal, options.precision.name());
        let runner = match options.precision {
            Precision::F32 => Runner::MgpbdF32(Box::new(MgpbdDevice::new(CudaOps::new(gpu)?, model, config, describe)?)),
            Precision::F64 => Runner::MgpbdF64(Box::new(MgpbdDevice::new(CudaOps::new(gpu)?, model, config, describe)?)),
        };
        Ok(CudaBackend { runner, info, options, colors: None, ordering })
    }

    pub fn device(&self) -> &DeviceInfo {
        &self.info
    }

    /// The XPBD path's device arrays' bytes by family (`DeviceModel::allocated`); `None` for MGPBD, which the
    /// footprint does not cover yet.
    pub fn allocated(&self) -> Option<Vec<(&'static str, usize)>> {
        match &self.runner {
            Runner::F32(g) => Some(g.allocated()),
            Runner::F64(g) => Some(g.allocated()),
            Runner::MgpbdF32(_) | Runner::MgpbdF64(_) => None,
        }
    }
}

impl Backend for CudaBackend {
    /// The method's own requirements and what the kernels of its device path cover: XPBD in colored, clustered
    /// or Jacobi order ([`crate::xpbd::layout::check_supported`]: at most 32 colliders, one soft attachment per
    /// vertex, 32-bit counts), or MGPBD with the primal AMG or plain CG solve ([`crate::mgpbd::device::check_supported`]).
    fn supports(model: &Model, config: &SolverConfig) -> std::result::Result<(), Unsupported> {
        config.requirements(model)?;
        match &config.method {
            Method::Xpbd { .. } => crate::xpbd::layout::check_supported(model, config),
            Method::Mgpbd(settings) => crate::mgpbd::device::check_supported(model, settings),
            Method::Multilayer(_) | Method::Implicit(_) => {
                Err(CudaError::Unsupported(format!("solver.kind = \"{}\" has no GPU path (only \"xpbd\" and \"mgpbd\")", config.method.kind())))
            }
        }
        .map_err(|e| Unsupported(e.to_string()))
    }

    fn describe(&self) -> String {
        let launches = if self.options.graph { "CUDA graph per frame" } else { "plain launches" };
        format!("cuda: {} ({}), {}, {}, {launches}", self.info.name, self.info.ordinal, self.ordering, self.options.precision.name())
    }

    fn colors(&self) -> Option<usize> {
        self.colors
    }

    /// The device's rows read back and summed as on the CPU (XPBD), or the host's rows (MGPBD).
    fn contact_forces(&self, model: &Model, state: &State) -> xpbd_core::Result<ContactForces> {
        match &self.runner {
            Runner::F32(g) => Ok(g.contact_forces(model)?),
            Runner::F64(g) => Ok(g.contact_forces(model)?),
            Runner::MgpbdF32(m) => m.contact_forces(model, state),
            Runner::MgpbdF64(m) => m.contact_forces(model, state),
        }
    }

    /// One frame; `Err` when the driver reports an error.
    fn step_frame(&mut self, model: &Model, state: &mut State) -> xpbd_core::Result<FrameStats> {
        match &mut self.runner {
            Runner::F32(g) => Ok(g.step_frame(model, state)?),
            Runner::F64(g) => Ok(g.step_frame(model, state)?),
            Runner::MgpbdF32(m) => m.step_frame(model, state),
            Runner::MgpbdF64(m) => m.step_frame(model, state),
        }
    }
}
