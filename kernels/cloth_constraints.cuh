// Cloth constraints (crates/xpbd-core/src/constraint/distance.rs, bending.rs), element kinds of kernels/sweeps.cu:
// one row per element, per-element rest value in data0 and compliance in data1 (at = compliance / h^2; the residual
// adds at lambda).
#pragma once
#include "xpbd_block.cuh"

namespace xpbd {

template <typename T>
__device__ __forceinline__ void sub3(const T a[3], const T b[3], T out[3]) {
    for (int k = 0; k < 3; ++k) out[k] = a[k] - b[k];
}

template <typename T>
__device__ __forceinline__ void cross3(const T a[3], const T b[3], T out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

template <typename T>
__device__ __forceinline__ T dot3(const T a[3], const T b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Edge distance C = |x1 - x0| - L with gradients -n, n (zero when the points coincide).
struct DistanceRow {
    static constexpr int N = 2;
    template <typename T>
    __device__ static T constraint(const T p[2][3], T rest, T g[2][3]) {
        T d[3];
        sub3(p[1], p[0], d);
        const T len = sqrt(dot3(d, d));
        const T s = len > T(1e-15) ? T(1) / len : T(0);
        for (int k = 0; k < 3; ++k) {
            g[1][k] = len > T(1e-15) ? d[k] * s : T(0);
            g[0][k] = -g[1][k];
        }
        return len - rest;
    }
};

// Dihedral bending C = theta - theta0 of the hinge (x0, x1; x2, x3), theta the signed atan2 angle between the
// normals of (x0, x1, x2) and (x1, x0, x3); gradients of Bridson et al. 2003 (zero for a degenerate hinge).
struct BendingRow {
    static constexpr int N = 4;
    template <typename T>
    __device__ static T constraint(const T p[4][3], T rest, T g[4][3]) {
        T e[3], a[3], b[3], n1[3], n2[3], m[3];
        sub3(p[1], p[0], e);
        sub3(p[2], p[0], a);
        sub3(p[3], p[0], b);
        cross3(e, a, n1);
        cross3(b, e, n2);
        const T le = sqrt(dot3(e, e)), a1 = dot3(n1, n1), a2 = dot3(n2, n2);
        cross3(n1, n2, m);
        const T theta = atan2(dot3(m, e), dot3(n1, n2) * le);
        if (le < T(1e-15) || a1 < T(1e-30) || a2 < T(1e-30)) {
            for (int n = 0; n < 4; ++n)
                for (int k = 0; k < 3; ++k) g[n][k] = T(0);
            return theta - rest;
        }
        T u1[3], u2[3], d21[3], d31[3];
        for (int k = 0; k < 3; ++k) {
            u1[k] = n1[k] * (T(1) / a1);
            u2[k] = n2[k] * (T(1) / a2);
        }
        const T inv_le = T(1) / le;
        sub3(p[2], p[1], d21);
        sub3(p[3], p[1], d31);
        const T s2 = dot3(d21, e) * inv_le, s3 = dot3(d31, e) * inv_le;
        const T t2 = dot3(a, e) * inv_le, t3 = dot3(b, e) * inv_le;
        for (int k = 0; k < 3; ++k) {
            g[2][k] = -u1[k] * le;
            g[3][k] = -u2[k] * le;
            g[0][k] = -(u1[k] * s2 + u2[k] * s3);
            g[1][k] = u1[k] * t2 + u2[k] * t3;
        }
        return theta - rest;
    }
};

// A cloth row as an element kind of kernels/sweeps.cu: Row::constraint(p, rest, g) gives C and its gradients;
// at = data1[e] / h^2, the element's compliance (projection.rs: BlockParams::diagonal; metrics.rs: residual).
template <typename Row>
struct ClothRow {
    static constexpr int N = Row::N, ROWS = 1;
    template <typename T>
    __device__ static void project(const ElementParams<T>& m, size_t e, const T* data0, const T* data1, const T w[N],
                                   T p[N][3], const T p0[N][3], T* lambda) {
        T g[N][3];
        const T c = Row::constraint(p, data0[e], g);
        // Skipped when its free vertices barely move it (elements.rs: scalar_row).
        T free = T(0), all = T(0), w_max = T(0);
        for (int n = 0; n < N; ++n) {
            const T g2 = dot3(g[n], g[n]);
            free += w[n] * g2;
            all += g2;
            w_max = w[n] > w_max ? w[n] : w_max;
        }
        if (free != free || free <= T(1e-12) * w_max * all) return;
        apply_scalar_row<T, N>(c, g, w, data1[e] * (T(1) / (m.h * m.h)), m.beta_h, p, p0, lambda);
    }
    template <typename T>
    __device__ static void residual(const ElementParams<T>& m, size_t e, const T* data0, const T* data1,
                                    const T p[N][3], const T* lambda, T* r) {
        T g[N][3];
        r[0] = Row::constraint(p, data0[e], g) + data1[e] * (T(1) / (m.h * m.h)) * lambda[0];
    }
};

using Distance = ClothRow<DistanceRow>;
using Bending = ClothRow<BendingRow>;

}  // namespace xpbd
