// NonZero: the indices of the elements that are not zero, one row per axis,
// in row-major order of the elements (ONNX NonZero-13).
#pragma once

#include "value_shaped_op.h"

namespace aoe::cpu {

class NonZeroOp final : public ValueShapedOp {
 public:
  explicit NonZeroOp(const sdk::Node& node);
  std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const override;
  std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const override;

 private:
  std::string name_;
};

}  // namespace aoe::cpu
