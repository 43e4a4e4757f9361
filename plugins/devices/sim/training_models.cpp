#include "training_models.h"

#include <algorithm>

#include "aoe/sdk/error.h"
#include "batch_matmul.h"
#include "conv_gradients.h"
#include "conv_model.h"
#include "elementwise_model.h"
#include "kernel_sequence.h"
#include "matmul_model.h"
#include "norm_model.h"
#include "pool_model.h"
#include "reduce_model.h"
#include "training_reductions.h"
#include "training_row_ops.h"
#include "training_vector_ops.h"
#include "vector_model.h"
#include "weight_gradient_model.h"

namespace aoe::sim {
namespace {

using sdk::OpTask;
using sdk::TensorDesc;


std::unique_ptr<OpModel> weight_gradient(const Soc& soc, const OpTask& task, bool fused = false) {
  return std::make_unique<WeightGradientModel>(soc, task, fused);
}

// FusedDbnDw: BNTrainingReduceGrad's inputs, then the conv's x; dx, then dw.
// The weight gradient reads the dx the vector pass has just written, from
// L2 where it fits there.
std::unique_ptr<OpModel> dbn_dw(const Soc& soc, const OpTask& task) {
  if (task.inputs.size() != 8)
    malformed(task, "with Conv2DBackpropFilter fused takes BNTrainingReduceGrad's 7 inputs and the conv's x, has " +
                  std::to_string(task.inputs.size()));
  if (!task.outputs.empty() && task.outputs.size() != 2) malformed(task, "with Conv2DBackpropFilter fused gives dx and dw");
  OpTask dbn = task;
  dbn.fused_ops.clear();
  dbn.inputs.pop_back();
  dbn.outputs.resize(task.outputs.empty() ? 0 : 1);
  dbn.attrs = nlohmann::json::object();
  OpTask dw;
  dw.name = task.name;
  dw.op_type = "Conv2DBackpropFilter";
  TensorDesc dx = task.outputs.empty() ? task.inputs[0] : task.outputs[0];
  dx.dtype = sdk::DType::f16;  // handed to the cube in its only float type, in the kernel
  dw.inputs = {task.inputs.back(), dx};
  if (!task.outputs.empty()) dw.outputs = {task.outputs[1]};
  // The conv's attributes, as fusion keeps a follower's: fused_attrs[0].
  const auto fused = task.attrs.find("fused_attrs");
  if (fused == task.attrs.end() || !fused->is_array() || fused->empty() || !fused->front().is_object())
    malformed(task, "gives no attributes for its Conv2DBackpropFilter (fused_attrs)");
  dw.attrs = fused->front();
  if (dx.fully_known() && static_cast<double>(dx.elements()) * sdk::dtype_bytes(dx.dtype) <= static_cast<double>(soc.l2_bytes))
    dw.attrs["on_chip_inputs"] = {1};
  // The kernel's blocks are the weight gradient's: its knobs come first.
  std::vector<KernelSequence::Part> parts;
  parts.push_back({"", weight_gradient(soc, dw, true)});
  parts.push_back({"dbn_", std::make_unique<ElementwiseModel>(soc, training_vector_problem(dbn, soc))});
  return std::make_unique<KernelSequence>(soc, std::move(parts));
}

// MaxPoolGradWithArgmax (x, dy -> dx) as a gather: each position of dx takes
// the windows that cover it, a stride-1 pass of the forward pool's window
// over a map of x's size.
std::unique_ptr<OpModel> max_pool_gradient(const Soc& soc, const OpTask& task) {
  if (task.inputs.size() != 2) malformed(task, "takes x and dy, has " + std::to_string(task.inputs.size()) + " inputs");
  require_known_inputs(task.inputs, 2, task.op_type);
  const auto& x = task.inputs[0].shape;
  const auto& dy = task.inputs[1].shape;
  if (x.size() != 4) malformed(task, "x must be an N x C x H x W map, is rank " + std::to_string(x.size()));
  if (dy.size() != 4 || dy[0] != x[0] || dy[1] != x[1]) malformed(task, "dy must be the pool's N x C x Ho x Wo output");
  const auto kernel = attr_ints(task.attrs, "kernel_shape", {});
  const auto strides = attr_ints(task.attrs, "strides", {1, 1});
  const auto pads = attr_ints(task.attrs, "pads", {0, 0, 0, 0});
  if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4)
    malformed(task, "the forward pool's kernel_shape and strides take 2 values, its pads 4");
  for (size_t a = 0; a < 2; ++a) {
    if (kernel[a] < 1 || strides[a] < 1 || pads[a] < 0 || pads[a + 2] < 0) malformed(task, "kernel_shape and strides must be >= 1, pads >= 0");
    if ((x[2 + a] + pads[a] + pads[a + 2] - kernel[a]) / strides[a] + 1 != dy[2 + a])
      malformed(task, "dy's H and W are not the forward pool's output size for x");
  }
  OpTask pool;
  pool.name = task.name;
  pool.op_type = "MaxPool";
  pool.inputs = {task.inputs[0]};
  pool.outputs = {task.inputs[0]};
  pool.attrs = {{"kernel_shape", kernel},
                {"strides", {1, 1}},
                {"pads", {(kernel[0] - 1) / 2, (kernel[1] - 1) / 2, kernel[0] / 2, kernel[1] / 2}}};
  return std::make_unique<PoolModel>(soc, pool_problem(pool, soc));
}

// ResizeNearestNeighborV2Grad and ResizeBilinearV2Grad (dy -> dx) as a
// gather: each position of dx sums the positions of dy it fed, a pool over
// dy whose stride is the scale (dy's size over input_size, rounded up) and
// whose window is the scale (nearest) or twice it (linear, the taps either
// side).
std::unique_ptr<OpModel> resize_gradient(const Soc& soc, const OpTask& task) {
  if (task.inputs.size() != 1) malformed(task, "takes dy, has " + std::to_string(task.inputs.size()) + " inputs");
  require_known_inputs(task.inputs, 1, task.op_type);
  const auto& dy = task.inputs[0].shape;
  const auto size = attr_ints(task.attrs, "input_size", {});
  if (dy.size() != 4) malformed(task, "dy must be an N x C x Ho x Wo map, is rank " + std::to_string(dy.size()));
  if (size.size() != 2 || size[0] < 1 || size[1] < 1) malformed(task, "input_size must give x's H and W, both positive");
  const bool linear = task.op_type == "ResizeBilinearV2Grad";
  std::vector<int64_t> kernel(2), strides(2), pads(4, 0);
  for (size_t a = 0; a < 2; ++a) {
    strides[a] = std::max<int64_t>(1, (dy[2 + a] + size[a] - 1) / size[a]);
    kernel[a] = std::min(dy[2 + a], (linear ? 2 : 1) * strides[a]);
    if (linear && kernel[a] == 2 * strides[a]) pads[a] = strides[a] / 2, pads[a + 2] = strides[a] - strides[a] / 2;
  }
  OpTask pool;
  pool.name = task.name;
  pool.op_type = "AveragePool";
  pool.inputs = {task.inputs[0]};
  pool.outputs = task.outputs;
  pool.attrs = {{"kernel_shape", kernel}, {"strides", strides}, {"pads", pads}};
  return std::make_unique<PoolModel>(soc, pool_problem(pool, soc));
}

}  // namespace

