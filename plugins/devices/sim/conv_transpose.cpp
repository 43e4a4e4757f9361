#include "conv_transpose.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "aoe/sdk/conv_transpose_pads.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "conv_model.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

}  // namespace

sdk::OpTask conv_transpose_as_conv(const sdk::OpTask& task, const Soc& soc) {
  auto bad = [&](const std::string& why) {
    throw Error(StatusCode::invalid_argument, "ConvTranspose '" + task.name + "': " + why);
  };
  require_known_inputs(task.inputs, 2, "ConvTranspose");
  if (task.inputs[0].shape.size() == 3 && task.inputs[1].shape.size() == 3)
    return conv_transpose_as_conv(lifted_to_2d(task), soc);
  const auto& x = task.inputs[0].shape;
  const auto& w = task.inputs[1].shape;
  if ((x.size() != 4 && x.size() != 5) || w.size() != x.size())
    throw Error(StatusCode::unsupported, soc.target + " simulator models ConvTranspose as a 1-D, 2-D or 3-D op only (3-D to 5-D input and weights); '" +
                                             task.name + "' has " + std::to_string(x.size()) + "-D input and " +
                                             std::to_string(w.size()) + "-D weights");
  const size_t spatial = x.size() - 2;
  const int64_t group = attr_int(task.attrs, "group", 1);
  if (group < 1 || x[1] % group != 0 || w[0] != x[1])
    bad("weights " + std::to_string(w[0]) + " x " + std::to_string(w[1]) + " x ... do not match " + std::to_string(x[1]) +
        " input channels in group " + std::to_string(group));
  const auto cout = sdk::checked_mul(w[1], group);
  if (!cout) bad("output channels overflow");
  const std::vector<int64_t> ones(spatial, 1), zeros(spatial, 0);
  const auto kernel = attr_ints(task.attrs, "kernel_shape", {w.begin() + 2, w.end()});
  const auto strides = attr_ints(task.attrs, "strides", ones);
  const auto dilations = attr_ints(task.attrs, "dilations", ones);
  const auto pads = attr_ints(task.attrs, "pads", std::vector<int64_t>(2 * spatial, 0));
  const auto output_padding = attr_ints(task.attrs, "output_padding", zeros);
  const auto output_shape = attr_ints(task.attrs, "output_shape", {});
  const std::string n = std::to_string(spatial);
  if (kernel.size() != spatial || strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial ||
      output_padding.size() != spatial)
    bad("a " + n + "-D ConvTranspose takes " + n + " kernel dims, strides, dilations and output_padding, and " +
        std::to_string(2 * spatial) + " pads");
  if (!std::equal(kernel.begin(), kernel.end(), w.begin() + 2)) bad("kernel_shape disagrees with its weights");
  if (!output_shape.empty() && output_shape.size() != spatial) bad("output_shape must give " + n + " spatial dims");
  const auto auto_pad = task.attrs.value("auto_pad", std::string("NOTSET"));
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    bad("auto_pad '" + auto_pad + "' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");

  std::vector<int64_t> conv_pads(2 * spatial), dilated(spatial);
  for (size_t a = 0; a < spatial; ++a) {
    const int64_t in = x[2 + a], k = w[2 + a], s = strides[a], d = dilations[a], op = output_padding[a];
    if (s < 1 || d < 1 || s > (1 << 16) || d > (1 << 16)) bad("strides and dilations must be in 1..65536");
    if (op < 0 || op >= std::max(s, d)) bad("output_padding must be below the stride or the dilation");
    if (in < 1 || k < 1) bad("empty input or kernel");
    const auto span = sdk::checked_mul(in - 1, s);
    if (!span || *span > (int64_t{1} << 40)) bad("the dilated input overflows");
    const int64_t reach = d * (k - 1);  // the kernel's extent - 1
    const sdk::AxisPads p = sdk::conv_transpose_pads(in, k, s, d, op, {pads[a], pads[a + spatial]},
                                                     output_shape.empty() ? std::nullopt : std::optional(output_shape[a]), auto_pad);
    if (output_shape.empty() && (p.begin < 0 || p.end < 0)) bad("pads must be >= 0");
    if (p.begin > reach || p.end > reach + op)
      throw Error(StatusCode::unsupported, soc.target + " simulator models ConvTranspose pads up to the dilated kernel's extent; '" +
                                               task.name + "' crops more");
    dilated[a] = *span + 1;
    conv_pads[a] = reach - p.begin;
    conv_pads[a + spatial] = reach - p.end + op;
    const int64_t out = dilated[a] + conv_pads[a] + conv_pads[a + spatial] - reach;
    if (out < 1) bad("the output is empty");
    if (!task.outputs.empty() && task.outputs[0].shape.size() == x.size() && task.outputs[0].fully_known() &&
        task.outputs[0].shape[2 + a] != out)
      bad("output dim " + std::to_string(2 + a) + " is " + std::to_string(task.outputs[0].shape[2 + a]) +
          ", its attributes give " + std::to_string(out));
  }
  sdk::OpTask conv = task;
  conv.op_type = "Conv";
  conv.inputs[0].shape = {x[0], x[1]};
  conv.inputs[0].shape.insert(conv.inputs[0].shape.end(), dilated.begin(), dilated.end());
  conv.inputs[1].shape = {*cout, w[0] / group};
  conv.inputs[1].shape.insert(conv.inputs[1].shape.end(), w.begin() + 2, w.end());
  conv.attrs = task.attrs;
  for (const char* key : {"output_padding", "output_shape", "auto_pad"}) conv.attrs.erase(key);
  conv.attrs["kernel_shape"] = kernel;
  conv.attrs["strides"] = ones;
  conv.attrs["dilations"] = dilations;
  conv.attrs["pads"] = conv_pads;
  conv.attrs["group"] = group;
  return conv;
}

}  // namespace aoe::sim
