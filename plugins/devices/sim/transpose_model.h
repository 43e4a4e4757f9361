// Transpose (perm attr). Axes are fused first, so the op is a permutation
// of runs: when the last axis stays last each run is a contiguous burst
// and the op is pure data movement; when it moves the data must be
// scattered, either element-wise by DMA or by transposing 16 x 16 blocks
// in UB (vnchwconv) so that writes leave as bursts again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct TransposeProblem {
  int64_t elements = 1;
  int64_t in_last = 1;   // the input's contiguous run, elements
  int64_t out_last = 1;  // the output's contiguous run, elements
  bool last_axis_moves = false;
  int bytes = 2;

  bool in_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op
  double gm_bytes() const { return 2.0 * static_cast<double>(elements) * bytes; }
  double on_chip_bytes() const { return static_cast<double>(elements) * bytes * ((in_on_chip ? 1 : 0) + (out_on_chip ? 1 : 0)); }
};

TransposeProblem transpose_problem(const sdk::OpTask& task, const Soc& soc);

class TransposeModel final : public ProblemModel<TransposeProblem> {
 public:
  enum Knob : size_t { kBlockDim, kUbFactor, kDb, kImpl, kKnobCount };
  enum Impl : int64_t { kDma = 0, kVnchwconv = 1 };

  TransposeModel(const Soc& soc, TransposeProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  sdk::Config default_config() const;
  int64_t ub_bytes(int64_t ub_factor, bool vnchwconv, bool db) const;

};

}  // namespace aoe::sim
