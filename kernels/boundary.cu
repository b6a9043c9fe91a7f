// Pins, soft attachments and colliders (plane, sphere, box, cylinder) on the GPU (crates/xpbd-core/src/substep/integrate.rs, attachments.rs,
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

// Colliders (xpbd_core::collider::Shape), COLLIDER_STRIDE scalars each: kind (0 plane, 1 sphere, 2 box,
// 3 cylinder), a (3), b (3), r, friction, restitution, with plane: a = point, b = unit normal; sphere: a = center,
// r = radius; box: a = min corner, b = max corner; cylinder (solid, infinite): a = point on the axis, b = unit
// axis, r = radius.
constexpr int COLLIDER_STRIDE = 10;

// Signed distance (negative inside the solid) and outward unit normal (collider.rs: signed_distance).
template <typename T>
__device__ __forceinline__ T signed_distance(const T* c, const xpbd::Vec3<T>& x, xpbd::Vec3<T>& n) {
    const int kind = static_cast<int>(c[0]);
    const T* a = c + 1;
    const T* b = c + 4;
    const T r = c[7];
    if (kind == 0) {
        n = xpbd::Vec3<T>{b[0], b[1], b[2]};
        return (x.x - a[0]) * b[0] + (x.y - a[1]) * b[1] + (x.z - a[2]) * b[2];
    }
    if (kind == 1) {
        const xpbd::Vec3<T> d{x.x - a[0], x.y - a[1], x.z - a[2]};
        const T len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        n = len > T(1e-15) ? xpbd::Vec3<T>{d.x / len, d.y / len, d.z / len} : xpbd::Vec3<T>{T(0), T(1), T(0)};
        return len - r;
    }
    if (kind == 3) {
        const xpbd::Vec3<T> d{x.x - a[0], x.y - a[1], x.z - a[2]};
        const T da = d.x * b[0] + d.y * b[1] + d.z * b[2];
        const xpbd::Vec3<T> radial{d.x - b[0] * da, d.y - b[1] * da, d.z - b[2] * da};
        const T len = sqrt(radial.x * radial.x + radial.y * radial.y + radial.z * radial.z);
        if (len > T(1e-15)) {
            n = xpbd::Vec3<T>{radial.x / len, radial.y / len, radial.z / len};
        } else {
            // On the axis: axis x e_x, or axis x e_y when that vanishes.
            const T l1 = sqrt(b[2] * b[2] + b[1] * b[1]);
            if (l1 > T(1e-12)) {
                n = xpbd::Vec3<T>{T(0) / l1, b[2] / l1, -b[1] / l1};
            } else {
                const T l2 = sqrt(b[2] * b[2] + b[0] * b[0]);
                n = xpbd::Vec3<T>{-b[2] / l2, T(0) / l2, b[0] / l2};
            }
        }
        return len - r;
    }
    // Box: p relative to the centre, q = |p| - half extent per axis.
    T p[3], q[3];
    const T xs[3] = {x.x, x.y, x.z};
    for (int k = 0; k < 3; ++k) {
        p[k] = xs[k] - (a[k] + b[k]) * T(0.5);
        q[k] = fabs(p[k]) - (b[k] - a[k]) * T(0.5);
    }
    const T qmax = fmax(fmax(q[0], q[1]), q[2]);
    if (qmax > T(0)) {
        // Outside: distance to the box, normal along the clamped offset.
        T o[3];
        for (int k = 0; k < 3; ++k) o[k] = fmax(q[k], T(0));
        const T dist = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        n = xpbd::Vec3<T>{o[0] * copysign(T(1), p[0]) / dist, o[1] * copysign(T(1), p[1]) / dist,
                          o[2] * copysign(T(1), p[2]) / dist};
        return dist;
    }
    // Inside: the nearest face (the first axis of the largest q, as nalgebra's imax).
    const int axis = q[1] > q[0] ? (q[2] > q[1] ? 2 : 1) : (q[2] > q[0] ? 2 : 0);
    const T s = copysign(T(1), axis == 0 ? p[0] : (axis == 1 ? p[1] : p[2]));
    n = xpbd::Vec3<T>{axis == 0 ? s : T(0), axis == 1 ? s : T(0), axis == 2 ? s : T(0)};
    return axis == 0 ? q[0] : (axis == 1 ? q[1] : q[2]);
}

