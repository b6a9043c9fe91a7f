// Tetrahedral XPBD constraints on the GPU: the formulas of crates/xpbd-core/src/constraint (tet.rs,
// volume.rs, neohookean.rs, stvk.rs, arap.rs, projection.rs, block_solve.rs, tet_model.rs), operation for operation, so
// that double-precision runs agree with the CPU backend to round-off (docs/equations.md); undamped block neo-Hookean
// tets follow the CPU's block kernel (crates/xpbd-cpu/src/block_kernel.rs) instead.
//
// One element is visited on local copies: positions p[4][3] (vertex, axis), inverse masses w[4], and the
// element's multipliers. Matrices are row-major T[3][3]; D_m^-1 is stored row-major, 9 scalars per element.
#pragma once
#include "polar.cuh"
#include "xpbd_block.cuh"

namespace xpbd {

// F = D_s D_m^-1 with D_s = [x1 - x0, x2 - x0, x3 - x0] (tet.rs: deformation_gradient).
template <typename T>
__device__ __forceinline__ void deformation_gradient(const T p[4][3], const T* __restrict__ dm, T f[3][3]) {
    for (int r = 0; r < 3; ++r) {
        const T d0 = p[1][r] - p[0][r], d1 = p[2][r] - p[0][r], d2 = p[3][r] - p[0][r];
        for (int c = 0; c < 3; ++c) f[r][c] = d0 * dm[c] + d1 * dm[3 + c] + d2 * dm[6 + c];
    }
}

// Node gradients of a constraint with dC/dF = P: [g1 g2 g3] = P D_m^-T, g0 = -(g1 + g2 + g3) (tet.rs).
template <typename T>
__device__ __forceinline__ void node_gradients(const T P[3][3], const T* __restrict__ dm, T g[4][3]) {
    for (int k = 0; k < 3; ++k)
        for (int r = 0; r < 3; ++r) g[k + 1][r] = P[r][0] * dm[3 * k] + P[r][1] * dm[3 * k + 1] + P[r][2] * dm[3 * k + 2];
    for (int r = 0; r < 3; ++r) g[0][r] = -(g[1][r] + g[2][r] + g[3][r]);
}

// a . b as a chain of fused multiply-adds (the CPU block kernel's `dot`).
template <typename T>
__device__ __forceinline__ T fused_dot(const T a[3], const T b[3]) {
    return fma(a[2], b[2], fma(a[1], b[1], a[0] * b[0]));
}

// Node gradients of dC/dF given by its columns pc[c], with fused multiply-adds (the CPU block kernel's
// `node_gradients`): g_{k+1} = P (row k of D_m^-1)^T, g0 = -((g1 + g2) + g3).
template <typename T>
__device__ __forceinline__ void column_gradients(const T pc[3][3], const T* __restrict__ dm, T g[4][3]) {
    for (int k = 0; k < 3; ++k)
        for (int r = 0; r < 3; ++r) g[k + 1][r] = fma(pc[2][r], dm[3 * k + 2], fma(pc[1][r], dm[3 * k + 1], pc[0][r] * dm[3 * k]));
    for (int r = 0; r < 3; ++r) g[0][r] = -((g[1][r] + g[2][r]) + g[3][r]);
}

template <typename T>
__device__ __forceinline__ T dot_columns(const T f[3][3], int i, int j) {
    return f[0][i] * f[0][j] + f[1][i] * f[1][j] + f[2][i] * f[2][j];
}

// Hydrostatic C_H = det F - gamma with dC_H/dF = cof F = [f2 x f3, f3 x f1, f1 x f2] (columns; volume.rs).
template <typename T>
__device__ __forceinline__ T hydrostatic(const T f[3][3], T gamma, T P[3][3]) {
    for (int c = 0; c < 3; ++c) {
        const int a = (c + 1) % 3, b = (c + 2) % 3;
        P[0][c] = f[1][a] * f[2][b] - f[2][a] * f[1][b];
        P[1][c] = f[2][a] * f[0][b] - f[0][a] * f[2][b];
        P[2][c] = f[0][a] * f[1][b] - f[1][a] * f[0][b];
    }
    return f[0][0] * P[0][0] + f[1][0] * P[1][0] + f[2][0] * P[2][0] - gamma;
}

// Deviatoric C_D = sqrt(tr F^T F) with dC_D/dF = F / C_D, zero when C_D <= 1e-12 (neohookean.rs).
template <typename T>
__device__ __forceinline__ T deviatoric(const T f[3][3], T P[3][3]) {
    T n2 = T(0);
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) n2 += f[r][c] * f[r][c];
    const T c = sqrt(n2);
    const T s = c > T(1e-12) ? T(1) / c : T(0);
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) P[r][k] = c > T(1e-12) ? f[r][k] * s : T(0);
    return c;
}

