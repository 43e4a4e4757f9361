#include "cpu_op.h"

#include <algorithm>
#include <cmath>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "chain.h"
#include "conv_op.h"
#include "conv_transpose_op.h"
#include "matmul_op.h"
#include "memory_fit.h"
#include "op_factories.h"
#include "op_util.h"
#include "pool_op.h"
#include "reduce_op.h"
#include "transpose_op.h"
#include "value_shaped_op.h"

namespace aoe::cpu {

int64_t footprint_bytes(Footprint f) {
  std::sort(f.begin(), f.end());
  int64_t total = 0;
  uintptr_t reached = 0;
  for (const auto& [ptr, bytes] : f) {
    const auto begin = reinterpret_cast<uintptr_t>(ptr), end = begin + bytes;
    if (end > reached) total += static_cast<int64_t>(end - std::max(begin, reached)), reached = end;
  }
  return total;
}

void add_input_buffers(Footprint& f, const std::vector<const float*>& inputs, const CpuOp& op) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i]) f.emplace_back(inputs[i], static_cast<size_t>(elements(op.input_shapes()[i])) * sizeof(float));
}

namespace {

const std::vector<std::string> kAnchors = {"MatMul", "Gemm", "Conv", "Softmax", "LogSoftmax", "LayerNormalization",
                                           "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                           "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                                           "GlobalAveragePool", "GlobalMaxPool", "MaxPool", "AveragePool", "Transpose",
                                           "ConvTranspose", "BatchNormalization", "Concat", "Split", "Resize",
                                           "Slice", "Pad", "Gather", "GatherElements", "ScatterElements", "Scatter", "Tile", "Expand",
                                           "Hardmax", "DepthToSpace", "SpaceToDepth", "Where", "Compress",
                                           "InstanceNormalization", "MeanVarianceNormalization", "GatherND",
                                           "ScatterND", "OneHot", "LRN", "ReverseSequence", "GridSample", "Upsample", "RNN", "GRU", "LSTM",
                                           "HannWindow", "HammingWindow", "BlackmanWindow", "Det", "EyeLike", "ConstantOfShape",
                                           "DFT", "STFT", "MelWeightMatrix",
                                           "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "ArgMax",
                                           "ArgMin", "Shape", "Size", "Trilu", "TopK", "Range",
                                           "QuantizeLinear", "DequantizeLinear", "CumSum", "TfIdfVectorizer", "Einsum",
                                           "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv",
                                           "MaxUnpool", "RoiAlign", "MaxRoiPool", "LpPool", "GlobalLpPool",
                                           "LpNormalization", "RandomUniform", "RandomNormal",
                                           "RandomUniformLike", "RandomNormalLike", "Bernoulli", "Multinomial",
                                           // The classic machine-learning domain (ai.onnx.ml).
                                           "LinearClassifier", "LinearRegressor", "TreeEnsembleClassifier",
                                           "TreeEnsembleRegressor", "Normalizer", "Scaler", "Binarizer", "Imputer",
                                           "ArrayFeatureExtractor", "OneHotEncoder", "SVMClassifier", "SVMRegressor",
                                           // ONNX's training domain (ai.onnx.preview.training).
                                           "Adagrad", "Momentum", "Adam",
                                           // A training step's kernels (docs/training.md), run unfused.
                                           "BNTrainingReduce", "BNTrainingUpdate", "SoftmaxCrossEntropyWithLogits",
                                           "Conv2DBackpropInput", "Conv2DBackpropFilter", "BiasAddGrad", "BatchMatMul",
                                           "ReluGradV2", "Relu6Grad", "GeLUGrad", "SigmoidGrad", "HardSwishGrad",
                                           "HardSigmoidGrad", "SoftmaxGradExt", "LayerNormXBackpropV2",
                                           "LayerNormBetaGammaBackpropV2", "BNTrainingUpdateGrad", "BNTrainingReduceGrad",
                                           "MaxPoolGradWithArgmax", "GlobalAveragePoolGrad", "ResizeNearestNeighborV2Grad",
                                           "ResizeBilinearV2Grad", "AddN", "FusedMulAddN",
                                           "ApplyMomentum", "ApplyAdam", "LambApplyOptimizerAssign", "SquareSumV1",
                                           "LambApplyWeightAssign"};

// The kernels of a training step but BatchMatMul; null for another op.
std::unique_ptr<CpuOp> make_step_op(const sdk::OpTask& task, const HostCpu& host) {
  const std::string& t = task.op_type;
  if (t == "BNTrainingReduce" || t == "BNTrainingUpdate" || t == "BNTrainingUpdateGrad" || t == "BNTrainingReduceGrad")
    return make_batch_norm_training_op(task, host);
  if (t == "SoftmaxCrossEntropyWithLogits") return make_softmax_cross_entropy_op(task, host);
  if (t == "Conv2DBackpropInput" || t == "Conv2DBackpropFilter") return make_conv_grad_op(task, host);
  if (t == "BiasAddGrad" || t == "AddN") return make_grad_sum_op(task, host);
  if (t == "ReluGradV2" || t == "Relu6Grad" || t == "GeLUGrad" || t == "SigmoidGrad" || t == "HardSwishGrad" ||
      t == "HardSigmoidGrad" || t == "SoftmaxGradExt")
    return make_activation_grad_op(task, host);
  if (t == "LayerNormXBackpropV2" || t == "LayerNormBetaGammaBackpropV2") return make_layer_norm_grad_op(task, host);
  if (t == "MaxPoolGradWithArgmax" || t == "GlobalAveragePoolGrad") return make_pool_grad_op(task, host);
  if (t == "ResizeNearestNeighborV2Grad" || t == "ResizeBilinearV2Grad") return make_resize_grad_op(task, host);
  if (t == "FusedMulAddN" || t == "ApplyMomentum" || t == "ApplyAdam" || t == "LambApplyOptimizerAssign" ||
      t == "SquareSumV1" || t == "LambApplyWeightAssign")
    return make_optimizer_op(task, host);
  return nullptr;
}

}  // namespace

