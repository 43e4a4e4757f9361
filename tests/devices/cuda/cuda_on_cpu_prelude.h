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

#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "tensor_core_inputs.h"

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
inline std::vector<std::unique_ptr<std::barrier<>>> aoe_warp_barriers;  // one per 32 threads of a 1-D block

inline void __syncthreads() { aoe_block_barrier->arrive_and_wait(); }
inline void aoe_sync_warp() { aoe_warp_barriers.at(threadIdx.x / 32)->arrive_and_wait(); }

// The tensor-core products' PTX instructions (gemm_template.cpp), as the GPU
// computes them: the warp's lanes lay their fragments out in a tile shared
// by the warp, and each lane sums its own four accumulators from it.
#define AOE_MMA_EMULATED 1
inline unsigned aoe_tf32(float v) { return std::bit_cast<unsigned>(tf32_rounded(v)); }
inline void aoe_mma_tf32(float* d, const unsigned* a, const unsigned* b) {
  static float as[32][16][8], bs[32][8][8];  // per warp of the block running
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  as[warp][g][t] = std::bit_cast<float>(a[0]);
  as[warp][g + 8][t] = std::bit_cast<float>(a[1]);
  as[warp][g][t + 4] = std::bit_cast<float>(a[2]);
  as[warp][g + 8][t + 4] = std::bit_cast<float>(a[3]);
  bs[warp][t][g] = std::bit_cast<float>(b[0]);
  bs[warp][t + 4][g] = std::bit_cast<float>(b[1]);
  aoe_sync_warp();
  for (unsigned q = 0; q < 4; ++q) {
    const unsigned row = g + q / 2 * 8, col = 2 * t + q % 2;
    for (unsigned k = 0; k < 8; ++k) d[q] += as[warp][row][k] * bs[warp][k][col];
  }
  aoe_sync_warp();  // the tile is read before the next product lays out its own
}
inline unsigned aoe_f16x2(float lo, float hi) {
  return std::bit_cast<unsigned short>(static_cast<_Float16>(lo)) |
         static_cast<unsigned>(std::bit_cast<unsigned short>(static_cast<_Float16>(hi))) << 16;
}
inline void aoe_mma_f16(float* d, const unsigned* a, const unsigned* b) {
  static float as[32][16][16], bs[32][16][8];  // per warp of the block running
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const auto half = [](unsigned pair, unsigned which) {
    return static_cast<float>(std::bit_cast<_Float16>(static_cast<unsigned short>(pair >> (16 * which))));
  };
  for (unsigned h = 0; h < 2; ++h) {
    as[warp][g][2 * t + h] = half(a[0], h);
    as[warp][g + 8][2 * t + h] = half(a[1], h);
    as[warp][g][2 * t + 8 + h] = half(a[2], h);
    as[warp][g + 8][2 * t + 8 + h] = half(a[3], h);
    bs[warp][2 * t + h][g] = half(b[0], h);
    bs[warp][2 * t + 8 + h][g] = half(b[1], h);
  }
  aoe_sync_warp();
  for (unsigned q = 0; q < 4; ++q) {
    const unsigned row = g + q / 2 * 8, col = 2 * t + q % 2;
    for (unsigned k = 0; k < 16; ++k) d[q] += as[warp][row][k] * bs[warp][k][col];
  }
  aoe_sync_warp();
}
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
  aoe_warp_barriers.clear();
  for (unsigned w = 0; w < (threads + 31) / 32; ++w)
    aoe_warp_barriers.push_back(std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(std::min(32u, threads - 32 * w))));
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
