// Reductions of an (outer, reduced, inner) view: rows reduced with
// independent vector accumulators when inner is 1, rows of inner values
// accumulated lane-parallel otherwise. Threads split the kept values, or
// the reduced axis with partial results merged at the end.
#pragma once

#include <cstdint>

#include "isa.h"
#include "thread_pool.h"

namespace aoe::cpu {

enum class ReduceKind { sum, mean, max, min, prod };
enum class ReduceSplit { kept, reduced };

struct ReduceConfig {
  const IsaKernels* isa = nullptr;
  ReduceSplit split = ReduceSplit::kept;
  int accumulators = 2;  // 1, 2 or 4, for rows (inner == 1)
  int threads = 1;
};

// out[outer x inner] = reduce over r of in[outer x reduced x inner]. `scratch`
// holds threads * outer * inner floats for split=reduced. Mean divides by
// `count` (the reduced size of every pass together).
void reduce(const ReduceConfig& config, ReduceKind kind, const float* in, float* out, int64_t outer, int64_t reduced,
            int64_t inner, float* scratch, ThreadPool& pool);

}  // namespace aoe::cpu
