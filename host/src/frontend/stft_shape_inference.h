// STFT's output shape as the operator defines it: [batch, frames, bins, 2],
// frames = (signal_length - frame_length) / frame_step + 1 and bins
// frame_length / 2 + 1 when onesided (the default), else frame_length.
// libonnx 1.12's own inference reads onesided with a default of 0, so it
// infers frame_length bins and fails a model that declares the onesided
// shape; guarded_schemas puts this one in its place. Dims it cannot know
// (a frame_step or frame_length fed as the model runs) are left unknown.
#pragma once

#include <onnx/defs/shape_inference.h>

namespace aoe::host {

void infer_stft_shape(onnx::InferenceContext& ctx);

}  // namespace aoe::host
