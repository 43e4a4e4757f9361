// NonMaxSuppression (ONNX NonMaxSuppression-11): per batch and class, the
// boxes above the score threshold taken greedily by score, each dropping
// those that overlap it by more than the IoU threshold, at most
// max_output_boxes_per_class of them; rows of [batch, class, box].
#pragma once

#include "value_shaped_op.h"

namespace aoe::cpu {

class NonMaxSuppressionOp final : public ValueShapedOp {
 public:
  explicit NonMaxSuppressionOp(const sdk::Node& node);
  std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const override;
  std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const override;

 private:
  struct Limits;
  Limits limits_of(const std::vector<const HeldTensor*>& inputs) const;

  std::string name_;
  bool center_point_box_ = false;  // boxes as [x_center, y_center, width, height], else two corners [y1, x1, y2, x2]
};

}  // namespace aoe::cpu
