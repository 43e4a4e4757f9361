// Realistic gradient profiles for tests and the benchmark: the per-tensor
// sizes of torchvision ResNet-50 and HuggingFace BERT-base (CSV, definition
// order) with ready times from a FLOP and byte count of each layer at batch 32
// on a 910-class device (100 TFLOP/s, 0.9 TB/s effective), backward = 2x forward.
// data/ holds the two CSVs, as computed from the model definitions (161 and
// 199 tensors; the totals match the published 25.6 M and 110 M parameters).
#pragma once

#include <filesystem>
#include <string>

#include "gradient_profile.h"

namespace aoe::gdat::test {

// model: "resnet50" (224x224 images) or "bert_base" (sequence 128).
GradientProfile reference_profile(const std::filesystem::path& csv, const std::string& model, int batch = 32);

}  // namespace aoe::gdat::test
