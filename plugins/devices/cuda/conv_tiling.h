// The tiles of a Conv's implicit GEMM (conv_kernel.h) as knobs a cuda task
// tunes: TILE_M filters by TILE_N output positions a block, TILE_K window
// values deep in shared memory, TN positions a thread (TM filters, as the
// block's threads need), THREADS a block.
#pragma once

#include <cstdint>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"
#include "gpu_limits.h"

namespace aoe::cuda {

// The GEMM a group of the Conv is: filters x output positions (the batch's), summed over its window values.
struct ConvGemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t groups = 1;
};

enum ConvKnob : size_t { kConvTileM, kConvTileN, kConvTileK, kConvThreadN, kConvThreads, kConvKnobCount };

// Its knobs, with the default as the default config.
sdk::TuningSpace conv_space(const ConvGemmShape& shape);
// ok, or invalid naming the constraint the config breaks on a GPU of `limits`.
sdk::Measurement conv_check(const sdk::Config& config, const GpuLimits& limits);
// TILE_M the largest of 16, 32 and 64 the group's filters fill, TILE_N 64
// (32 where the positions are fewer), TILE_K 8, 4 positions a thread and
// as many threads as that leaves, at most 256.
sdk::Config conv_default(const ConvGemmShape& shape);
// TM: the filters each thread sums for.
int64_t conv_thread_m(const sdk::Config& config);

// The direct kernel's knobs (a depthwise Conv, one thread item per output
// element): THREADS a block, whole warps up to 1024, and ITEMS a thread, 1
// to 8; the default as every elementwise kernel's (linear_knobs).
enum ConvDirectKnob : size_t { kConvDirectThreads, kConvDirectItems, kConvDirectKnobCount };
sdk::TuningSpace conv_direct_space(int64_t outputs, const GpuLimits& limits);
sdk::Measurement conv_direct_check(const sdk::Config& config, const GpuLimits& limits);

}  // namespace aoe::cuda
