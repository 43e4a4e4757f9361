#include "ml_shape_inference.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace aoe::host {
namespace {

using onnx::InferenceContext;
using Dim = onnx::TensorShapeProto_Dimension;

Dim known(int64_t size) {
  Dim d;
  d.set_dim_value(size);
  return d;
}

int64_t list_size(InferenceContext& ctx, const char* name) {
  const auto* a = ctx.getAttribute(name);
  if (!a) return 0;
  return a->ints_size() + a->floats_size() + a->strings_size();
}

int64_t int_attribute(InferenceContext& ctx, const char* name, int64_t fallback) {
  const auto* a = ctx.getAttribute(name);
  return a && a->has_i() ? a->i() : fallback;
}

// X's shape, [N, F] or [F]; nullptr while it is unknown.
const onnx::TensorShapeProto* input_shape(InferenceContext& ctx) {
  if (ctx.getNumInputs() == 0 || !onnx::hasInputShape(ctx, 0)) return nullptr;
  const auto& shape = onnx::getInputShape(ctx, 0);
  if (shape.dim_size() < 1 || shape.dim_size() > 2)
    fail_shape_inference("input X has rank ", shape.dim_size(), "; it needs [N, features] or [features]");
  return &shape;
}

// The rows of X: its first dim, or 1 for a rank-1 X.
Dim rows(const onnx::TensorShapeProto& x) { return x.dim_size() == 2 ? x.dim(0) : known(1); }

void set_shape(InferenceContext& ctx, size_t output, const std::vector<Dim>& dims, int32_t default_type) {
  if (output >= ctx.getNumOutputs() || !ctx.getOutputType(output)) return;
  auto* type = ctx.getOutputType(output)->mutable_tensor_type();
  if (type->elem_type() == onnx::TensorProto::UNDEFINED) type->set_elem_type(default_type);
  auto* shape = type->mutable_shape();
  shape->clear_dim();
  for (const auto& d : dims) *shape->add_dim() = d;
}

int32_t label_type(InferenceContext& ctx) {
  return list_size(ctx, "classlabels_strings") > 0 ? onnx::TensorProto::STRING : onnx::TensorProto::INT64;
}

int64_t labels(InferenceContext& ctx) {
  return list_size(ctx, "classlabels_strings") + list_size(ctx, "classlabels_ints") + list_size(ctx, "classlabels_int64s");
}

void linear_classifier(InferenceContext& ctx) {
  const auto* x = input_shape(ctx);
  if (!x) return;
  int64_t columns = list_size(ctx, "intercepts");
  if (columns == 1 && labels(ctx) == 2) columns = 2;
  set_shape(ctx, 0, {rows(*x)}, label_type(ctx));
  if (columns > 0) set_shape(ctx, 1, {rows(*x), known(columns)}, onnx::TensorProto::FLOAT);
}

void tree_classifier(InferenceContext& ctx) {
  const auto* x = input_shape(ctx);
  if (!x) return;
  set_shape(ctx, 0, {rows(*x)}, label_type(ctx));
  set_shape(ctx, 1, {rows(*x), known(labels(ctx))}, onnx::TensorProto::FLOAT);
}

// libsvm's pairs of classes give a decision each ([-d, d] for two classes), or
// with prob_a each class a probability; liblinear a score per class.
void svm_classifier(InferenceContext& ctx) {
  const auto* x = input_shape(ctx);
  if (!x) return;
  const int64_t classes = labels(ctx);
  const auto* per_class = ctx.getAttribute("vectors_per_class");
  int64_t vectors = 0;
  if (per_class)
    for (int64_t n : per_class->ints()) vectors += n;
  const bool pairs = vectors > 0 && list_size(ctx, "prob_a") == 0;
  const int64_t columns = pairs ? std::max<int64_t>(classes * (classes - 1) / 2, 2) : classes;
  set_shape(ctx, 0, {rows(*x)}, label_type(ctx));
  set_shape(ctx, 1, {rows(*x), known(columns)}, onnx::TensorProto::FLOAT);
}

void regressor(InferenceContext& ctx, int64_t targets) {
  const auto* x = input_shape(ctx);
  if (x) set_shape(ctx, 0, {rows(*x), known(targets)}, onnx::TensorProto::FLOAT);
}

void same_shape(InferenceContext& ctx, int32_t type) {
  if (ctx.getNumInputs() == 0 || !onnx::hasInputShape(ctx, 0)) return;
  const auto& in = onnx::getInputShape(ctx, 0);
  set_shape(ctx, 0, {in.dim().begin(), in.dim().end()},
            type != onnx::TensorProto::UNDEFINED ? type : ctx.getInputType(0)->tensor_type().elem_type());
}

void array_feature_extractor(InferenceContext& ctx) {
  if (ctx.getNumInputs() < 2 || !onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 1)) return;
  const auto& x = onnx::getInputShape(ctx, 0);
  int64_t count = 1;
  for (const auto& d : onnx::getInputShape(ctx, 1).dim()) {
    if (!d.has_dim_value()) return;
    count *= d.dim_value();
  }
  std::vector<Dim> dims(x.dim().begin(), x.dim().end());
  if (dims.size() <= 1) dims.insert(dims.begin(), known(1));
  dims.back() = known(count);
  set_shape(ctx, 0, dims, ctx.getInputType(0)->tensor_type().elem_type());
}

void one_hot_encoder(InferenceContext& ctx) {
  if (ctx.getNumInputs() == 0 || !onnx::hasInputShape(ctx, 0)) return;
  const auto& x = onnx::getInputShape(ctx, 0);
  std::vector<Dim> dims(x.dim().begin(), x.dim().end());
  dims.push_back(known(list_size(ctx, "cats_int64s") + list_size(ctx, "cats_strings")));
  set_shape(ctx, 0, dims, onnx::TensorProto::FLOAT);
}

}  // namespace

onnx::InferenceFunction ml_shape_inference(const std::string& op_type) {
  if (op_type == "LinearClassifier") return linear_classifier;
  if (op_type == "TreeEnsembleClassifier") return tree_classifier;
  if (op_type == "SVMClassifier") return svm_classifier;
  if (op_type == "SVMRegressor") return [](InferenceContext& ctx) { regressor(ctx, 1); };
  if (op_type == "LinearRegressor") return [](InferenceContext& ctx) { regressor(ctx, int_attribute(ctx, "targets", 1)); };
  if (op_type == "TreeEnsembleRegressor") return [](InferenceContext& ctx) { regressor(ctx, int_attribute(ctx, "n_targets", 1)); };
  if (op_type == "Normalizer" || op_type == "Scaler")
    return [](InferenceContext& ctx) { same_shape(ctx, onnx::TensorProto::FLOAT); };
  if (op_type == "Binarizer" || op_type == "Imputer")
    return [](InferenceContext& ctx) { same_shape(ctx, onnx::TensorProto::UNDEFINED); };
  if (op_type == "ArrayFeatureExtractor") return array_feature_extractor;
  if (op_type == "OneHotEncoder") return one_hot_encoder;
  return nullptr;
}

}  // namespace aoe::host
