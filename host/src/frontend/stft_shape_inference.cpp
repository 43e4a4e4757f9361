#include "stft_shape_inference.h"

#include <optional>

#include "constant_folding.h"

namespace aoe::host {
namespace {

// The one integer of input `index` where the model holds it as a constant.
std::optional<int64_t> known_scalar(onnx::InferenceContext& ctx, size_t index) {
  if (index >= ctx.getNumInputs() || !ctx.getInputData(index)) return std::nullopt;
  const auto known = read_known(*ctx.getInputData(index));
  if (!known || known->is_real() || known->ints.size() != 1) return std::nullopt;
  return known->ints[0];
}

}  // namespace

void infer_stft_shape(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const auto& signal = onnx::getInputShape(ctx, 0);
  if (signal.dim_size() != 3) fail_shape_inference("STFT's signal has rank ", signal.dim_size(), "; it needs 3");
  std::optional<int64_t> length = known_scalar(ctx, 3);
  if (!length && onnx::hasInputShape(ctx, 2)) {
    const auto& window = onnx::getInputShape(ctx, 2);
    if (window.dim_size() != 1) fail_shape_inference("STFT's window has rank ", window.dim_size(), "; it needs 1");
    if (window.dim(0).has_dim_value()) length = window.dim(0).dim_value();
  }
  const std::optional<int64_t> step = known_scalar(ctx, 1);
  if (length && *length < 1) fail_shape_inference("STFT's frame_length ", *length, " must be 1 or more");
  if (step && *step < 1) fail_shape_inference("STFT's frame_step ", *step, " must be 1 or more");
  const bool onesided = onnx::getAttribute(ctx, "onesided", 1) != 0;

  onnx::TensorShapeProto out;
  *out.add_dim() = signal.dim(0);
  auto* frames = out.add_dim();
  if (length && step && signal.dim(1).has_dim_value()) {
    if (signal.dim(1).dim_value() < *length)
      fail_shape_inference("STFT's signal of ", signal.dim(1).dim_value(), " points is shorter than a frame of ", *length);
    frames->set_dim_value((signal.dim(1).dim_value() - *length) / *step + 1);
  }
  auto* bins = out.add_dim();
  if (length) bins->set_dim_value(onesided ? *length / 2 + 1 : *length);
  out.add_dim()->set_dim_value(2);
  onnx::updateOutputShape(ctx, 0, out);
}

}  // namespace aoe::host
