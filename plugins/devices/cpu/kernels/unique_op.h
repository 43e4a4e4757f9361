// Unique (ONNX Unique-11): the distinct elements, or the distinct slices
// along `axis`, sorted or in order of first occurrence, with where each
// first occurs, which one each input element or slice is, and how often
// each occurs.
#pragma once

#include "value_shaped_op.h"

namespace aoe::cpu {

class UniqueOp final : public ValueShapedOp {
 public:
  explicit UniqueOp(const sdk::Node& node);
  std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const override;
  std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const override;

 private:
  std::string name_;
  bool has_axis_ = false;
  int64_t axis_ = 0;
  bool sorted_ = true;
};

}  // namespace aoe::cpu
