#include "step_flops.h"

#include "op_util.h"

namespace aoe::cpu {
namespace {

bool shape_known(const sdk::TensorDesc& t) { return t.fully_known() && !t.shape.empty(); }

double element_count(const sdk::TensorDesc& t) { return static_cast<double>(t.elements()); }

// A Conv's output elements each take Cin/group x kernel multiply-adds, the
// weight's elements per output channel; a ConvTranspose's input elements
// each scatter Cout/group x kernel of them, its weight's per input channel.
double conv_multiply_adds(const sdk::OpTask& task, bool transposed) {
  if (task.inputs.size() < 2 || task.outputs.empty()) return 0;
  const auto& x = task.inputs[0];
  const auto& w = task.inputs[1];
  const auto& y = task.outputs[0];
  if (!shape_known(x) || !shape_known(w) || !shape_known(y) || w.shape[0] <= 0) return 0;
  const double per_channel = element_count(w) / static_cast<double>(w.shape[0]);
  return element_count(transposed ? x : y) * per_channel;
}

// Each output element of a product is a dot product of K terms.
double product_multiply_adds(const sdk::OpTask& task) {
  if (task.inputs.size() < 2 || task.outputs.empty()) return 0;
  const auto& a = task.inputs[0];
  const auto& y = task.outputs[0];
  if (!shape_known(a) || !shape_known(y)) return 0;
  int64_t k = a.shape.back();
  if (task.op_type == "Gemm" && a.shape.size() == 2 && int_attr(task.attrs, "transA", 0) != 0) k = a.shape[0];
  return element_count(y) * static_cast<double>(k);
}

}  // namespace

double step_flops(const PlanStep& step) {
  if (step.kind != PlanStep::Kind::kernel) return 0;
  const std::string& op = step.task.op_type;
  double multiply_adds = 0;
  if (op == "Conv") multiply_adds = conv_multiply_adds(step.task, false);
  else if (op == "ConvTranspose") multiply_adds = conv_multiply_adds(step.task, true);
  else if (op == "MatMul" || op == "Gemm") multiply_adds = product_multiply_adds(step.task);
  return 2 * multiply_adds;
}

}  // namespace aoe::cpu
