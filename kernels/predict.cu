// XPBD prediction and velocity update (docs/equations.md):
//   predict:          v = damp v + dv (free vertices only);  x_prev = x;  x += h v
//                     with dv = h g and damp = exp(-c h) for velocity damping c (crates/xpbd-core/src/substep/integrate.rs)
//   update_velocity:  v = (x - x_prev) / h
// Positions, velocities and previous positions are flat arrays of 3n scalars; inv_mass has n scalars.
// Pinned vertices (inv_mass 0) get no gravity; with zero velocity they stay where they are.
#include "common.cuh"

template <typename T>
__device__ __forceinline__ void predict_impl(T* __restrict__ x, T* __restrict__ v, T* __restrict__ x_prev,
                                             const T* __restrict__ inv_mass, T dvx, T dvy, T dvz, T damp,
                                             T h, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        xpbd::Vec3<T> vi = xpbd::load3(v, i);
        if (xpbd::is_free(inv_mass[i])) {
            vi.x = vi.x * damp + dvx;
            vi.y = vi.y * damp + dvy;
            vi.z = vi.z * damp + dvz;
        }
        const xpbd::Vec3<T> xi = xpbd::load3(x, i);
        xpbd::store3(x_prev, i, xi);
        xpbd::store3(v, i, vi);
        xpbd::store3(x, i, xpbd::Vec3<T>{xi.x + h * vi.x, xi.y + h * vi.y, xi.z + h * vi.z});
    }
}

template <typename T>
__device__ __forceinline__ void update_velocity_impl(const T* __restrict__ x, const T* __restrict__ x_prev,
                                                     T* __restrict__ v, T h, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        const xpbd::Vec3<T> xi = xpbd::load3(x, i);
        const xpbd::Vec3<T> pi = xpbd::load3(x_prev, i);
        xpbd::store3(v, i, xpbd::Vec3<T>{(xi.x - pi.x) / h, (xi.y - pi.y) / h, (xi.z - pi.z) / h});
    }
}

// predict_f32 / predict_f64(x, v, x_prev, inv_mass, dvx, dvy, dvz, damp, h, n)
XPBD_EXPORT_F32_F64(predict,
                    (T* __restrict__ x, T* __restrict__ v, T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                     T dvx, T dvy, T dvz, T damp, T h, unsigned int n),
                    (x, v, x_prev, inv_mass, dvx, dvy, dvz, damp, h, n))

// update_velocity_f32 / update_velocity_f64(x, x_prev, v, h, n)
XPBD_EXPORT_F32_F64(update_velocity,
                    (const T* __restrict__ x, const T* __restrict__ x_prev, T* __restrict__ v, T h, unsigned int n),
                    (x, x_prev, v, h, n))
