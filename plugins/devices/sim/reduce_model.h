// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, the mapped sums
// (ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp) and
// GlobalAveragePool, GlobalMaxPool, and ArgMax and ArgMin (a max or min keeping its index),
// after CANN's reduce tiling: axes fused to outer x reduced x inner, cores split either
// the kept axes or the reduced one (then partials combine atomically or
// through a workspace).
#pragma once

#include <cstdint>
#include <string>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct ReduceProblem {
  int64_t outer = 1;   // kept elements before the last reduced axis
  int64_t reduced = 1;
  int64_t inner = 1;   // kept elements after it; 1 when the last axis is reduced
  int bytes = 2;
  bool max = false;    // combines by max, min or product: no atomic add
  bool mean = false;   // scales the result once more
  // Vector passes over each input element before the sum: a square, an abs or
  // an exp; a training reduction's casts, products and broadcasts.
  double map_passes = 0;
  // The dtype's bytes the passes and the sum run in where wider than the
  // input's (float16 maps summed in float32); 0: the input's.
  int compute_bytes = 0;
  bool map_out = false;  // one over each result after (sqrt, log)
  bool in_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op
  // The kernel splits the reduced axis over the cores whatever the kept
  // size, each adding its partials atomically (BN's per-channel gradients).
  bool split_reduced = false;

  int64_t kept() const { return outer * inner; }
  int vector_bytes() const { return compute_bytes > bytes ? compute_bytes : bytes; }
  double gm_bytes() const;
  double on_chip_bytes() const;
};

ReduceProblem reduce_problem(const sdk::OpTask& task, const Soc& soc);
bool is_reduce_op(const std::string& op_type);

class ReduceModel final : public ProblemModel<ReduceProblem> {
 public:
  enum Knob : size_t { kSplitAxis, kBlockDim, kUbFactor, kAtomic, kDb, kKnobCount };
  enum Split : int64_t { kSplitKept = 0, kSplitReduced = 1 };

  ReduceModel(const Soc& soc, ReduceProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  sdk::Config default_config() const;
  int64_t blocks(bool split_reduced) const;
  int64_t floor_share() const;
  // GM moves of the input and of the output, from L2 where kept there.
  double read_cycles(double bytes, int64_t active) const;
  double write_cycles(double bytes, int64_t active) const;
  // The pass over `elements` inputs that maps them before the sum, where there is one.
  double map_cycles(int64_t elements) const;
  // One core reducing `kept` outputs over `reduced` inputs each.
  double core_cycles(int64_t kept, int64_t reduced, int64_t ub_factor, bool db, int64_t active) const;

};

}  // namespace aoe::sim
