#include "conv_kernel.h"

#include "op_source.h"
#include "spatial_window.h"

namespace aoe::cuda {

std::vector<OpKernel> conv_kernels(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0), weights = n.in_shape(1), out = n.out_shape(0);
  if (weights.size() != x.size()) n.invalid("weights of " + to_string(weights) + " for an input of " + to_string(x));
  const int64_t group = n.int_attr("group", 1);
  const int64_t channels = x[1], filters = weights[0];
  if (group < 1 || channels % group != 0 || filters % group != 0 || weights[1] != channels / group)
    n.invalid("weights of " + to_string(weights) + " for " + std::to_string(channels) + " channels in " + std::to_string(group) + " groups");
  const Dims kernel(weights.begin() + 2, weights.end());
  if (n.has_attr("kernel_shape") && n.ints_attr("kernel_shape") != kernel) n.invalid("kernel_shape differs from the weights'");
  const SpatialWindow w = spatial_window(n, x, out, kernel);
  OpKernel k;
  k.inputs = {0, 1};
  std::string defines = w.defines() + define("CHANNELS", channels) + define("FILTERS", filters) +
                        define("GROUP_CHANNELS", channels / group) + define("GROUP_FILTERS", filters / group);
  if (n.has_input(2)) defines += define("BIAS", operand(k, 2) + "[f]");
  else defines += define("BIAS", "0.0f");
  const std::string body =
      "    const INDEX ox = e % OUT_W, oy = (e / OUT_W) % OUT_H, f = (e / OUT_W / OUT_H) % FILTERS, b = e / OUT_W / OUT_H / FILTERS;\n"
      "    const INDEX c0 = f / GROUP_FILTERS * GROUP_CHANNELS;\n"
      "    float acc = 0.0f;\n"
      "    for (int c = 0; c < GROUP_CHANNELS; ++c) {\n"
      "      const float* in = x0 + (b * CHANNELS + c0 + c) * IN_H * IN_W;\n"
      "      const float* wt = x1 + (f * GROUP_CHANNELS + c) * KERNEL_H * KERNEL_W;\n"
      "      for (int ky = 0; ky < KERNEL_H; ++ky) {\n"
      "        const INDEX iy = oy * STRIDE_H - PAD_H + ky * DILATION_H;\n"
      "        if (iy < 0 || iy >= IN_H) continue;\n"
      "        for (int kx = 0; kx < KERNEL_W; ++kx) {\n"
      "          const INDEX ix = ox * STRIDE_W - PAD_W + kx * DILATION_W;\n"
      "          if (ix >= 0 && ix < IN_W) acc += in[iy * IN_W + ix] * wt[ky * KERNEL_W + kx];\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "    y[e] = acc + BIAS;\n";
  const auto inputs = k.inputs;
  k = walk_kernel({{element_count(out)}, {}, {}}, defines, body, limits);
  k.inputs = inputs;
  return {k};
}

}  // namespace aoe::cuda
