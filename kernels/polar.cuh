// The polar decomposition F = R S of a 3x3 matrix and the ARAP rows built on it (crates/xpbd-core/src/constraint/
// arap.rs): F = U Sigma V^T with U, V rotations, so that R = U V^T has det R = +1 and an inverted element keeps
// its reflection in the smallest singular value (sigma_3 < 0), the convention of arap.rs's `Polar`.
//
// V and Sigma^2 come from cyclic Jacobi rotations on the symmetric F^T F, sorted by decreasing eigenvalue; U and
// Sigma from a Givens QR of F V (McAdams et al. 2011, "Computing the singular value decomposition of 3x3 matrices
// with minimal branching and elementary floating point operations"): the QR keeps U orthonormal and a proper
// rotation even where F is singular, and leaves sigma_1, sigma_2 >= 0 and sign(sigma_3) = sign(det F).
#pragma once

namespace xpbd {

// Unit roundoff of T, the Jacobi sweep's threshold for a negligible off-diagonal entry.
template <typename T>
__device__ __forceinline__ T unit_roundoff() {
    return sizeof(T) == sizeof(float) ? T(1.1920929e-7) : T(2.220446049250313e-16);
}

template <typename T>
struct Polar3 {
    T u[3][3], sigma[3], v[3][3];

    // R_ij = sum_a U_ia V_ja.
    __device__ __forceinline__ T rotation(int i, int j) const {
        return u[i][0] * v[j][0] + u[i][1] * v[j][1] + u[i][2] * v[j][2];
    }

    __device__ __forceinline__ explicit Polar3(const T f[3][3]) {
        // A = F^T F and V = I; Jacobi rotations in the planes (p, q) until every off-diagonal entry is
        // negligible against its diagonal pair (quadratic convergence: a handful of sweeps).
        T a[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                a[i][j] = f[0][i] * f[0][j] + f[1][i] * f[1][j] + f[2][i] * f[2][j];
                v[i][j] = T(i == j);
            }
        const T eps = unit_roundoff<T>();
        for (int sweep = 0; sweep < 20; ++sweep) {
            bool rotated = false;
#pragma unroll
            for (int pair = 0; pair < 3; ++pair) {
                const int p = pair == 2 ? 1 : 0, q = pair == 0 ? 1 : 2, r = 3 - p - q;
                const T apq = a[p][q];
                if (fabs(apq) <= eps * (fabs(a[p][p]) + fabs(a[q][q])) || apq == T(0)) continue;
                rotated = true;
                // t = tan of the angle zeroing a_pq (the smaller root, Numerical Recipes' `jacobi`).
                const T theta = (a[q][q] - a[p][p]) / (T(2) * apq);
                const T t = copysign(T(1), theta) / (fabs(theta) + sqrt(theta * theta + T(1)));
                const T c = T(1) / sqrt(t * t + T(1)), s = t * c;
                a[p][p] -= t * apq;
                a[q][q] += t * apq;
                a[p][q] = a[q][p] = T(0);
                const T arp = a[r][p], arq = a[r][q];
                a[r][p] = a[p][r] = c * arp - s * arq;
                a[r][q] = a[q][r] = s * arp + c * arq;
                for (int k = 0; k < 3; ++k) {
                    const T vp = v[k][p], vq = v[k][q];
                    v[k][p] = c * vp - s * vq;
                    v[k][q] = s * vp + c * vq;
                }
            }
            if (!rotated) break;
        }
        // Eigenvalues in decreasing order (three compare-and-swaps), V's columns with them; then det V = +1.
        T w[3] = {a[0][0], a[1][1], a[2][2]};
        const int order[3][2] = {{0, 1}, {0, 2}, {1, 2}};
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            const int i = order[k][0], j = order[k][1];
            if (w[i] < w[j]) {
                const T tw = w[i];
                w[i] = w[j];
                w[j] = tw;
                for (int m = 0; m < 3; ++m) {
                    const T tv = v[m][i];
                    v[m][i] = v[m][j];
                    v[m][j] = tv;
                }
            }
        }
        const T det_v = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                        v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
        if (det_v < T(0))
            for (int m = 0; m < 3; ++m) v[m][2] = -v[m][2];
        // B = F V = U Sigma: Givens rotations G zero B_10, B_20, B_21 from the left (B <- G B, U <- U G^T).
        T b[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                b[i][j] = f[i][0] * v[0][j] + f[i][1] * v[1][j] + f[i][2] * v[2][j];
                u[i][j] = T(i == j);
            }
        const int givens[3][3] = {{0, 1, 0}, {0, 2, 0}, {1, 2, 1}};  // rows (i, j) zeroing b[j][col]
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            const int i = givens[k][0], j = givens[k][1], col = givens[k][2];
            const T x = b[i][col], y = b[j][col], h = sqrt(x * x + y * y);
            if (h == T(0)) continue;
            const T c = x / h, s = y / h;
            for (int m = 0; m < 3; ++m) {
                const T bi = b[i][m], bj = b[j][m];
                b[i][m] = c * bi + s * bj;
                b[j][m] = c * bj - s * bi;
                const T ui = u[m][i], uj = u[m][j];
                u[m][i] = c * ui + s * uj;
                u[m][j] = c * uj - s * ui;
            }
        }
        for (int k = 0; k < 3; ++k) sigma[k] = b[k][k];
    }

    // out += scale * dR_ij/dF: sum over the pairs a < b with sigma_a + sigma_b >= guard of
    // (U_ia V_jb - U_ib V_ja) / (sigma_a + sigma_b) (u_a v_b^T - u_b v_a^T) (arap.rs: `rotation_derivative`).
    __device__ __forceinline__ void add_rotation_derivative(int i, int j, T guard, T scale, T out[3][3]) const {
        const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            const int a = pairs[k][0], b = pairs[k][1];
            const T s = sigma[a] + sigma[b];
            if (!(s >= guard)) continue;
            const T w = scale * (u[i][a] * v[j][b] - u[i][b] * v[j][a]) / s;
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) out[r][c] += w * (u[r][a] * v[c][b] - u[r][b] * v[c][a]);
        }
    }
};

// The cone row C = ||F - R||_F with dC/dF = (F - R) / C, zero below C = 1e-6 (arap.rs: `arap`).
template <typename T>
__device__ __forceinline__ T arap_cone(const T f[3][3], T P[3][3]) {
    const Polar3<T> polar(f);
    T n2 = T(0);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            P[i][j] = f[i][j] - polar.rotation(i, j);
            n2 += P[i][j] * P[i][j];
        }
    const T c = sqrt(n2);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) P[i][j] = c < T(1e-6) ? T(0) : P[i][j] / c;
    return c;
}

// The component row k, C_k = (F - R)_ij with (i, j) = (k / 3, k % 3), and dC_k/dF = E_ij - dR_ij/dF with the
// rotation held fixed about the pairs whose singular values sum below `guard` (arap.rs: `component`; an infinite
// guard holds R fixed everywhere, `arap_rotation = "fixed"`).
template <typename T>
__device__ __forceinline__ T arap_component(const T f[3][3], const Polar3<T>& polar, int k, T guard, T P[3][3]) {
    const int i = k / 3, j = k % 3;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) P[r][c] = T(0);
    polar.add_rotation_derivative(i, j, guard, T(-1), P);
    P[i][j] += T(1);
    return f[i][j] - polar.rotation(i, j);
}

}  // namespace xpbd
