// NonMaxSuppression as CANN's NonMaxSuppressionV3 runs it on the vector
// unit, a core per batch and class: the scores sorted into proposals as
// TopK sorts them (topk_model.h), then each candidate, in score order,
// checked against the boxes kept so far, 16 x 16 pairs an IoU instruction
// block. How many boxes are kept is known only as the model runs: the
// kernel is costed for max_output_boxes_per_class of them where that is a
// constant (the frontend gives it as an attribute), else for every box.
#pragma once

#include <cstdint>
#include <memory>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct SuppressionProblem {
  int64_t rows = 1;  // batch x classes: independent suppressions
  int64_t n = 1;     // candidate boxes of a row
  int64_t k = 1;     // the most a row keeps
  int box_bytes = 4;
};

// The greedy pass after the sort: per row, the boxes read, each 16 candidates
// against each 16 kept, the kept indices written [batch, class, box].
class SuppressionModel final : public ProblemModel<SuppressionProblem> {
 public:
  enum Knob : size_t { kBlockDim, kKnobCount };

  SuppressionModel(const Soc& soc, SuppressionProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  double row_cycles() const;
};

// The sort, then the suppression, in one launch ("suppress_" before the
// second part's knobs). Throws invalid_argument naming the op for boxes and
// scores that disagree, unsupported where it keeps no box.
std::unique_ptr<OpModel> nms_model(const Soc& soc, const sdk::OpTask& task);

}  // namespace aoe::sim
