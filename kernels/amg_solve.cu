// The linear algebra of MGPBD's solve phase on the GPU (issue 7): CSR products, the V-cycle's relaxations and
// transfers, the Galerkin refresh from a product plan, the coarsest level's dense Cholesky, and the PCG vector
// operations with deterministic two-pass reductions. The driver is crates/xpbd-cuda/src/amg_device.rs and
// pcg_device.rs; each kernel mirrors a CPU function named below, in the same order of operations.
//
// Matrices are CSR (row_ptr, col, val; n rows), the arrays of xpbd_core::linear::Csr. Every product is one thread
// per row (a row of K has 3 x 27 to 3 x 40 nonzeros; a warp per row would idle most lanes of the coarse levels).
// Single-block kernels (sum_partials, dense_cholesky, cholesky_solve) and dot_partial must be launched with blocks
// of REDUCE_BLOCK (common.cuh) threads; the others take any grid (grid-stride loops).
#include "common.cuh"

namespace xpbd {

// (A x)_i, the row's products in stored order (xpbd_core::linear::spmv).
template <typename T>
__device__ __forceinline__ T row_times(const unsigned int* __restrict__ row_ptr, const unsigned int* __restrict__ col,
                                       const T* __restrict__ val, const T* __restrict__ x, size_t i) {
    T s = T(0);
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) s += val[k] * x[col[k]];
    return s;
}

}  // namespace xpbd

// y = A x.
template <typename T>
__device__ __forceinline__ void csr_spmv_impl(T* __restrict__ y, const unsigned int* __restrict__ row_ptr,
                                              const unsigned int* __restrict__ col, const T* __restrict__ val,
                                              const T* __restrict__ x, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) y[i] = xpbd::row_times(row_ptr, col, val, x, i);
}

// r = b - A x (the V-cycle's residual, crates/xpbd-core/src/amg/vcycle.rs).
template <typename T>
__device__ __forceinline__ void csr_residual_impl(T* __restrict__ r, const T* __restrict__ b,
                                                  const unsigned int* __restrict__ row_ptr,
                                                  const unsigned int* __restrict__ col, const T* __restrict__ val,
                                                  const T* __restrict__ x, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) r[i] = b[i] - xpbd::row_times(row_ptr, col, val, x, i);
}

// y += A x: the prolongation-add x += P e with A = P. (Restriction P^T r is csr_spmv with the stored P^T.)
template <typename T>
__device__ __forceinline__ void csr_spmv_add_impl(T* __restrict__ y, const unsigned int* __restrict__ row_ptr,
                                                  const unsigned int* __restrict__ col, const T* __restrict__ val,
                                                  const T* __restrict__ x, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) y[i] += xpbd::row_times(row_ptr, col, val, x, i);
}

// inv_diag_i = 1 / a_ii, 0 where a_ii = 0 or absent (Relaxation::refresh, amg/smoothers.rs).
template <typename T>
__device__ __forceinline__ void inverse_diagonal_impl(T* __restrict__ inv_diag, const unsigned int* __restrict__ row_ptr,
                                                      const unsigned int* __restrict__ col, const T* __restrict__ val,
                                                      unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        T d = T(0);
        for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (col[k] == i) d += val[k];
        inv_diag[i] = d != T(0) ? T(1) / d : T(0);
    }
}

// Weighted Jacobi after r = A x: x += omega D^-1 (b - r), omega = 4 / (3 rho(D^-1 A)) (the MGPBD paper, section 4.2).
template <typename T>
__device__ __forceinline__ void jacobi_sweep_impl(T* __restrict__ x, const T* __restrict__ r, const T* __restrict__ b,
                                                  const T* __restrict__ inv_diag, T omega, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) x[i] += omega * inv_diag[i] * (b[i] - r[i]);
}

// One step of Jacobi-preconditioned Chebyshev (Saad, Alg. 12.1; Relaxation::chebyshev) after r = A x:
//   d = c_d d + c_r D^-1 (b - r);  x += d.
// The host passes c_d = 0, c_r = 1/theta for the first step (d is not read then) and c_d = rho_{k+1} rho_k,
// c_r = 2 rho_{k+1} / delta after it.
template <typename T>
__device__ __forceinline__ void chebyshev_step_impl(T* __restrict__ x, T* __restrict__ d, const T* __restrict__ r,
                                                    const T* __restrict__ b, const T* __restrict__ inv_diag, T c_d,
                                                    T c_r, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        const T step = c_r * inv_diag[i] * (b[i] - r[i]);
        const T di = c_d == T(0) ? step : c_d * d[i] + step;
        d[i] = di;
        x[i] += di;
    }
}

