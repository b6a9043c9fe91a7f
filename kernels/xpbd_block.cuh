// The XPBD update of one constraint block, shared by every element kind (crates/xpbd-core/src/constraint/
// projection.rs and block_solve.rs, operation for operation), and an element's gathered inputs.
#pragma once
#include "common.cuh"

namespace xpbd {

// Constants of one element family: (c0, c1) are the model's two material constants (tets: constraint Lame mu,
// lambda; cloth: compliance, unused), h the substep, beta_h = damping * h.
template <typename T>
struct ElementParams {
    T c0, c1, h, beta_h;
};

// a x = b in place by Gaussian elimination with partial pivoting; false when a pivot vanishes (block_solve.rs).
template <typename T, int K>
__device__ __forceinline__ bool solve_in_place(T a[K][K], T b[K]) {
    T inv_pivot[K];
#pragma unroll
    for (int col = 0; col < K; ++col) {
        int piv = col;
        T best = fabs(a[col][col]);
#pragma unroll
        for (int r = col + 1; r < K; ++r)
            if (fabs(a[r][col]) > best) {
                piv = r;
                best = fabs(a[r][col]);
            }
        if (!(best > T(0))) return false;
        // Swap rows piv and col. Written as a test per candidate row, so that after unrolling every index is a
        // constant and the block stays in registers (a runtime index would put it in local memory).
#pragma unroll
        for (int r = col + 1; r < K; ++r) {
            if (r != piv) continue;
#pragma unroll
            for (int c = 0; c < K; ++c) {
                const T t = a[r][c];
                a[r][c] = a[col][c];
                a[col][c] = t;
            }
            const T t = b[r];
            b[r] = b[col];
            b[col] = t;
        }
        const T inv = T(1) / a[col][col];
        inv_pivot[col] = inv;
        for (int r = col + 1; r < K; ++r) {
            const T f = a[r][col] * inv;
            if (f != T(0)) {
                for (int c = col; c < K; ++c) a[r][c] -= f * a[col][c];
                b[r] -= f * b[col];
            }
        }
    }
#pragma unroll
    for (int col = K - 1; col >= 0; --col) {
        T s = b[col];
        for (int c = col + 1; c < K; ++c) s -= a[col][c] * b[c];
        b[col] = s * inv_pivot[col];
    }
    return true;
}

// One XPBD block update (projection.rs: project_block; block paper Eq. 19, XPBD damping Eq. 26):
//   ((I + gamma) G M^-1 G^T + at) dl = -(C + at l + gamma G (x - x_n)),  gamma = at * beta_h,
// then l += dl and p += M^-1 G^T dl. `p0` are the positions at the start of the substep (read when damped).
// A singular block changes nothing.
template <typename T, int K, int N>
__device__ __forceinline__ void apply_block(const T c[K], const T g[K][N][3], const T w[N], const T at[K][K], T beta_h,
                                            T p[N][3], const T p0[N][3], T* __restrict__ lambda) {
    T s[K][K];
    for (int a = 0; a < K; ++a)
        for (int b = a; b < K; ++b) {
            T acc = T(0);
            for (int n = 0; n < N; ++n) acc += w[n] * (g[a][n][0] * g[b][n][0] + g[a][n][1] * g[b][n][1] + g[a][n][2] * g[b][n][2]);
            s[a][b] = acc;
            s[b][a] = acc;
        }
    T rhs[K], m[K][K];
    for (int a = 0; a < K; ++a) {
        rhs[a] = c[a];
        for (int b = 0; b < K; ++b) rhs[a] += at[a][b] * lambda[b];
        for (int b = 0; b < K; ++b) m[a][b] = s[a][b] + at[a][b];
    }
    if (beta_h > T(0)) {
        T gdx[K];
        for (int a = 0; a < K; ++a) {
            gdx[a] = T(0);
            for (int n = 0; n < N; ++n)
                gdx[a] += g[a][n][0] * (p[n][0] - p0[n][0]) + g[a][n][1] * (p[n][1] - p0[n][1]) +
                          g[a][n][2] * (p[n][2] - p0[n][2]);
        }
        for (int a = 0; a < K; ++a)
            for (int b = 0; b < K; ++b) {
                const T gamma = at[a][b] * beta_h;
                rhs[a] += gamma * gdx[b];
                for (int k = 0; k < K; ++k) m[a][k] += gamma * s[b][k];
            }
    }
    for (int a = 0; a < K; ++a) rhs[a] = -rhs[a];
    if (!solve_in_place<T, K>(m, rhs)) return;
    T dx[N][3] = {};
    for (int a = 0; a < K; ++a) {
        lambda[a] += rhs[a];
        for (int n = 0; n < N; ++n)
            for (int k = 0; k < 3; ++k) dx[n][k] += g[a][n][k] * (w[n] * rhs[a]);
    }
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < 3; ++k) p[n][k] += dx[n][k];
}


// An element's inputs gathered from the flat arrays: its N vertex indices, positions, positions at the start of
// the substep (only when damped; otherwise a copy of p) and inverse masses.
template <typename T, int N>
struct Local {
    unsigned int v[N];
    T p[N][3], p0[N][3], w[N];
};

template <typename T, int N>
__device__ __forceinline__ void gather(Local<T, N>& l, size_t e, const unsigned int* __restrict__ idx, const T* x,
                                       const T* __restrict__ x_prev, const T* __restrict__ inv_mass, bool damped) {
    for (int n = 0; n < N; ++n) {
        l.v[n] = idx[N * e + n];
        l.w[n] = inv_mass[l.v[n]];
        for (int k = 0; k < 3; ++k) {
            l.p[n][k] = x[3 * static_cast<size_t>(l.v[n]) + k];
            l.p0[n][k] = damped ? x_prev[3 * static_cast<size_t>(l.v[n]) + k] : l.p[n][k];
        }
    }
}

// One scalar row C with gradients g and compliance-over-h^2 `at` (a K = 1 block).
template <typename T, int N>
__device__ __forceinline__ void apply_scalar_row(T c, const T g[N][3], const T w[N], T at, T beta_h, T p[N][3],
                                                 const T p0[N][3], T* __restrict__ lambda) {
    const T cs[1] = {c};
    const T a[1][1] = {{at}};
    T g1[1][N][3];
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < 3; ++k) g1[0][n][k] = g[n][k];
    apply_block<T, 1, N>(cs, g1, w, a, beta_h, p, p0, lambda);
}

}  // namespace xpbd