// StVK normal row E_ii = (f_i . f_i - 1) / 2 with dE_ii/dF = f_i in column i (stvk.rs: normal_rows).
template <typename T>
__device__ __forceinline__ T stvk_normal_row(const T f[3][3], int i, T P[3][3]) {
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) P[r][c] = c == i ? f[r][i] : T(0);
    return T(0.5) * (dot_columns(f, i, i) - T(1));
}

// StVK shear row E_ij = f_i . f_j / 2 with column i = f_j / 2, column j = f_i / 2 (stvk.rs: shear_row).
template <typename T>
__device__ __forceinline__ T stvk_shear_row(const T f[3][3], int i, int j, T P[3][3]) {
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) P[r][c] = c == i ? f[r][j] * T(0.5) : (c == j ? f[r][i] * T(0.5) : T(0));
    return T(0.5) * dot_columns(f, i, j);
}

// The StVK normal block's compliance (V K)^-1, K = 2 mu I + lambda 1 1^T, in closed form (stvk.rs).
template <typename T>
__device__ __forceinline__ void stvk_normal_compliance(T mu, T lambda, T v, T& diag, T& off) {
    off = -lambda / (T(2) * mu * (T(2) * mu + T(3) * lambda)) / v;
    diag = T(1) / (T(2) * mu * v) + off;
}

// One scalar row with dC/dF = P and compliance-over-h^2 `at`.
template <typename T>
__device__ __forceinline__ void apply_row(T c, const T P[3][3], const T* __restrict__ dm, const T w[4], T at, T beta_h,
                                          T p[4][3], const T p0[4][3], T* __restrict__ lambda) {
    T g[4][3];
    node_gradients(P, dm, g);
    apply_scalar_row<T, 4>(c, g, w, at, beta_h, p, p0, lambda);
}

// The tet models (tet_model.rs: project_tet, tet_residual), element kinds of kernels/sweeps.cu: N = 4 vertices,
// ROWS multipliers per element, per-element data D_m^-1 (data0, 9 scalars) and rest volume (data1), material
// constants (c0, c1) = (mu, lambda). `project` visits element e once; `residual` writes its rows r = C + at lambda.

