// Pins, soft attachments and collider contact rows (plane, sphere, box, cylinder) on the GPU
// (crates/xpbd-core/src/substep/integrate.rs, attachments.rs; crates/xpbd-core/src/contact/set.rs, rows.rs,
// restitution.rs). Time-dependent targets read the substep's end time from device memory (`t`, one scalar), so
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
// 3 cylinder), a (3), b (3), r, mu_s, mu_k, restitution, with plane: a = point, b = unit normal; sphere: a = center,
// r = radius; box: a = min corner, b = max corner; cylinder (solid, infinite): a = point on the axis, b = unit
// axis, r = radius (crates/xpbd-cuda/src/xpbd/layout.rs: collider_table).
constexpr int COLLIDER_STRIDE = 11;
constexpr int COLLIDER_MU_S = 8;
constexpr int COLLIDER_MU_K = 9;
constexpr int COLLIDER_RESTITUTION = 10;

// Signed distance at time t (negative inside the solid) and outward unit normal (collider.rs:
// Collider::signed_distance, Shape::signed_distance). Every shape's distance is here, in this one function; the
// shapes do not move yet, so t is unused.
template <typename T>
__device__ __forceinline__ T signed_distance(const T* c, const xpbd::Vec3<T>& x, T t, xpbd::Vec3<T>& n) {
    (void)t;
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

// The velocity at time t of the collider's material point at x (collider.rs: Collider::velocity_at): friction acts
// on the motion relative to it. Colliders do not move yet.
template <typename T>
__device__ __forceinline__ xpbd::Vec3<T> collider_velocity(const T* c, const xpbd::Vec3<T>& x, T t) {
    (void)c;
    (void)x;
    (void)t;
    return xpbd::Vec3<T>{T(0), T(0), T(0)};
}

// Collider contact rows (crates/xpbd-core/src/contact/set.rs, rows.rs, restitution.rs). A row is a (surface vertex,
// collider) pair; surface vertex s (the s-th of `surface`, model.contact.surface.vertices) has bit c of rows[s] set
// when it has a row with collider c this substep, and that row's multipliers lambda_n[s C + c] (normal, >= 0) and
// lambda_t[3 (s C + c) ..] (tangential) and its last normal normal[3 (s C + c) ..] (C = collider_count <= 32).
// The CPU projects the rows vertex by vertex (ascending surface index) and collider by collider; rows of different
// vertices touch different positions, so one thread per surface vertex, colliders in order, is exact in parallel.

// Detection after the prediction (set.rs: ContactSet::detect, the colliders' part): a row for every movable surface
// vertex whose signed distance at the prediction x is below thickness + 2 |x - x_prev|; all of the vertex's
// multipliers to zero.
template <typename T>
__device__ __forceinline__ void detect_collider_rows_impl(const T* __restrict__ x, const T* __restrict__ x_prev,
                                                          const T* __restrict__ inv_mass,
                                                          const unsigned int* __restrict__ surface,
                                                          unsigned int surface_count, const T* __restrict__ colliders,
                                                          unsigned int collider_count, T thickness,
                                                          const T* __restrict__ t, unsigned int* __restrict__ rows,
                                                          T* __restrict__ lambda_n, T* __restrict__ lambda_t) {
    const T time = *t;
    for (size_t s = xpbd::global_thread_index(); s < surface_count; s += xpbd::grid_stride()) {
        for (unsigned int c = 0; c < collider_count; ++c) {
            const size_t r = s * collider_count + c;
            lambda_n[r] = T(0);
            xpbd::store3(lambda_t, r, xpbd::Vec3<T>{T(0), T(0), T(0)});
        }
        const size_t i = surface[s];
        unsigned int mask = 0;
        if (inv_mass[i] != T(0)) {
            const xpbd::Vec3<T> p = xpbd::load3(x, i);
            const xpbd::Vec3<T> p0 = xpbd::load3(x_prev, i);
            const xpbd::Vec3<T> d{p.x - p0.x, p.y - p0.y, p.z - p0.z};
            const T reach = thickness + T(2) * sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
            for (unsigned int c = 0; c < collider_count; ++c) {
                xpbd::Vec3<T> n;
                if (signed_distance(colliders + COLLIDER_STRIDE * c, p, time, n) < reach) mask |= 1u << c;
            }
        }
        rows[s] = mask;
    }
}

XPBD_EXPORT_F32_F64(detect_collider_rows,
                    (const T* __restrict__ x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                     const unsigned int* __restrict__ surface, unsigned int surface_count,
                     const T* __restrict__ colliders, unsigned int collider_count, T thickness, const T* __restrict__ t,
                     unsigned int* __restrict__ rows, T* __restrict__ lambda_n, T* __restrict__ lambda_t),
                    (x, x_prev, inv_mass, surface, surface_count, colliders, collider_count, thickness, t, rows,
                     lambda_n, lambda_t))

template <typename T>
__device__ __forceinline__ T dot3(const xpbd::Vec3<T>& a, const xpbd::Vec3<T>& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// Friction::limit (contact/friction.rs): the tangential multiplier `trial` kept inside the static cone
// |trial| <= mu_s lambda_n, else scaled to length mu_k lambda_n.
template <typename T>
__device__ __forceinline__ xpbd::Vec3<T> friction_limit(const xpbd::Vec3<T>& trial, T lambda_n, T mu_s, T mu_k) {
    const T len = sqrt(dot3(trial, trial));
    if (len <= mu_s * lambda_n) return trial;
    const T s = mu_k * lambda_n / len;
    return xpbd::Vec3<T>{trial.x * s, trial.y * s, trial.z * s};
}

// The normal then the friction update of one row (rows.rs: update), operation for operation: generalised inverse
// mass w, gap c, normal n, relative tangential motion `motion` in the substep before this update; returns the
// position multipliers along n (dn) and tangentially (dt), and updates lambda_n, lambda_t.
template <typename T>
__device__ __forceinline__ void contact_update(T& lambda_n, xpbd::Vec3<T>& lambda_t, T mu_s, T mu_k,
                                               const xpbd::Vec3<T>& n, T w, T c, const xpbd::Vec3<T>& motion, T& dn,
                                               xpbd::Vec3<T>& dt) {
    dn = fmax(-c / w, -lambda_n);
    lambda_n += dn;
    const T ln = dot3(n, lambda_t);
    const xpbd::Vec3<T> held{lambda_t.x - n.x * ln, lambda_t.y - n.y * ln, lambda_t.z - n.z * ln};
    if (lambda_n <= T(0)) {
        lambda_t = xpbd::Vec3<T>{T(0), T(0), T(0)};
        dt = xpbd::Vec3<T>{-held.x, -held.y, -held.z};
        return;
    }
    // The tangential motion after the normal correction, cancelled by a total multiplier `trial`.
    const T wdn = w * dn;
    const xpbd::Vec3<T> m{motion.x + n.x * wdn, motion.y + n.y * wdn, motion.z + n.z * wdn};
    const T mn = dot3(n, m);
    const xpbd::Vec3<T> tangential{m.x - n.x * mn, m.y - n.y * mn, m.z - n.z * mn};
    const xpbd::Vec3<T> trial{held.x - tangential.x / w, held.y - tangential.y / w, held.z - tangential.z / w};
    const xpbd::Vec3<T> limited = friction_limit(trial, lambda_n, mu_s, mu_k);
    dt = xpbd::Vec3<T>{limited.x - held.x, limited.y - held.y, limited.z - held.z};
    lambda_t = limited;
}

// One pass over the collider rows, after each iteration's soft attachments (set.rs: ContactSet::project, the
// colliders' part; rows.rs: ColliderRow::project): a row is a no-op while its vertex is clear and it holds
// nothing; else C = d(x) >= 0 along the collider's normal with Coulomb friction on the motion since the
// substep's start relative to the collider.
template <typename T>
__device__ __forceinline__ void project_collider_rows_impl(T* __restrict__ x, const T* __restrict__ x_prev,
                                                           const T* __restrict__ inv_mass,
                                                           const unsigned int* __restrict__ surface,
                                                           unsigned int surface_count, const T* __restrict__ colliders,
                                                           unsigned int collider_count,
                                                           const unsigned int* __restrict__ rows,
                                                           T* __restrict__ normal, T* __restrict__ lambda_n,
                                                           T* __restrict__ lambda_t, T h, const T* __restrict__ t) {
    const T time = *t;
    for (size_t s = xpbd::global_thread_index(); s < surface_count; s += xpbd::grid_stride()) {
        const unsigned int mask = rows[s];
        if (mask == 0) continue;
        const size_t i = surface[s];
        const T w = inv_mass[i];
        xpbd::Vec3<T> p = xpbd::load3(x, i);
        const xpbd::Vec3<T> p0 = xpbd::load3(x_prev, i);
        for (unsigned int c = 0; c < collider_count; ++c) {
            if (!(mask & (1u << c))) continue;
            const size_t r = s * collider_count + c;
            const T* col = colliders + COLLIDER_STRIDE * c;
            xpbd::Vec3<T> n;
            const T d = signed_distance(col, p, time, n);
            T ln = lambda_n[r];
            if (d >= T(0) && ln == T(0)) continue;
            xpbd::store3(normal, r, n);
            const xpbd::Vec3<T> u = collider_velocity(col, p, time);
            const xpbd::Vec3<T> surface_motion{u.x * h, u.y * h, u.z * h};
            const xpbd::Vec3<T> motion{p.x - p0.x - surface_motion.x, p.y - p0.y - surface_motion.y,
                                       p.z - p0.z - surface_motion.z};
            xpbd::Vec3<T> lt = xpbd::load3(lambda_t, r);
            T dn;
            xpbd::Vec3<T> dt;
            contact_update(ln, lt, col[COLLIDER_MU_S], col[COLLIDER_MU_K], n, w, d, motion, dn, dt);
            lambda_n[r] = ln;
            xpbd::store3(lambda_t, r, lt);
            p = xpbd::Vec3<T>{p.x + (n.x * dn + dt.x) * w, p.y + (n.y * dn + dt.y) * w, p.z + (n.z * dn + dt.z) * w};
        }
        xpbd::store3(x, i, p);
    }
}

XPBD_EXPORT_F32_F64(project_collider_rows,
                    (T* __restrict__ x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                     const unsigned int* __restrict__ surface, unsigned int surface_count,
                     const T* __restrict__ colliders, unsigned int collider_count, const unsigned int* __restrict__ rows,
                     T* __restrict__ normal, T* __restrict__ lambda_n, T* __restrict__ lambda_t, T h,
                     const T* __restrict__ t),
                    (x, x_prev, inv_mass, surface, surface_count, colliders, collider_count, rows, normal, lambda_n,
                     lambda_t, h, t))

// Restitution after the velocity update (set.rs: ContactSet::restitute, restitution.rs): for each collider row
// that pushed (lambda_n > 0), with its last normal, an impact faster than 2 g h bounces with -e times the normal
// velocity before the substep.
template <typename T>
__device__ __forceinline__ void restitution_impl(T* __restrict__ v, const T* __restrict__ v_before,
                                                 const unsigned int* __restrict__ surface, unsigned int surface_count,
                                                 const T* __restrict__ colliders, unsigned int collider_count,
                                                 const unsigned int* __restrict__ rows, const T* __restrict__ normal,
                                                 const T* __restrict__ lambda_n, T g, T h) {
    for (size_t s = xpbd::global_thread_index(); s < surface_count; s += xpbd::grid_stride()) {
        const unsigned int mask = rows[s];
        if (mask == 0) continue;
        const size_t i = surface[s];
        xpbd::Vec3<T> vi = xpbd::load3(v, i);
        const xpbd::Vec3<T> vb = xpbd::load3(v_before, i);
        for (unsigned int c = 0; c < collider_count; ++c) {
            const size_t r = s * collider_count + c;
            if (!(mask & (1u << c)) || !(lambda_n[r] > T(0))) continue;
            const xpbd::Vec3<T> nc = xpbd::load3(normal, r);
            const T vn_before = dot3(vb, nc);
            if (vn_before < -T(2) * g * h) {
                const T vn = dot3(vi, nc);
                const T kick = -colliders[COLLIDER_STRIDE * c + COLLIDER_RESTITUTION] * vn_before - vn;
                vi = xpbd::Vec3<T>{vi.x + nc.x * kick, vi.y + nc.y * kick, vi.z + nc.z * kick};
            }
        }
        xpbd::store3(v, i, vi);
    }
}

XPBD_EXPORT_F32_F64(restitution,
                    (T* __restrict__ v, const T* __restrict__ v_before, const unsigned int* __restrict__ surface,
                     unsigned int surface_count, const T* __restrict__ colliders, unsigned int collider_count,
                     const unsigned int* __restrict__ rows, const T* __restrict__ normal,
                     const T* __restrict__ lambda_n, T g, T h),
                    (v, v_before, surface, surface_count, colliders, collider_count, rows, normal, lambda_n, g, h))

// Narrow phase of the pair rows on the device (crates/xpbd-core/src/contact/detect.rs: vertex_triangle,
// edge_edge; wedge.rs: vertex_edge), operation for operation. The host keeps the broad phase's candidates
// (Detector::update, rerun only when its Verlet list no longer holds) and uploads them as slots: first the
// vertex–triangle candidates (vertices v, t0, t1, t2), then edge–edge (e0, e1, f0, f1), then vertex–edge
// (v, a, b, b; wedge_triangles holds the corners of the one or two triangles bordering the edge, 0xffffffff for
// none). One thread per slot decides at the substep's start x_prev, with the prediction x for the relative
// motion, whether the slot is a row this substep (active), and writes its weights and normal and zeroes its
// multipliers; the projection below runs the active slots in slot order, which is the CPU's row order.
template <typename T>
__device__ __forceinline__ xpbd::Vec3<T> sub3(const xpbd::Vec3<T>& a, const xpbd::Vec3<T>& b) {
    return xpbd::Vec3<T>{a.x - b.x, a.y - b.y, a.z - b.z};
}

template <typename T>
__device__ __forceinline__ xpbd::Vec3<T> scale3(const xpbd::Vec3<T>& a, T s) {
    return xpbd::Vec3<T>{a.x * s, a.y * s, a.z * s};
}

template <typename T>
__device__ __forceinline__ T norm3(const xpbd::Vec3<T>& a) {
    return sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}

template <typename T>
__device__ __forceinline__ T clamp01(T x) {
    return x < T(0) ? T(0) : (x > T(1) ? T(1) : x);
}

// Motion::relative: the largest |(x - x_prev)[p] - (x - x_prev)[q]| over p in a, q in b.
template <typename T>
__device__ T relative_motion(const T* __restrict__ x, const T* __restrict__ x_prev, const unsigned int* a, int na,
                             const unsigned int* b, int nb) {
    T m = T(0);
    for (int i = 0; i < na; ++i) {
        const xpbd::Vec3<T> sp = sub3(xpbd::load3(x, a[i]), xpbd::load3(x_prev, a[i]));
        for (int j = 0; j < nb; ++j) {
            const xpbd::Vec3<T> sq = sub3(xpbd::load3(x, b[j]), xpbd::load3(x_prev, b[j]));
            m = fmax(m, norm3(sub3(sp, sq)));
        }
    }
    return m;
}

// distance.rs: projected_barycentric; false for a degenerate triangle.
template <typename T>
__device__ bool projected_barycentric(const xpbd::Vec3<T>& p, const xpbd::Vec3<T>& a, const xpbd::Vec3<T>& b,
                                      const xpbd::Vec3<T>& c, T w[3]) {
    const xpbd::Vec3<T> v0 = sub3(b, a), v1 = sub3(c, a), v2 = sub3(p, a);
    const T d00 = dot3(v0, v0), d01 = dot3(v0, v1), d11 = dot3(v1, v1), d20 = dot3(v2, v0), d21 = dot3(v2, v1);
    const T denom = d00 * d11 - d01 * d01;
    if (denom <= T(1e-14) * d00 * d11) return false;
    const T v = (d11 * d20 - d01 * d21) / denom;
    const T u = (d00 * d21 - d01 * d20) / denom;
    w[0] = T(1) - v - u;
    w[1] = v;
    w[2] = u;
    return true;
}

// distance.rs: segment_segment.
template <typename T>
__device__ void segment_segment(const xpbd::Vec3<T>& p0, const xpbd::Vec3<T>& p1, const xpbd::Vec3<T>& q0,
                                const xpbd::Vec3<T>& q1, T& s, T& t) {
    const xpbd::Vec3<T> d1 = sub3(p1, p0), d2 = sub3(q1, q0), r = sub3(p0, q0);
    const T a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
    const T tiny = T(1e-300);
    if (a <= tiny && e <= tiny) {
        s = T(0);
        t = T(0);
        return;
    }
    if (a <= tiny) {
        s = T(0);
        t = clamp01(f / e);
        return;
    }
    const T c = dot3(d1, r);
    if (e <= tiny) {
        s = clamp01(-c / a);
        t = T(0);
        return;
    }
    const T b = dot3(d1, d2);
    const T denom = a * e - b * b;
    s = denom > T(1e-14) * a * e ? clamp01((b * f - c * e) / denom) : T(0);
    t = (b * s + f) / e;
    if (t < T(0)) {
        t = T(0);
        s = clamp01(-c / a);
    } else if (t > T(1)) {
        t = T(1);
        s = clamp01((b - c) / a);
    }
}

// detect.rs: ON_BORDER.
#define XPBD_ON_BORDER 1e-9

template <typename T>
__device__ __forceinline__ void narrow_phase_pairs_impl(
    const T* __restrict__ x, const T* __restrict__ x_prev, const unsigned int* __restrict__ vertices,
    const unsigned int* __restrict__ wedge_triangles, unsigned int vertex_triangles, unsigned int edge_edges,
    unsigned int vertex_edges, T thickness, unsigned int* __restrict__ active, T* __restrict__ weights,
    T* __restrict__ normals, T* __restrict__ lambda_n, T* __restrict__ lambda_t) {
    const size_t count = size_t(vertex_triangles) + edge_edges + vertex_edges;
    for (size_t r = xpbd::global_thread_index(); r < count; r += xpbd::grid_stride()) {
        const unsigned int* vertex = vertices + 4 * r;
        lambda_n[r] = T(0);
        xpbd::store3(lambda_t, r, xpbd::Vec3<T>{T(0), T(0), T(0)});
        T w[4] = {T(0), T(0), T(0), T(0)};
        xpbd::Vec3<T> n{T(0), T(0), T(0)};
        bool row = false;
        if (r < vertex_triangles) {
            // vertex_triangle: a vertex over the closed triangle within reach; the face's normal.
            const xpbd::Vec3<T> p = xpbd::load3(x_prev, vertex[0]), a = xpbd::load3(x_prev, vertex[1]),
                                b = xpbd::load3(x_prev, vertex[2]), c = xpbd::load3(x_prev, vertex[3]);
            T bary[3];
            if (projected_barycentric(p, a, b, c, bary) && bary[0] >= T(-XPBD_ON_BORDER) &&
                bary[1] >= T(-XPBD_ON_BORDER) && bary[2] >= T(-XPBD_ON_BORDER)) {
                const xpbd::Vec3<T> e1 = sub3(b, a), e2 = sub3(c, a);
                const xpbd::Vec3<T> cr{e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x};
                const T len = norm3(cr);
                const xpbd::Vec3<T> face{cr.x / len, cr.y / len, cr.z / len};
                const T side = dot3(face, sub3(p, a));
                const T reach = thickness * T(2) + relative_motion(x, x_prev, vertex, 1, vertex + 1, 3);
                if (fabs(side) < reach) {
                    row = true;
                    n = side >= T(0) ? face : xpbd::Vec3<T>{-face.x, -face.y, -face.z};
                    w[0] = T(1);
                    for (int k = 0; k < 3; ++k) w[k + 1] = -fmax(bary[k], T(0));
                }
            }
        } else if (r < size_t(vertex_triangles) + edge_edges) {
            // edge_edge: closest points inside both edges, within reach, the edges apart.
            const xpbd::Vec3<T> p0 = xpbd::load3(x_prev, vertex[0]), p1 = xpbd::load3(x_prev, vertex[1]),
                                q0 = xpbd::load3(x_prev, vertex[2]), q1 = xpbd::load3(x_prev, vertex[3]);
            T u, t;
            segment_segment(p0, p1, q0, q1, u, t);
            const xpbd::Vec3<T> gap = sub3(sub3(xpbd::Vec3<T>{p0.x + (p1.x - p0.x) * u, p0.y + (p1.y - p0.y) * u,
                                                              p0.z + (p1.z - p0.z) * u},
                                                q0),
                                           scale3(sub3(q1, q0), t));
            const T d = norm3(gap);
            const T reach = thickness * T(2) + relative_motion(x, x_prev, vertex, 2, vertex + 2, 2);
            if (!(d >= reach || d <= T(1e-9) * thickness || !(u > T(0) && u < T(1)) || !(t > T(0) && t < T(1)))) {
                row = true;
                n = xpbd::Vec3<T>{gap.x / d, gap.y / d, gap.z / d};
                w[0] = T(1) - u;
                w[1] = u;
                w[2] = t - T(1);
                w[3] = -t;
            }
        } else {
            // vertex_edge: outside every bordering triangle across the edge, closest point inside the edge.
            const unsigned int* tri = wedge_triangles + 6 * (r - vertex_triangles - edge_edges);
            const unsigned int ea = vertex[1], eb = vertex[2];
            const xpbd::Vec3<T> p = xpbd::load3(x_prev, vertex[0]);
            int outside = 0;
            bool inside = false;
            for (int k = 0; k < 2 && !inside; ++k) {
                const unsigned int* corners = tri + 3 * k;
                if (corners[0] == 0xffffffffu) continue;
                T bary[3];
                if (!projected_barycentric(p, xpbd::load3(x_prev, corners[0]), xpbd::load3(x_prev, corners[1]),
                                           xpbd::load3(x_prev, corners[2]), bary))
                    continue;
                int opposite = 0;
                while (corners[opposite] == ea || corners[opposite] == eb) ++opposite;
                if (bary[opposite] >= T(-XPBD_ON_BORDER)) inside = true;
                else ++outside;
            }
            if (!inside && outside > 0) {
                const xpbd::Vec3<T> xa = xpbd::load3(x_prev, ea), xb = xpbd::load3(x_prev, eb);
                const xpbd::Vec3<T> ab = sub3(xb, xa), ap = sub3(p, xa);
                const T t = dot3(ap, ab) / dot3(ab, ab);
                const xpbd::Vec3<T> gap = sub3(ap, scale3(ab, t));
                const T d = norm3(gap);
                const T reach = T(2) * thickness + relative_motion(x, x_prev, vertex, 1, vertex + 1, 2);
                if (t > T(0) && t < T(1) && d < reach && d > T(1e-9) * thickness) {
                    row = true;
                    n = xpbd::Vec3<T>{gap.x / d, gap.y / d, gap.z / d};
                    w[0] = T(1);
                    w[1] = t - T(1);
                    w[2] = -t;
                    w[3] = T(0);
                }
            }
        }
        active[r] = row ? 1u : 0u;
        for (int k = 0; k < 4; ++k) weights[4 * r + k] = w[k];
        xpbd::store3(normals, r, n);
    }
}

XPBD_EXPORT_F32_F64(narrow_phase_pairs,
                    (const T* __restrict__ x, const T* __restrict__ x_prev, const unsigned int* __restrict__ vertices,
                     const unsigned int* __restrict__ wedge_triangles, unsigned int vertex_triangles,
                     unsigned int edge_edges, unsigned int vertex_edges, T thickness,
                     unsigned int* __restrict__ active, T* __restrict__ weights, T* __restrict__ normals,
                     T* __restrict__ lambda_n, T* __restrict__ lambda_t),
                    (x, x_prev, vertices, wedge_triangles, vertex_triangles, edge_edges, vertex_edges, thickness,
                     active, weights, normals, lambda_n, lambda_t))

// Pair rows (crates/xpbd-core/src/contact/rows.rs: PairRow), the active slots of narrow_phase_pairs above: per
// row its four vertices, weights w_k (vertex–triangle
// (1, -b0, -b1, -b2), edge–edge (1 - s, s, -(1 - t), -t)), the normal n fixed for the substep, and the pair's
// friction (mu_s, mu_k); the gap is C = n . sum_k w_k x_k - thickness. A vertex–edge row (vertices p, a, b, b)
// finds its closest point s on the edge and its normal again before each projection (PairRow::follow_edge):
// weights (1, s - 1, -s, 0), n = (p - q) / |p - q|, written back to `normals`.
//
// One pass over all rows in order (set.rs: ContactSet::project, the pairs' part), after each iteration's soft
// attachments and before the collider rows. Rows share vertices, so they run one after the other in ONE thread
// (launch a single thread): the CPU's Gauss-Seidel order exactly, and slow.
template <typename T>
__device__ __forceinline__ xpbd::Vec3<T> pair_combine(const T* __restrict__ a, const T* __restrict__ b,
                                                      const unsigned int* __restrict__ vertex,
                                                      const T* __restrict__ weight) {
    // PairRow::combine: the sum from zero of (a - b)[v_k] w_k (b = null: a[v_k] w_k), k = 0..3.
    xpbd::Vec3<T> s{T(0), T(0), T(0)};
    for (int k = 0; k < 4; ++k) {
        const size_t v = vertex[k];
        xpbd::Vec3<T> p = xpbd::load3(a, v);
        if (b != nullptr) {
            const xpbd::Vec3<T> q = xpbd::load3(b, v);
            p = xpbd::Vec3<T>{p.x - q.x, p.y - q.y, p.z - q.z};
        }
        s = xpbd::Vec3<T>{s.x + p.x * weight[k], s.y + p.y * weight[k], s.z + p.z * weight[k]};
    }
    return s;
}

template <typename T>
__device__ __forceinline__ void project_pair_rows_impl(T* __restrict__ x, const T* __restrict__ x_prev,
                                                       const T* __restrict__ inv_mass,
                                                       const unsigned int* __restrict__ vertices,
                                                       const unsigned int* __restrict__ active,
                                                       const T* __restrict__ weights, T* __restrict__ normals,
                                                       const T* __restrict__ friction, T* __restrict__ lambda_n,
                                                       T* __restrict__ lambda_t, T thickness, unsigned int count) {
    if (xpbd::global_thread_index() != 0) return;
    for (size_t r = 0; r < count; ++r) {
        if (active[r] == 0u) continue;
        const unsigned int* vertex = vertices + 4 * r;
        T weight[4] = {weights[4 * r], weights[4 * r + 1], weights[4 * r + 2], weights[4 * r + 3]};
        if (vertex[2] == vertex[3]) {
            // PairRow::follow_edge.
            const xpbd::Vec3<T> p = xpbd::load3(x, vertex[0]), a = xpbd::load3(x, vertex[1]), b = xpbd::load3(x, vertex[2]);
            const xpbd::Vec3<T> ab{b.x - a.x, b.y - a.y, b.z - a.z}, ap{p.x - a.x, p.y - a.y, p.z - a.z};
            const T len2 = dot3(ab, ab);
            T s = len2 > T(0) ? dot3(ap, ab) / len2 : T(0);
            s = s < T(0) ? T(0) : (s > T(1) ? T(1) : s);
            const xpbd::Vec3<T> gap{ap.x - ab.x * s, ap.y - ab.y * s, ap.z - ab.z * s};
            const T d = sqrt(dot3(gap, gap));
            if (d > T(0)) xpbd::store3(normals, r, xpbd::Vec3<T>{gap.x / d, gap.y / d, gap.z / d});
            weight[0] = T(1);
            weight[1] = s - T(1);
            weight[2] = -s;
            weight[3] = T(0);
        }
        const xpbd::Vec3<T> n = xpbd::load3(normals, r);
        const T c = dot3(n, pair_combine<T>(x, nullptr, vertex, weight)) - thickness;
        T ln = lambda_n[r];
        if (c >= T(0) && ln == T(0)) continue;
        // PairRow::generalised_inverse_mass: the sum from zero of w_k^2 / m_k.
        T w = T(0);
        for (int k = 0; k < 4; ++k) w = w + weight[k] * weight[k] * inv_mass[vertex[k]];
        if (w == T(0)) continue;
        const xpbd::Vec3<T> motion = pair_combine<T>(x, x_prev, vertex, weight);
        xpbd::Vec3<T> lt = xpbd::load3(lambda_t, r);
        T dn;
        xpbd::Vec3<T> dt;
        contact_update(ln, lt, friction[2 * r], friction[2 * r + 1], n, w, c, motion, dn, dt);
        lambda_n[r] = ln;
        xpbd::store3(lambda_t, r, lt);
        const xpbd::Vec3<T> step{n.x * dn + dt.x, n.y * dn + dt.y, n.z * dn + dt.z};
        for (int k = 0; k < 4; ++k) {
            const size_t v = vertex[k];
            const T s = weight[k] * inv_mass[v];
            xpbd::Vec3<T> p = xpbd::load3(x, v);
            p = xpbd::Vec3<T>{p.x + step.x * s, p.y + step.y * s, p.z + step.z * s};
            xpbd::store3(x, v, p);
        }
    }
}

XPBD_EXPORT_F32_F64(project_pair_rows,
                    (T* __restrict__ x, const T* __restrict__ x_prev, const T* __restrict__ inv_mass,
                     const unsigned int* __restrict__ vertices, const unsigned int* __restrict__ active,
                     const T* __restrict__ weights, T* __restrict__ normals, const T* __restrict__ friction,
                     T* __restrict__ lambda_n, T* __restrict__ lambda_t, T thickness, unsigned int count),
                    (x, x_prev, inv_mass, vertices, active, weights, normals, friction, lambda_n, lambda_t, thickness,
                     count))
