//! [`LinearOps`] on the kernels of `kernels/amg_solve.cu`, and [`MgpbdOps`] on those of `kernels/primal.cu`,
//! `kernels/dual.cu`, `kernels/mgpbd_rows.cu` and `kernels/boundary.cu`, compiled as host C++ (`host_library`):
//! buffers are `Vec`s, each method calls the exported `<kernel>_f32/_f64` once on one thread. The drivers of
//! `xpbd_cuda` (`linalg::amg`, `linalg::pcg`, `mgpbd::primal`, ...) then run unchanged on the host.

use super::host_library::get;
use libloading::Library;
use xpbd_cuda::linalg::{DeviceCsr, LinearOps};
use xpbd_cuda::mgpbd::attachments::DeviceSoftAttachments;
use xpbd_cuda::mgpbd::dual_pattern::DeviceDualPattern;
use xpbd_cuda::mgpbd::incidence::DeviceIncidence;
use xpbd_cuda::mgpbd::primal_pattern::DevicePrimalPattern;
use xpbd_cuda::mgpbd::rows::DeviceRows;
use xpbd_cuda::mgpbd::MgpbdOps;
use xpbd_cuda::{CudaError, KernelScalar};

pub struct HostOps<T> {
    lib: &'static Library,
    partial: Vec<T>,
}

impl<T: KernelScalar> HostOps<T> {
    pub fn new(lib: &'static Library) -> Self {
        HostOps { lib, partial: vec![T::default(); 1] }
    }

    fn f<F: Copy>(&self, name: &str) -> F {
        get(self.lib, &T::kernel_name(name))
    }
}

type U = *const u32;
type Csr3<T> = unsafe extern "C" fn(*mut T, U, U, *const T, *const T, u32);
type Residual<T> = unsafe extern "C" fn(*mut T, *const T, U, U, *const T, *const T, u32);
type InvDiag<T> = unsafe extern "C" fn(*mut T, U, U, *const T, u32);
type Jacobi<T> = unsafe extern "C" fn(*mut T, *const T, *const T, *const T, T, u32);
type Chebyshev<T> = unsafe extern "C" fn(*mut T, *mut T, *const T, *const T, *const T, T, T, u32);
type GaussSeidel<T> = unsafe extern "C" fn(*mut T, *const T, *const T, U, U, *const T, U, u32, u32);
type Product<T> = unsafe extern "C" fn(*mut T, U, U, U, U, *const T, U, U, *const T, u32, u32);
type Cholesky<T> = unsafe extern "C" fn(*mut T, u32, *mut u32);
type CholeskySolve<T> = unsafe extern "C" fn(*const T, *const T, *mut T, u32);
type Axpy<T> = unsafe extern "C" fn(*mut T, T, *const T, u32);
type Xpay<T> = unsafe extern "C" fn(*mut T, *const T, T, u32);
type CgStep<T> = unsafe extern "C" fn(*mut T, *mut T, *const T, *const T, T, u32);
type ScaledDifference<T> = unsafe extern "C" fn(*mut T, *const T, *const T, *const T, u32);
type DotPartial<T> = unsafe extern "C" fn(*mut T, *const T, *const T, u32);
type SumPartials<T> = unsafe extern "C" fn(*mut T, *const T, u32);
type PrimalFill<T> = unsafe extern "C" fn(*mut T, U, U, U, U, U, *const T, *const T, *const T, u32);
type JacobianTranspose<T> = unsafe extern "C" fn(*mut T, U, U, U, *const T, *const T, *const T, *const T, u32);
type JacobianRows<T> = unsafe extern "C" fn(*mut T, U, *const T, *const T, *const T, u32);
type EvaluateRows<T> = unsafe extern "C" fn(*mut T, *mut T, U, U, *const T, *const T, u32);
type EvaluateArapComponents<T> = unsafe extern "C" fn(*mut T, *mut T, U, U, *const T, *const T, T, u32);
type InertiaTerm<T> = unsafe extern "C" fn(*mut T, *const T, *const T, *const T, *const T, u32);
type DualFill<T> = unsafe extern "C" fn(*mut T, U, U, U, U, U, *const T, *const T, *const T, u32);
type SoftAttachments<T> = unsafe extern "C" fn(*mut T, *const T, U, *const T, *const T, *const T, *mut T, T, *const T, u32);