// Gauss-Seidel on the rows of one colour, rows[first .. first + count] (Relaxation::gauss_seidel): no two rows of
// a colour are coupled, so the updates are independent.
template <typename T>
__device__ __forceinline__ void gauss_seidel_color_impl(T* __restrict__ x, const T* __restrict__ b,
                                                        const T* __restrict__ inv_diag,
                                                        const unsigned int* __restrict__ row_ptr,
                                                        const unsigned int* __restrict__ col, const T* __restrict__ val,
                                                        const unsigned int* __restrict__ rows, unsigned int first,
                                                        unsigned int count) {
    for (size_t t = xpbd::global_thread_index(); t < count; t += xpbd::grid_stride()) {
        const size_t i = rows[first + t];
        T s = b[i];
        for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (col[k] != i) s -= val[k] * x[col[k]];
        x[i] = s * inv_diag[i];
    }
}

// Numeric sparse product c = a b on c's fixed pattern (the CPU's symbolic product of the full setup), one thread
// per stored entry c_ij: its row i found by binary search in c's row pointers, then c_ij = sum over a's stored
// entries a_ik of row i, in a's order, of a_ik b_kj, with b_kj found by binary search in b's sorted row k (no term
// where row k has no column j). Every entry thus adds its terms in the order of the CPU's product
// (xpbd_core::amg::product), and the result is the same bits as one thread per row would give. Run twice per
// level, A P then P^T (A P), it is the Galerkin refresh. One thread per entry, not per row: a coarse row of
// P^T (A P) sums thousands of terms, and the coarse levels have few rows (on an H200 the row-per-thread product
// took 60 ms for a 28k-row level in 109 blocks, docs/gpu.md). `nnz` bounds the threads; entries past c_ptr[rows]
// (the one placeholder of an empty pattern) are skipped.
template <typename T>
__device__ __forceinline__ void csr_product_impl(T* __restrict__ c_val, const unsigned int* __restrict__ c_ptr,
                                                 const unsigned int* __restrict__ c_col,
                                                 const unsigned int* __restrict__ a_ptr,
                                                 const unsigned int* __restrict__ a_col, const T* __restrict__ a_val,
                                                 const unsigned int* __restrict__ b_ptr,
                                                 const unsigned int* __restrict__ b_col, const T* __restrict__ b_val,
                                                 unsigned int rows, unsigned int nnz) {
    const unsigned int stored = c_ptr[rows];
    for (size_t o = xpbd::global_thread_index(); o < nnz; o += xpbd::grid_stride()) {
        if (o >= stored) continue;
        // The row holding entry o: the last i with c_ptr[i] <= o (empty rows share their pointer with the next).
        unsigned int lo = 0, hi = rows;
        while (hi - lo > 1) {
            const unsigned int mid = lo + (hi - lo) / 2;
            if (c_ptr[mid] <= o)
                lo = mid;
            else
                hi = mid;
        }
        const unsigned int j = c_col[o];
        T sum = T(0);
        for (unsigned int ka = a_ptr[lo]; ka < a_ptr[lo + 1]; ++ka) {
            const unsigned int k = a_col[ka];
            unsigned int first = b_ptr[k], last = b_ptr[k + 1];
            while (first < last) {
                const unsigned int mid = first + (last - first) / 2;
                if (b_col[mid] < j)
                    first = mid + 1;
                else
                    last = mid;
            }
            if (first < b_ptr[k + 1] && b_col[first] == j) sum += a_val[ka] * b_val[first];
        }
        c_val[o] = sum;
    }
}

// The coarsest matrix, n x n row-major, from its CSR (duplicates added, as CoarseSolve::new).
template <typename T>
__device__ __forceinline__ void dense_scatter_impl(T* __restrict__ dense, const unsigned int* __restrict__ row_ptr,
                                                   const unsigned int* __restrict__ col, const T* __restrict__ val,
                                                   unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        for (size_t j = 0; j < n; ++j) dense[i * n + j] = T(0);
        for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) dense[i * n + col[k]] += val[k];
    }
}

