// What the CUDA test double runs for the T1 problems in problems/: the same
// results as their CUDA kernels for any valid config, and a time from a
// model of an 80-SM GPU (occupancy, tile reuse, bank conflicts, register
// pressure, the last wave's idle SMs) so the space has a clear optimum that
// no single parameter decides.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "host_kernel.h"

namespace aoe::cuda_double {
namespace {

constexpr int kImageWidth = 256, kImageHeight = 256;  // as convolution_small.cu fixes them
constexpr double kSms = 80, kThreadsPerSm = 2048, kBlocksPerSm = 32, kSharedPerSm = 100 * 1024;
constexpr double kBytesPerMs = 8e8;  // global memory, 800 GB/s
constexpr double kFlopsPerMs = 1.5e10;
constexpr double kLaunchMs = 0.002;

struct Convolution {
  int64_t block_x, block_y, tile_x, tile_y, filter_w, filter_h, read_only, use_shmem, use_padding;

  explicit Convolution(const HostLaunch& l)
      : block_x(l.define_int("block_size_x")),
        block_y(l.define_int("block_size_y")),
        tile_x(l.define_int("tile_size_x")),
        tile_y(l.define_int("tile_size_y")),
        filter_w(l.define_int("filter_width")),
        filter_h(l.define_int("filter_height")),
        read_only(l.define_int("read_only")),
        use_shmem(l.define_int("use_shmem")),
        use_padding(l.define_int("use_padding")) {}