// SAFETY (every `unsafe` call below): the function is the kernel of that name with the C signature above; the
// buffers are the drivers' arrays of the sizes the kernel indexes, as on the GPU (src/linalg/cuda_impl.rs, src/mgpbd/cuda_impl.rs).
impl<T: KernelScalar> LinearOps for HostOps<T> {
    type T = T;
    type Vector = Vec<T>;
    type Indices = Vec<u32>;

    fn upload(&self, a: &[T]) -> Result<Vec<T>, CudaError> {
        Ok(a.to_vec())
    }
    fn upload_indices(&self, a: &[u32]) -> Result<Vec<u32>, CudaError> {
        Ok(a.to_vec())
    }
    fn zeros(&self, n: usize) -> Result<Vec<T>, CudaError> {
        Ok(vec![T::default(); n.max(1)])
    }
    fn download(&self, a: &Vec<T>) -> Result<Vec<T>, CudaError> {
        Ok(a.clone())
    }
    fn write(&self, src: &[T], dst: &mut Vec<T>) -> Result<(), CudaError> {
        dst.copy_from_slice(src);
        Ok(())
    }
    fn copy(&self, src: &Vec<T>, dst: &mut Vec<T>) -> Result<(), CudaError> {
        dst.copy_from_slice(src);
        Ok(())
    }
    fn set_zero(&self, a: &mut Vec<T>) -> Result<(), CudaError> {
        a.fill(T::default());
        Ok(())
    }
    fn len(a: &Vec<T>) -> usize {
        a.len()
    }
    fn synchronize(&self) -> Result<(), CudaError> {
        Ok(())
    }

