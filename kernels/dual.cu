// MGPBD's dual matrix A = J M^-1 J^T + alpha_tilde on the GPU (issue 7; crates/xpbd-core/src/mgpbd/assembly.rs):
// the value refill on the fixed pattern of assembly::Pattern, one thread per nonzero, for the baseline solve of
// the dual system by plain CG. The position correction M^-1 J^T Delta lambda per vertex is jacobian_transpose of
// kernels/primal.cu over the same pattern's vertex -> rows incidence.
//
// Per row r, row_vertex[4r + a] is the vertex of slot a (NO_VERTEX if unused) and grads[12r + 3a + k] its
// gradient. The contributions of nonzero k are the slot pairs pair_slots[pair_start[k] .. pair_start[k+1]]
// (s * 4 + t: slot s of row i and slot t of row j share a free vertex).
#include "common.cuh"

// A_ij = sum over pairs of w_v grad_s C_i . grad_t C_j, plus alpha_tilde_i on the diagonal; a diagonal with no
// pairs and alpha_tilde 0 is 1 (Pattern::value).
template <typename T>
__device__ __forceinline__ void dual_fill_impl(T* __restrict__ values, const unsigned int* __restrict__ nz_row,
                                               const unsigned int* __restrict__ col,
                                               const unsigned int* __restrict__ pair_start,
                                               const unsigned int* __restrict__ pair_slots,
                                               const unsigned int* __restrict__ row_vertex, const T* __restrict__ grads,
                                               const T* __restrict__ inv_mass, const T* __restrict__ alpha_tilde,
                                               unsigned int nnz) {
    for (size_t k = xpbd::global_thread_index(); k < nnz; k += xpbd::grid_stride()) {
        const size_t i = nz_row[k], j = col[k];
        T a = T(0);
        for (size_t p = pair_start[k]; p < pair_start[k + 1]; ++p) {
            const unsigned int s = pair_slots[p] / 4, t = pair_slots[p] % 4;
            const T* gi = grads + 12 * i + 3 * s;
            const T* gj = grads + 12 * j + 3 * t;
            a += inv_mass[row_vertex[4 * i + s]] * (gi[0] * gj[0] + gi[1] * gj[1] + gi[2] * gj[2]);
        }
        if (i == j) {
            a += alpha_tilde[i];
            if (a == T(0) && pair_start[k] == pair_start[k + 1]) a = T(1);
        }
        values[k] = a;
    }
}

XPBD_EXPORT_F32_F64(dual_fill,
                    (T* __restrict__ values, const unsigned int* __restrict__ nz_row, const unsigned int* __restrict__ col,
                     const unsigned int* __restrict__ pair_start, const unsigned int* __restrict__ pair_slots,
                     const unsigned int* __restrict__ row_vertex, const T* __restrict__ grads,
                     const T* __restrict__ inv_mass, const T* __restrict__ alpha_tilde, unsigned int nnz),
                    (values, nz_row, col, pair_start, pair_slots, row_vertex, grads, inv_mass, alpha_tilde, nnz))
