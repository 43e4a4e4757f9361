#include "conv_transpose.h"

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
  if (x.size() != 4 || w.size() != 4)
    throw Error(StatusCode::unsupported, soc.target + " simulator models ConvTranspose as a 1-D or 2-D op only (3-D or 4-D input and weights); '" +
                                             task.name + "' has " + std::to_string(x.size()) + "-D input");
  const int64_t group = attr_int(task.attrs, "group", 1);
  if (group < 1 || x[1] % group != 0 || w[0] != x[1])
    bad("weights " + std::to_string(w[0]) + " x " + std::to_string(w[1]) + " x ... do not match " + std::to_string(x[1]) +
        " input channels in group " + std::to_string(group));
  const auto cout = sdk::checked_mul(w[1], group);
  if (!cout) bad("output channels overflow");
  const auto kernel = attr_ints(task.attrs, "kernel_shape", {w[2], w[3]});
  const auto strides = attr_ints(task.attrs, "strides", {1, 1});
  const auto dilations = attr_ints(task.attrs, "dilations", {1, 1});
  const auto pads = attr_ints(task.attrs, "pads", {0, 0, 0, 0});
  const auto output_padding = attr_ints(task.attrs, "output_padding", {0, 0});
  const auto output_shape = attr_ints(task.attrs, "output_shape", {});
  if (kernel.size() != 2 || strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 || output_padding.size() != 2)
    bad("a 2-D ConvTranspose takes 2 kernel dims, strides, dilations and output_padding, and 4 pads");
  if (kernel[0] != w[2] || kernel[1] != w[3]) bad("kernel_shape disagrees with its weights");
  if (!output_shape.empty() && output_shape.size() != 2) bad("output_shape must give 2 spatial dims");
  const auto auto_pad = task.attrs.value("auto_pad", std::string("NOTSET"));
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    bad("auto_pad '" + auto_pad + "' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");

  std::vector<int64_t> conv_pads(4), dilated(2);
  for (size_t a = 0; a < 2; ++a) {
    const int64_t in = x[2 + a], k = w[2 + a], s = strides[a], d = dilations[a], op = output_padding[a];
    if (s < 1 || d < 1 || s > (1 << 16) || d > (1 << 16)) bad("strides and dilations must be in 1..65536");
    if (op < 0 || op >= std::max(s, d)) bad("output_padding must be below the stride or the dilation");
    if (in < 1 || k < 1) bad("empty input or kernel");
    const auto span = sdk::checked_mul(in - 1, s);
    if (!span || *span > (int64_t{1} << 40)) bad("the dilated input overflows");
    const int64_t reach = d * (k - 1);  // the kernel's extent - 1
    const sdk::AxisPads p = sdk::conv_transpose_pads(in, k, s, d, op, {pads[a], pads[a + 2]},
                                                     output_shape.empty() ? std::nullopt : std::optional(output_shape[a]), auto_pad);
    if (output_shape.empty() && (p.begin < 0 || p.end < 0)) bad("pads must be >= 0");
    if (p.begin > reach || p.end > reach + op)
      throw Error(StatusCode::unsupported, soc.target + " simulator models ConvTranspose pads up to the dilated kernel's extent; '" +
                                               task.name + "' crops more");
    dilated[a] = *span + 1;
    conv_pads[a] = reach - p.begin;
    conv_pads[a + 2] = reach - p.end + op;
    const int64_t out = dilated[a] + conv_pads[a] + conv_pads[a + 2] - reach;
    if (out < 1) bad("the output is empty");
    if (!task.outputs.empty() && task.outputs[0].shape.size() == 4 && task.outputs[0].fully_known() &&
        task.outputs[0].shape[2 + a] != out)
      bad("output dim " + std::to_string(2 + a) + " is " + std::to_string(task.outputs[0].shape[2 + a]) +
          ", its attributes give " + std::to_string(out));
  }
  sdk::OpTask conv = task;
  conv.op_type = "Conv";
  conv.inputs[0].shape = {x[0], x[1], dilated[0], dilated[1]};
  conv.inputs[1].shape = {*cout, w[0] / group, w[2], w[3]};
  conv.attrs = task.attrs;
  for (const char* key : {"output_padding", "output_shape", "auto_pad"}) conv.attrs.erase(key);
  conv.attrs["kernel_shape"] = kernel;
  conv.attrs["strides"] = {1, 1};
  conv.attrs["dilations"] = dilations;
  conv.attrs["pads"] = conv_pads;
  conv.attrs["group"] = group;
  return conv;
}

}  // namespace aoe::sim
