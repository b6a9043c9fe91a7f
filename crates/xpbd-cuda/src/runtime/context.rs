//! A CUDA device ready to run the built-in kernels: context, stream, and the PTX modules loaded on demand.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;

use crate::error::{CudaError, Result};
use crate::runtime::probe::{probe_ordinal, DeviceInfo};
use crate::runtime::KernelScalar;

/// A device's context and stream, with the built-in PTX modules loaded on first use.
pub struct GpuContext {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
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
        Ok(Self { info, ctx, stream, modules: Mutex::new(HashMap::new()) })
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

    /// The PTX module `kernels/<name>.cu`, loaded (JIT-compiled by the driver) on first use.
    pub fn module(&self, name: &str) -> Result<Arc<CudaModule>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(module) = modules.get(name) {
            return Ok(module.clone());
        }
        let ptx = crate::runtime::ptx::ptx_module(name).ok_or_else(|| match crate::runtime::ptx::no_kernels_reason() {
            Some(reason) => CudaError::NoKernels(reason.to_owned()),
            None => CudaError::NoKernels(format!("no kernel module named {name:?} was built (kernels/{name}.cu)")),
        })?;
        let module = self.ctx.load_module(Ptx::from_src(ptx)).map_err(|source| CudaError::Driver {
            action: format!("could not load PTX module {name:?} on device {} ({})", self.info.ordinal, self.info.name),
            source,
        })?;
        modules.insert(name.to_owned(), module.clone());
        Ok(module)
    }

    /// Kernel `<kernel>_f32` or `<kernel>_f64` (by `T`) of module `module`.
    pub fn function<T: KernelScalar>(&self, module: &str, kernel: &str) -> Result<CudaFunction> {
        let name = T::kernel_name(kernel);
        self.module(module)?
            .load_function(&name)
            .map_err(|source| CudaError::Driver { action: format!("PTX module {module:?} has no kernel {name:?}"), source })
    }
}
