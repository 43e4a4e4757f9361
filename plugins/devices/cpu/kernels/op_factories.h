// The ops make_op() builds from their own files: each file keeps its op
// classes to itself and makes them through one function here, from a task
// make_op() has already matched to it (the ops of a family by op type).
// Ops other code builds or derives from keep their own headers (matmul_op.h,
// conv_op.h, pool_op.h, ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "cpu_op.h"
#include "host_cpu.h"

namespace aoe::cpu {

// Elementwise ops and those on other dtypes.
std::unique_ptr<CpuOp> make_eltwise_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_typed_eltwise_op(const sdk::OpTask& task, const HostCpu& host);
// Whether the task is one of typed_eltwise_op_types(): its op type, or Div or Mod on integers.
bool is_typed_eltwise(const sdk::OpTask& task);
std::vector<std::string> typed_eltwise_op_types();

// Normalisations, pooling and resizing.
std::unique_ptr<CpuOp> make_norm_op(const sdk::OpTask& task, const HostCpu& host);  // Softmax, LogSoftmax, LayerNormalization
std::unique_ptr<CpuOp> make_batch_norm_op(const sdk::OpTask& task, const HostCpu& host);  // inference or training_mode
std::unique_ptr<CpuOp> make_moments_norm_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_lrn_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_max_unpool_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_roi_align_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_resize_op(const sdk::OpTask& task, const HostCpu& host);
// Upsample (opsets 7 to 9) as the Resize it became: asymmetric coordinates,
// nearest rounding down, `bilinear` named `linear`.
sdk::OpTask upsample_as_resize(sdk::OpTask task);
std::unique_ptr<CpuOp> make_grid_sample_op(const sdk::OpTask& task, const HostCpu& host);

// Data movement and indexing.
std::unique_ptr<CpuOp> make_concat_split_op(const sdk::OpTask& task, const HostCpu& host);  // Concat, Split
std::unique_ptr<CpuOp> make_axis_map_op(const sdk::OpTask& task, const HostCpu& host);  // Slice, Pad, Tile, Expand, Compress
std::unique_ptr<CpuOp> make_depth_space_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_gather_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_elements_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_nd_index_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_where_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_one_hot_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_hardmax_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_reverse_sequence_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_arg_reduce_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_cum_sum_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_top_k_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_trilu_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_range_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_shape_of_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_eye_like_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_constant_of_shape_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_dropout_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_lp_pool_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_lp_normalization_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_max_roi_pool_op(const sdk::OpTask& task, const HostCpu& host);
// RandomUniform, RandomNormal, their Like forms, Bernoulli and Multinomial.
std::unique_ptr<CpuOp> make_random_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_tf_idf_vectorizer_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_einsum_op(const sdk::OpTask& task, const HostCpu& host);

// Sequences and signals.
std::unique_ptr<CpuOp> make_recurrent_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_window_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_dft_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_stft_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_mel_weight_matrix_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_det_op(const sdk::OpTask& task, const HostCpu& host);

// Quantized ops.
std::unique_ptr<CpuOp> make_quantize_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_dynamic_quantize_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_integer_matmul_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_integer_conv_op(const sdk::OpTask& task, const HostCpu& host);

// Losses, and a training step's kernels (docs/training.md).
std::unique_ptr<CpuOp> make_loss_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_onnx_optimizer_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_batch_norm_training_op(const sdk::OpTask& task, const HostCpu& host);  // BNTraining*
std::unique_ptr<CpuOp> make_softmax_cross_entropy_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_conv_grad_op(const sdk::OpTask& task, const HostCpu& host);  // Conv2DBackprop{Input,Filter}
std::unique_ptr<CpuOp> make_grad_sum_op(const sdk::OpTask& task, const HostCpu& host);  // BiasAddGrad, AddN
std::unique_ptr<CpuOp> make_activation_grad_op(const sdk::OpTask& task, const HostCpu& host);  // *Grad, SoftmaxGradExt
std::unique_ptr<CpuOp> make_layer_norm_grad_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_pool_grad_op(const sdk::OpTask& task, const HostCpu& host);  // MaxPoolGradWithArgmax, GlobalAveragePoolGrad
std::unique_ptr<CpuOp> make_resize_grad_op(const sdk::OpTask& task, const HostCpu& host);
std::unique_ptr<CpuOp> make_optimizer_op(const sdk::OpTask& task, const HostCpu& host);

// The classic machine-learning domain (ai.onnx.ml).
std::unique_ptr<CpuOp> make_linear_model_op(const sdk::OpTask& task, const HostCpu& host);  // LinearClassifier, LinearRegressor
std::unique_ptr<CpuOp> make_tree_ensemble_op(const sdk::OpTask& task, const HostCpu& host);  // TreeEnsembleClassifier, -Regressor
std::unique_ptr<CpuOp> make_svm_op(const sdk::OpTask& task, const HostCpu& host);  // SVMClassifier, SVMRegressor
// Normalizer, Scaler, Binarizer, Imputer, ArrayFeatureExtractor, OneHotEncoder
std::unique_ptr<CpuOp> make_feature_transform_op(const sdk::OpTask& task, const HostCpu& host);

}  // namespace aoe::cpu
