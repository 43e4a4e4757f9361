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
