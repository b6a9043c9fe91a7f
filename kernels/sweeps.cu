// XPBD sweeps over one element family on the GPU, and the residual for reporting. Element kinds (`Elem`): the tet
// models of tet_constraints.cuh (neohookean_block, neohookean, stvk, arap) and the cloth rows of cloth_constraints.cuh
// (distance, bending). Elem::N vertices and Elem::ROWS multipliers per element; its per-element data is data0/data1.
//
// project_items_<kind>: Gauss-Seidel in a schedule (block paper Algorithms 2 and 3; crates/xpbd-cpu/src/
//   schedule.rs). The host launches one batch (a color) at a time: items first_item .. first_item + item_count,
//   one thread per item, the elements of item i, item_start[i] .. item_start[i+1], in sequence. Colored: one
//   element per item; clustered: one cluster per item. The items of a batch share no vertex, so no atomics.
//   Element arrays (idx, data0, data1, lambda) are in execution order, so an item's elements are contiguous.
// jacobi_<kind>: every element from the same positions (crates/xpbd-cpu/src/jacobi.rs): its corrections,
//   scaled by s = omega * inv_count[e], go to its own N slots, its multipliers move by s times their change.
//   jacobi_gather then adds each vertex's slots (CSR start/adj) to its position. Deterministic, no atomics.
// residual_sq_<kind>: per-block partial sums of |C + at lambda|^2 over the family's rows (docs/equations.md).
//
// Constants: (c0, c1) the kind's material constants (tets: mu, lambda; cloth: unused, its compliance is data1), h the substep,
// beta_h = damping * h.
#include "cloth_constraints.cuh"
#include "common.cuh"
#include "tet_constraints.cuh"

