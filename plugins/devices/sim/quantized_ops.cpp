#include "quantized_ops.h"

#include "aoe/sdk/error.h"
#include "elementwise_model.h"
#include "kernel_sequence.h"
#include "reduce_model.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;

// Where each op keeps its two operands and, for QLinearConv, its bias.
struct QuantizedOp {
  const char* op_type;
  size_t a, b;
  size_t bias;  // SIZE_MAX: none
  bool conv;
  bool requantised;  // an 8-bit output (QLinear), else int32
};

const QuantizedOp* find_quantized(const std::string& op_type) {
  static const QuantizedOp kOps[] = {
      {"ConvInteger", 0, 1, SIZE_MAX, true, false},
      {"QLinearConv", 0, 3, 8, true, true},
      {"MatMulInteger", 0, 1, SIZE_MAX, false, false},
      {"QLinearMatMul", 0, 3, SIZE_MAX, false, true},
  };
  for (const auto& op : kOps)
    if (op_type == op.op_type) return &op;
  return nullptr;
}

bool eight_bit(DType t) { return t == DType::i8 || t == DType::u8; }

// An 8-bit operand as the fp16 one of half its depth along `axis`.
sdk::TensorDesc halved(const sdk::OpTask& task, const sdk::TensorDesc& t, size_t axis, int64_t groups = 1) {
  if (!eight_bit(t.dtype))
    malformed(task, "operand '" + t.name + "' is " + sdk::to_string(t.dtype) + "; it takes 8-bit integers");
  sdk::TensorDesc out = t;
  out.dtype = DType::f16;
  const int64_t per_group = t.shape[axis] / groups;
  out.shape[axis] = groups * ceil_div64(per_group, 2);
  return out;
}

}  // namespace

bool is_quantized_op(const std::string& op_type) { return find_quantized(op_type) != nullptr; }

sdk::OpTask quantized_as_fp16(const sdk::OpTask& task, const Soc& soc) {
  const QuantizedOp* q = find_quantized(task.op_type);
  if (!q) not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  if (task.inputs.size() <= q->b) malformed(task, "lacks its second operand (input " + std::to_string(q->b) + ")");
  const auto& a = task.inputs[q->a];
  const auto& b = task.inputs[q->b];
  require_known_inputs({a, b}, 2, task.op_type);
  if (task.outputs.empty()) malformed(task, "has no output");
  if (q->requantised && !eight_bit(task.outputs[0].dtype))
    malformed(task, "output is " + std::string(sdk::to_string(task.outputs[0].dtype)) + "; it writes 8-bit integers");

  sdk::OpTask t;
  t.name = task.name;
  t.attrs = task.attrs;
  for (const char* key : {"input_slots", "output_slots"}) t.attrs.erase(key);
  t.outputs = task.outputs;
  t.outputs[0].dtype = q->requantised ? task.outputs[0].dtype : DType::f32;
  if (q->conv) {
    if (a.shape.size() < 3 || b.shape.size() != a.shape.size())
      malformed(task, "takes N x C x spatial input and weights of the same rank");
    const int64_t group = attr_int(task.attrs, "group", 1);
    if (group < 1 || a.shape[1] % group != 0 || b.shape[1] * group != a.shape[1])
      malformed(task, "weights of " + std::to_string(b.shape[1]) + " channels a group do not match " +
                          std::to_string(a.shape[1]) + " input channels in group " + std::to_string(group));
    t.op_type = "Conv";
    t.inputs = {halved(task, a, 1, group), halved(task, b, 1)};
    if (q->bias < task.inputs.size()) {
      sdk::TensorDesc bias = task.inputs[q->bias];
      bias.dtype = DType::f32;  // int32, the accumulator's width
      t.inputs.push_back(bias);
    }
  } else {
    if (a.shape.empty() || b.shape.empty()) malformed(task, "has a scalar operand");
    t.op_type = "MatMul";
    t.inputs = {halved(task, a, a.shape.size() - 1), halved(task, b, b.shape.size() == 1 ? 0 : b.shape.size() - 2)};
  }
  return t;
}

std::unique_ptr<OpModel> dynamic_quantize_model(const Soc& soc, const sdk::OpTask& task) {
  require_unfused(task, soc);
  const sdk::TensorDesc& x = known_data_input(task);
  if (x.dtype != DType::f32) malformed(task, "x is " + std::string(sdk::to_string(x.dtype)) + "; it takes float32");
  const sdk::TensorDesc scalar{"", {}, DType::f32, "ND", false};
  sdk::TensorDesc zero_point = scalar, y = x;
  zero_point.dtype = y.dtype = DType::u8;
  const nlohmann::json whole = {{"keepdims", 0}};
  std::vector<KernelSequence::Part> parts;
  parts.push_back({"", std::make_unique<ReduceModel>(soc, reduce_problem(part_task(task, "ReduceMax", {x}, scalar, whole), soc))});
  parts.push_back({"min_", std::make_unique<ReduceModel>(soc, reduce_problem(part_task(task, "ReduceMin", {x}, scalar, whole), soc))});
  parts.push_back({"quantize_", std::make_unique<ElementwiseModel>(
                                    soc, elementwise_problem(part_task(task, "QuantizeLinear", {x, scalar, zero_point}, y), soc))});
  return std::make_unique<KernelSequence>(soc, std::move(parts));
}

}  // namespace aoe::sim
