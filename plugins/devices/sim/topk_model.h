// TopK as CANN's TopKV2 runs it on the vector unit: each value becomes a
// proposal (value and index, 16 B) that the sort instructions order in
// groups of 16 (vrpsort16) and merge four lists at a time (vmrgsort4),
// each list cut to its first k once longer. Rows are split over cores; a
// row too few to give every core one is cut into segments, sorted on the
// cores, and their top-k lists merged on one.
#pragma once

#include <cstdint>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct TopKProblem {
  int64_t rows = 1;   // independent searches: every element off the axis
  int64_t n = 1;      // values along the axis
  int64_t k = 1;      // kept per row
  int in_bytes = 2;   // a value's
  int out_bytes = 2;  // a kept value's plus its index's
  bool moved = false;  // the axis is not the last: a transpose in and out
};

// Throws unsupported for another op, invalid_argument for a malformed task
// (naming the op): k comes from the output's shape along the axis.
TopKProblem topk_problem(const sdk::OpTask& task, const Soc& soc);

class TopKModel final : public ProblemModel<TopKProblem> {
 public:
  enum Knob : size_t { kBlockDim, kKnobCount };

  TopKModel(const Soc& soc, TopKProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  double gm_bytes() const;
  // One vector pass over `proposals` proposals.
  double pass_cycles(int64_t proposals) const;
  // Merging `lists` sorted lists of `length` four at a time down to one,
  // each list cut to k: a pass over what each round reads.
  double merge_cycles(int64_t lists, int64_t length) const;
  // Cycles to sort `n` values of one row (or segment) down to its top k.
  double sort_cycles(int64_t n) const;
};

}  // namespace aoe::sim