    fn spmv(&self, a: &DeviceCsr<Self>, x: &Vec<T>, y: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<Csr3<T>>("csr_spmv")(y.as_mut_ptr(), a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), x.as_ptr(), a.rows) };
        Ok(())
    }
    fn residual(&self, a: &DeviceCsr<Self>, b: &Vec<T>, x: &Vec<T>, r: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<Residual<T>>("csr_residual")(r.as_mut_ptr(), b.as_ptr(), a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), x.as_ptr(), a.rows) };
        Ok(())
    }
    fn spmv_add(&self, a: &DeviceCsr<Self>, x: &Vec<T>, y: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<Csr3<T>>("csr_spmv_add")(y.as_mut_ptr(), a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), x.as_ptr(), a.rows) };
        Ok(())
    }
    fn inverse_diagonal(&self, a: &DeviceCsr<Self>, inv_diag: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<InvDiag<T>>("inverse_diagonal")(inv_diag.as_mut_ptr(), a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), a.rows) };
        Ok(())
    }
    fn jacobi_sweep(&self, x: &mut Vec<T>, r: &Vec<T>, b: &Vec<T>, inv_diag: &Vec<T>, omega: T) -> Result<(), CudaError> {
        unsafe { self.f::<Jacobi<T>>("jacobi_sweep")(x.as_mut_ptr(), r.as_ptr(), b.as_ptr(), inv_diag.as_ptr(), omega, b.len() as u32) };
        Ok(())
    }
    fn chebyshev_step(&self, x: &mut Vec<T>, d: &mut Vec<T>, r: &Vec<T>, b: &Vec<T>, inv_diag: &Vec<T>, c_d: T, c_r: T) -> Result<(), CudaError> {
        unsafe {
            self.f::<Chebyshev<T>>("chebyshev_step")(x.as_mut_ptr(), d.as_mut_ptr(), r.as_ptr(), b.as_ptr(), inv_diag.as_ptr(), c_d, c_r, b.len() as u32)
        };
        Ok(())
    }
    fn gauss_seidel_color(
        &self,
        a: &DeviceCsr<Self>,
        b: &Vec<T>,
        inv_diag: &Vec<T>,
        rows: &Vec<u32>,
        first: u32,
        count: u32,
        x: &mut Vec<T>,
    ) -> Result<(), CudaError> {
        let f = self.f::<GaussSeidel<T>>("gauss_seidel_color");
        unsafe { f(x.as_mut_ptr(), b.as_ptr(), inv_diag.as_ptr(), a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), rows.as_ptr(), first, count) };
        Ok(())
    }
    fn csr_product(&self, a: &DeviceCsr<Self>, b: &DeviceCsr<Self>, c: &mut DeviceCsr<Self>) -> Result<(), CudaError> {
        let f = self.f::<Product<T>>("csr_product");
        let (ap, ac, av, bp, bc, bv) = (a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), b.row_ptr.as_ptr(), b.col.as_ptr(), b.val.as_ptr());
        unsafe { f(c.val.as_mut_ptr(), c.row_ptr.as_ptr(), c.col.as_ptr(), ap, ac, av, bp, bc, bv, c.rows, c.val.len() as u32) };
        Ok(())
    }
    fn dense_scatter(&self, a: &DeviceCsr<Self>, dense: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<InvDiag<T>>("dense_scatter")(dense.as_mut_ptr(), a.row_ptr.as_ptr(), a.col.as_ptr(), a.val.as_ptr(), a.rows) };
        Ok(())
    }
    fn dense_cholesky(&self, dense: &mut Vec<T>, n: u32, status: &mut Vec<u32>) -> Result<bool, CudaError> {
        unsafe { self.f::<Cholesky<T>>("dense_cholesky")(dense.as_mut_ptr(), n, status.as_mut_ptr()) };
        Ok(status[0] == 0)
    }
    fn cholesky_solve(&self, factor: &Vec<T>, n: u32, b: &Vec<T>, x: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<CholeskySolve<T>>("cholesky_solve")(factor.as_ptr(), b.as_ptr(), x.as_mut_ptr(), n) };
        Ok(())
    }
    fn axpy(&self, y: &mut Vec<T>, a: T, x: &Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<Axpy<T>>("axpy")(y.as_mut_ptr(), a, x.as_ptr(), x.len() as u32) };
        Ok(())
    }
    fn xpay(&self, y: &mut Vec<T>, x: &Vec<T>, beta: T) -> Result<(), CudaError> {
        unsafe { self.f::<Xpay<T>>("xpay")(y.as_mut_ptr(), x.as_ptr(), beta, x.len() as u32) };
        Ok(())
    }
    fn cg_step(&self, x: &mut Vec<T>, r: &mut Vec<T>, p: &Vec<T>, ap: &Vec<T>, alpha: T) -> Result<(), CudaError> {
        unsafe { self.f::<CgStep<T>>("cg_step")(x.as_mut_ptr(), r.as_mut_ptr(), p.as_ptr(), ap.as_ptr(), alpha, p.len() as u32) };
        Ok(())
    }
    fn scaled_difference(&self, out: &mut Vec<T>, s: &Vec<T>, b: &Vec<T>, v: &Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<ScaledDifference<T>>("scaled_difference")(out.as_mut_ptr(), s.as_ptr(), b.as_ptr(), v.as_ptr(), b.len() as u32) };
        Ok(())
    }
    fn dot(&mut self, a: &Vec<T>, b: &Vec<T>) -> Result<f64, CudaError> {
        let mut out = [T::default()];
        unsafe {
            self.f::<DotPartial<T>>("dot_partial")(self.partial.as_mut_ptr(), a.as_ptr(), b.as_ptr(), a.len() as u32);
            self.f::<SumPartials<T>>("sum_partials")(out.as_mut_ptr(), self.partial.as_ptr(), 1);
        }
        Ok(out[0].to_f64())
    }
}

