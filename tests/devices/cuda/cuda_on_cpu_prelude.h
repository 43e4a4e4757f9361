// CUDA's builtins on CPU threads, so that a generated kernel source runs as
// plain C++: each thread of a block is a std::thread, __syncthreads a
// barrier, dynamic shared memory one array the size the launch gives, and
// blocks run one after another. Force-included ahead of a kernel source by
// the tests that run the cuda device's kernels on the host; never part of a
// generated source. Everything the kernel's macros could clash with
// (M, N, K...) is included here, before the source.
#pragma once

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __shared__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct aoe_dim3 {
  unsigned x = 0, y = 0, z = 0;
};

inline thread_local aoe_dim3 threadIdx, blockIdx;
inline std::barrier<>* aoe_block_barrier = nullptr;

inline void __syncthreads() { aoe_block_barrier->arrive_and_wait(); }
inline float atomicAdd(float* address, float value) { return std::atomic_ref<float>(*address).fetch_add(value); }

// Runs `kernel` over the grid, block by block, `threads` CPU threads a block.
template <typename Kernel>
void aoe_launch(aoe_dim3 grid, unsigned threads, Kernel kernel) {
  std::barrier<> sync(static_cast<std::ptrdiff_t>(threads));
  aoe_block_barrier = &sync;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx = {t, 0, 0};
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
