// The pads of one spatial axis of an ONNX ConvTranspose, one rule for every
// device that runs or models it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace aoe::sdk {

// Pads at the start and end of one axis: output positions cropped there.
struct AxisPads {
  int64_t begin = 0, end = 0;
};

// `given`: the axis's pads attribute. Where `output_size` (the axis's
// output_shape entry) is set or auto_pad is SAME_UPPER or SAME_LOWER (an
// output of input x stride), the total padding that size needs, split as
// ONNX's reference does, flooring: a negative total (an output_shape past
// what the pads give) extends the output at the end. Under SAME, where the
// kernel is shorter than the stride, input x stride is past what no padding
// gives: the total is 0 then, as ONNX Runtime takes it. VALID: none. The
// caller checks auto_pad's value and that the pads fit its kernel.
inline AxisPads conv_transpose_pads(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t output_padding,
                                    AxisPads given, std::optional<int64_t> output_size, const std::string& auto_pad) {
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (output_size || same) {
    const int64_t target = output_size ? *output_size : in * stride;
    int64_t total = (in - 1) * stride + output_padding + dilation * (kernel - 1) + 1 - target;
    if (!output_size) total = std::max<int64_t>(total, 0);
    const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
    return auto_pad == "SAME_UPPER" ? AxisPads{half, total - half} : AxisPads{total - half, half};
  }
  if (auto_pad == "VALID") return {};
  return given;
}

}  // namespace aoe::sdk