impl<T: KernelScalar> MgpbdOps for HostOps<T> {
    fn primal_fill(&self, k: &DevicePrimalPattern<Self>, grads: &Vec<T>, inv_alpha: &Vec<T>, values: &mut Vec<T>) -> Result<(), CudaError> {
        let f = self.f::<PrimalFill<T>>("primal_fill");
        unsafe {
            f(
                values.as_mut_ptr(),
                k.block_start.as_ptr(),
                k.block_col.as_ptr(),
                k.term_start.as_ptr(),
                k.term_row.as_ptr(),
                k.term_slots.as_ptr(),
                grads.as_ptr(),
                k.inv_mass_free.as_ptr(),
                inv_alpha.as_ptr(),
                k.free_count,
            )
        };
        Ok(())
    }
    fn jacobian_transpose(
        &self,
        inc: &DeviceIncidence<Self>,
        grads: &Vec<T>,
        s: &Vec<T>,
        lambda: &Vec<T>,
        w: &Vec<T>,
        out: &mut Vec<T>,
    ) -> Result<(), CudaError> {
        let f = self.f::<JacobianTranspose<T>>("jacobian_transpose");
        unsafe {
            f(out.as_mut_ptr(), inc.start.as_ptr(), inc.row.as_ptr(), inc.slot.as_ptr(), grads.as_ptr(), s.as_ptr(), lambda.as_ptr(), w.as_ptr(), inc.count)
        };
        Ok(())
    }
    fn jacobian_rows(&self, row_index: &Vec<u32>, rows: u32, grads: &Vec<T>, scale: &Vec<T>, y: &Vec<T>, out: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<JacobianRows<T>>("jacobian_rows")(out.as_mut_ptr(), row_index.as_ptr(), grads.as_ptr(), scale.as_ptr(), y.as_ptr(), rows) };
        Ok(())
    }
    fn dual_fill(&self, a: &DeviceDualPattern<Self>, grads: &Vec<T>, alpha_tilde: &Vec<T>, values: &mut Vec<T>) -> Result<(), CudaError> {
        let f = self.f::<DualFill<T>>("dual_fill");
        unsafe {
            f(
                values.as_mut_ptr(),
                a.nz_row.as_ptr(),
                a.col.as_ptr(),
                a.pair_start.as_ptr(),
                a.pair_slots.as_ptr(),
                a.row_vertex.as_ptr(),
                grads.as_ptr(),
                a.inv_mass.as_ptr(),
                alpha_tilde.as_ptr(),
                a.nnz,
            )
        };
        Ok(())
    }
    fn soft_attachments(&self, a: &mut DeviceSoftAttachments<Self>, x: &mut Vec<T>, inv_mass: &Vec<T>, h: f64) -> Result<(), CudaError> {
        let f = self.f::<SoftAttachments<T>>("soft_attachments");
        let (w, v, o, u, c, t) = (inv_mass.as_ptr(), a.vertex.as_ptr(), a.origin.as_ptr(), a.velocity.as_ptr(), a.compliance.as_ptr(), a.time.as_ptr());
        unsafe { f(x.as_mut_ptr(), w, v, o, u, c, a.lambda.as_mut_ptr(), T::from_f64(h), t, a.count) };
        Ok(())
    }
    fn evaluate_rows(&self, rows: &DeviceRows<Self>, x: &Vec<T>, c: &mut Vec<T>, grads: &mut Vec<T>) -> Result<(), CudaError> {
        let f = self.f::<EvaluateRows<T>>("evaluate_rows");
        unsafe { f(c.as_mut_ptr(), grads.as_mut_ptr(), rows.kind.as_ptr(), rows.row_vertex.as_ptr(), rows.row_data.as_ptr(), x.as_ptr(), rows.count) };
        Ok(())
    }
    fn evaluate_arap_components(&self, rows: &DeviceRows<Self>, x: &Vec<T>, c: &mut Vec<T>, grads: &mut Vec<T>) -> Result<(), CudaError> {
        let f = self.f::<EvaluateArapComponents<T>>("evaluate_arap_components");
        let (first, v, d) = (rows.first_row.as_ptr(), rows.row_vertex.as_ptr(), rows.row_data.as_ptr());
        unsafe { f(c.as_mut_ptr(), grads.as_mut_ptr(), first, v, d, x.as_ptr(), rows.guard, rows.arap_elements) };
        Ok(())
    }
    fn dual_rhs(&self, c: &Vec<T>, alpha_tilde: &Vec<T>, lambda: &Vec<T>, b: &mut Vec<T>) -> Result<(), CudaError> {
        unsafe { self.f::<ScaledDifference<T>>("dual_rhs")(b.as_mut_ptr(), c.as_ptr(), alpha_tilde.as_ptr(), lambda.as_ptr(), c.len() as u32) };
        Ok(())
    }
    fn inertia_term(&self, x: &Vec<T>, x_tilde: &Vec<T>, corr: &Vec<T>, inv_mass: &Vec<T>, q: &mut Vec<T>) -> Result<(), CudaError> {
        let f = self.f::<InertiaTerm<T>>("inertia_term");
        unsafe { f(q.as_mut_ptr(), x.as_ptr(), x_tilde.as_ptr(), corr.as_ptr(), inv_mass.as_ptr(), inv_mass.len() as u32) };
        Ok(())
    }
}
