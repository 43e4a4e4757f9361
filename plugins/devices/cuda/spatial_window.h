// The window of a 1-D or 2-D pooling or convolution: kernel, strides,
// dilations and the pads auto_pad gives, with 1-D as 2-D of height 1.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "op_node.h"

namespace aoe::cuda {

struct SpatialWindow {
  std::array<int64_t, 2> in{1, 1}, out{1, 1}, kernel{1, 1}, stride{1, 1}, dilation{1, 1}, pad_begin{0, 0}, pad_end{0, 0};
  // "#define IN_H ..., KERNEL_W ..." and so on.
  std::string defines() const;
};

// From an input [N, C, (H,) W] and output [N, K, (OH,) OW] and the node's
// attributes; `kernel` is kernel_shape, or the weights' spatial dims.
SpatialWindow spatial_window(const OpNode& node, const Dims& input, const Dims& output, const Dims& kernel);
// A ConvTranspose's: output position o takes input position i through tap
// k where o = i * stride + k * dilation - pad_begin, its pads by
// sdk::conv_transpose_pads from pads, output_padding, output_shape and
// auto_pad. Throws sdk::Error(invalid_argument) for an output its attributes do not give.
SpatialWindow transposed_window(const OpNode& node, const Dims& input, const Dims& output, const Dims& kernel);

}  // namespace aoe::cuda