namespace xpbd {

// Visits element e once in place (Gauss-Seidel): gather, project, scatter positions and multipliers.
template <typename Elem, typename T>
__device__ __forceinline__ void visit_element(size_t e, T* x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                                              const unsigned int* __restrict__ idx, const T* __restrict__ data0,
                                              const T* __restrict__ data1, T* __restrict__ lambda,
                                              const ElementParams<T>& m) {
    Local<T, Elem::N> l;
    gather(l, e, idx, x, x_prev, inv_mass, m.beta_h > T(0));
    T lam[Elem::ROWS];
    for (int k = 0; k < Elem::ROWS; ++k) lam[k] = lambda[Elem::ROWS * e + k];
    Elem::project(m, e, data0, data1, l.w, l.p, l.p0, lam);
    for (int k = 0; k < Elem::ROWS; ++k) lambda[Elem::ROWS * e + k] = lam[k];
    for (int n = 0; n < Elem::N; ++n)
        for (int k = 0; k < 3; ++k) x[3 * static_cast<size_t>(l.v[n]) + k] = l.p[n][k];
}

template <typename Elem, typename T>
__device__ __forceinline__ void project_items(T* x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                                              const unsigned int* __restrict__ idx, const T* __restrict__ data0,
                                              const T* __restrict__ data1, T* __restrict__ lambda,
                                              const unsigned int* __restrict__ item_start, unsigned int first_item,
                                              unsigned int item_count, T c0, T c1, T h, T beta_h) {
    const ElementParams<T> m{c0, c1, h, beta_h};
    for (size_t t = global_thread_index(); t < item_count; t += grid_stride()) {
        const size_t item = first_item + t;
        for (size_t e = item_start[item]; e < item_start[item + 1]; ++e)
            visit_element<Elem>(e, x, x_prev, inv_mass, idx, data0, data1, lambda, m);
    }
}

// Jacobi with mass splitting (crates/xpbd-cpu/src/jacobi.rs): each element solves with its vertices' split inverse
// masses n_v w_v, its multipliers take ω Δλ, and each vertex's slot ω Δx / n_v (inv_count is per vertex).
template <typename Elem, typename T>
__device__ __forceinline__ void jacobi(const T* __restrict__ x, const T* __restrict__ x_prev,
                                       const T* __restrict__ split_inv_mass, const unsigned int* __restrict__ idx,
                                       const T* __restrict__ data0, const T* __restrict__ data1, T* __restrict__ lambda,
                                       const T* __restrict__ inv_count, T* __restrict__ slots, T omega, unsigned int count,
                                       T c0, T c1, T h, T beta_h) {
    const ElementParams<T> m{c0, c1, h, beta_h};
    for (size_t e = global_thread_index(); e < count; e += grid_stride()) {
        Local<T, Elem::N> l;
        gather(l, e, idx, x, x_prev, split_inv_mass, beta_h > T(0));
        T old[Elem::ROWS], lam[Elem::ROWS];
        for (int k = 0; k < Elem::ROWS; ++k) old[k] = lam[k] = lambda[Elem::ROWS * e + k];
        T start[Elem::N][3];
        for (int n = 0; n < Elem::N; ++n)
            for (int k = 0; k < 3; ++k) start[n][k] = l.p[n][k];
        Elem::project(m, e, data0, data1, l.w, l.p, l.p0, lam);
        for (int n = 0; n < Elem::N; ++n) {
            const T s = omega * inv_count[idx[Elem::N * e + n]];
            for (int k = 0; k < 3; ++k) slots[3 * (Elem::N * e + n) + k] = (l.p[n][k] - start[n][k]) * s;
        }
        for (int k = 0; k < Elem::ROWS; ++k) lambda[Elem::ROWS * e + k] = old[k] + (lam[k] - old[k]) * omega;
    }
}


template <typename Elem, typename T>
__device__ __forceinline__ void residual_sq(const T* __restrict__ x, const unsigned int* __restrict__ idx,
                                            const T* __restrict__ data0, const T* __restrict__ data1,
                                            const T* __restrict__ lambda, unsigned int count, T c0, T c1, T h,
                                            T* __restrict__ partial) {
    const ElementParams<T> m{c0, c1, h, T(0)};
    T acc = T(0);
    for (size_t e = global_thread_index(); e < count; e += grid_stride()) {
        T p[Elem::N][3], r[Elem::ROWS];
        for (int n = 0; n < Elem::N; ++n) {
            const size_t v = idx[Elem::N * e + n];
            for (int k = 0; k < 3; ++k) p[n][k] = x[3 * v + k];
        }
        Elem::residual(m, e, data0, data1, p, lambda + Elem::ROWS * e, r);
        for (int k = 0; k < Elem::ROWS; ++k) acc += r[k] * r[k];
    }
    block_sum(acc, partial);
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

// The three kernels of one element kind, exported as <kernel>_<kind>_f32 / _f64, all with the same parameters.
#define XPBD_ELEMENT_KERNELS(ELEM, SUFFIX)                                                                          \
    template <typename T>                                                                                           \
    __device__ __forceinline__ void project_items_##SUFFIX##_impl(                                                  \
        T* x, const T* x_prev, const T* inv_mass, const unsigned int* idx, const T* data0, const T* data1,          \
        T* lambda, const unsigned int* item_start, unsigned int first_item, unsigned int item_count, T c0, T c1,    \
        T h, T beta_h) {                                                                                            \
        xpbd::project_items<ELEM>(x, x_prev, inv_mass, idx, data0, data1, lambda, item_start, first_item,           \
                                  item_count, c0, c1, h, beta_h);                                                   \
    }                                                                                                               \
    XPBD_EXPORT_F32_F64(project_items_##SUFFIX,                                                                     \
                        (T * x, const T* x_prev, const T* inv_mass, const unsigned int* idx, const T* data0,        \
                         const T* data1, T* lambda, const unsigned int* item_start, unsigned int first_item,        \
                         unsigned int item_count, T c0, T c1, T h, T beta_h),                                       \
                        (x, x_prev, inv_mass, idx, data0, data1, lambda, item_start, first_item, item_count, c0,    \
                         c1, h, beta_h))                                                                            \
    template <typename T>                                                                                           \
    __device__ __forceinline__ void jacobi_##SUFFIX##_impl(                                                         \
        const T* x, const T* x_prev, const T* inv_mass, const unsigned int* idx, const T* data0, const T* data1,    \
        T* lambda, const T* inv_count, T* slots, T omega, unsigned int count, T c0, T c1, T h, T beta_h) {          \
        xpbd::jacobi<ELEM>(x, x_prev, inv_mass, idx, data0, data1, lambda, inv_count, slots, omega, count, c0, c1,  \
                           h, beta_h);                                                                              \
    }                                                                                                               \
    XPBD_EXPORT_F32_F64(jacobi_##SUFFIX,                                                                            \
                        (const T* x, const T* x_prev, const T* inv_mass, const unsigned int* idx, const T* data0,   \
                         const T* data1, T* lambda, const T* inv_count, T* slots, T omega, unsigned int count,      \
                         T c0, T c1, T h, T beta_h),                                                                \
                        (x, x_prev, inv_mass, idx, data0, data1, lambda, inv_count, slots, omega, count, c0, c1, h, \
                         beta_h))                                                                                   \
    template <typename T>                                                                                           \
    __device__ __forceinline__ void residual_sq_##SUFFIX##_impl(const T* x, const unsigned int* idx,                \
                                                                const T* data0, const T* data1, const T* lambda,    \
                                                                unsigned int count, T c0, T c1, T h, T* partial) {  \
        xpbd::residual_sq<ELEM>(x, idx, data0, data1, lambda, count, c0, c1, h, partial);                           \
    }                                                                                                               \
    XPBD_EXPORT_F32_F64(residual_sq_##SUFFIX,                                                                       \
                        (const T* x, const unsigned int* idx, const T* data0, const T* data1, const T* lambda,     \
                         unsigned int count, T c0, T c1, T h, T* partial),                                          \
                        (x, idx, data0, data1, lambda, count, c0, c1, h, partial))

XPBD_ELEMENT_KERNELS(xpbd::NeoHookeanBlock, neohookean_block)
XPBD_ELEMENT_KERNELS(xpbd::NeoHookean, neohookean)
XPBD_ELEMENT_KERNELS(xpbd::StVK, stvk)
XPBD_ELEMENT_KERNELS(xpbd::Arap, arap)
XPBD_ELEMENT_KERNELS(xpbd::Distance, distance)
XPBD_ELEMENT_KERNELS(xpbd::Bending, bending)
