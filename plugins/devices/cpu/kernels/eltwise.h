// Elementwise chains over a broadcast output viewed as rows x cols, cut
// into chunks the threads share: each chunk runs every op while it is in
// L1 (fused), or each op runs over the whole output in turn (op_by_op).
#pragma once

#include <cstdint>

#include "chain.h"
#include "isa.h"
#include "thread_pool.h"

namespace aoe::cpu {

enum class EltStrategy { fused, op_by_op };

struct EltwiseConfig {
  const IsaKernels* isa = nullptr;
  int64_t chunk = 4096;  // elements
  EltStrategy strategy = EltStrategy::fused;
  int threads = 1;
};

// out[rows x cols] = chain, whose first step loads the anchor's first input.
void eltwise(const EltwiseConfig& config, const Chain& chain, float* out, int64_t rows, int64_t cols, ThreadPool& pool);

}  // namespace aoe::cpu
