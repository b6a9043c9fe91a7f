// Compiles kernels/*.cu as plain C++ for the host (tests/host_kernels.rs): every CUDA keyword becomes an ordinary
// C++ one, and the grid is one block of one thread, so each kernel's grid-stride loop visits all of its items in
// order. Shared memory becomes static storage (one thread: only element 0 of a reduction buffer is written).
#pragma once
#include <cmath>
#include <cstddef>

#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__ static

struct HostDim3 {
    unsigned int x, y, z;
};
static const HostDim3 blockIdx{0, 0, 0}, threadIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};
inline void __syncthreads() {}
using std::fabs;
using std::fmin;
using std::sqrt;
using std::fma;
using std::isfinite;
using std::fmax;
using std::copysign;
using std::atan2;