// Stable neo-Hookean as one coupled 2x2 block (block paper Eq. 17-19).
struct NeoHookeanBlock {
    static constexpr int N = 4, ROWS = 2;
    template <typename T>
    __device__ static void project(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T w[4],
                                   T p[4][3], const T p0[4][3], T* lambda) {
        if (m.beta_h == T(0)) return project_undamped(m, data0 + 9 * e, data1[e], w, p, lambda);
        const T* dm = data0 + 9 * e;
        const T vol = data1[e];
        T f[3][3], ph[3][3], pd[3][3];
        deformation_gradient(p, dm, f);
        const T c[2] = {hydrostatic(f, T(1) + m.c0 / m.c1, ph), deviatoric(f, pd)};
        const T s = T(1) / (vol * m.h * m.h);
        const T at[2][2] = {{s * (T(1) / m.c1), T(0)}, {T(0), s * (T(1) / m.c0)}};
        T g[2][4][3];
        node_gradients(ph, dm, g[0]);
        node_gradients(pd, dm, g[1]);
        apply_block<T, 2, 4>(c, g, w, at, m.beta_h, p, p0, lambda);
    }
    // Without damping, the CPU's block kernel (crates/xpbd-cpu/src/block_kernel.rs) operation for operation: fused
    // multiply-adds, and the 2x2 solved in closed form for (dl_H, dl_D / |F|).
    template <typename T>
    __device__ static void project_undamped(const ElementParams<T>& m, const T* dm, T vol, const T w[4], T p[4][3],
                                            T* lambda) {
        T ds[3][3], f[3][3], cof[3][3], gh[4][3], gf[4][3];  // f[c], cof[c]: columns
        for (int k = 0; k < 3; ++k)
            for (int r = 0; r < 3; ++r) ds[k][r] = p[k + 1][r] - p[0][r];
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) f[c][r] = fma(ds[2][r], dm[6 + c], fma(ds[1][r], dm[3 + c], ds[0][r] * dm[c]));
        for (int c = 0; c < 3; ++c) {
            const T* a = f[(c + 1) % 3];
            const T* b = f[(c + 2) % 3];
            cof[c][0] = fma(a[1], b[2], -(a[2] * b[1]));
            cof[c][1] = fma(a[2], b[0], -(a[0] * b[2]));
            cof[c][2] = fma(a[0], b[1], -(a[1] * b[0]));
        }
        const T c_h = fused_dot(f[0], cof[0]) - (T(1) + m.c0 / m.c1);
        const T norm2 = (fused_dot(f[0], f[0]) + fused_dot(f[1], f[1])) + fused_dot(f[2], f[2]);
        const T c_d = sqrt(norm2);
        column_gradients(cof, dm, gh);
        column_gradients(f, dm, gf);
        T s_hh = T(0), s_hf = T(0), s_ff = T(0);
        for (int n = 0; n < 4; ++n) {
            s_hh = fma(w[n], fused_dot(gh[n], gh[n]), s_hh);
            s_hf = fma(w[n], fused_dot(gh[n], gf[n]), s_hf);
            s_ff = fma(w[n], fused_dot(gf[n], gf[n]), s_ff);
        }
        const T per_volume = T(1) / vol * (T(1) / (m.h * m.h));
        const T alpha_h = per_volume * (T(1) / m.c1), alpha_d = per_volume * (T(1) / m.c0);
        const T a00 = s_hh + alpha_h;
        const T a11 = fma(alpha_d, norm2, s_ff);
        const T r0 = -fma(alpha_h, lambda[0], c_h);
        const T r1 = -fma(c_d, alpha_d * lambda[1], norm2);
        const T det = fma(a00, a11, -(s_hf * s_hf));
        const T inv_det = T(1) / det;
        const T dl_h = fma(a11, r0, -(s_hf * r1)) * inv_det;
        const T y = fma(a00, r1, -(s_hf * r0)) * inv_det;
        const T dl_d = y * c_d;
        if (!(det > T(0) && isfinite(dl_h) && isfinite(dl_d))) return;
        for (int n = 0; n < 4; ++n)
            for (int c = 0; c < 3; ++c) p[n][c] = fma(w[n], fma(gh[n][c], dl_h, gf[n][c] * y), p[n][c]);
        lambda[0] = lambda[0] + dl_h;
        lambda[1] = lambda[1] + dl_d;
    }
    template <typename T>
    __device__ static void residual(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T p[4][3],
                                    const T* lambda, T* r) {
        const T* dm = data0 + 9 * e;
        const T vol = data1[e];
        T f[3][3], P[3][3];
        deformation_gradient(p, dm, f);
        const T inv_h2 = T(1) / (m.h * m.h);
        r[0] = hydrostatic(f, T(1) + m.c0 / m.c1, P) + T(1) / (m.c1 * vol) * inv_h2 * lambda[0];
        r[1] = deviatoric(f, P) + T(1) / (m.c0 * vol) * inv_h2 * lambda[1];
    }
};

// Stable neo-Hookean as two scalar updates, hydrostatic then deviatoric (Macklin & Mueller 2021).
struct NeoHookean {
    static constexpr int N = 4, ROWS = 2;
    template <typename T>
    __device__ static void project(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T w[4],
                                   T p[4][3], const T p0[4][3], T* lambda) {
        const T* dm = data0 + 9 * e;
        const T vol = data1[e];
        const T s = T(1) / (vol * m.h * m.h);
        T f[3][3], P[3][3];
        deformation_gradient(p, dm, f);
        const T ch = hydrostatic(f, T(1) + m.c0 / m.c1, P);
        apply_row(ch, P, dm, w, s * (T(1) / m.c1), m.beta_h, p, p0, lambda);
        deformation_gradient(p, dm, f);
        const T cd = deviatoric(f, P);
        apply_row(cd, P, dm, w, s * (T(1) / m.c0), m.beta_h, p, p0, lambda + 1);
    }
    template <typename T>
    __device__ static void residual(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T p[4][3],
                                    const T* lambda, T* r) {
        const T* dm = data0 + 9 * e;
        const T vol = data1[e];
        NeoHookeanBlock::residual(m, e, data0, data1, p, lambda, r);
    }
};

