#include "guarded_schemas.h"

#include <onnx/defs/shape_inference.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "stft_shape_inference.h"

namespace aoe::host {
namespace {

using onnx::InferenceContext;

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

class GuardedSchemas final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    if (!schema || !(domain.empty() || domain == "ai.onnx")) return schema;
    if (key == "STFT") return replaced(schema, infer_stft_shape);
    const auto op = kSpatialOps.find(key);
    if (op == kSpatialOps.end()) return schema;
    return replaced(schema, [inner = schema->GetTypeAndShapeInferenceFunction(), weights = op->second](InferenceContext& ctx) {
      check_spatial_inputs(ctx, weights);
      inner(ctx);
    });
  }

 private:
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
