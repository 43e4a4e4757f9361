#include "cpu_op.h"

#include <algorithm>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "activation_grad_ops.h"
#include "arg_reduce_op.h"
#include "axis_map_op.h"
#include "batch_norm_op.h"
#include "batch_norm_training_ops.h"
#include "chain.h"
#include "concat_split_ops.h"
#include "conv_grad_ops.h"
#include "conv_op.h"
#include "conv_transpose_op.h"
#include "cum_sum_op.h"
#include "depth_space_op.h"
#include "dynamic_quantize_op.h"
#include "det_op.h"
#include "dft_op.h"
#include "dropout_op.h"
#include "einsum_op.h"
#include "elements_op.h"
#include "eltwise_op.h"
#include "eye_like_op.h"
#include "gather_op.h"
#include "grad_sum_ops.h"
#include "grid_sample_op.h"
#include "hardmax_op.h"
#include "integer_conv_op.h"
#include "integer_matmul_op.h"
#include "loss_op.h"
#include "lrn_op.h"
#include "matmul_op.h"
#include "max_unpool_op.h"
#include "mel_weight_matrix_op.h"
#include "memory_fit.h"
#include "moments_norm_op.h"
#include "nd_index_op.h"
#include "non_max_suppression_op.h"
#include "non_zero_op.h"
#include "norm_grad_ops.h"
#include "norm_ops.h"
#include "one_hot_op.h"
#include "onnx_optimizer_ops.h"
#include "op_util.h"
#include "optimizer_ops.h"
#include "pool_grad_ops.h"
#include "resize_grad_ops.h"
#include "pool_op.h"
#include "quantize_op.h"
#include "range_op.h"
#include "recurrent_op.h"
#include "reduce_op.h"
#include "resize_op.h"
#include "reverse_sequence_op.h"
#include "roi_align_op.h"
#include "shape_of_op.h"
#include "softmax_cross_entropy_op.h"
#include "stft_op.h"
#include "tf_idf_vectorizer_op.h"
#include "top_k_op.h"
#include "transpose_op.h"
#include "trilu_op.h"
#include "typed_eltwise_op.h"
#include "unique_op.h"
#include "where_op.h"
#include "window_op.h"

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
                                           "HannWindow", "HammingWindow", "BlackmanWindow", "Det", "EyeLike",
                                           "DFT", "STFT", "MelWeightMatrix",
                                           "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "ArgMax",
                                           "ArgMin", "Shape", "Size", "Trilu", "TopK", "Range",
                                           "QuantizeLinear", "DequantizeLinear", "CumSum", "TfIdfVectorizer", "Einsum",
                                           "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv",
                                           "MaxUnpool", "RoiAlign",
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
  if (t == "BNTrainingReduce") return std::make_unique<BnTrainingReduceOp>(task, host);
  if (t == "BNTrainingUpdate") return std::make_unique<BnTrainingUpdateOp>(task, host);
  if (t == "BNTrainingUpdateGrad") return std::make_unique<BnTrainingUpdateGradOp>(task, host);
  if (t == "BNTrainingReduceGrad") return std::make_unique<BnTrainingReduceGradOp>(task, host);
  if (t == "SoftmaxCrossEntropyWithLogits") return std::make_unique<SoftmaxCrossEntropyOp>(task, host);
  if (t == "Conv2DBackpropInput") return std::make_unique<ConvBackpropInputOp>(task, host);
  if (t == "Conv2DBackpropFilter") return std::make_unique<ConvBackpropFilterOp>(task, host);
  if (t == "BiasAddGrad") return std::make_unique<BiasAddGradOp>(task, host);
  if (t == "AddN") return std::make_unique<AddNOp>(task, host);
  if (t == "ReluGradV2" || t == "Relu6Grad" || t == "GeLUGrad" || t == "SigmoidGrad" || t == "HardSwishGrad" ||
      t == "HardSigmoidGrad")
    return std::make_unique<ActivationGradOp>(task, host);
  if (t == "SoftmaxGradExt") return std::make_unique<SoftmaxGradOp>(task, host);
  if (t == "LayerNormXBackpropV2" || t == "LayerNormBetaGammaBackpropV2") return std::make_unique<LayerNormGradOp>(task, host);
  if (t == "MaxPoolGradWithArgmax") return std::make_unique<MaxPoolGradOp>(task, host);
  if (t == "GlobalAveragePoolGrad") return std::make_unique<GlobalAveragePoolGradOp>(task, host);
  if (t == "ResizeNearestNeighborV2Grad" || t == "ResizeBilinearV2Grad") return std::make_unique<ResizeGradOp>(task, host);
  if (t == "FusedMulAddN" || t == "ApplyMomentum" || t == "ApplyAdam" || t == "LambApplyOptimizerAssign" ||
      t == "SquareSumV1" || t == "LambApplyWeightAssign")
    return std::make_unique<OptimizerOp>(task, host);
  return nullptr;
}

}  // namespace

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
  if (is_typed_eltwise(task)) return std::make_unique<TypedEltwiseOp>(task, host);
  if (is_elementwise_op(t)) return std::make_unique<EltwiseOp>(task, host);
  if (is_reduce_op(t)) return std::make_unique<ReduceOp>(task, host);
  if (t == "Softmax" || t == "LogSoftmax") return std::make_unique<SoftmaxOp>(task, host);
  if (t == "LayerNormalization") return std::make_unique<LayerNormOp>(task, host);
  if (t == "MaxPool" || t == "AveragePool") return std::make_unique<PoolOp>(task, host);
  if (t == "MaxUnpool") return std::make_unique<MaxUnpoolOp>(task, host);
  if (t == "RoiAlign") return std::make_unique<RoiAlignOp>(task, host);
  if (t == "Transpose") return std::make_unique<TransposeOp>(task, host);
  if (t == "ConvTranspose") return std::make_unique<ConvTransposeOp>(task, host);
  if (t == "BatchNormalization") {
    if (int_attr(task.attrs, "training_mode", 0) != 0) return std::make_unique<BatchNormTrainingModeOp>(task, host);
    return std::make_unique<BatchNormOp>(task, host);
  }
  if (t == "Concat") return std::make_unique<ConcatOp>(task, host);
  if (t == "Split") return std::make_unique<SplitOp>(task, host);
  if (t == "Resize") return std::make_unique<ResizeOp>(task, host);
  if (t == "Upsample") return std::make_unique<ResizeOp>(upsample_as_resize(task), host);
  if (t == "Slice") return std::make_unique<SliceOp>(task, host);
  if (t == "Pad") return std::make_unique<PadOp>(task, host);
  if (t == "Hardmax") return std::make_unique<HardmaxOp>(task, host);
  if (t == "DepthToSpace" || t == "SpaceToDepth") return std::make_unique<DepthSpaceOp>(task, host);
  if (t == "Where") return std::make_unique<WhereOp>(task, host);
  if (t == "Compress") return std::make_unique<CompressOp>(task, host);
  if (t == "InstanceNormalization" || t == "MeanVarianceNormalization") return std::make_unique<MomentsNormOp>(task, host);
  if (t == "GatherND" || t == "ScatterND") return std::make_unique<NdIndexOp>(task, host);
  if (t == "OneHot") return std::make_unique<OneHotOp>(task, host);
  if (t == "LRN") return std::make_unique<LrnOp>(task, host);
  if (t == "RNN" || t == "GRU" || t == "LSTM") return std::make_unique<RecurrentOp>(task, host);
  if (t == "HannWindow" || t == "HammingWindow" || t == "BlackmanWindow") return std::make_unique<WindowOp>(task, host);
  if (t == "DFT") return std::make_unique<DftOp>(task, host);
  if (t == "STFT") return std::make_unique<StftOp>(task, host);
  if (t == "MelWeightMatrix") return std::make_unique<MelWeightMatrixOp>(task, host);
  if (t == "Det") return std::make_unique<DetOp>(task, host);
  if (t == "EyeLike") return std::make_unique<EyeLikeOp>(task, host);
  if (t == "GridSample") return std::make_unique<GridSampleOp>(task, host);
  if (t == "ReverseSequence") return std::make_unique<ReverseSequenceOp>(task, host);
  if (t == "Tile") return std::make_unique<TileOp>(task, host);
  if (t == "Expand") return std::make_unique<ExpandOp>(task, host);
  if (t == "Gather") return std::make_unique<GatherOp>(task, host);
  if (t == "GatherElements" || t == "ScatterElements" || t == "Scatter") return std::make_unique<ElementsOp>(task, host);
  if (t == "NegativeLogLikelihoodLoss" || t == "SoftmaxCrossEntropyLoss") return std::make_unique<LossOp>(task, host);
  if (auto step = make_step_op(task, host)) return step;
  if (t == "ArgMax" || t == "ArgMin") return std::make_unique<ArgReduceOp>(task, host);
  if (t == "CumSum") return std::make_unique<CumSumOp>(task, host);
  if (t == "TfIdfVectorizer") return std::make_unique<TfIdfVectorizerOp>(task, host);
  if (t == "Adagrad" || t == "Momentum" || t == "Adam") return std::make_unique<OnnxOptimizerOp>(task, host);
  if (t == "Einsum") return std::make_unique<EinsumOp>(task, host);
  if (t == "Range") return std::make_unique<RangeOp>(task, host);
  if (t == "QuantizeLinear" || t == "DequantizeLinear") return std::make_unique<QuantizeOp>(task, host);
  if (t == "DynamicQuantizeLinear") return std::make_unique<DynamicQuantizeOp>(task, host);
  if (t == "MatMulInteger" || t == "QLinearMatMul") return std::make_unique<IntegerMatMulOp>(task, host);
  if (t == "ConvInteger" || t == "QLinearConv") return std::make_unique<IntegerConvOp>(task, host);
  if (t == "TopK") return std::make_unique<TopKOp>(task, host);
  if (t == "Trilu") return std::make_unique<TriluOp>(task, host);
  if (t == "Shape" || t == "Size") return std::make_unique<ShapeOfOp>(task, host);
  // A Dropout with its mask or a training_mode: a plain one is a view (runtime/subgraph_op.cpp).
  if (t == "Dropout") return std::make_unique<DropoutOp>(task, host);
  unsupported("the cpu device has no kernel for op '" + t + "'");
}

bool is_value_shaped_op(const std::string& op_type) {
  return op_type == "NonZero" || op_type == "Unique" || op_type == "NonMaxSuppression";
}

std::unique_ptr<ValueShapedOp> make_value_shaped_op(const sdk::Node& node) {
  if (node.op_type == "NonZero") return std::make_unique<NonZeroOp>(node);
  if (node.op_type == "Unique") return std::make_unique<UniqueOp>(node);
  if (node.op_type == "NonMaxSuppression") return std::make_unique<NonMaxSuppressionOp>(node);
  unsupported("the cpu device has no value-shaped kernel for op '" + node.op_type + "'");
}

}  // namespace aoe::cpu
