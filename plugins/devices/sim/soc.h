// An Ascend SoC as the simulator sees it: cores, cube, buffers, data rates and fixed costs.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace aoe::sim {

// Rates are bytes per cycle per core, the convention of CANN's platform ini
// files, so values can be copied from them unchanged. Each SoC is a YAML file
// in socs/ whose keys are these fields (soc_files.h).
struct Soc {
  std::string target;       // what users type: "ascend910"
  std::string soc_version;  // CANN's name: "Ascend910"
  int ai_cores = 0;
  double clock_ghz = 0;
  int cube_m = 16, cube_k = 16, cube_n = 16;  // fp16 MACs per cycle per core: m*k*n

  // Per-core buffers and the chip's L2, bytes.
  int64_t l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0, l1_bytes = 0, ub_bytes = 0, l2_bytes = 0;
  int64_t l0_align_bytes = 0;

  double hbm_gbps = 0;        // the whole chip
  int64_t hbm_bytes = 0;      // the chip's global memory; 0: not known, nothing refused
  double gm_to_l1_rate = 0;   // one core's MTE2 reading GM through L2
  double ddr_rate = 0;        // one core's fair share of HBM
  double l1_to_l0a_rate = 0, l1_to_l0b_rate = 0, l0c_to_ub_rate = 0, ub_to_gm_rate = 0;
  double ub_to_l2_rate = 0;  // MTE3 writing a tensor the strategy keeps in L2
  double vector_bytes_per_cycle = 0;       // one full-width vector repeat
  double transcendental_elems_per_cycle = 0;

  // Fixed costs.
  double launch_us = 0;        // a kernel's start, whatever its blocks
  double block_launch_us = 0;  // each block it launches: the scheduler starts them one by one
  double dma_cycles = 0;       // per GM<->L1/UB transfer
  double mte1_cycles = 0;      // per L1->L0 load
  double mmad_cycles = 0;      // per mmad issue
  double vector_latency_cycles = 0;
  double transcendental_latency_cycles = 0;
  // The scalar unit's turn per index of a kernel that follows one per row
  // (a gather, a scatter, a segment sum): read it from UB, form the row's
  // address, issue its copy.
  double index_cycles = 0;
  // The share of the shorter of a vector tile's copies and its passes that
  // double buffering fails to hide, since the MTEs and the vector unit
  // contend for UB's banks: 0 hides it all, 1 runs the two in turn.
  double ub_contention = 0;

  double cycles_per_us() const { return clock_ghz * 1e3; }
  // A kernel's fixed cost when it launches `blocks` blocks.
  double launch_us_for(int64_t blocks) const { return launch_us + block_launch_us * static_cast<double>(blocks); }
  double hbm_bytes_per_cycle() const { return hbm_gbps / clock_ghz; }
  double hbm_bytes_per_us() const { return hbm_gbps * 1e3; }
  // Every core reading L2 at once: the chip's bound on L2 traffic.
  double l2_bytes_per_us() const { return gm_to_l1_rate * ai_cores * cycles_per_us(); }
  double cube_flops_per_cycle() const { return 2.0 * cube_m * cube_k * cube_n; }
  double peak_flops_per_us() const { return cube_flops_per_cycle() * ai_cores * cycles_per_us(); }
};

nlohmann::json describe(const Soc& soc);

// A Cast kernel taking `elements` fp32 values to fp16 before a cube kernel
// (read 4 B, write 2 B per element, 4 B per vector lane), launch included.
double fp16_cast_us(const Soc& soc, int64_t elements);

}  // namespace aoe::sim