// In-place Cholesky A = L L^T of the dense n x n row-major matrix (lower triangle; one block, right-looking).
// status[0] = 1 if a pivot is not positive (the CPU falls back to LU there; the driver reports it instead).
// `a` is written by one thread and read by the others after a barrier, so it is not __restrict__: with it, nvcc
// kept each thread's load of a_kk from before thread 0 took its square root and divided column k by the unrooted
// pivot on every thread but 0 (seen on an H200; the host build runs one thread and could not show it).
template <typename T>
__device__ __forceinline__ void dense_cholesky_impl(T* a, unsigned int n, unsigned int* __restrict__ status) {
    if (threadIdx.x == 0) status[0] = 0;
    for (size_t k = 0; k < n; ++k) {
        if (threadIdx.x == 0) {
            const T d = a[k * n + k];
            if (!(d > T(0))) status[0] = 1;
            a[k * n + k] = sqrt(d);
        }
        __syncthreads();
        const T lkk = a[k * n + k];
        for (size_t i = k + 1 + threadIdx.x; i < n; i += blockDim.x) a[i * n + k] /= lkk;
        __syncthreads();
        for (size_t i = k + 1 + threadIdx.x; i < n; i += blockDim.x) {
            const T lik = a[i * n + k];
            for (size_t j = k + 1; j <= i; ++j) a[i * n + j] -= lik * a[j * n + k];
        }
        __syncthreads();
    }
}

// x = (L L^T)^-1 b with the factor of dense_cholesky (one block): forward, then backward substitution. `x` is
// shared between the threads across barriers, so it is not __restrict__ (see dense_cholesky).
template <typename T>
__device__ __forceinline__ void cholesky_solve_impl(const T* __restrict__ l, const T* __restrict__ b, T* x, unsigned int n) {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) x[i] = b[i];
    __syncthreads();
    for (size_t j = 0; j < n; ++j) {
        if (threadIdx.x == 0) x[j] /= l[j * n + j];
        __syncthreads();
        for (size_t i = j + 1 + threadIdx.x; i < n; i += blockDim.x) x[i] -= l[i * n + j] * x[j];
        __syncthreads();
    }
    for (size_t j = n; j-- > 0;) {
        if (threadIdx.x == 0) x[j] /= l[j * n + j];
        __syncthreads();
        for (size_t i = threadIdx.x; i < j; i += blockDim.x) x[i] -= l[j * n + i] * x[j];
        __syncthreads();
    }
}

// y += a x.
template <typename T>
__device__ __forceinline__ void axpy_impl(T* __restrict__ y, T a, const T* __restrict__ x, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) y[i] += a * x[i];
}

// y = x + beta y (the PCG search direction p = z + beta p).
template <typename T>
__device__ __forceinline__ void xpay_impl(T* __restrict__ y, const T* __restrict__ x, T beta, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) y[i] = x[i] + beta * y[i];
}

// x += alpha p; r -= alpha ap (one PCG step, crates/xpbd-core/src/linear/pcg.rs).
template <typename T>
__device__ __forceinline__ void cg_step_impl(T* __restrict__ x, T* __restrict__ r, const T* __restrict__ p,
                                             const T* __restrict__ ap, T alpha, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        x[i] += alpha * p[i];
        r[i] -= alpha * ap[i];
    }
}

// out = s (b - v), elementwise (Delta lambda = inv_alpha (b - J y)).
template <typename T>
__device__ __forceinline__ void scaled_difference_impl(T* __restrict__ out, const T* __restrict__ s,
                                                       const T* __restrict__ b, const T* __restrict__ v,
                                                       unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) out[i] = s[i] * (b[i] - v[i]);
}

// First pass of a dot product: partial[block] = the block's share of sum a_i b_i.
template <typename T>
__device__ __forceinline__ void dot_partial_impl(T* __restrict__ partial, const T* __restrict__ a, const T* __restrict__ b,
                                                 unsigned int n) {
    T acc = T(0);
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) acc += a[i] * b[i];
    xpbd::block_sum(acc, partial);
}

