#include "conv_tiling.h"

#include <algorithm>
#include <bit>
#include <string>

#include "op_source.h"

namespace aoe::cuda {
namespace {

sdk::Measurement refuse(const std::string& why) { return sdk::Measurement::failed(sdk::ResultStatus::invalid, why); }
std::string str(int64_t v) { return std::to_string(v); }

// The knobs and their domains, without a default.
sdk::TuningSpace conv_bounds(const ConvGemmShape& shape) {
  using sdk::Knob;
  using sdk::KnobTag;
  sdk::TuningSpace s;
  s.version = "1";
  // A tile past the problem's side computes nothing more: bounded by the first that covers it.
  const auto top = [](int64_t side, int64_t lo, int64_t hi) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(side, 1)))), lo, hi);
  };
  s.knobs.resize(kConvKnobCount);
  s.knobs[kConvTileM] = Knob::power_of_two("tile_m", KnobTag::schedule, 16, top(shape.m, 16, 128));
  s.knobs[kConvTileN] = Knob::power_of_two("tile_n", KnobTag::schedule, 32, top(shape.n, 32, 128));
  s.knobs[kConvTileK] = Knob::power_of_two("tile_k", KnobTag::schedule, 4, top(shape.k, 4, 32));
  s.knobs[kConvThreadN] = Knob::power_of_two("thread_n", KnobTag::schedule, 1, 8);
  s.knobs[kConvThreads] = Knob::power_of_two("threads", KnobTag::schedule, 64, 256);
  return s;
}

}  // namespace

sdk::TuningSpace conv_space(const ConvGemmShape& shape) {
  sdk::TuningSpace s = conv_bounds(shape);
  s.default_config = conv_default(shape);
  return s;
}

int64_t conv_thread_m(const sdk::Config& c) { return c[kConvTileM] * c[kConvTileN] / (c[kConvThreads] * c[kConvThreadN]); }

sdk::Measurement conv_check(const sdk::Config& c, const GpuLimits& limits) {
  if (c.size() != kConvKnobCount)
    return refuse("a Conv config has " + str(kConvKnobCount) + " values, not " + str(static_cast<int64_t>(c.size())));
  for (auto v : c)
    if (v < 1) return refuse("every Conv knob is positive");
  const int64_t tile_m = c[kConvTileM], tile_n = c[kConvTileN], tn = c[kConvThreadN], threads = c[kConvThreads];
  // Each thread sums a TM x TN patch, the threads covering the tile once.
  if (tile_n % tn || (threads * tn) % tile_n)
    return refuse(str(threads) + " threads of " + str(tn) + " positions do not cover a tile of " + str(tile_n) + " positions in whole rows");
  if ((tile_m * tile_n) % (threads * tn) || conv_thread_m(c) < 1)
    return refuse("a " + str(tile_m) + "x" + str(tile_n) + " tile is no whole number of filters for each of " + str(threads) + " threads");
  if (conv_thread_m(c) * tn > 64) return refuse(str(conv_thread_m(c) * tn) + " sums a thread, over the 64 its registers hold");
  if (threads > limits.max_threads_per_block)
    return refuse(str(threads) + " threads per block, over the GPU's " + str(limits.max_threads_per_block));
  const int64_t shared = c[kConvTileK] * (tile_m + tile_n) * 4;
  if (shared > limits.max_shared_bytes_per_block)
    return refuse(str(shared) + " bytes of shared memory per block, over the GPU's " + str(limits.max_shared_bytes_per_block));
  return {};
}

sdk::Config conv_default(const ConvGemmShape& shape) {
  sdk::Config c(kConvKnobCount);
  c[kConvTileM] = shape.m >= 64 ? 64 : shape.m >= 32 ? 32 : 16;
  c[kConvTileN] = std::min<int64_t>(64, conv_bounds(shape).knobs[kConvTileN].values.back());
  c[kConvTileK] = 8;
  c[kConvThreadN] = 4;
  c[kConvThreads] = std::min<int64_t>(256, c[kConvTileM] * c[kConvTileN] / c[kConvThreadN]);
  return c;
}

sdk::TuningSpace conv_direct_space(int64_t outputs, const GpuLimits& limits) {
  sdk::TuningSpace s;
  s.version = "1";
  s.knobs.resize(kConvDirectKnobCount);
  s.knobs[kConvDirectThreads] = sdk::Knob::integer("threads", sdk::KnobTag::schedule, limits.warp_size, 1024, limits.warp_size);
  s.knobs[kConvDirectItems] = sdk::Knob::power_of_two("items", sdk::KnobTag::schedule, 1, 8);
  const LinearKnobs k = linear_knobs(outputs, limits);
  s.default_config = {k.threads, k.items};
  return s;
}

sdk::Measurement conv_direct_check(const sdk::Config& c, const GpuLimits& limits) {
  if (c.size() != kConvDirectKnobCount) return refuse("a direct Conv config has 2 values, not " + str(static_cast<int64_t>(c.size())));
  if (c[kConvDirectThreads] < 1 || c[kConvDirectItems] < 1) return refuse("every Conv knob is positive");
  if (c[kConvDirectThreads] > limits.max_threads_per_block)
    return refuse(str(c[kConvDirectThreads]) + " threads per block, over the GPU's " + str(limits.max_threads_per_block));
  return {};
}

}  // namespace aoe::cuda