  int64_t input_width() const { return kImageWidth + filter_w - 1; }
  int64_t tile_width() const { return block_x * tile_x + filter_w - 1; }
  int64_t tile_height() const { return block_y * tile_y + filter_h - 1; }
};

// Every thread of every block, as the kernel computes its outputs; the
// shared-memory tile holds the same values the global reads would, so both
// paths sum the same products in the same order.
void run_convolution(const HostLaunch& l) {
  const Convolution c(l);
  float* output = l.buffer<float>(0);
  const float* input = l.buffer<float>(1);
  const float* filter = static_cast<const float*>(l.symbol("d_filter"));
  if (!filter) throw std::runtime_error("convolution_kernel: the source has no __constant__ d_filter");
  for (unsigned gy = 0; gy < l.grid.y; ++gy)
    for (unsigned gx = 0; gx < l.grid.x; ++gx)
      for (unsigned ty = 0; ty < l.block.y; ++ty)
        for (unsigned tx = 0; tx < l.block.x; ++tx)
          for (int64_t yi = 0; yi < c.tile_y; ++yi)
            for (int64_t xi = 0; xi < c.tile_x; ++xi) {
              const int64_t y = gy * c.block_y * c.tile_y + ty + yi * c.block_y;
              const int64_t x = gx * c.block_x * c.tile_x + tx + xi * c.block_x;
              if (y >= kImageHeight || x >= kImageWidth) continue;
              float sum = 0.0f;
              for (int64_t fi = 0; fi < c.filter_h; ++fi)
                for (int64_t fj = 0; fj < c.filter_w; ++fj)
                  sum += input[(y + fi) * c.input_width() + x + fj] * filter[fi * c.filter_w + fj];
              output[y * kImageWidth + x] = sum;
            }
}

// The fraction of the GPU's SMs busy over the launch's waves of blocks.
double wave_efficiency(double blocks, double blocks_per_sm) {
  const double slots = kSms * blocks_per_sm;
  return blocks / (std::ceil(blocks / slots) * slots);
}

double convolution_time_ms(const HostLaunch& l) {
  const Convolution c(l);
  const double threads = static_cast<double>(c.block_x * c.block_y);
  const double outputs = double{kImageWidth} * kImageHeight;
  const double taps = static_cast<double>(c.filter_w * c.filter_h);
  const double shared_bytes =
      c.use_shmem ? 4.0 * static_cast<double>((c.tile_width() + c.use_padding) * c.tile_height()) : 0;
  const double per_thread = static_cast<double>(c.tile_x * c.tile_y);

  double blocks_per_sm = std::min(kBlocksPerSm, std::floor(kThreadsPerSm / threads));
  if (shared_bytes > 0) blocks_per_sm = std::min(blocks_per_sm, std::floor(kSharedPerSm / shared_bytes));
  // Each output's accumulator and its inputs live in registers: past 8 outputs a thread spills.
  const double spill = per_thread > 8 ? 1 + 0.2 * (per_thread - 8) : 1;
  if (per_thread > 4) blocks_per_sm = std::max(1.0, std::floor(blocks_per_sm * 4 / per_thread));
  const double occupancy = std::min(1.0, blocks_per_sm * threads / kThreadsPerSm);
  const double hiding = std::min(1.0, 0.3 + occupancy);

  // Global traffic: a staged tile is read once per block; without it every
  // tap goes to the caches, the read-only path serving more of them.
  const double tile_reads = static_cast<double>(c.tile_width() * c.tile_height());
  const double reads_per_output = c.use_shmem ? tile_reads / (threads * per_thread) : taps * (c.read_only ? 0.18 : 0.3);
  const double memory_ms = outputs * reads_per_output * 4 / kBytesPerMs * (c.read_only ? 0.93 : 1.0);
  // A warp narrower than 32 threads spans two rows of the tile: an even row
  // width puts both half-warps on the same banks, the padding column makes it
  // odd. A thread's outputs share its loaded taps.
  const bool conflicts = c.use_shmem && c.block_x < 32 && (c.tile_width() + c.use_padding) % 2 == 0;
  const double reuse = 1 / (1 + 0.15 * (per_thread - 1));
  // An odd row stride costs a multiply where a power-of-two-ish one folds into shifts.
  const double padded = c.use_padding ? 1.02 : 1.0;
  const double compute_ms =
      outputs * taps * 2 / kFlopsPerMs * (conflicts ? 1.6 : 1.0) * (0.6 + 0.4 * reuse) * spill * padded;

  const double blocks = static_cast<double>(l.grid.x) * l.grid.y * l.grid.z;
  return kLaunchMs + (memory_ms + compute_ms) / (hiding * wave_efficiency(blocks, std::max(1.0, blocks_per_sm)));
}

void run_vector_add(const HostLaunch& l) {
  float* c = l.buffer<float>(0);
  const float* a = l.buffer<float>(1);
  const float* b = l.buffer<float>(2);
  const int n = l.scalar<int>(3);
  const int64_t block = l.define_int("block_size_x"), tile = l.define_int("tile_size_x");
  for (unsigned g = 0; g < l.grid.x; ++g)
    for (unsigned t = 0; t < l.block.x; ++t)
      for (int64_t k = 0; k < tile; ++k) {
        const int64_t i = g * block * tile + t + k * block;
        if (i < n) c[i] = a[i] + b[i];
      }
}

double vector_add_time_ms(const HostLaunch& l) {
  const double n = l.scalar<int>(3);
  const double block = static_cast<double>(l.define_int("block_size_x"));
  const double tile = static_cast<double>(l.define_int("tile_size_x"));
  const double blocks_per_sm = std::min(kBlocksPerSm, std::floor(kThreadsPerSm / block));
  const double occupancy = blocks_per_sm * block / kThreadsPerSm;
  // Few loads in flight per thread starve the memory system; many leave
  // too few blocks to spread over the SMs.
  const double per_thread[] = {0.55, 0.8, 1.0, 0.85};
  const double in_flight =
      per_thread[std::min<size_t>(3, static_cast<size_t>(std::log2(tile)))] * (0.5 + 0.5 * occupancy);
  const double memory_ms = n * 12 / kBytesPerMs / in_flight;
  return kLaunchMs + memory_ms / wave_efficiency(l.grid.x, blocks_per_sm);
}

const HostKernelRegistrar convolution("convolution_kernel", {run_convolution, convolution_time_ms});
const HostKernelRegistrar vector_add("vector_add", {run_vector_add, vector_add_time_ms});

}  // namespace
}  // namespace aoe::cuda_double