// StVK: the 3x3 normal block, then the three shear rows E12, E13, E23 as scalar updates.
struct StVK {
    static constexpr int N = 4, ROWS = 6;
    __device__ static constexpr int shear_i(int k) { return k == 2 ? 1 : 0; }
    __device__ static constexpr int shear_j(int k) { return k == 0 ? 1 : 2; }

    template <typename T>
    __device__ static void project(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T w[4],
                                   T p[4][3], const T p0[4][3], T* lambda) {
        const T* dm = data0 + 9 * e;
        const T vol = data1[e];
        const T inv_h2 = T(1) / (m.h * m.h);
        T f[3][3], P[3][3];
        deformation_gradient(p, dm, f);
        T c[3], g[3][4][3];
        for (int i = 0; i < 3; ++i) {
            c[i] = stvk_normal_row(f, i, P);
            node_gradients(P, dm, g[i]);
        }
        T diag, off;
        stvk_normal_compliance(m.c0, m.c1, vol, diag, off);
        const T d = diag * inv_h2, o = off * inv_h2;
        const T at[3][3] = {{d, o, o}, {o, d, o}, {o, o, d}};
        apply_block<T, 3, 4>(c, g, w, at, m.beta_h, p, p0, lambda);
        const T shear = T(1) / (T(4) * m.c0 * vol) * inv_h2;
        for (int k = 0; k < 3; ++k) {
            deformation_gradient(p, dm, f);
            const T cs = stvk_shear_row(f, shear_i(k), shear_j(k), P);
            apply_row(cs, P, dm, w, shear, m.beta_h, p, p0, lambda + 3 + k);
        }
    }
    template <typename T>
    __device__ static void residual(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T p[4][3],
                                    const T* lambda, T* r) {
        const T* dm = data0 + 9 * e;
        const T vol = data1[e];
        T f[3][3], P[3][3];
        deformation_gradient(p, dm, f);
        const T inv_h2 = T(1) / (m.h * m.h);
        T diag, off;
        stvk_normal_compliance(m.c0, m.c1, vol, diag, off);
        for (int i = 0; i < 3; ++i) {
            r[i] = stvk_normal_row(f, i, P);
            for (int j = 0; j < 3; ++j) r[i] += (i == j ? diag : off) * inv_h2 * lambda[j];
        }
        const T shear = T(1) / (T(4) * m.c0 * vol) * inv_h2;
        for (int k = 0; k < 3; ++k) r[3 + k] = stvk_shear_row(f, shear_i(k), shear_j(k), P) + shear * lambda[3 + k];
    }
};

// ARAP: one row C = ||F - R||_F with compliance 1/(mu V) (tet_model.rs, arap.rs; R from polar.cuh).
struct Arap {
    static constexpr int N = 4, ROWS = 1;
    template <typename T>
    __device__ static void project(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T w[4],
                                   T p[4][3], const T p0[4][3], T* lambda) {
        const T* dm = data0 + 9 * e;
        T f[3][3], P[3][3];
        deformation_gradient(p, dm, f);
        const T c = arap_cone(f, P);
        apply_row(c, P, dm, w, T(1) / (m.c0 * data1[e]) * (T(1) / (m.h * m.h)), m.beta_h, p, p0, lambda);
    }
    template <typename T>
    __device__ static void residual(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T p[4][3],
                                    const T* lambda, T* r) {
        T f[3][3], P[3][3];
        deformation_gradient(p, data0 + 9 * e, f);
        r[0] = arap_cone(f, P) + T(1) / (m.h * m.h) / (m.c0 * data1[e]) * lambda[0];
    }
};

}  // namespace xpbd
