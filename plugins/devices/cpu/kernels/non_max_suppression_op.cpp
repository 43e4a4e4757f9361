// NonMaxSuppression (ONNX NonMaxSuppression-11): per batch and class, the
// boxes above the score threshold taken greedily by score, each dropping
// those that overlap it by more than the IoU threshold, at most
// max_output_boxes_per_class of them; rows of [batch, class, box].
#include "value_shaped_op.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "aoe/sdk/error.h"
#include "kept_boxes.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

class NonMaxSuppressionOp final : public ValueShapedOp {
 public:
  explicit NonMaxSuppressionOp(const sdk::Node& node)
      : ValueShapedOp(node), center_point_box_(int_attr(node.attrs, "center_point_box", 0) != 0) {}
  std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const override;
  std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const override;

 private:
  struct Limits;
  Limits limits_of(const std::vector<const HeldTensor*>& inputs) const;

  bool center_point_box_ = false;  // boxes as [x_center, y_center, width, height], else two corners [y1, x1, y2, x2]
};

}  // namespace

struct NonMaxSuppressionOp::Limits {
  int64_t batches = 0, classes = 0, boxes = 0;
  int64_t max_per_class = 0;  // absent: 0, no box
  double iou = 0;
  bool has_score = false;
  double score = 0;
};

NonMaxSuppressionOp::Limits NonMaxSuppressionOp::limits_of(const std::vector<const HeldTensor*>& inputs) const {
  const HeldTensor& boxes = required_input(inputs, 0, name_);
  const HeldTensor& scores = required_input(inputs, 1, name_);
  if (boxes.shape.size() != 3 || boxes.shape[2] != 4)
    invalid(name_ + ": boxes have shape " + to_string(boxes.shape) + "; it takes [batches, boxes, 4]");
  if (scores.shape.size() != 3 || scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1])
    invalid(name_ + ": scores have shape " + to_string(scores.shape) + " for boxes of shape " + to_string(boxes.shape) +
            "; it takes [batches, classes, boxes]");
  const auto scalar = [&](size_t slot) -> const float* {
    if (slot >= inputs.size() || !inputs[slot] || inputs[slot]->values.empty()) return nullptr;
    return inputs[slot]->values.data();
  };
  Limits l;
  l.batches = boxes.shape[0];
  l.classes = scores.shape[1];
  l.boxes = boxes.shape[1];
  // Exporters write "no limit" as INT64_MAX (torchvision's sys.maxsize), past what a float converts back from.
  if (const float* m = scalar(2))
    l.max_per_class = *m >= 0x1p62f ? std::numeric_limits<int64_t>::max() : std::max<int64_t>(0, static_cast<int64_t>(*m));
  if (const float* t = scalar(3)) l.iou = *t;
  // As ONNX Runtime: outside [0, 1] boxes that do not intersect would overlap enough.
  if (!(l.iou >= 0 && l.iou <= 1))
    invalid(name_ + ": iou_threshold is " + std::to_string(l.iou) + "; it takes a value in [0, 1]");
  if (const float* t = scalar(4)) l.has_score = true, l.score = *t;
  return l;
}

namespace {

HeldTensor triples(const std::vector<std::array<int64_t, 3>>& rows) {
  HeldTensor out{{static_cast<int64_t>(rows.size()), 3}, {}};
  for (const auto& r : rows)
    for (const int64_t v : r) out.values.push_back(static_cast<float>(v));
  return out;
}

}  // namespace

