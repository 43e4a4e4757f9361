#include "pool_kernel.h"

#include "op_source.h"
#include "spatial_window.h"

namespace aoe::cuda {

bool is_pool_op(const std::string& op) { return op == "MaxPool" || op == "AveragePool"; }

std::vector<OpKernel> pool_kernels(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0), out = n.out_shape(0);
  if (n.output_count() > 1 && !n.node().outputs[1].empty()) n.unsupported("MaxPool's Indices output");
  if (n.int_attr("storage_order", 0) != 0) n.unsupported("storage_order 1");
  const SpatialWindow w = spatial_window(n, x, out, n.ints_attr("kernel_shape"));
  // The output's shape says how many windows ceil_mode gives; a window
  // reaching past the end pads counts only what lies in the padded input.
  const std::string defines = w.defines() + define("MAX", n.op() == "MaxPool" ? 1 : 0) +
                              define("COUNT_PAD", n.int_attr("count_include_pad", 0) != 0 ? 1 : 0);
  const std::string body =
      "    const INDEX ox = e % OUT_W, oy = (e / OUT_W) % OUT_H, plane = e / OUT_W / OUT_H;\n"
      "    const float* in = x0 + plane * IN_H * IN_W;\n"
      "    float acc = MAX ? -__int_as_float(0x7f800000) : 0.0f;\n"
      "    int inside = 0, padded = 0;\n"
      "    for (int ky = 0; ky < KERNEL_H; ++ky) {\n"
      "      const INDEX iy = oy * STRIDE_H - PAD_H + ky * DILATION_H;\n"
      "      for (int kx = 0; kx < KERNEL_W; ++kx) {\n"
      "        const INDEX ix = ox * STRIDE_W - PAD_W + kx * DILATION_W;\n"
      "        padded += iy >= -PAD_H && iy < IN_H + PAD_END_H && ix >= -PAD_W && ix < IN_W + PAD_END_W;\n"
      "        if (iy < 0 || iy >= IN_H || ix < 0 || ix >= IN_W) continue;\n"
      "        ++inside;\n"
      "        const float v = in[iy * IN_W + ix];\n"
      "        acc = MAX ? fmaxf(acc, v) : acc + v;\n"
      "      }\n"
      "    }\n"
      "    const int count = COUNT_PAD ? padded : inside;\n"
      "    y[e] = MAX ? acc : acc / (float)(count > 0 ? count : 1);\n";
  OpKernel k = walk_kernel({{element_count(out)}, {}, {}}, defines, body, limits);
  k.inputs = {0};
  return {k};
}

}  // namespace aoe::cuda
