//! A CUDA device ready to run the built-in kernels: context, stream, and the PTX modules loaded on demand (the
//! embedded PTX, or where the driver rejects it, the same kernels compiled by NVRTC: `runtime::nvrtc`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;

use crate::error::{CudaError, Result};
use crate::runtime::nvrtc;
use crate::runtime::probe::{probe_ordinal, DeviceInfo};
use crate::runtime::KernelScalar;

/// A device's context and stream, with the built-in PTX modules loaded on first use.
pub struct GpuContext {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    /// Why the modules come from NVRTC, once one did (for the doctor and the one warning).
    nvrtc_reason: Mutex<Option<String>>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext").field("info", &self.info).finish_non_exhaustive()
    }
}

impl GpuContext {
    /// Opens device `ordinal` after [`probe_ordinal`] accepted it; `Err` says why not.
    pub fn new(ordinal: usize) -> Result<Self> {
        let info = probe_ordinal(ordinal)?;
        let ctx = CudaContext::new(ordinal)
            .map_err(|source| CudaError::Driver { action: format!("could not create a CUDA context on device {ordinal} ({})", info.name), source })?;
        let stream = ctx.new_stream().map_err(|source| CudaError::Driver { action: format!("could not create a CUDA stream on device {ordinal}"), source })?;
        Ok(Self { info, ctx, stream, modules: Mutex::new(HashMap::new()), nvrtc_reason: Mutex::new(None) })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every kernel of this context runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The PTX module `kernels/<name>.cu`, loaded (JIT-compiled by the driver) on first use. Where the driver
    /// rejects the embedded PTX, or `XPBD_NVRTC=1` asks for it, the module is compiled by NVRTC for this device
    /// instead, and the first time in a process a one-line warning says so.
    pub fn module(&self, name: &str) -> Result<Arc<CudaModule>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(module) = modules.get(name) {
            return Ok(module.clone());
        }
        let ptx = crate::runtime::ptx::ptx_module(name).ok_or_else(|| match crate::runtime::ptx::no_kernels_reason() {
            Some(reason) => CudaError::NoKernels(reason.to_owned()),
            None => CudaError::NoKernels(format!("no kernel module named {name:?} was built (kernels/{name}.cu)")),
        })?;
        let failed =
            |source| CudaError::Driver { action: format!("could not load PTX module {name:?} on device {} ({})", self.info.ordinal, self.info.name), source };
        let module = if nvrtc::forced() {
            self.load_from_nvrtc(name, format!("{}=1 asks for it", nvrtc::FORCE_VAR))?
        } else {
            match self.ctx.load_module(Ptx::from_src(ptx)) {
                Ok(module) => module,
                Err(e) if nvrtc::is_ptx_rejection(&e) => {
                    let isa = crate::runtime::ptx::build_info().ptx_isa.unwrap_or("?");
                    let (major, minor) = self.info.driver_version;
                    let reason = format!("the CUDA {major}.{minor} driver rejected this build's PTX (ISA {isa}): {}", failed(e));
                    self.load_from_nvrtc(name, reason.clone()).map_err(|n| CudaError::NoKernels(format!("{reason}; {n}")))?
                }
                Err(e) => return Err(failed(e)),
            }
        };
        modules.insert(name.to_owned(), module.clone());
        Ok(module)
    }

    /// Module `name` compiled by NVRTC for this device; records `reason` and warns once per process.
    fn load_from_nvrtc(&self, name: &str, reason: String) -> Result<Arc<CudaModule>> {
        let (major, minor) = self.info.compute_capability;
        let ptx = nvrtc::compile_module(name, (major as u32, minor as u32))?;
        let module = self.ctx.load_module(Ptx::from_src(ptx)).map_err(|source| CudaError::Driver {
            action: format!("could not load the NVRTC-compiled module {name:?} on device {} ({})", self.info.ordinal, self.info.name),
            source,
        })?;
        let mut recorded = self.nvrtc_reason.lock().unwrap_or_else(|e| e.into_inner());
        if recorded.is_none() {
            static WARNED: std::sync::Once = std::sync::Once::new();
            let origin = nvrtc::nvrtc().map(|n| format!("NVRTC {}.{} ({})", n.version.0, n.version.1, n.origin)).unwrap_or_default();
            WARNED.call_once(|| eprintln!("warning: CUDA kernels compiled at run time with {origin}: {reason}"));
            *recorded = Some(reason);
        }
        Ok(module)
    }

    /// Why this context's kernels come from NVRTC rather than the embedded PTX, once a module did.
    pub fn nvrtc_reason(&self) -> Option<String> {
        self.nvrtc_reason.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Kernel `<kernel>_f32` or `<kernel>_f64` (by `T`) of module `module`.
    pub fn function<T: KernelScalar>(&self, module: &str, kernel: &str) -> Result<CudaFunction> {
        let name = T::kernel_name(kernel);
        self.module(module)?
            .load_function(&name)
            .map_err(|source| CudaError::Driver { action: format!("PTX module {module:?} has no kernel {name:?}"), source })
    }
}