// Each box's corners and area once per batch; per class, the candidates
// sorted by score (the lower index first among equals) and each checked
// against the kept boxes that could intersect it (kept_boxes.h).
std::vector<HeldTensor> NonMaxSuppressionOp::run(const std::vector<const HeldTensor*>& inputs) const {
  const Limits l = limits_of(inputs);
  const float* boxes = inputs[0]->values.data();
  const float* scores = inputs[1]->values.data();
  std::vector<std::array<int64_t, 3>> selected;
  if (l.max_per_class == 0) return {triples(selected)};
  const auto n = static_cast<size_t>(l.boxes);
  std::vector<Box> corners(n);
  const auto threshold = static_cast<float>(l.iou);
  for (int64_t b = 0; b < l.batches; ++b) {
    for (size_t i = 0; i < n; ++i) {
      const float* p = boxes + (static_cast<size_t>(b) * n + i) * 4;
      Box& c = corners[i];
      if (center_point_box_) {
        c.x0 = p[0] - p[2] / 2, c.x1 = p[0] + p[2] / 2, c.y0 = p[1] - p[3] / 2, c.y1 = p[1] + p[3] / 2;
      } else {
        c.y0 = std::min(p[0], p[2]), c.y1 = std::max(p[0], p[2]), c.x0 = std::min(p[1], p[3]), c.x1 = std::max(p[1], p[3]);
      }
      c.area = (c.y1 - c.y0) * (c.x1 - c.x0);
    }
    for (int64_t c = 0; c < l.classes; ++c) {
      const float* s = scores + (static_cast<size_t>(b * l.classes + c)) * n;
      std::vector<size_t> order;
      for (size_t i = 0; i < n; ++i)
        if (!l.has_score || s[i] > static_cast<float>(l.score)) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t z) { return s[a] > s[z]; });
      std::vector<Box> candidates;
      for (const size_t i : order) candidates.push_back(corners[i]);
      KeptBoxes kept(candidates, threshold);
      int64_t taken = 0;
      for (const size_t i : order) {
        if (taken >= l.max_per_class) break;
        if (kept.suppresses(corners[i])) continue;
        kept.keep(corners[i]);
        ++taken;
        selected.push_back({b, c, static_cast<int64_t>(i)});
      }
    }
  }
  return {triples(selected)};
}

// The definition's loop: the best remaining box taken, every remaining box
// it overlaps by more than the threshold struck out, until none remain or
// enough are taken; IoU from the box coordinates each time, in double.
std::vector<HeldTensor> NonMaxSuppressionOp::reference(const std::vector<const HeldTensor*>& inputs) const {
  const Limits l = limits_of(inputs);
  const auto& boxes = inputs[0]->values;
  const auto& scores = inputs[1]->values;
  const auto corners = [&](int64_t b, int64_t i) {
    const auto at = [&](int k) { return static_cast<double>(boxes[static_cast<size_t>((b * l.boxes + i) * 4 + k)]); };
    if (center_point_box_)
      return std::array<double, 4>{at(1) - at(3) / 2, at(0) - at(2) / 2, at(1) + at(3) / 2, at(0) + at(2) / 2};
    return std::array<double, 4>{std::min(at(0), at(2)), std::min(at(1), at(3)), std::max(at(0), at(2)), std::max(at(1), at(3))};
  };
  const auto iou = [&](int64_t b, int64_t i, int64_t k) {
    const auto p = corners(b, i), q = corners(b, k);
    const double area_p = (p[2] - p[0]) * (p[3] - p[1]), area_q = (q[2] - q[0]) * (q[3] - q[1]);
    if (area_p <= 0 || area_q <= 0) return 0.0;
    const double inter = std::max(0.0, std::min(p[2], q[2]) - std::max(p[0], q[0])) *
                         std::max(0.0, std::min(p[3], q[3]) - std::max(p[1], q[1]));
    return inter / (area_p + area_q - inter);
  };
  std::vector<std::array<int64_t, 3>> selected;
  for (int64_t b = 0; b < l.batches; ++b)
    for (int64_t c = 0; c < l.classes; ++c) {
      const auto score = [&](int64_t i) { return static_cast<double>(scores[static_cast<size_t>((b * l.classes + c) * l.boxes + i)]); };
      std::vector<bool> left(static_cast<size_t>(l.boxes));
      for (int64_t i = 0; i < l.boxes; ++i) left[static_cast<size_t>(i)] = !l.has_score || score(i) > static_cast<double>(static_cast<float>(l.score));
      for (int64_t taken = 0; taken < l.max_per_class; ++taken) {
        int64_t best = -1;
        for (int64_t i = 0; i < l.boxes; ++i)
          if (left[static_cast<size_t>(i)] && (best < 0 || score(i) > score(best))) best = i;
        if (best < 0) break;
        selected.push_back({b, c, best});
        for (int64_t i = 0; i < l.boxes; ++i)
          if (left[static_cast<size_t>(i)] && (i == best || iou(b, best, i) > static_cast<double>(static_cast<float>(l.iou))))
            left[static_cast<size_t>(i)] = false;
      }
    }
  return {triples(selected)};
}

std::unique_ptr<ValueShapedOp> make_non_max_suppression_op(const sdk::Node& node) { return std::make_unique<NonMaxSuppressionOp>(node); }

}  // namespace aoe::cpu
