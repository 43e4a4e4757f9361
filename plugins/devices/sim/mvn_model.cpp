#include "mvn_model.h"

#include <string>
#include <vector>

#include "elementwise_model.h"
#include "kernel_sequence.h"
#include "reduce_model.h"
#include "vector_model.h"

namespace aoe::sim {

std::unique_ptr<OpModel> mvn_model(const Soc& soc, const sdk::OpTask& task) {
  require_unfused(task, soc);
  const sdk::TensorDesc& x = known_data_input(task);
  if (x.dtype != sdk::DType::f32 && x.dtype != sdk::DType::f16)
    malformed(task, "X is " + std::string(sdk::to_string(x.dtype)) + "; it takes float16 or float32");
  const auto rank = static_cast<int64_t>(x.shape.size());
  const auto axes = attr_ints(task.attrs, "axes", {0, 2, 3});
  sdk::TensorDesc stat = x;  // one value per position the axes keep
  for (const int64_t a : axes) {
    if (a < -rank || a >= rank) malformed(task, "axis " + std::to_string(a) + " is out of range for X of " + shape_text(x.shape));
    stat.shape[static_cast<size_t>(a < 0 ? a + rank : a)] = 1;
  }
  const nlohmann::json over_axes = {{"axes", axes}, {"keepdims", 1}};
  std::vector<KernelSequence::Part> parts;
  parts.push_back({"", std::make_unique<ReduceModel>(soc, reduce_problem(part_task(task, "ReduceMean", {x}, stat, over_axes), soc))});
  parts.push_back({"square_", std::make_unique<ReduceModel>(soc, reduce_problem(part_task(task, "ReduceSumSquare", {x}, stat, over_axes), soc))});
  parts.push_back({"sub_", std::make_unique<ElementwiseModel>(soc, elementwise_problem(part_task(task, "Sub", {x, stat}, x), soc))});
  parts.push_back({"div_", std::make_unique<ElementwiseModel>(soc, elementwise_problem(part_task(task, "Div", {x, stat}, x), soc))});
  return std::make_unique<KernelSequence>(soc, std::move(parts));
}

}  // namespace aoe::sim