// Second pass (one block): out[0] = sum of partial[0 .. count].
template <typename T>
__device__ __forceinline__ void sum_partials_impl(T* __restrict__ out, const T* __restrict__ partial, unsigned int count) {
    T acc = T(0);
    for (size_t i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
    xpbd::block_sum(acc, out);
}

#define XPBD_CSR_PARAMS const unsigned int *__restrict__ row_ptr, const unsigned int *__restrict__ col, const T *__restrict__ val

XPBD_EXPORT_F32_F64(csr_spmv, (T* __restrict__ y, XPBD_CSR_PARAMS, const T* __restrict__ x, unsigned int n),
                    (y, row_ptr, col, val, x, n))
XPBD_EXPORT_F32_F64(csr_residual,
                    (T* __restrict__ r, const T* __restrict__ b, XPBD_CSR_PARAMS, const T* __restrict__ x, unsigned int n),
                    (r, b, row_ptr, col, val, x, n))
XPBD_EXPORT_F32_F64(csr_spmv_add, (T* __restrict__ y, XPBD_CSR_PARAMS, const T* __restrict__ x, unsigned int n),
                    (y, row_ptr, col, val, x, n))
XPBD_EXPORT_F32_F64(inverse_diagonal, (T* __restrict__ inv_diag, XPBD_CSR_PARAMS, unsigned int n),
                    (inv_diag, row_ptr, col, val, n))
XPBD_EXPORT_F32_F64(jacobi_sweep,
                    (T* __restrict__ x, const T* __restrict__ r, const T* __restrict__ b, const T* __restrict__ inv_diag,
                     T omega, unsigned int n),
                    (x, r, b, inv_diag, omega, n))
XPBD_EXPORT_F32_F64(chebyshev_step,
                    (T* __restrict__ x, T* __restrict__ d, const T* __restrict__ r, const T* __restrict__ b,
                     const T* __restrict__ inv_diag, T c_d, T c_r, unsigned int n),
                    (x, d, r, b, inv_diag, c_d, c_r, n))
XPBD_EXPORT_F32_F64(gauss_seidel_color,
                    (T* __restrict__ x, const T* __restrict__ b, const T* __restrict__ inv_diag, XPBD_CSR_PARAMS,
                     const unsigned int* __restrict__ rows, unsigned int first, unsigned int count),
                    (x, b, inv_diag, row_ptr, col, val, rows, first, count))
XPBD_EXPORT_F32_F64(csr_product,
                    (T* __restrict__ c_val, const unsigned int* __restrict__ c_ptr, const unsigned int* __restrict__ c_col,
                     const unsigned int* __restrict__ a_ptr, const unsigned int* __restrict__ a_col,
                     const T* __restrict__ a_val, const unsigned int* __restrict__ b_ptr,
                     const unsigned int* __restrict__ b_col, const T* __restrict__ b_val, unsigned int rows,
                     unsigned int nnz),
                    (c_val, c_ptr, c_col, a_ptr, a_col, a_val, b_ptr, b_col, b_val, rows, nnz))
XPBD_EXPORT_F32_F64(dense_scatter, (T* __restrict__ dense, XPBD_CSR_PARAMS, unsigned int n), (dense, row_ptr, col, val, n))
XPBD_EXPORT_F32_F64(dense_cholesky, (T* a, unsigned int n, unsigned int* __restrict__ status), (a, n, status))
XPBD_EXPORT_F32_F64(cholesky_solve, (const T* __restrict__ l, const T* __restrict__ b, T* x, unsigned int n), (l, b, x, n))
XPBD_EXPORT_F32_F64(axpy, (T* __restrict__ y, T a, const T* __restrict__ x, unsigned int n), (y, a, x, n))
XPBD_EXPORT_F32_F64(xpay, (T* __restrict__ y, const T* __restrict__ x, T beta, unsigned int n), (y, x, beta, n))
XPBD_EXPORT_F32_F64(cg_step,
                    (T* __restrict__ x, T* __restrict__ r, const T* __restrict__ p, const T* __restrict__ ap, T alpha,
                     unsigned int n),
                    (x, r, p, ap, alpha, n))
XPBD_EXPORT_F32_F64(scaled_difference,
                    (T* __restrict__ out, const T* __restrict__ s, const T* __restrict__ b, const T* __restrict__ v,
                     unsigned int n),
                    (out, s, b, v, n))
XPBD_EXPORT_F32_F64(dot_partial, (T* __restrict__ partial, const T* __restrict__ a, const T* __restrict__ b, unsigned int n),
                    (partial, a, b, n))
XPBD_EXPORT_F32_F64(sum_partials, (T* __restrict__ out, const T* __restrict__ partial, unsigned int count),
                    (out, partial, count))
