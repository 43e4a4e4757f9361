// Which initializers of a model are trained, so have gradients, and when each
// gradient is ready: backward runs the nodes in reverse graph order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "gradient_profile.h"

namespace aoe::gdat {

struct TrainableTensor {
  std::string name;
  uint64_t bytes = 0;
  size_t node = 0;  // the first node in graph order that reads it: its backward makes the gradient final
};

// Weights of layers: Conv/ConvTranspose W and B, Gemm and MatMul operands,
// BatchNormalization scale and bias (not the running mean and variance, which
// are buffers), other normalisations' scale and bias, embedding tables, and
// non-scalar float constants added to or multiplying activations (biases and
// scales of decomposed layers). Never int tensors, shape constants or scalars.
// In ready order: reverse graph order, within a node the later inputs first.
std::vector<TrainableTensor> trainable_tensors(const aoe::sdk::Graph& graph);

// Ready times when node i's backward takes backward_us[i]: a gradient is
// final once backward has run back to the node that reads it.
GradientProfile profile_from_model(const std::vector<TrainableTensor>& tensors, const std::vector<double>& backward_us,
                                   double forward_us, const std::string& source);

// The same tensor by name in a model ('/' and '.' are alike: exporters differ).
std::string comparable_name(const std::string& name);

}  // namespace aoe::gdat
