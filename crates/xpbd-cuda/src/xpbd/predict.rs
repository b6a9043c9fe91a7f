//! The XPBD prediction step and velocity update on the GPU (`kernels/predict.cu`), on host arrays.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use crate::error::{CudaError, Result};
use crate::runtime::launch::grid;
use crate::runtime::{DeviceInfo, GpuContext, KernelScalar};

fn vertex_count(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| CudaError::Unsupported(format!("{n} vertices: the kernels take at most {} per launch", u32::MAX)))
}

/// Runs `predict_<T>` and `update_velocity_<T>`: uploads the host arrays, launches, downloads the results.
/// Used by the parity tests; the solvers keep their state on the device instead.
#[derive(Debug, Clone)]
pub struct GpuPredict {
    gpu: Arc<GpuContext>,
}

impl GpuPredict {
    /// On device `ordinal`; `Err` says why not (see [`crate::probe`]).
    pub fn new(ordinal: usize) -> Result<Self> {
        Ok(Self::with_context(Arc::new(GpuContext::new(ordinal)?)))
    }

    pub fn with_context(gpu: Arc<GpuContext>) -> Self {
        Self { gpu }
    }

    pub fn device(&self) -> &DeviceInfo {
        self.gpu.info()
    }

    /// `v = damp v + h g` for free vertices (`inv_mass > 0`), `x_prev = x`, `x += h v`, like
    /// [`crate::xpbd::reference::predict`]. `x`, `v`, `x_prev`: 3n scalars; `inv_mass`: n.
    #[allow(clippy::too_many_arguments)]
    pub fn predict<T: KernelScalar>(&self, x: &mut [T], v: &mut [T], x_prev: &mut [T], inv_mass: &[T], gravity: [T; 3], damp: T, h: T) -> Result<()> {
        let n = inv_mass.len();
        if x.len() != 3 * n || v.len() != 3 * n || x_prev.len() != 3 * n {
            return Err(CudaError::Check(format!(
                "predict: {n} inverse masses need 3n = {} scalars in x, v, x_prev (got {}, {}, {})",
                3 * n,
                x.len(),
                v.len(),
                x_prev.len()
            )));
        }
        let count = vertex_count(n)?;
        if n == 0 {
            return Ok(());
        }
        let function = self.gpu.function::<T>("predict", "predict")?;
        let stream = self.gpu.stream();
        let kernel = T::kernel_name("predict");
        let err = CudaError::on_gpu(&kernel);
        let mut x_d: CudaSlice<T> = stream.clone_htod(x).map_err(&err)?;
        let mut v_d: CudaSlice<T> = stream.clone_htod(v).map_err(&err)?;
        let mut x_prev_d: CudaSlice<T> = stream.alloc_zeros(3 * n).map_err(&err)?;
        let inv_mass_d: CudaSlice<T> = stream.clone_htod(inv_mass).map_err(&err)?;
        let dv = gravity.map(|g| T::from_f64(g.to_f64() * h.to_f64()));
        let mut launch = stream.launch_builder(&function);
        launch.arg(&mut x_d).arg(&mut v_d).arg(&mut x_prev_d).arg(&inv_mass_d).arg(&dv[0]).arg(&dv[1]).arg(&dv[2]).arg(&damp).arg(&h).arg(&count);
        // SAFETY: the arguments match `predict_<T>(T* x, T* v, T* x_prev, const T* inv_mass, T dvx, T dvy, T dvz,
        // T damp, T h, unsigned n)` in kernels/predict.cu, and every array holds n (inv_mass) or 3n scalars.
        unsafe { launch.launch(grid(count)) }.map_err(&err)?;
        stream.memcpy_dtoh(&x_d, x).map_err(&err)?;
        stream.memcpy_dtoh(&v_d, v).map_err(&err)?;
        stream.memcpy_dtoh(&x_prev_d, x_prev).map_err(&err)?;
        stream.synchronize().map_err(&err)
    }

    /// `v = (x - x_prev) / h`, like [`crate::xpbd::reference::update_velocity`]. All arrays 3n scalars.
    pub fn update_velocity<T: KernelScalar>(&self, x: &[T], x_prev: &[T], v: &mut [T], h: T) -> Result<()> {
        if x.len() % 3 != 0 || x_prev.len() != x.len() || v.len() != x.len() {
            return Err(CudaError::Check(format!(
                "update_velocity: x, x_prev, v need the same length, a multiple of 3 (got {}, {}, {})",
                x.len(),
                x_prev.len(),
                v.len()
            )));
        }
        let n = x.len() / 3;
        let count = vertex_count(n)?;
        if n == 0 {
            return Ok(());
        }
        let function = self.gpu.function::<T>("predict", "update_velocity")?;
        let stream = self.gpu.stream();
        let kernel = T::kernel_name("update_velocity");
        let err = CudaError::on_gpu(&kernel);
        let x_d: CudaSlice<T> = stream.clone_htod(x).map_err(&err)?;
        let x_prev_d: CudaSlice<T> = stream.clone_htod(x_prev).map_err(&err)?;
        let mut v_d: CudaSlice<T> = stream.alloc_zeros(3 * n).map_err(&err)?;
        let mut launch = stream.launch_builder(&function);
        launch.arg(&x_d).arg(&x_prev_d).arg(&mut v_d).arg(&h).arg(&count);
        // SAFETY: the arguments match `update_velocity_<T>(const T* x, const T* x_prev, T* v, T h, unsigned n)` in
        // kernels/predict.cu, and every array holds 3n scalars.
        unsafe { launch.launch(grid(count)) }.map_err(&err)?;
        stream.memcpy_dtoh(&v_d, v).map_err(&err)?;
        stream.synchronize().map_err(&err)
    }
}
