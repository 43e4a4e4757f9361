// GatherElements and ScatterElements (Scatter before opset 11): each
// element of `indices` (of the data's rank) names a position along `axis`,
// the others being its own.
// out[i..] = data[i.. with indices[i..] on axis] for GatherElements (shape
// of indices); for ScatterElements, data with updates[i..] written (or
// added, multiplied: `reduction`) at those positions, in order. The
// indices come from the model's constants, folded into attribute "indices";
// each element's offset is worked out once, when the op is made.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "indexed_slices_op.h"

namespace aoe::cpu {

class ElementsOp final : public IndexedSlicesOp {
 public:
  ElementsOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  size_t axis_ = 0;
  std::vector<int64_t> indices_;  // as given, negative ones too
};

}  // namespace aoe::cpu
