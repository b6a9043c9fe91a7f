// MGPBD's constraint rows on the GPU (issue 7; crates/xpbd-core/src/mgpbd/rows.rs, Rows::evaluate): C and the
// node gradients of every row at positions x, the dual right-hand side b = -(C + alpha_tilde lambda) whose norm
// is the outer loop's residual (and its line search's), and the inertia term q of the outer iteration
// (crates/xpbd-cpu/src/mgpbd/mod.rs). The row math is that of the XPBD kernels
// (tet_constraints.cuh, cloth_constraints.cuh); ARAP rows take their rotation from polar.cuh.
//
// Per row r: kind[r] (ROW_* below), its 4 vertex slots row_vertex[4r + a] (NO_VERTEX if unused), and 10 scalars
// of row_data: tets D_m^-1 row-major then gamma = 1 + mu / lambda (hydrostatic rows); edges the rest length, hinges
// the rest angle, in row_data[10 r]. Gradients: 12 scalars per row (slot, axis), zero in unused slots.
// The nine component rows of an ARAP element are consecutive and written by evaluate_arap_components, one
// thread per element (one polar decomposition for the nine, as Rows::evaluate_all on the CPU); evaluate_rows
// leaves them alone.
#include "cloth_constraints.cuh"
#include "common.cuh"
#include "polar.cuh"
#include "tet_constraints.cuh"

namespace xpbd {

// Row kinds (xpbd_cuda::rows_device::RowCode).
constexpr unsigned int ROW_HYDROSTATIC = 0, ROW_DEVIATORIC = 1, ROW_EDGE = 2, ROW_HINGE = 3, ROW_ARAP = 4,
                       ROW_ARAP_COMPONENT = 5;

// The 4 positions of row r's vertices (zero in unused slots).
template <typename T>
__device__ __forceinline__ void gather_row(const unsigned int* __restrict__ row_vertex, const T* __restrict__ x, size_t r,
                                           T p[4][3]) {
    for (int a = 0; a < 4; ++a) {
        const unsigned int v = row_vertex[4 * r + a];
        for (int k = 0; k < 3; ++k) p[a][k] = v == 0xffffffffu ? T(0) : x[3 * static_cast<size_t>(v) + k];
    }
}

template <typename T>
__device__ __forceinline__ void store_row(T* __restrict__ c, T* __restrict__ grads, size_t r, T value, const T g[4][3]) {
    c[r] = value;
    for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 3; ++k) grads[12 * r + 3 * a + k] = g[a][k];
}

}  // namespace xpbd

template <typename T>
__device__ __forceinline__ void evaluate_rows_impl(T* __restrict__ c, T* __restrict__ grads,
                                                   const unsigned int* __restrict__ kind,
                                                   const unsigned int* __restrict__ row_vertex,
                                                   const T* __restrict__ row_data, const T* __restrict__ x,
                                                   unsigned int rows) {
    for (size_t r = xpbd::global_thread_index(); r < rows; r += xpbd::grid_stride()) {
        if (kind[r] == xpbd::ROW_ARAP_COMPONENT) continue;
        T p[4][3], g[4][3] = {};
        xpbd::gather_row(row_vertex, x, r, p);
        const T* d = row_data + 10 * r;
        T value = T(0);  // the host uploads only the ROW_* codes
        switch (kind[r]) {
            case xpbd::ROW_EDGE: {
                T pe[2][3] = {{p[0][0], p[0][1], p[0][2]}, {p[1][0], p[1][1], p[1][2]}}, ge[2][3];
                value = xpbd::DistanceRow::constraint(pe, d[0], ge);
                for (int a = 0; a < 2; ++a)
                    for (int k = 0; k < 3; ++k) g[a][k] = ge[a][k];
                break;
            }
            case xpbd::ROW_HINGE:
                value = xpbd::BendingRow::constraint(p, d[0], g);
                break;
            case xpbd::ROW_HYDROSTATIC:
            case xpbd::ROW_DEVIATORIC: {
                T f[3][3], P[3][3];
                xpbd::deformation_gradient(p, d, f);
                value = kind[r] == xpbd::ROW_HYDROSTATIC ? xpbd::hydrostatic(f, d[9], P) : xpbd::deviatoric(f, P);
                xpbd::node_gradients(P, d, g);
                break;
            }
            case xpbd::ROW_ARAP: {
                T f[3][3], P[3][3];
                xpbd::deformation_gradient(p, d, f);
                value = xpbd::arap_cone(f, P);
                xpbd::node_gradients(P, d, g);
                break;
            }
        }
        xpbd::store_row(c, grads, r, value, g);
    }
}

