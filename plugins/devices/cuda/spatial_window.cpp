#include "spatial_window.h"

#include <algorithm>
#include <optional>

#include "aoe/sdk/conv_transpose_pads.h"
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

namespace {

// A window's extents, strides and dilations (each at least 1), read from
// the node and checked, with its pads attribute and auto_pad; the pads are
// the caller's to set.
struct WindowAttributes {
  SpatialWindow w;
  size_t k = 0;  // spatial dims
  Dims pads;
  std::string auto_pad;
};

WindowAttributes window_attributes(const OpNode& n, const Dims& input, const Dims& output, const Dims& kernel) {
  const size_t k = input.size() - 2;
  if (input.size() < 3 || input.size() > 4 || output.size() != input.size())
    n.unsupported("over " + std::to_string(input.size() >= 2 ? input.size() - 2 : 0) + " spatial dims (the cuda device takes 1 or 2)");
  if (kernel.size() != k) n.invalid("a kernel of " + std::to_string(kernel.size()) + " dims for " + std::to_string(k) + " spatial dims");
  const auto strides = n.ints_attr("strides", Dims(k, 1));
  const auto dilations = n.ints_attr("dilations", Dims(k, 1));
  WindowAttributes a{{}, k, n.ints_attr("pads", Dims(2 * k, 0)), n.string_attr("auto_pad", "NOTSET")};
  if (strides.size() != k || dilations.size() != k || a.pads.size() != 2 * k)
    n.invalid("needs " + std::to_string(k) + " strides and dilations and " + std::to_string(2 * k) + " pads");
  if (a.auto_pad != "NOTSET" && a.auto_pad != "SAME_UPPER" && a.auto_pad != "SAME_LOWER" && a.auto_pad != "VALID")
    n.invalid("auto_pad '" + a.auto_pad + "' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  const size_t off = 2 - k;
  for (size_t d = 0; d < k; ++d) {
    const size_t e = off + d;
    a.w.in[e] = input[2 + d];
    a.w.out[e] = output[2 + d];
    a.w.kernel[e] = kernel[d];
    a.w.stride[e] = strides[d];
    a.w.dilation[e] = dilations[d];
    if (a.w.kernel[e] < 1 || a.w.stride[e] < 1 || a.w.dilation[e] < 1) n.invalid("needs kernel, strides and dilations >= 1");
  }
  return a;
}

}  // namespace

SpatialWindow spatial_window(const OpNode& n, const Dims& input, const Dims& output, const Dims& kernel) {
  WindowAttributes a = window_attributes(n, input, output, kernel);
  SpatialWindow& w = a.w;
  for (size_t d = 0; d < a.k; ++d) {
    const size_t e = 2 - a.k + d;
    const int64_t span = (w.kernel[e] - 1) * w.dilation[e] + 1;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (w.out[e] - 1) * w.stride[e] + span - w.in[e]);
      w.pad_begin[e] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[e] = total - w.pad_begin[e];
    } else if (a.auto_pad == "NOTSET") {
      w.pad_begin[e] = a.pads[d];
      w.pad_end[e] = a.pads[d + a.k];
    }
  }
  return w;
}

SpatialWindow transposed_window(const OpNode& n, const Dims& input, const Dims& output, const Dims& kernel) {
  WindowAttributes a = window_attributes(n, input, output, kernel);
  SpatialWindow& w = a.w;
  const size_t k = a.k;
  const Dims output_padding = n.ints_attr("output_padding", Dims(k, 0)), output_shape = n.ints_attr("output_shape", {});
  if (output_padding.size() != k) n.invalid("needs " + std::to_string(k) + " output_padding");
  // output_shape lists the spatial dims, or (as some exporters write it) N and C first.
  if (!output_shape.empty() && output_shape.size() != k && output_shape.size() != k + 2)
    n.invalid("output_shape lists " + std::to_string(output_shape.size()) + " dims for " + std::to_string(k) + " spatial dims");
  for (size_t d = 0; d < k; ++d) {
    const size_t e = 2 - k + d;
    // The input spread by the stride must not overflow.
    if (w.stride[e] > (1 << 16) || w.dilation[e] > (1 << 16)) n.invalid("needs kernel, strides and dilations in 1..65536");
    if (output_padding[d] < 0 || output_padding[d] >= std::max(w.stride[e], w.dilation[e]))
      n.invalid("output_padding must be >= 0 and below the stride or the dilation");
    const std::optional<int64_t> size =
        output_shape.empty() ? std::nullopt : std::optional(output_shape[output_shape.size() - k + d]);
    const sdk::AxisPads p = sdk::conv_transpose_pads(w.in[e], w.kernel[e], w.stride[e], w.dilation[e], output_padding[d],
                                                     {a.pads[d], a.pads[d + k]}, size, a.auto_pad);
    w.pad_begin[e] = p.begin, w.pad_end[e] = p.end;
    const int64_t span = (w.in[e] - 1) * w.stride[e] + output_padding[d] + (w.kernel[e] - 1) * w.dilation[e] + 1;
    if (span - p.begin - p.end != w.out[e])
      n.invalid("output dim " + std::to_string(2 + d) + " is " + std::to_string(w.out[e]) + ", its attributes give " +
                std::to_string(span - p.begin - p.end));
  }
  return w;
}

}  // namespace aoe::cuda
