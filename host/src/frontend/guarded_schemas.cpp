#include "guarded_schemas.h"

#include <onnx/defs/shape_inference.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "einsum_shape_inference.h"
#include "ml_shape_inference.h"
#include "stft_shape_inference.h"

namespace aoe::host {
namespace {

using onnx::InferenceContext;

const char* const kMlDomain = "ai.onnx.ml";

// The ops with spatial axes whose inference reads attribute lists and the
// weights' dims by the input's rank, and which input holds the weights (-1: none).
const std::map<std::string, int> kSpatialOps = {{"Conv", 1},    {"ConvInteger", 1}, {"QLinearConv", 3},
                                                {"ConvTranspose", 1}, {"MaxPool", -1}, {"AveragePool", -1},
                                                {"LpPool", -1}};

int rank_of(InferenceContext& ctx, size_t input) { return ctx.getInputType(input)->tensor_type().shape().dim_size(); }

void check_spatial_inputs(InferenceContext& ctx, int weights) {
  if (ctx.getNumInputs() == 0 || !ctx.getInputType(0) || !onnx::hasInputShape(ctx, 0)) return;
  const int rank = rank_of(ctx, 0);
  if (rank < 3) fail_shape_inference("input X has rank ", rank, "; it needs N, C and at least one spatial axis");
  const int spatial = rank - 2;
  for (const char* name : {"kernel_shape", "strides", "dilations", "output_padding"}) {
    const auto* a = ctx.getAttribute(name);
    if (a && a->ints_size() != spatial)
      fail_shape_inference("attribute ", name, " lists ", a->ints_size(), " values for ", spatial, " spatial axes");
  }
  // Some exporters give ConvTranspose's output_shape with N and C: longer is read as given.
  if (const auto* out = ctx.getAttribute("output_shape"); out && out->ints_size() < spatial)
    fail_shape_inference("attribute output_shape lists ", out->ints_size(), " values for ", spatial, " spatial axes");
  if (const auto* pads = ctx.getAttribute("pads"); pads && pads->ints_size() != 2 * spatial)
    fail_shape_inference("attribute pads lists ", pads->ints_size(), " values for ", spatial, " spatial axes");
  if (weights < 0) return;
  if (ctx.getNumInputs() <= static_cast<size_t>(weights) || !ctx.getInputType(weights))
    fail_shape_inference("input ", weights, " (the weights) is missing");
  if (!onnx::hasInputShape(ctx, weights)) {
    if (!ctx.getAttribute("kernel_shape")) fail_shape_inference("the weights' shape is unknown and kernel_shape is not given");
    return;
  }
  if (rank_of(ctx, weights) != rank)
    fail_shape_inference("the weights have rank ", rank_of(ctx, weights), ", the input X rank ", rank);
}

// An input the op requires whose type is unknown (the node before it failed its own
// inference) fails this node's too: some of libonnx's functions (Shape's among them)
// read that type without looking whether there is one.
void check_required_types(InferenceContext& ctx, const onnx::OpSchema& schema) {
  const auto& formal = schema.inputs();
  for (size_t i = 0; i < ctx.getNumInputs() && !formal.empty(); ++i) {
    const auto& param = formal[std::min(i, formal.size() - 1)];
    if (i >= formal.size() && param.GetOption() != onnx::OpSchema::Variadic) break;
    if (param.GetOption() != onnx::OpSchema::Optional && !ctx.getInputType(i))
      fail_type_inference("input ", i, " (", param.GetName(), ") has no known type");
  }
}

// libonnx before 1.16 sizes a ceil_mode pool's output without ONNX's later rule,
// which ONNX Runtime and PyTorch follow: a last window that would start in the
// end padding, past the input, is dropped. Redone here from the input's dims.
void drop_windows_starting_in_padding(InferenceContext& ctx) {
  const auto* ceil = ctx.getAttribute("ceil_mode");
  const auto* auto_pad = ctx.getAttribute("auto_pad");
  if (!ceil || ceil->i() == 0 || (auto_pad && auto_pad->s() != "NOTSET") || !onnx::hasInputShape(ctx, 0)) return;
  const int spatial = rank_of(ctx, 0) - 2;
  const auto* kernel = ctx.getAttribute("kernel_shape");
  if (spatial < 1 || !kernel || kernel->ints_size() != spatial) return;
  const auto list = [&](const char* name, int size, int64_t fallback) {
    const auto* a = ctx.getAttribute(name);
    std::vector<int64_t> v(static_cast<size_t>(size), fallback);
    if (a && a->ints_size() == size) v.assign(a->ints().begin(), a->ints().end());
    return v;
  };
  const auto strides = list("strides", spatial, 1), dilations = list("dilations", spatial, 1),
             pads = list("pads", 2 * spatial, 0);
  const auto& in = ctx.getInputType(0)->tensor_type().shape();
  for (size_t o = 0; o < ctx.getNumOutputs(); ++o) {
    auto* out = ctx.getOutputType(o);
    if (!out || !out->has_tensor_type() || out->tensor_type().shape().dim_size() != spatial + 2) continue;
    for (int a = 0; a < spatial; ++a) {
      const auto& dim = in.dim(a + 2);
      if (!dim.has_dim_value() || strides[a] < 1 || dilations[a] < 1) continue;
      const int64_t room = dim.dim_value() + pads[a] + pads[a + spatial] - dilations[a] * (kernel->ints(a) - 1) - 1;
      if (room < 0) continue;
      int64_t size = (room + strides[a] - 1) / strides[a] + 1;
      if ((size - 1) * strides[a] >= dim.dim_value() + pads[a]) --size;
      out->mutable_tensor_type()->mutable_shape()->mutable_dim(a + 2)->set_dim_value(size);
    }
  }
}

class GuardedSchemas final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    if (schema && domain == kMlDomain) return with_ml_shapes(schema, key);
    if (!schema || !(domain.empty() || domain == "ai.onnx")) return schema;
    if (!schema->has_type_and_shape_inference_function()) return schema;
    const auto op = kSpatialOps.find(key);
    const std::optional<int> weights = op == kSpatialOps.end() ? std::nullopt : std::optional<int>(op->second);
    onnx::InferenceFunction inner = key == "STFT"     ? infer_stft_shape
                                    : key == "Einsum" ? infer_einsum_shape
                                                      : schema->GetTypeAndShapeInferenceFunction();
    return replaced(schema, [inner = std::move(inner), schema, weights](InferenceContext& ctx) {
      check_required_types(ctx, *schema);
      if (weights) check_spatial_inputs(ctx, *weights);
      inner(ctx);
      if (weights == -1) drop_windows_starting_in_padding(ctx);
    });
  }

 private:
  // libonnx's dtypes, then the shapes ONNX Runtime gives.
  const onnx::OpSchema* with_ml_shapes(const onnx::OpSchema* schema, const std::string& key) const {
    auto shapes = ml_shape_inference(key);
    if (!shapes) return schema;
    onnx::InferenceFunction types =
        schema->has_type_and_shape_inference_function() ? schema->GetTypeAndShapeInferenceFunction() : nullptr;
    return replaced(schema, [types = std::move(types), shapes = std::move(shapes)](InferenceContext& ctx) {
      if (types) types(ctx);
      shapes(ctx);
    });
  }

  // A copy of `schema` that infers with `infer`, made once.
  const onnx::OpSchema* replaced(const onnx::OpSchema* schema, onnx::InferenceFunction infer) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& guarded = guarded_[schema];
    if (!guarded) {
      guarded = std::make_unique<onnx::OpSchema>(*schema);
      guarded->TypeAndShapeInferenceFunction(std::move(infer));
    }
    return guarded.get();
  }

  mutable std::mutex mutex_;
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

}  // namespace

const onnx::ISchemaRegistry& guarded_schemas() {
  static const GuardedSchemas registry;
  return registry;
}

}  // namespace aoe::host
