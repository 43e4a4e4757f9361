// What NVRTC gives every source without an #include, as clang's CUDA
// headers would declare it: force-included by the test that compiles the
// cuda device's kernels to PTX with clang (-nocudainc), never part of a
// generated source. Math functions are libdevice's (__nv_*), left as
// external calls in the PTX (-nocudalib).
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

#include <__clang_cuda_builtin_vars.h>

extern "C" __device__ float __nv_erff(float);
extern "C" __device__ float __nv_tanhf(float);
extern "C" __device__ float __nv_expf(float);

__device__ __forceinline__ float erff(float x) { return __nv_erff(x); }
__device__ __forceinline__ float tanhf(float x) { return __nv_tanhf(x); }
__device__ __forceinline__ float expf(float x) { return __nv_expf(x); }
__device__ __forceinline__ float atomicAdd(float* address, float value) { return __nvvm_atom_add_gen_f(address, value); }

// What the op kernels (op_kernel.h) call besides.
extern "C" __device__ float __nv_logf(float);
extern "C" __device__ float __nv_log1pf(float);
extern "C" __device__ float __nv_sqrtf(float);
extern "C" __device__ float __nv_powf(float, float);
extern "C" __device__ float __nv_floorf(float);
extern "C" __device__ float __nv_ceilf(float);
extern "C" __device__ float __nv_truncf(float);
extern "C" __device__ float __nv_rintf(float);
extern "C" __device__ float __nv_fabsf(float);
extern "C" __device__ float __nv_fminf(float, float);
extern "C" __device__ float __nv_fmaxf(float, float);
extern "C" __device__ float __nv_sinf(float);
extern "C" __device__ float __nv_cosf(float);
extern "C" __device__ float __nv_int_as_float(int);

__device__ __forceinline__ float logf(float x) { return __nv_logf(x); }
__device__ __forceinline__ float log1pf(float x) { return __nv_log1pf(x); }
__device__ __forceinline__ float sqrtf(float x) { return __nv_sqrtf(x); }
__device__ __forceinline__ float powf(float x, float y) { return __nv_powf(x, y); }
__device__ __forceinline__ float floorf(float x) { return __nv_floorf(x); }
__device__ __forceinline__ float ceilf(float x) { return __nv_ceilf(x); }
__device__ __forceinline__ float truncf(float x) { return __nv_truncf(x); }
__device__ __forceinline__ float rintf(float x) { return __nv_rintf(x); }
__device__ __forceinline__ float fabsf(float x) { return __nv_fabsf(x); }
__device__ __forceinline__ float fminf(float x, float y) { return __nv_fminf(x, y); }
__device__ __forceinline__ float fmaxf(float x, float y) { return __nv_fmaxf(x, y); }
__device__ __forceinline__ float sinf(float x) { return __nv_sinf(x); }
__device__ __forceinline__ float cosf(float x) { return __nv_cosf(x); }
__device__ __forceinline__ float __int_as_float(int x) { return __nv_int_as_float(x); }
