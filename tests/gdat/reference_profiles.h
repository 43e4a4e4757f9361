// Realistic gradient profiles for tests and the benchmark, from the models
// the project generates (tools/make_models): the trainable weights GDAT
// finds in the ONNX model, with ready times from a FLOP and byte count of
// each node at `batch` on a 910-class device (100 TFLOP/s, 0.9 TB/s
// effective, fp16 activations), backward = 2 x forward.
#pragma once

#include <filesystem>

#include "gradient_profile.h"

namespace aoe::gdat::test {

// `model` was generated at batch 1: each node's work grows linearly with the batch.
GradientProfile reference_profile(const std::filesystem::path& model, int batch = 32);

}  // namespace aoe::gdat::test
