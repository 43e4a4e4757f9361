// CUDA's builtins on CPU threads, so that a generated kernel source runs as
// plain C++: each thread of a block is a std::thread, __syncthreads a
// barrier, and blocks run one after another. Force-included ahead of a
// kernel source by the tests that run the cuda device's kernels on the
// host; never part of a generated source. Everything the kernel's macros
// could clash with (M, N, K...) is included here, before the source.
//
// Shared memory: a `__shared__` array declared in a kernel is static, so
// one for all the threads of a block (blocks run one at a time, a barrier
// apart). C++ has no `extern static`: a source that declares its dynamic
// shared memory `extern __shared__ float aoe_smem[]` (the GEMM) is compiled
// with AOE_EXTERN_SHARED defined, and its harness defines aoe_smem, sized
// as the launch says, with C linkage.
#pragma once

#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#define __global__
#define __device__
#ifdef AOE_EXTERN_SHARED
#define __shared__
#else
#define __shared__ static
#endif
#define __forceinline__ inline
#define __launch_bounds__(...)

struct aoe_dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline thread_local aoe_dim3 threadIdx, blockIdx;
inline aoe_dim3 blockDim, gridDim;
inline std::barrier<>* aoe_block_barrier = nullptr;

inline void __syncthreads() { aoe_block_barrier->arrive_and_wait(); }
inline float atomicAdd(float* address, float value) { return std::atomic_ref<float>(*address).fetch_add(value); }
inline float __int_as_float(int bits) { return std::bit_cast<float>(bits); }

// Runs `kernel` over the grid, block by block, block.x * block.y * block.z CPU threads a block.
template <typename Kernel>
void aoe_launch(aoe_dim3 grid, aoe_dim3 block, Kernel kernel) {
  const unsigned threads = block.x * block.y * block.z;
  gridDim = grid;
  blockDim = block;
  std::barrier<> sync(static_cast<std::ptrdiff_t>(threads));
  aoe_block_barrier = &sync;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx = {t % block.x, t / block.x % block.y, t / block.x / block.y};
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = {x, y, z};
            kernel();
            sync.arrive_and_wait();  // the next block's stores to shared memory wait for this one's reads
          }
    });
  for (auto& thread : pool) thread.join();
}

// A one-dimensional block of `threads`.
template <typename Kernel>
void aoe_launch(aoe_dim3 grid, unsigned threads, Kernel kernel) {
  aoe_launch(grid, aoe_dim3{threads, 1, 1}, kernel);
}
