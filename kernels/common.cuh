// Shared device helpers for the XPBD kernels.
//
// Conventions (see docs/cuda.md):
// - Every kernel is a templated __device__ function `<name>_impl<T>` with T = float or double, exported under the
//   stable, unmangled names `<name>_f32` and `<name>_f64` (extern "C") that the Rust side loads by name. The
//   XPBD_EXPORT_F32_F64 macro below writes the two wrappers.
// - State lives in flat arrays: positions, velocities etc. are 3n scalars (x0, y0, z0, x1, ...), per-vertex
//   scalars (inverse masses) are n scalars, matching `Vec<Vector3<T>>` on the host.
// - Element counts are `unsigned int`; indices inside kernels are size_t so that 3 * i cannot overflow.
// - Kernels use grid-stride loops, so any launch configuration covers all elements.
// - An array that one thread writes and other threads read after __syncthreads() is not __restrict__: nvcc may
//   then reuse a load from before the barrier (dense_cholesky did, on an H200). __restrict__ is for arrays that
//   no thread of the launch reads after another thread wrote them.
#pragma once

namespace xpbd {

// Index of this thread across the whole grid (x dimension only).
__device__ __forceinline__ size_t global_thread_index() {
    return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Number of threads in the grid (x dimension only): the step of a grid-stride loop.
__device__ __forceinline__ size_t grid_stride() {
    return static_cast<size_t>(gridDim.x) * blockDim.x;
}

// A 3-vector of T, loaded from and stored to flat arrays of 3n scalars.
template <typename T>
struct Vec3 {
    T x, y, z;
};

template <typename T>
__device__ __forceinline__ Vec3<T> load3(const T* __restrict__ a, size_t i) {
    return Vec3<T>{a[3 * i], a[3 * i + 1], a[3 * i + 2]};
}

template <typename T>
__device__ __forceinline__ void store3(T* __restrict__ a, size_t i, Vec3<T> v) {
    a[3 * i] = v.x;
    a[3 * i + 1] = v.y;
    a[3 * i + 2] = v.z;
}

// A vertex takes part in the dynamics iff its inverse mass is positive; pinned vertices have inverse mass 0.
template <typename T>
__device__ __forceinline__ bool is_free(T inv_mass) {
    return inv_mass > T(0);
}

// Threads per block of every launch whose kernel reduces over its block (block_sum).
constexpr unsigned int REDUCE_BLOCK = 256;

// Block sum of one value per thread into out[blockIdx.x]; the tree's order is fixed by the block size, so the
// sum is the same on every run (no atomics). Launch with blocks of REDUCE_BLOCK threads.
template <typename T>
__device__ __forceinline__ void block_sum(T acc, T* __restrict__ out) {
    __shared__ T sums[REDUCE_BLOCK];
    sums[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int half = REDUCE_BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sums[0];
}

}  // namespace xpbd

// Writes `extern "C" __global__ void NAME_f32(PARAMS with T = float)` and the same for NAME_f64 (T = double),
// each forwarding to NAME_impl<T>(ARGS). PARAMS may use T; ARGS are the parameter names.
//   XPBD_EXPORT_F32_F64(predict, (const T* a, unsigned int n), (a, n))
#define XPBD_EXPORT_F32_F64(NAME, PARAMS, ARGS)                               \
    namespace xpbd_export_##NAME##_f32 {                                      \
    using T = float;                                                          \
    extern "C" __global__ void NAME##_f32 PARAMS { NAME##_impl<T> ARGS; }     \
    }                                                                         \
    namespace xpbd_export_##NAME##_f64 {                                      \
    using T = double;                                                         \
    extern "C" __global__ void NAME##_f64 PARAMS { NAME##_impl<T> ARGS; }     \
    }
