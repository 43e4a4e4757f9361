#include "nms_model.h"

#include <algorithm>
#include <string>

#include "aoe/sdk/error.h"
#include "kernel_sequence.h"
#include "topk_model.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

constexpr int64_t kIouBlock = 16;  // viou compares 16 proposals with 16 [H: DaVinci's proposal instructions]
// Instructions per 16 x 16 block of candidate and kept boxes [L]: the
// overlaps (viou), the compare with the threshold, and the fold of a
// candidate's 16 flags into whether any kept box suppresses it.
constexpr int kIouInstructions = 3;
constexpr int kIndexValues = 3;  // a kept box's row: batch, class, box (int64)

}  // namespace

SuppressionModel::SuppressionModel(const Soc& soc, SuppressionProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  space_.default_config = {std::min<int64_t>(soc_.ai_cores, p_.rows)};
}

sdk::Measurement SuppressionModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  if (c[kBlockDim] > p_.rows) return too_many_cores(c[kBlockDim], p_.rows, "batch-and-class rows");
  return {};
}

// A block's pairs are 256 fp16 overlaps: an instruction over 256 elements.
double SuppressionModel::row_cycles() const {
  const double blocks = static_cast<double>(ceil_div64(p_.n, kIouBlock)) * static_cast<double>(ceil_div64(p_.k, kIouBlock));
  return blocks * kIouInstructions * vector_cycles(soc_, VecClass::simple, kIouBlock * kIouBlock, 2);
}

double SuppressionModel::time_us(const sdk::Config& c) const {
  const int64_t active = c[kBlockDim];
  const double rows = static_cast<double>(ceil_div64(p_.rows, active));
  const double boxes = static_cast<double>(p_.n * 4 * p_.box_bytes), kept = static_cast<double>(p_.k * kIndexValues * 8);
  const double cycles = gm_to_ub_cycles(soc_, rows * boxes, active) + rows * row_cycles() +
                        ub_to_gm_cycles(soc_, rows * kept, active);
  return kernel_us(soc_, cycles, roofline_us(), active);
}

double SuppressionModel::roofline_us() const {
  const double rows = static_cast<double>(p_.rows);
  return vector_roofline_us(soc_, rows * static_cast<double>(p_.n * 4 * p_.box_bytes + p_.k * kIndexValues * 8),
                            rows * row_cycles());
}

std::unique_ptr<OpModel> nms_model(const Soc& soc, const sdk::OpTask& task) {
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 2, task.op_type);
  const auto& boxes = task.inputs[0].shape;
  const auto& scores = task.inputs[1].shape;
  if (boxes.size() != 3 || boxes[2] != 4) malformed(task, "boxes is " + shape_text(boxes) + ", not batch x boxes x 4");
  if (scores.size() != 3 || scores[0] != boxes[0] || scores[2] != boxes[1])
    malformed(task, "scores is " + shape_text(scores) + ", not batch x classes x " + std::to_string(boxes[1]));
  if (boxes[0] < 1 || boxes[1] < 1 || scores[1] < 1)
    throw sdk::Error(sdk::StatusCode::unsupported, "NonMaxSuppression '" + task.name + "' has no boxes: no kernel to time");
  // No max_output_boxes_per_class input keeps no box, as a constant 0 does.
  const bool limited = task.inputs.size() < 3 || task.attrs.contains("max_output_boxes_per_class");
  // The frontend gives the constant input as the list it holds: one value.
  const auto given = attr_ints(task.attrs, "max_output_boxes_per_class", {boxes[1]});
  if (given.size() != 1) malformed(task, "max_output_boxes_per_class holds " + std::to_string(given.size()) + " values, not one");
  const int64_t limit = task.inputs.size() < 3 ? 0 : given[0];
  if (limited && limit <= 0)
    throw sdk::Error(sdk::StatusCode::unsupported, "NonMaxSuppression '" + task.name +
                                                       "' keeps no box (max_output_boxes_per_class 0): no kernel to time");
  SuppressionProblem s;
  s.rows = scores[0] * scores[1];
  s.n = boxes[1];
  s.k = std::min(s.n, limit);
  s.box_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  TopKProblem sort;
  sort.rows = s.rows;
  sort.n = s.n;
  sort.k = s.k;
  sort.in_bytes = sdk::dtype_bytes(task.inputs[1].dtype);
  sort.out_bytes = sort.in_bytes + 4;  // a kept score and its box's index, to the suppression
  if (s.box_bytes == 0 || sort.in_bytes == 0) malformed(task, "has boxes or scores of undefined dtype");
  std::vector<KernelSequence::Part> parts;
  parts.push_back({"", std::make_unique<TopKModel>(soc, sort)});
  parts.push_back({"suppress_", std::make_unique<SuppressionModel>(soc, s)});
  return std::make_unique<KernelSequence>(soc, std::move(parts));
}

}  // namespace aoe::sim
