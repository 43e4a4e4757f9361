#include "spatial_window.h"

#include "op_source.h"

namespace aoe::cuda {

std::string SpatialWindow::defines() const {
  std::string s;
  const char* axis[2] = {"H", "W"};
  for (size_t d = 0; d < 2; ++d) {
    const std::string a = axis[d];
    s += define("IN_" + a, in[d]) + define("OUT_" + a, out[d]) + define("KERNEL_" + a, kernel[d]) + define("STRIDE_" + a, stride[d]) +
         define("DILATION_" + a, dilation[d]) + define("PAD_" + a, pad_begin[d]) + define("PAD_END_" + a, pad_end[d]);
  }
  return s;
}

SpatialWindow spatial_window(const OpNode& n, const Dims& input, const Dims& output, const Dims& kernel) {
  const size_t k = input.size() - 2;
  if (input.size() < 3 || input.size() > 4 || output.size() != input.size())
    n.unsupported("over " + std::to_string(input.size() >= 2 ? input.size() - 2 : 0) + " spatial dims (the cuda device takes 1 or 2)");
  if (kernel.size() != k) n.invalid("a kernel of " + std::to_string(kernel.size()) + " dims for " + std::to_string(k) + " spatial dims");
  const auto strides = n.ints_attr("strides", Dims(k, 1));
  const auto dilations = n.ints_attr("dilations", Dims(k, 1));
  const auto pads = n.ints_attr("pads", Dims(2 * k, 0));
  if (strides.size() != k || dilations.size() != k || pads.size() != 2 * k)
    n.invalid("needs " + std::to_string(k) + " strides and dilations and " + std::to_string(2 * k) + " pads");
  const std::string auto_pad = n.string_attr("auto_pad", "NOTSET");
  SpatialWindow w;
  const size_t off = 2 - k;
  for (size_t d = 0; d < k; ++d) {
    const size_t e = off + d;
    w.in[e] = input[2 + d];
    w.out[e] = output[2 + d];
    w.kernel[e] = kernel[d];
    w.stride[e] = strides[d];
    w.dilation[e] = dilations[d];
    if (w.kernel[e] < 1 || w.stride[e] < 1 || w.dilation[e] < 1) n.invalid("needs kernel, strides and dilations >= 1");
    const int64_t span = (w.kernel[e] - 1) * w.dilation[e] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (w.out[e] - 1) * w.stride[e] + span - w.in[e]);
      w.pad_begin[e] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[e] = total - w.pad_begin[e];
    } else if (auto_pad == "NOTSET") {
      w.pad_begin[e] = pads[d];
      w.pad_end[e] = pads[d + k];
    } else if (auto_pad != "VALID") {
      n.invalid("auto_pad '" + auto_pad + "' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
  }
  return w;
}

}  // namespace aoe::cuda
