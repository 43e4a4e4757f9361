#include <memory>
#include <string>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "atomic_clean_model.h"
#include "batch_norm_model.h"
#include "conv_model.h"
#include "conv_transpose.h"
#include "data_move_model.h"
#include "elementwise_model.h"
#include "layernorm_model.h"
#include "matmul_model.h"
#include "mvn_model.h"
#include "nms_model.h"
#include "onnx_optimizers.h"
#include "op_model.h"
#include "pool_model.h"
#include "quantized_ops.h"
#include "recurrent_model.h"
#include "reduce_model.h"
#include "softmax_model.h"
#include "spectral_ops.h"
#include "topk_model.h"
#include "transdata_model.h"
#include "training_models.h"
#include "transpose_model.h"
#include "vector_model.h"

namespace aoe::sim {

bool within_any_memory(const std::vector<int64_t>& dims) {
  int64_t elements = 1;
  for (auto d : dims) {
    if (d <= 0) continue;
    const auto n = sdk::checked_mul(elements, d);
    if (!n || *n > kMaxTensorElements) return false;
    elements = *n;
  }
  return true;
}

namespace {

// Row kernels: the norm model over rows the op's axes give.
bool is_row_op(const std::string& t) {
  return t == "Softmax" || t == "LogSoftmax" || t == "Hardmax" || t == "LayerNormalization" ||
         t == "InstanceNormalization" || t == "GroupNormalization" || t == "SoftmaxCrossEntropyLoss" ||
         t == "NegativeLogLikelihoodLoss";
}

NormProblem row_problem(const sdk::OpTask& task, const Soc& soc) {
  const auto& t = task.op_type;
  if (t == "LayerNormalization") return layernorm_problem(task, soc);
  if (t == "InstanceNormalization" || t == "GroupNormalization") return channel_norm_problem(task, soc);
  if (t == "SoftmaxCrossEntropyLoss" || t == "NegativeLogLikelihoodLoss") return loss_problem(task, soc);
  return softmax_problem(task, soc);
}

}  // namespace

bool is_modelled_op(const std::string& t) {
  return t == "MatMul" || t == "Gemm" || t == "Conv" || t == "ConvTranspose" || t == "BatchNormalization" ||
         t == "Transpose" || is_recurrent_op(t) || is_data_move_op(t) || is_elementwise_op(t) || is_reduce_op(t) ||
         is_row_op(t) || is_pool_op(t) || t == "TopK" || is_quantized_op(t) ||
         t == "DynamicQuantizeLinear" || t == "MeanVarianceNormalization" || t == "NonMaxSuppression" ||
         is_onnx_optimizer(t) || is_spectral_op(t);
}

std::unique_ptr<OpModel> op_model(const Soc& soc, const sdk::OpTask& task) {
  const auto require_within_memory = [&](const std::vector<sdk::TensorDesc>& tensors, const std::string& side) {
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!within_any_memory(tensors[i].shape))
        malformed(task, side + " " + std::to_string(i) + ", " + shape_text(tensors[i].shape) +
                            ", holds more than 2^40 elements, more than any chip's memory");
  };
  require_within_memory(task.inputs, "input");
  require_within_memory(task.outputs, "output");
  if (auto model = training_model(soc, task)) return model;
  if (is_quantized_op(task.op_type)) return op_model(soc, quantized_as_fp16(task, soc));
  if (task.op_type == "DynamicQuantizeLinear") return dynamic_quantize_model(soc, task);
  if (is_onnx_optimizer(task.op_type)) return onnx_optimizer_model(soc, task);
  if (task.op_type == "MeanVarianceNormalization") return mvn_model(soc, task);
  if (task.op_type == "NonMaxSuppression") return nms_model(soc, task);
  if (is_spectral_op(task.op_type)) return op_model(soc, spectral_as_matmul(task, soc));
  if (task.op_type == "MatMul" || task.op_type == "Gemm")
    return std::make_unique<MatMulModel>(soc, matmul_problem(task, soc));
  if (is_recurrent_op(task.op_type)) return std::make_unique<RecurrentModel>(soc, task);
  if (task.op_type == "Conv") return std::make_unique<ConvModel>(soc, conv_problem(task, soc));
  if (task.op_type == "ConvTranspose")
    return std::make_unique<ConvModel>(soc, conv_problem(conv_transpose_as_conv(task, soc), soc));
  if (task.op_type == "BatchNormalization")
    return std::make_unique<ElementwiseModel>(soc, batch_norm_problem(task, soc));
  if (is_data_move_op(task.op_type)) return std::make_unique<DataMoveModel>(soc, data_move_problem(task, soc));
  if (is_elementwise_op(task.op_type))
    return std::make_unique<ElementwiseModel>(soc, elementwise_problem(task, soc));
  if (is_reduce_op(task.op_type)) return std::make_unique<ReduceModel>(soc, reduce_problem(task, soc));
  if (is_row_op(task.op_type)) return std::make_unique<NormModel>(soc, row_problem(task, soc));
  if (is_pool_op(task.op_type)) return std::make_unique<PoolModel>(soc, pool_problem(task, soc));
  if (task.op_type == "Transpose") return std::make_unique<TransposeModel>(soc, transpose_problem(task, soc));
  if (task.op_type == "TopK") return std::make_unique<TopKModel>(soc, topk_problem(task, soc));
  if (task.op_type == "TransData") return std::make_unique<TransDataModel>(soc, transdata_problem(task, soc));
  if (task.op_type == "AtomicAddrClean") return std::make_unique<AtomicCleanModel>(soc, atomic_clean_problem(task));
  not_modelled(soc, task.op_type);
}

}  // namespace aoe::sim
