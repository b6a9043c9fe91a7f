// Pins, soft attachments and plane colliders on the GPU (crates/xpbd-cpu/src/integrate.rs, attachments.rs,
// contacts.rs). Time-dependent targets read the substep's end time from device memory (`t`, one scalar), so
// that a captured CUDA graph replays with the times the host writes before each launch.
#include "common.cuh"

// Hard pins that move: x = origin + velocity * t (inverse mass 0; integrate.rs: predict).
// origin, velocity: 3 * count scalars.
template <typename T>
__device__ __forceinline__ void place_pins_impl(T* __restrict__ x, const unsigned int* __restrict__ vertex,
                                                const T* __restrict__ origin, const T* __restrict__ velocity,
                                                const T* __restrict__ t, unsigned int count) {
    const T time = *t;
    for (size_t a = xpbd::global_thread_index(); a < count; a += xpbd::grid_stride()) {
        const size_t i = vertex[a];
        for (int k = 0; k < 3; ++k) x[3 * i + k] = origin[3 * a + k] + velocity[3 * a + k] * time;
    }
}

XPBD_EXPORT_F32_F64(place_pins,
                    (T* __restrict__ x, const unsigned int* __restrict__ vertex, const T* __restrict__ origin,
                     const T* __restrict__ velocity, const T* __restrict__ t, unsigned int count),
                    (x, vertex, origin, velocity, t, count))

// One pass over soft attachments, per axis C = x - target(t) with compliance alpha:
// dl = -(C + at l) / (w + at), l += dl, x += w dl, at = alpha / h^2 (attachments.rs). The host guarantees that
// no two attachments share a vertex. lambda: 3 * count scalars.
template <typename T>
__device__ __forceinline__ void soft_attachments_impl(T* __restrict__ x, const T* __restrict__ inv_mass,
                                                      const unsigned int* __restrict__ vertex,
                                                      const T* __restrict__ origin, const T* __restrict__ velocity,
                                                      const T* __restrict__ compliance, T* __restrict__ lambda, T h,
                                                      const T* __restrict__ t, unsigned int count) {
    const T time = *t;
    for (size_t a = xpbd::global_thread_index(); a < count; a += xpbd::grid_stride()) {
        const size_t i = vertex[a];
        const T w = inv_mass[i];
        const T at = compliance[a] / (h * h);
        for (int k = 0; k < 3; ++k) {
            const T c = x[3 * i + k] - (origin[3 * a + k] + velocity[3 * a + k] * time);
            const T dl = -(c + lambda[3 * a + k] * at) / (w + at);
            lambda[3 * a + k] += dl;
            x[3 * i + k] += dl * w;
        }
    }
}

XPBD_EXPORT_F32_F64(soft_attachments,
                    (T* __restrict__ x, const T* __restrict__ inv_mass, const unsigned int* __restrict__ vertex,
                     const T* __restrict__ origin, const T* __restrict__ velocity, const T* __restrict__ compliance,
                     T* __restrict__ lambda, T h, const T* __restrict__ t, unsigned int count),
                    (x, inv_mass, vertex, origin, velocity, compliance, lambda, h, t, count))

// Scalars per plane in `planes`: point (3), unit normal (3), friction, restitution.
constexpr int PLANE_STRIDE = 8;

// Plane contacts after the iterations (contacts.rs: project): each free vertex, plane by plane in order, is
// pushed out of a plane it penetrates, its tangential motion in the substep removed up to mu * depth; bit c of
// contact[i] records a contact with plane c for the restitution pass. At most 32 planes.
template <typename T>
__device__ __forceinline__ void plane_contacts_impl(T* __restrict__ x, const T* __restrict__ x_prev,
                                                    const T* __restrict__ inv_mass, const T* __restrict__ planes,
                                                    unsigned int plane_count, unsigned int* __restrict__ contact,
                                                    unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        unsigned int mask = 0;
        if (xpbd::is_free(inv_mass[i])) {
            xpbd::Vec3<T> p = xpbd::load3(x, i);
            const xpbd::Vec3<T> p0 = xpbd::load3(x_prev, i);
            for (unsigned int c = 0; c < plane_count; ++c) {
                const T* pl = planes + PLANE_STRIDE * c;
                const T d = (p.x - pl[0]) * pl[3] + (p.y - pl[1]) * pl[4] + (p.z - pl[2]) * pl[5];
                if (d >= T(0)) continue;
                p = xpbd::Vec3<T>{p.x - pl[3] * d, p.y - pl[4] * d, p.z - pl[5] * d};
                const xpbd::Vec3<T> disp{p.x - p0.x, p.y - p0.y, p.z - p0.z};
                const T dn = disp.x * pl[3] + disp.y * pl[4] + disp.z * pl[5];
                const xpbd::Vec3<T> tan{disp.x - pl[3] * dn, disp.y - pl[4] * dn, disp.z - pl[5] * dn};
                const T t_len = sqrt(tan.x * tan.x + tan.y * tan.y + tan.z * tan.z);
                if (t_len > T(0)) {
                    const T s = fmin(pl[6] * -d / t_len, T(1));
                    p = xpbd::Vec3<T>{p.x - tan.x * s, p.y - tan.y * s, p.z - tan.z * s};
                }
                mask |= 1u << c;
            }
            xpbd::store3(x, i, p);
        }
        contact[i] = mask;
    }
}

XPBD_EXPORT_F32_F64(plane_contacts,
                    (T* __restrict__ x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                     const T* __restrict__ planes, unsigned int plane_count, unsigned int* __restrict__ contact,
                     unsigned int n),
                    (x, x_prev, inv_mass, planes, plane_count, contact, n))

// Restitution after the velocity update (contacts.rs: restitute): for each recorded contact, an impact faster
// than 2 g h bounces with -e times the normal velocity before the substep.
template <typename T>
__device__ __forceinline__ void restitution_impl(T* __restrict__ v, const T* __restrict__ v_before,
                                                 const T* __restrict__ planes, unsigned int plane_count,
                                                 const unsigned int* __restrict__ contact, T g, T h, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        const unsigned int mask = contact[i];
        if (mask == 0) continue;
        xpbd::Vec3<T> vi = xpbd::load3(v, i);
        const xpbd::Vec3<T> vb = xpbd::load3(v_before, i);
        for (unsigned int c = 0; c < plane_count; ++c) {
            if (!(mask & (1u << c))) continue;
            const T* pl = planes + PLANE_STRIDE * c;
            const T vn_before = vb.x * pl[3] + vb.y * pl[4] + vb.z * pl[5];
            if (vn_before < -T(2) * g * h) {
                const T vn = vi.x * pl[3] + vi.y * pl[4] + vi.z * pl[5];
                const T s = -pl[7] * vn_before - vn;
                vi = xpbd::Vec3<T>{vi.x + pl[3] * s, vi.y + pl[4] * s, vi.z + pl[5] * s};
            }
        }
        xpbd::store3(v, i, vi);
    }
}

XPBD_EXPORT_F32_F64(restitution,
                    (T* __restrict__ v, const T* __restrict__ v_before, const T* __restrict__ planes,
                     unsigned int plane_count, const unsigned int* __restrict__ contact, T g, T h, unsigned int n),
                    (v, v_before, planes, plane_count, contact, g, h, n))
