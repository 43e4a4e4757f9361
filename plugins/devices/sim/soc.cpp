#include "soc.h"

namespace aoe::sim {

// Sources are those of the project's Ascend hardware notes; [H] read from a
// CANN platform ini or Huawei docs, [M] derived, [L] inferred (calibrate).
const Soc& ascend910() {
  static const Soc soc = [] {
    Soc s;
    s.target = "ascend910";
    s.soc_version = "Ascend910";
    s.ai_cores = 32;     // [H] cce_conf.py SOC_VERSION_MAP, AKG hermes kNumCore, cache_tiling kCoreNum
    s.clock_ghz = 1.0;   // [M] 32 cores x 8192 FLOP x 1.0 GHz = 262 TFLOPS, the marketed 256
    s.cube_m = s.cube_k = s.cube_n = 16;  // [H] ini [DtypeMKN] fp16; HC31 "4096 FP16 MACs"

    s.l0a_bytes = 64 << 10;    // [H] ini l0_a_size; HC31 core diagram
    s.l0b_bytes = 64 << 10;    // [H] ini l0_b_size
    s.l0c_bytes = 256 << 10;   // [H] ini l0_c_size
    s.l1_bytes = 1 << 20;      // [H] ini l1_size; AKG C1
    s.ub_bytes = 256 << 10;    // [H] ini ub_size; cache_tiling kUbSize
    s.l2_bytes = 32 << 20;     // [H] ini l2_size; Linley
    s.l0_align_bytes = 512;    // [H] hiascend general restrictions: L0A/L0B 512 B

    s.hbm_gbps = 1200;         // [M] 4x HBM2 ~1.2 TB/s; 1148 GB/s read measured on a first-gen card
    s.gm_to_l1_rate = 110;     // [M-H] ini l2_rate: a core's MTE2 cap when GM data is in L2
    s.ddr_rate = 32;           // [M-H] ini ddr_rate: 32 cores x 32 B x 1 GHz ~ the HBM figure
    s.l1_to_l0a_rate = 512;    // [H] ini l1_to_l0_a_rate
    s.l1_to_l0b_rate = 256;    // [H] ini l1_to_l0_b_rate
    s.l0c_to_ub_rate = 256;    // [H] ini l0_c_to_ub_rate
    s.ub_to_gm_rate = 64;      // [H] ini ub_to_ddr_rate
    s.vector_bytes_per_cycle = 256;          // [H] 2048-bit vector unit (HC31), vec_calc_size=128 fp16
    s.transcendental_elems_per_cycle = 32;   // [M] PyPTO cycle table: exp/sqrt 32 elements per cycle

    s.launch_us = 3;           // [L] notes §5.1: kernel launch ~3-10 us
    s.dma_cycles = 200;        // [M] PyPTO: ~200 cycles per L1 copy-in / L0C copy-out
    s.mte1_cycles = 30;        // [L] an L1->L0 load2d issue; same order as an mmad issue
    s.mmad_cycles = 20;        // [L] notes §5.1: c_mmad "tens of cycles"
    s.vector_latency_cycles = 6;           // [M] PyPTO: add/mul startup 4-7 cycles
    s.transcendental_latency_cycles = 12;  // [M] PyPTO: exp/div/sqrt 12-13 cycles
    return s;
  }();
  return soc;
}

const Soc* find_soc(std::string_view target) {
  if (target == ascend910().target) return &ascend910();
  return nullptr;
}

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
      {"rates_bytes_per_cycle_per_core",
       {{"gm_to_l1", s.gm_to_l1_rate}, {"ddr", s.ddr_rate}, {"l1_to_l0a", s.l1_to_l0a_rate},
        {"l1_to_l0b", s.l1_to_l0b_rate}, {"l0c_to_ub", s.l0c_to_ub_rate}, {"ub_to_gm", s.ub_to_gm_rate},
        {"vector", s.vector_bytes_per_cycle}}},
      {"launch_us", s.launch_us},
  };
}

}  // namespace aoe::sim