// Contacts after the iterations (contacts.rs: project): each free vertex, collider by collider in order, is
// pushed out of a collider it penetrates and its tangential motion in the substep is removed up to mu * depth.
// Bit c of contact[i] records a contact with collider c, and normal[3 (i C + c) ..] its normal, for the
// restitution pass (C = collider_count <= 32).
template <typename T>
__device__ __forceinline__ void contacts_impl(T* __restrict__ x, const T* __restrict__ x_prev,
                                              const T* __restrict__ inv_mass, const T* __restrict__ colliders,
                                              unsigned int collider_count, unsigned int* __restrict__ contact,
                                              T* __restrict__ normal, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        unsigned int mask = 0;
        if (xpbd::is_free(inv_mass[i])) {
            xpbd::Vec3<T> p = xpbd::load3(x, i);
            const xpbd::Vec3<T> p0 = xpbd::load3(x_prev, i);
            for (unsigned int c = 0; c < collider_count; ++c) {
                const T* col = colliders + COLLIDER_STRIDE * c;
                xpbd::Vec3<T> nc;
                const T d = signed_distance(col, p, nc);
                if (d >= T(0)) continue;
                p = xpbd::Vec3<T>{p.x - nc.x * d, p.y - nc.y * d, p.z - nc.z * d};
                const xpbd::Vec3<T> disp{p.x - p0.x, p.y - p0.y, p.z - p0.z};
                const T dn = disp.x * nc.x + disp.y * nc.y + disp.z * nc.z;
                const xpbd::Vec3<T> tan{disp.x - nc.x * dn, disp.y - nc.y * dn, disp.z - nc.z * dn};
                const T t_len = sqrt(tan.x * tan.x + tan.y * tan.y + tan.z * tan.z);
                if (t_len > T(0)) {
                    const T s = fmin(col[8] * -d / t_len, T(1));
                    p = xpbd::Vec3<T>{p.x - tan.x * s, p.y - tan.y * s, p.z - tan.z * s};
                }
                mask |= 1u << c;
                xpbd::store3(normal, i * collider_count + c, nc);
            }
            xpbd::store3(x, i, p);
        }
        contact[i] = mask;
    }
}

XPBD_EXPORT_F32_F64(contacts,
                    (T* __restrict__ x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                     const T* __restrict__ colliders, unsigned int collider_count, unsigned int* __restrict__ contact,
                     T* __restrict__ normal, unsigned int n),
                    (x, x_prev, inv_mass, colliders, collider_count, contact, normal, n))

// Restitution after the velocity update (contacts.rs: restitute): for each recorded contact, an impact faster
// than 2 g h bounces with -e times the normal velocity before the substep.
template <typename T>
__device__ __forceinline__ void restitution_impl(T* __restrict__ v, const T* __restrict__ v_before,
                                                 const T* __restrict__ colliders, unsigned int collider_count,
                                                 const unsigned int* __restrict__ contact, const T* __restrict__ normal,
                                                 T g, T h, unsigned int n) {
    for (size_t i = xpbd::global_thread_index(); i < n; i += xpbd::grid_stride()) {
        const unsigned int mask = contact[i];
        if (mask == 0) continue;
        xpbd::Vec3<T> vi = xpbd::load3(v, i);
        const xpbd::Vec3<T> vb = xpbd::load3(v_before, i);
        for (unsigned int c = 0; c < collider_count; ++c) {
            if (!(mask & (1u << c))) continue;
            const xpbd::Vec3<T> nc = xpbd::load3(normal, i * collider_count + c);
            const T vn_before = vb.x * nc.x + vb.y * nc.y + vb.z * nc.z;
            if (vn_before < -T(2) * g * h) {
                const T vn = vi.x * nc.x + vi.y * nc.y + vi.z * nc.z;
                const T s = -colliders[COLLIDER_STRIDE * c + 9] * vn_before - vn;
                vi = xpbd::Vec3<T>{vi.x + nc.x * s, vi.y + nc.y * s, vi.z + nc.z * s};
            }
        }
        xpbd::store3(v, i, vi);
    }
}

XPBD_EXPORT_F32_F64(restitution,
                    (T* __restrict__ v, const T* __restrict__ v_before, const T* __restrict__ colliders,
                     unsigned int collider_count, const unsigned int* __restrict__ contact,
                     const T* __restrict__ normal, T g, T h, unsigned int n),
                    (v, v_before, colliders, collider_count, contact, normal, g, h, n))
