// The Caffe frontend (AOE's --framework 0): a network description (prototxt)
// and, optionally, its trained weights (caffemodel) in, the graph IR out.
#pragma once

#include <filesystem>
#include <optional>

#include "aoe/sdk/graph.h"
#include "onnx_frontend.h"

namespace aoe::host {

// Reads the prototxt's layers (the `layer` form and the older `layers` one)
// that run at test time, maps them to the ONNX operators an exporter would
// write (a BatchNorm with the Scale after it becomes one
// BatchNormalization), and infers every shape as the ONNX frontend does.
// Without a caffemodel the weights are known by their shapes alone, as
// operator tuning needs; with one, each layer's blobs must have the shapes
// the prototxt gives them. Throws sdk::Error naming the file and the layer.
// With `weights`, the caffemodel's values are read into it as well (a
// BatchNorm's mean and variance divided by its scale factor, as Caffe does;
// a BatchNorm's fixed scale 1 and bias 0 with or without a caffemodel).
sdk::Graph load_caffe(const std::filesystem::path& prototxt, const std::optional<std::filesystem::path>& caffemodel,
                      const InputShapes& input_shapes = {}, ModelWeights* weights = nullptr,
                      Normalisation* normalised = nullptr);

}  // namespace aoe::host