std::unique_ptr<OpModel> training_model(const Soc& soc, const OpTask& task) {
  const auto& type = task.op_type;
  if (type == "Conv2DBackpropInput")
    return std::make_unique<ConvModel>(soc, conv_problem(conv_backprop_input_as_conv_transpose(task, soc), soc));
  if (type == "Conv2DBackpropFilter") return weight_gradient(soc, task);
  if (type == "BatchMatMul") return std::make_unique<MatMulModel>(soc, matmul_problem(batch_matmul_as_matmul(task), soc));
  if (type == "BNTrainingReduceGrad" && task.fused_ops == std::vector<std::string>{"Conv2DBackpropFilter"})
    return dbn_dw(soc, task);
  if (type == "MaxPoolGradWithArgmax") return max_pool_gradient(soc, task);
  if (type == "ResizeNearestNeighborV2Grad" || type == "ResizeBilinearV2Grad") return resize_gradient(soc, task);
  if (is_training_vector_op(task)) return std::make_unique<ElementwiseModel>(soc, training_vector_problem(task, soc));
  if (is_training_reduction(type)) return std::make_unique<ReduceModel>(soc, training_reduce_problem(task, soc));
  if (is_training_row_op(type)) return std::make_unique<NormModel>(soc, training_row_problem(task, soc));
  return nullptr;
}

std::vector<std::string> training_fused_op_types() { return {"ApplyMomentum", "Conv2DBackpropFilter"}; }

}  // namespace aoe::sim
