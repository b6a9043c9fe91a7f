// MGPBD's primal system on the GPU (issue 7; crates/xpbd-core/src/mgpbd/primal.rs): the refill of
// K = M + J^T inv_alpha J on the fixed pattern of PrimalPattern, and the products with J and J^T that turn the dual
// system into the primal one and back (K y = J^T inv_alpha b, then Delta lambda = inv_alpha (b - J y)).
//
// J is stored per row r as 4 slots: row_free[4r + a] is the free index of the row's a-th vertex (PINNED for a
// pinned or unused slot) and grads[12r + 3a + k] its gradient. The vertex -> rows incidence of PrimalPattern
// (vertex_start, and per entry vertex_row, vertex_slot) makes J^T a gather per free vertex: no atomics.
#include "common.cuh"

namespace xpbd {

// PrimalPattern's marker of a pinned vertex (xpbd_core::mgpbd::primal::PINNED).
constexpr unsigned int PINNED = 0xffffffffu;

}  // namespace xpbd

// Block row u of K per thread (PrimalPattern::fill_block_row): for each block b of the row, with column vertex
// block_col[b], K_uv = delta_uv m_u I + sum over its terms (row, a, c) of inv_alpha_row grad_a grad_c^T, written
// scalar row by scalar row into values[9 block_start[u] ..]. term_slots packs a * 4 + c.
template <typename T>
__device__ __forceinline__ void primal_fill_impl(T* __restrict__ values, const unsigned int* __restrict__ block_start,
                                                 const unsigned int* __restrict__ block_col,
                                                 const unsigned int* __restrict__ term_start,
                                                 const unsigned int* __restrict__ term_row,
                                                 const unsigned int* __restrict__ term_slots, const T* __restrict__ grads,
                                                 const T* __restrict__ inv_mass_free, const T* __restrict__ inv_alpha,
                                                 unsigned int free_count) {
    for (size_t u = xpbd::global_thread_index(); u < free_count; u += xpbd::grid_stride()) {
        const size_t first = block_start[u], count = block_start[u + 1] - first;
        for (size_t local = 0; local < count; ++local) {
            const size_t b = first + local;
            T k[3][3];
            const T mass = block_col[b] == u ? T(1) / inv_mass_free[u] : T(0);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) k[i][j] = i == j ? mass : T(0);
            for (size_t t = term_start[b]; t < term_start[b + 1]; ++t) {
                const size_t r = term_row[t];
                const T* ga = grads + 12 * r + 3 * (term_slots[t] / 4);
                const T* gc = grads + 12 * r + 3 * (term_slots[t] % 4);
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) k[i][j] += ga[i] * gc[j] * inv_alpha[r];
            }
            T* out = values + 9 * first;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) out[i * 3 * count + 3 * local + j] = k[i][j];
        }
    }
}

// out_u = w_u sum over the rows (r, a) at free vertex u of grad_a C_r (s_r lambda_r) (PrimalPattern::
// transpose_product for w = 1; with s = 1 and w = the inverse masses it is the position correction
// Delta x = W J^T Delta lambda).
template <typename T>
__device__ __forceinline__ void jacobian_transpose_impl(T* __restrict__ out, const unsigned int* __restrict__ vertex_start,
                                                        const unsigned int* __restrict__ vertex_row,
                                                        const unsigned int* __restrict__ vertex_slot,
                                                        const T* __restrict__ grads, const T* __restrict__ s,
                                                        const T* __restrict__ lambda, const T* __restrict__ w,
                                                        unsigned int free_count) {
    for (size_t u = xpbd::global_thread_index(); u < free_count; u += xpbd::grid_stride()) {
        T acc[3] = {T(0), T(0), T(0)};
        for (size_t e = vertex_start[u]; e < vertex_start[u + 1]; ++e) {
            const size_t r = vertex_row[e];
            const T sl = s[r] * lambda[r];
            for (int k = 0; k < 3; ++k) acc[k] += grads[12 * r + 3 * vertex_slot[e] + k] * sl;
        }
        for (int k = 0; k < 3; ++k) out[3 * u + k] = w[u] * acc[k];
    }
}

// out_r = sum over the row's free slots a of scale_u grad_a C_r . y_u (PrimalPattern::row_product): with scale =
// the inverse masses it is the dual residual J W r_K of a primal residual, with scale = 1 the J y of the recovery.
template <typename T>
__device__ __forceinline__ void jacobian_rows_impl(T* __restrict__ out, const unsigned int* __restrict__ row_free,
                                                   const T* __restrict__ grads, const T* __restrict__ scale,
                                                   const T* __restrict__ y, unsigned int rows) {
    for (size_t r = xpbd::global_thread_index(); r < rows; r += xpbd::grid_stride()) {
        T acc = T(0);
        for (int a = 0; a < 4; ++a) {
            const unsigned int u = row_free[4 * r + a];
            if (u == xpbd::PINNED) continue;
            const T* g = grads + 12 * r + 3 * a;
            const T* yu = y + 3 * static_cast<size_t>(u);
            acc += scale[u] * (g[0] * yu[0] + g[1] * yu[1] + g[2] * yu[2]);
        }
        out[r] = acc;
    }
}

XPBD_EXPORT_F32_F64(primal_fill,
                    (T* __restrict__ values, const unsigned int* __restrict__ block_start,
                     const unsigned int* __restrict__ block_col, const unsigned int* __restrict__ term_start,
                     const unsigned int* __restrict__ term_row, const unsigned int* __restrict__ term_slots,
                     const T* __restrict__ grads, const T* __restrict__ inv_mass_free, const T* __restrict__ inv_alpha,
                     unsigned int free_count),
                    (values, block_start, block_col, term_start, term_row, term_slots, grads, inv_mass_free, inv_alpha,
                     free_count))
XPBD_EXPORT_F32_F64(jacobian_transpose,
                    (T* __restrict__ out, const unsigned int* __restrict__ vertex_start,
                     const unsigned int* __restrict__ vertex_row, const unsigned int* __restrict__ vertex_slot,
                     const T* __restrict__ grads, const T* __restrict__ s, const T* __restrict__ lambda,
                     const T* __restrict__ w, unsigned int free_count),
                    (out, vertex_start, vertex_row, vertex_slot, grads, s, lambda, w, free_count))
XPBD_EXPORT_F32_F64(jacobian_rows,
                    (T* __restrict__ out, const unsigned int* __restrict__ row_free, const T* __restrict__ grads,
                     const T* __restrict__ scale, const T* __restrict__ y, unsigned int rows),
                    (out, row_free, grads, scale, y, rows))