// The nine component rows of each ARAP element, from one polar decomposition: element s's rows are
// first_row[s] + k, k = 0..8, with the vertices and D_m^-1 of its first row. `guard` is arap.rs's MIN_PAIR_SUM
// (exact rotation derivative) or infinity (R held fixed).
template <typename T>
__device__ __forceinline__ void evaluate_arap_components_impl(T* __restrict__ c, T* __restrict__ grads,
                                                              const unsigned int* __restrict__ first_row,
                                                              const unsigned int* __restrict__ row_vertex,
                                                              const T* __restrict__ row_data, const T* __restrict__ x,
                                                              T guard, unsigned int elements) {
    for (size_t s = xpbd::global_thread_index(); s < elements; s += xpbd::grid_stride()) {
        const size_t r0 = first_row[s];
        const T* d = row_data + 10 * r0;
        T p[4][3], f[3][3];
        xpbd::gather_row(row_vertex, x, r0, p);
        xpbd::deformation_gradient(p, d, f);
        const xpbd::Polar3<T> polar(f);
#pragma unroll
        for (int k = 0; k < 9; ++k) {
            T P[3][3], g[4][3];
            const T value = xpbd::arap_component(f, polar, k, guard, P);
            xpbd::node_gradients(P, d, g);
            xpbd::store_row(c, grads, r0 + k, value, g);
        }
    }
}

// b = -(C + alpha_tilde lambda) (xpbd_core::mgpbd::assemble); its norm is the residual ||C + alpha_tilde lambda||.
template <typename T>
__device__ __forceinline__ void dual_rhs_impl(T* __restrict__ b, const T* __restrict__ c, const T* __restrict__ alpha_tilde,
                                              const T* __restrict__ lambda, unsigned int rows) {
    for (size_t r = xpbd::global_thread_index(); r < rows; r += xpbd::grid_stride()) b[r] = -(c[r] + alpha_tilde[r] * lambda[r]);
}

// q_v = (x_v - x_tilde_v) - corr_v for free vertices, 0 for pinned ones, with corr = M^-1 J^T lambda: how far the
// positions are from the multipliers' motion (Mgpbd::iterate_rows). 3 scalars per vertex, n vertices.
template <typename T>
__device__ __forceinline__ void inertia_term_impl(T* __restrict__ q, const T* __restrict__ x, const T* __restrict__ x_tilde,
                                                  const T* __restrict__ corr, const T* __restrict__ inv_mass, unsigned int n) {
    for (size_t v = xpbd::global_thread_index(); v < n; v += xpbd::grid_stride())
        for (int k = 0; k < 3; ++k)
            q[3 * v + k] = xpbd::is_free(inv_mass[v]) ? x[3 * v + k] - x_tilde[3 * v + k] - corr[3 * v + k] : T(0);
}

XPBD_EXPORT_F32_F64(evaluate_rows,
                    (T* __restrict__ c, T* __restrict__ grads, const unsigned int* __restrict__ kind,
                     const unsigned int* __restrict__ row_vertex, const T* __restrict__ row_data,
                     const T* __restrict__ x, unsigned int rows),
                    (c, grads, kind, row_vertex, row_data, x, rows))
XPBD_EXPORT_F32_F64(evaluate_arap_components,
                    (T* __restrict__ c, T* __restrict__ grads, const unsigned int* __restrict__ first_row,
                     const unsigned int* __restrict__ row_vertex, const T* __restrict__ row_data,
                     const T* __restrict__ x, T guard, unsigned int elements),
                    (c, grads, first_row, row_vertex, row_data, x, guard, elements))
XPBD_EXPORT_F32_F64(dual_rhs,
                    (T* __restrict__ b, const T* __restrict__ c, const T* __restrict__ alpha_tilde,
                     const T* __restrict__ lambda, unsigned int rows),
                    (b, c, alpha_tilde, lambda, rows))
XPBD_EXPORT_F32_F64(inertia_term,
                    (T* __restrict__ q, const T* __restrict__ x, const T* __restrict__ x_tilde, const T* __restrict__ corr,
                     const T* __restrict__ inv_mass, unsigned int n),
                    (q, x, x_tilde, corr, inv_mass, n))
