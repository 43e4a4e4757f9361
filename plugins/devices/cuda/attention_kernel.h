// A transformer's attention core as one kernel: the scores MatMul, the
// elementwise ops on the scores (scale, mask), the Softmax and the context
// MatMul (the pattern the cpu device finds, cpu::find_attention), with the
// Transposes that move heads around read and written through strides. Each
// block takes ROWS query rows of one batch and head: it keeps their scores
// in shared memory, so they never go to global memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attention_pattern.h"
#include "elementwise_kernel.h"
#include "gpu_limits.h"
#include "op_kernel.h"

namespace aoe::cuda {

struct AttentionKernel {
  OpKernel kernel;                 // its inputs are `reads`, not a node's
  std::vector<std::string> nodes;  // every node it computes
  std::string context;             // the context MatMul: the kernel runs where it would
  std::vector<std::string> reads;  // x0, x1...: q, k, v, then the scores' operands
  std::string writes;
};

// The kernel for `pattern`, or none where it does not take it: an op on the
// scores no chain takes (joins_chain), or rows too long for a block's shared memory.
std::optional<AttentionKernel> attention_kernel(const sdk::Graph& graph, const cpu::AttentionPattern& pattern,
                                                const GpuLimits& limits, const ScalarOf& scalar = {});

}  // namespace aoe::cuda
