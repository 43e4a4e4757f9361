#include "soc.h"

#include <algorithm>

namespace aoe::sim {

nlohmann::json describe(const Soc& s) {
  return {
      {"target", s.target},
      {"soc_version", s.soc_version},
      {"ai_core_count", s.ai_cores},
      {"clock_mhz", s.clock_ghz * 1e3},
      {"cube", {{"m", s.cube_m}, {"k", s.cube_k}, {"n", s.cube_n}, {"dtypes", {"float16"}}}},
      {"peak_fp16_tflops", s.peak_flops_per_us() / 1e6},
      {"buffers_bytes",
       {{"l0a", s.l0a_bytes}, {"l0b", s.l0b_bytes}, {"l0c", s.l0c_bytes}, {"l1", s.l1_bytes},
        {"ub", s.ub_bytes}, {"l2", s.l2_bytes}}},
      {"l0_align_bytes", s.l0_align_bytes},
      {"hbm_gbps", s.hbm_gbps},
      {"hbm_bytes", s.hbm_bytes},
      {"rates_bytes_per_cycle_per_core",
       {{"gm_to_l1", s.gm_to_l1_rate}, {"ddr", s.ddr_rate}, {"l1_to_l0a", s.l1_to_l0a_rate},
        {"l1_to_l0b", s.l1_to_l0b_rate}, {"l0c_to_ub", s.l0c_to_ub_rate}, {"ub_to_gm", s.ub_to_gm_rate}, {"ub_to_l2", s.ub_to_l2_rate},
        {"vector", s.vector_bytes_per_cycle}}},
      {"launch_us", s.launch_us},
      {"block_launch_us", s.block_launch_us},
  };
}

double fp16_cast_us(const Soc& soc, int64_t elements) {
  const double e = static_cast<double>(elements);
  const double memory = e * 6 / soc.hbm_bytes_per_us();
  const double vector = e * 4 / soc.vector_bytes_per_cycle / soc.ai_cores / soc.cycles_per_us();
  return std::max(memory, vector) + soc.launch_us_for(soc.ai_cores);
}

}  // namespace aoe::sim
