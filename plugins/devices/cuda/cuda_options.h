// The cuda device's options (`--device_options`), checked as they are read.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace aoe::cuda {

struct CudaOptions {
  int device_id = 0;              // among the GPUs CUDA_VISIBLE_DEVICES leaves
  std::string cuda_library;       // libcuda.so.1 to load; empty: searched (cuda_library.h)
  std::string nvrtc_library;      // libnvrtc.so.* to load; empty: searched
  std::string worker;             // aoe-cuda-worker; empty: the one beside the plugin
  std::string problem;            // a Kernel Tuner T1 problem (*.json) whose kernel tasks name
  std::string cachefile;          // where every measured config is recorded in Kernel Tuner's format
  // Where a model run keeps each kernel it compiled, by a hash of its
  // source, options and NVRTC; empty: $XDG_CACHE_HOME/aoe/cuda-kernels (or
  // ~/.cache/...), none without either.
  std::string kernel_cache;
  unsigned compile_workers = 0;   // NVRTC processes at once; 0: default_compile_workers()
  // Off by default, as Kernel Tuner times: its recordings and aoe's compare
  // like for like, and in a model an op reads what the op before it just
  // wrote, which is in L2. On: 2x L2 is written between repeats (nvbench's way).
  bool flush_l2 = false;
  double timeout_s = 30;          // one candidate's checked run and timing
  double compile_timeout_s = 300;
  double rtol = 1e-4, atol = 1e-4;  // the output check (fp32 GEMMs widen atol by their K)
  // GEMMs may use the TF32 or fp16 tensor-core products (Impl choices of
  // their space, labelled tf32 and fp16, checked at their tolerance); off: fp32 only.
  bool allow_tf32 = false, allow_fp16 = false;
  uint64_t seed = 0;              // the arguments' random fill
  uint64_t max_argument_bytes = uint64_t{4} << 30;
  uint32_t max_repeats = 100;
  double stable_within = 0.02;    // stop sampling when the median's 95% interval is within +-2%
  double max_seconds = 1.0;       // or after this long sampling one candidate

  static CudaOptions parse(const nlohmann::json& options);
};

}  // namespace aoe::cuda