std::vector<float> draw_values(const ValueRange& range, size_t count, std::mt19937_64& rng) {
  std::vector<float> v(count);
  std::uniform_real_distribution<float> u(range.lo, range.hi);
  for (size_t i = 0; i < count; ++i) {
    const float x = u(rng);  // drawn alike, so the inputs after are the same
    v[i] = !range.values.empty() ? range.values[i % range.values.size()] : range.whole ? std::round(x) : x;
  }
  return v;
}

std::vector<std::string> supported_op_types() {
  std::vector<std::string> out = kAnchors;
  for (const auto& t : elementwise_op_types()) out.push_back(t);
  for (const auto& t : typed_eltwise_op_types()) out.push_back(t);
  return out;
}

std::vector<std::string> fusable_op_types() { return elementwise_op_types(); }

std::unique_ptr<CpuOp> make_op(const sdk::OpTask& task, const HostCpu& host) {
  // Before any kernel sizes a buffer from the shapes: a subgraph's ops too.
  require_fits_memory(task, physical_memory_bytes());
  const std::string& t = task.op_type;
  // The kernels index feature maps channels first; NHWC ones are refused, not misread.
  if (sdk::data_layout(task.attrs, t) == sdk::DataLayout::nhwc)
    unsupported("the cpu device runs " + t + " on NCHW feature maps only, and '" + task.name +
                "' reads NHWC (data_format): tune it on a simulated Ascend SoC, or export the model channels first");
  if (t == "MatMul" || t == "Gemm" || t == "BatchMatMul") return std::make_unique<MatMulOp>(task, host);
  if (t == "Conv") return std::make_unique<ConvOp>(task, host);
  if (is_typed_eltwise(task)) return make_typed_eltwise_op(task, host);
  if (is_elementwise_op(t)) return make_eltwise_op(task, host);
  if (is_reduce_op(t)) return std::make_unique<ReduceOp>(task, host);
  if (t == "Softmax" || t == "LogSoftmax" || t == "LayerNormalization") return make_norm_op(task, host);
  if (t == "MaxPool" || t == "AveragePool") return std::make_unique<PoolOp>(task, host);
  if (t == "MaxUnpool") return make_max_unpool_op(task, host);
  if (t == "RoiAlign") return make_roi_align_op(task, host);
  if (t == "MaxRoiPool") return make_max_roi_pool_op(task, host);
  if (t == "LpPool" || t == "GlobalLpPool") return make_lp_pool_op(task, host);
  if (t == "LpNormalization") return make_lp_normalization_op(task, host);
  if (t == "Transpose") return std::make_unique<TransposeOp>(task, host);
  if (t == "ConvTranspose") return std::make_unique<ConvTransposeOp>(task, host);
  if (t == "BatchNormalization") return make_batch_norm_op(task, host);
  if (t == "Concat" || t == "Split") return make_concat_split_op(task, host);
  if (t == "Resize") return make_resize_op(task, host);
  if (t == "Upsample") return make_resize_op(upsample_as_resize(task), host);
  if (t == "Slice" || t == "Pad" || t == "Tile" || t == "Expand" || t == "Compress") return make_axis_map_op(task, host);
  if (t == "Hardmax") return make_hardmax_op(task, host);
  if (t == "DepthToSpace" || t == "SpaceToDepth") return make_depth_space_op(task, host);
  if (t == "Where") return make_where_op(task, host);
  if (t == "InstanceNormalization" || t == "MeanVarianceNormalization") return make_moments_norm_op(task, host);
  if (t == "GatherND" || t == "ScatterND") return make_nd_index_op(task, host);
  if (t == "OneHot") return make_one_hot_op(task, host);
  if (t == "LRN") return make_lrn_op(task, host);
  if (t == "RNN" || t == "GRU" || t == "LSTM") return make_recurrent_op(task, host);
  if (t == "HannWindow" || t == "HammingWindow" || t == "BlackmanWindow") return make_window_op(task, host);
  if (t == "DFT") return make_dft_op(task, host);
  if (t == "STFT") return make_stft_op(task, host);
  if (t == "MelWeightMatrix") return make_mel_weight_matrix_op(task, host);
  if (t == "Det") return make_det_op(task, host);
  if (t == "EyeLike") return make_eye_like_op(task, host);
  if (t == "ConstantOfShape") return make_constant_of_shape_op(task, host);
  if (t == "GridSample") return make_grid_sample_op(task, host);
  if (t == "ReverseSequence") return make_reverse_sequence_op(task, host);
  if (t == "Gather") return make_gather_op(task, host);
  if (t == "GatherElements" || t == "ScatterElements" || t == "Scatter") return make_elements_op(task, host);
  if (t == "NegativeLogLikelihoodLoss" || t == "SoftmaxCrossEntropyLoss") return make_loss_op(task, host);
  if (auto step = make_step_op(task, host)) return step;
  if (t == "ArgMax" || t == "ArgMin") return make_arg_reduce_op(task, host);
  if (t == "CumSum") return make_cum_sum_op(task, host);
  if (t == "TfIdfVectorizer") return make_tf_idf_vectorizer_op(task, host);
  if (t == "Adagrad" || t == "Momentum" || t == "Adam") return make_onnx_optimizer_op(task, host);
  if (t == "Einsum") return make_einsum_op(task, host);
  if (t == "Range") return make_range_op(task, host);
  if (t == "QuantizeLinear" || t == "DequantizeLinear") return make_quantize_op(task, host);
  if (t == "DynamicQuantizeLinear") return make_dynamic_quantize_op(task, host);
  if (t == "MatMulInteger" || t == "QLinearMatMul") return make_integer_matmul_op(task, host);
  if (t == "ConvInteger" || t == "QLinearConv") return make_integer_conv_op(task, host);
  if (t == "TopK") return make_top_k_op(task, host);
  if (t == "Trilu") return make_trilu_op(task, host);
  if (t == "Shape" || t == "Size") return make_shape_of_op(task, host);
  // A Dropout with its mask or a training_mode: a plain one is a view (runtime/subgraph_op.cpp).
  if (t == "Dropout") return make_dropout_op(task, host);
  if (t == "RandomUniform" || t == "RandomNormal" || t == "RandomUniformLike" || t == "RandomNormalLike" ||
      t == "Bernoulli" || t == "Multinomial")
    return make_random_op(task, host);
  if (t == "LinearClassifier" || t == "LinearRegressor") return make_linear_model_op(task, host);
  if (t == "TreeEnsembleClassifier" || t == "TreeEnsembleRegressor") return make_tree_ensemble_op(task, host);
  if (t == "SVMClassifier" || t == "SVMRegressor") return make_svm_op(task, host);
  if (t == "Normalizer" || t == "Scaler" || t == "Binarizer" || t == "Imputer" || t == "ArrayFeatureExtractor" ||
      t == "OneHotEncoder")
    return make_feature_transform_op(task, host);
  unsupported("the cpu device has no kernel for op '" + t + "'");
}

bool is_value_shaped_op(const std::string& op_type) {
  return op_type == "NonZero" || op_type == "Unique" || op_type == "NonMaxSuppression";
}

std::unique_ptr<ValueShapedOp> make_value_shaped_op(const sdk::Node& node) {
  if (node.op_type == "NonZero") return make_non_zero_op(node);
  if (node.op_type == "Unique") return make_unique_op(node);
  if (node.op_type == "NonMaxSuppression") return make_non_max_suppression_op(node);
  unsupported("the cpu device has no value-shaped kernel for op '" + node.op_type + "'");
}

}  // namespace aoe::cpu
