// XPBD sweeps over one tet group (one material model) on the GPU, and the residual for reporting.
//
// project_items_<model>: Gauss-Seidel in a schedule (block paper Algorithms 2 and 3; crates/xpbd-cpu/src/
//   schedule.rs). The host launches one batch (a color) at a time: items first_item .. first_item + item_count,
//   one thread per item, the elements of item i, item_start[i] .. item_start[i+1], in sequence. Colored: one
//   element per item; clustered: one cluster per item. The items of a batch share no vertex, so no atomics.
//   Element arrays (tets, dm_inv, volume, lambda) are in execution order, so an item's elements are contiguous.
// jacobi_<model>: every element from the same positions (crates/xpbd-cpu/src/jacobi.rs): its corrections,
//   scaled by s = omega * inv_count[e], go to its own four slots, its multipliers move by s times their change.
//   jacobi_gather then adds each vertex's slots (CSR start/adj) to its position. Deterministic, no atomics.
// residual_sq_<model>: per-block partial sums of |C + at lambda|^2 over the group's rows (DESIGN.md section 7).
//
// Material constants: (mu, lambda) constraint Lame parameters, h the substep, beta_h = damping * h.
#include "common.cuh"
#include "tet_constraints.cuh"

namespace xpbd {

// Visits element e once in place (Gauss-Seidel): gather, project, scatter positions and multipliers.
template <typename Model, typename T>
__device__ __forceinline__ void visit_element(size_t e, T* x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                                              const unsigned int* __restrict__ tets, const T* __restrict__ dm_inv,
                                              const T* __restrict__ volume, T* __restrict__ lambda,
                                              const TetMaterial<T>& m) {
    LocalTet<T> l;
    gather_tet(l, e, tets, x, x_prev, inv_mass, m.beta_h > T(0));
    T lam[Model::ROWS];
    for (int k = 0; k < Model::ROWS; ++k) lam[k] = lambda[Model::ROWS * e + k];
    Model::project(m, dm_inv + 9 * e, volume[e], l.w, l.p, l.p0, lam);
    for (int k = 0; k < Model::ROWS; ++k) lambda[Model::ROWS * e + k] = lam[k];
    for (int n = 0; n < 4; ++n)
        for (int k = 0; k < 3; ++k) x[3 * static_cast<size_t>(l.v[n]) + k] = l.p[n][k];
}

template <typename Model, typename T>
__device__ __forceinline__ void project_items(T* x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                                              const unsigned int* __restrict__ tets, const T* __restrict__ dm_inv,
                                              const T* __restrict__ volume, T* __restrict__ lambda,
                                              const unsigned int* __restrict__ item_start, unsigned int first_item,
                                              unsigned int item_count, T mu, T lame_lambda, T h, T beta_h) {
    const TetMaterial<T> m{mu, lame_lambda, h, beta_h};
    for (size_t t = global_thread_index(); t < item_count; t += grid_stride()) {
        const size_t item = first_item + t;
        for (size_t e = item_start[item]; e < item_start[item + 1]; ++e)
            visit_element<Model>(e, x, x_prev, inv_mass, tets, dm_inv, volume, lambda, m);
    }
}

template <typename Model, typename T>
__device__ __forceinline__ void jacobi(const T* __restrict__ x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                                       const unsigned int* __restrict__ tets, const T* __restrict__ dm_inv,
                                       const T* __restrict__ volume, T* __restrict__ lambda, const T* __restrict__ inv_count,
                                       T* __restrict__ slots, T omega, unsigned int count, T mu, T lame_lambda, T h,
                                       T beta_h) {
    const TetMaterial<T> m{mu, lame_lambda, h, beta_h};
    for (size_t e = global_thread_index(); e < count; e += grid_stride()) {
        LocalTet<T> l;
        gather_tet(l, e, tets, x, x_prev, inv_mass, beta_h > T(0));
        T old[Model::ROWS], lam[Model::ROWS];
        for (int k = 0; k < Model::ROWS; ++k) old[k] = lam[k] = lambda[Model::ROWS * e + k];
        T start[4][3];
        for (int n = 0; n < 4; ++n)
            for (int k = 0; k < 3; ++k) start[n][k] = l.p[n][k];
        Model::project(m, dm_inv + 9 * e, volume[e], l.w, l.p, l.p0, lam);
        const T s = omega * inv_count[e];
        for (int n = 0; n < 4; ++n)
            for (int k = 0; k < 3; ++k) slots[3 * (4 * e + n) + k] = (l.p[n][k] - start[n][k]) * s;
        for (int k = 0; k < Model::ROWS; ++k) lambda[Model::ROWS * e + k] = old[k] + (lam[k] - old[k]) * s;
    }
}

// Block size of residual_sq launches (the host launches blocks of this many threads).
constexpr unsigned int RESIDUAL_BLOCK = 256;

template <typename Model, typename T>
__device__ __forceinline__ void residual_sq(const T* __restrict__ x, const unsigned int* __restrict__ tets,
                                            const T* __restrict__ dm_inv, const T* __restrict__ volume,
                                            const T* __restrict__ lambda, unsigned int count, T mu, T lame_lambda, T h,
                                            T* __restrict__ partial) {
    __shared__ T sums[RESIDUAL_BLOCK];
    const TetMaterial<T> m{mu, lame_lambda, h, T(0)};
    T acc = T(0);
    for (size_t e = global_thread_index(); e < count; e += grid_stride()) {
        T p[4][3], r[Model::ROWS];
        for (int n = 0; n < 4; ++n) {
            const size_t v = tets[4 * e + n];
            for (int k = 0; k < 3; ++k) p[n][k] = x[3 * v + k];
        }
        Model::residual(m, dm_inv + 9 * e, volume[e], p, lambda + Model::ROWS * e, r);
        for (int k = 0; k < Model::ROWS; ++k) acc += r[k] * r[k];
    }
    sums[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int half = RESIDUAL_BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

}  // namespace xpbd

template <typename T>
__device__ __forceinline__ void jacobi_gather_impl(T* __restrict__ x, const T* __restrict__ slots,
                                                   const unsigned int* __restrict__ start,
                                                   const unsigned int* __restrict__ adj, unsigned int n) {
    for (size_t v = xpbd::global_thread_index(); v < n; v += xpbd::grid_stride()) {
        T acc[3] = {T(0), T(0), T(0)};
        for (size_t s = start[v]; s < start[v + 1]; ++s)
            for (int k = 0; k < 3; ++k) acc[k] += slots[3 * static_cast<size_t>(adj[s]) + k];
        for (int k = 0; k < 3; ++k) x[3 * v + k] += acc[k];
    }
}

// jacobi_gather_f32/_f64(x, slots, start, adj, n): x[v] += sum of slots adj[start[v] .. start[v+1]].
XPBD_EXPORT_F32_F64(jacobi_gather,
                    (T* __restrict__ x, const T* __restrict__ slots, const unsigned int* __restrict__ start,
                     const unsigned int* __restrict__ adj, unsigned int n),
                    (x, slots, start, adj, n))

// The three kernels of one model, exported as <kernel>_<model>_f32 / _f64.
#define XPBD_TET_MODEL_KERNELS(MODEL, SUFFIX)                                                                        \
    template <typename T>                                                                                           \
    __device__ __forceinline__ void project_items_##SUFFIX##_impl(                                                  \
        T* x, const T* x_prev, const T* inv_mass, const unsigned int* tets, const T* dm_inv, const T* volume,       \
        T* lambda, const unsigned int* item_start, unsigned int first_item, unsigned int item_count, T mu,          \
        T lame_lambda, T h, T beta_h) {                                                                             \
        xpbd::project_items<MODEL>(x, x_prev, inv_mass, tets, dm_inv, volume, lambda, item_start, first_item,       \
                                   item_count, mu, lame_lambda, h, beta_h);                                         \
    }                                                                                                               \
    XPBD_EXPORT_F32_F64(project_items_##SUFFIX,                                                                     \
                        (T * x, const T* x_prev, const T* inv_mass, const unsigned int* tets, const T* dm_inv,      \
                         const T* volume, T* lambda, const unsigned int* item_start, unsigned int first_item,       \
                         unsigned int item_count, T mu, T lame_lambda, T h, T beta_h),                              \
                        (x, x_prev, inv_mass, tets, dm_inv, volume, lambda, item_start, first_item, item_count, mu, \
                         lame_lambda, h, beta_h))                                                                   \
    template <typename T>                                                                                           \
    __device__ __forceinline__ void jacobi_##SUFFIX##_impl(                                                         \
        const T* x, const T* x_prev, const T* inv_mass, const unsigned int* tets, const T* dm_inv, const T* volume, \
        T* lambda, const T* inv_count, T* slots, T omega, unsigned int count, T mu, T lame_lambda, T h, T beta_h) { \
        xpbd::jacobi<MODEL>(x, x_prev, inv_mass, tets, dm_inv, volume, lambda, inv_count, slots, omega, count, mu,  \
                            lame_lambda, h, beta_h);                                                                \
    }                                                                                                               \
    XPBD_EXPORT_F32_F64(jacobi_##SUFFIX,                                                                            \
                        (const T* x, const T* x_prev, const T* inv_mass, const unsigned int* tets, const T* dm_inv, \
                         const T* volume, T* lambda, const T* inv_count, T* slots, T omega, unsigned int count,     \
                         T mu, T lame_lambda, T h, T beta_h),                                                       \
                        (x, x_prev, inv_mass, tets, dm_inv, volume, lambda, inv_count, slots, omega, count, mu,     \
                         lame_lambda, h, beta_h))                                                                   \
    template <typename T>                                                                                           \
    __device__ __forceinline__ void residual_sq_##SUFFIX##_impl(const T* x, const unsigned int* tets,               \
                                                                const T* dm_inv, const T* volume, const T* lambda,  \
                                                                unsigned int count, T mu, T lame_lambda, T h,       \
                                                                T* partial) {                                       \
        xpbd::residual_sq<MODEL>(x, tets, dm_inv, volume, lambda, count, mu, lame_lambda, h, partial);              \
    }                                                                                                               \
    XPBD_EXPORT_F32_F64(residual_sq_##SUFFIX,                                                                       \
                        (const T* x, const unsigned int* tets, const T* dm_inv, const T* volume, const T* lambda,   \
                         unsigned int count, T mu, T lame_lambda, T h, T* partial),                                 \
                        (x, tets, dm_inv, volume, lambda, count, mu, lame_lambda, h, partial))

XPBD_TET_MODEL_KERNELS(xpbd::NeoHookeanBlock, neohookean_block)
XPBD_TET_MODEL_KERNELS(xpbd::NeoHookean, neohookean)
XPBD_TET_MODEL_KERNELS(xpbd::StVK, stvk)
