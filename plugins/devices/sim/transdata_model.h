// TransData: the kernel the graph compiler inserts where a tensor's layout
// differs from what the kernel reading (or writing) it works in, e.g.
// NCHW <-> NC1HWC0. Memory-bound: each core streams its slice of the tensor
// through UB, re-packs it with vnchwconv and writes it back.
#pragma once

#include <cstdint>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct TransDataProblem {
  int64_t in_elements = 0, out_elements = 0;  // stored, pads included
  int bytes = 2;
  bool in_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op

  double gm_bytes() const;
  double on_chip_bytes() const;
};

// One input and one output of the same shape and dtype; their formats say
// which way it converts.
TransDataProblem transdata_problem(const sdk::OpTask& task, const Soc& soc);

class TransDataModel final : public ProblemModel<TransDataProblem> {
 public:
  enum Knob : size_t { kBlockDim, kKnobCount };

  TransDataModel(const Soc& soc, TransDataProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
};

}  // namespace aoe::sim
