#include "resize_kernel.h"

#include <algorithm>
#include <cmath>

#include "op_source.h"

namespace aoe::cuda {
namespace {

// The tables of one axis: for each output position, the source positions below and above and the weight of the one above.
struct AxisTaps {
  std::vector<int64_t> lo, hi;
  std::vector<double> weight;
  bool identity = true;  // every position reads its own
  bool linear = false;
};

// ONNX's coordinate_transformation_mode: where output position x samples the input.
double source_of(const OpNode& n, const std::string& transform, double x, double in, double out, double scale) {
  const double resized = in * scale;
  if (transform == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (transform == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0;
  if (transform == "align_corners") return out == 1 ? 0 : x * (in - 1) / (out - 1);  // the output's length, as ONNX Runtime
  if (transform == "asymmetric") return x / scale;
  if (transform == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (transform == "half_pixel_symmetric") return in / 2 * (1 - out / resized) + (x + 0.5) / scale - 0.5;
  n.unsupported("coordinate_transformation_mode " + transform);
}

AxisTaps axis_taps(const OpNode& n, int64_t in, int64_t out, double scale, bool linear) {
  AxisTaps t;
  t.linear = linear;
  const std::string transform = n.string_attr("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = n.string_attr("nearest_mode", "round_prefer_floor");
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" && nearest != "ceil")
    n.invalid("nearest_mode " + nearest + " is none of round_prefer_floor, round_prefer_ceil, floor, ceil");
  for (int64_t x = 0; x < out; ++x) {
    int64_t lo = x, hi = x;
    double w = 0;
    if (in != out || scale != 1.0) {
      const double at = source_of(n, transform, static_cast<double>(x), static_cast<double>(in), static_cast<double>(out), scale);
      if (linear) {
        const double base = std::floor(at);
        w = at - base;
        lo = std::clamp<int64_t>(static_cast<int64_t>(base), 0, in - 1);
        hi = std::clamp<int64_t>(static_cast<int64_t>(base) + 1, 0, in - 1);
      } else {
        const double frac = at - std::floor(at);
        double pick = nearest == "floor" ? std::floor(at) : nearest == "ceil" ? std::ceil(at)
                      : frac == 0.5 ? (nearest == "round_prefer_ceil" ? std::ceil(at) : std::floor(at))
                                    : std::round(at);
        lo = hi = std::clamp<int64_t>(static_cast<int64_t>(pick), 0, in - 1);
      }
    }
    t.identity = t.identity && lo == x && hi == x;
    t.lo.push_back(lo);
    t.hi.push_back(hi);
    t.weight.push_back(w);
  }
  return t;
}

template <typename T, typename Write>
std::string table(const std::string& type, const std::string& name, const std::vector<T>& values, Write write) {
  std::string s = "__device__ const " + type + " " + name + "[" + std::to_string(values.size()) + "] = {";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + write(values[i]);
  return s + "};\n";
}

}  // namespace

std::vector<OpKernel> resize_kernels(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0), out = n.out_shape(0);
  if (x.size() != out.size()) n.invalid("output of " + to_string(out) + " for an input of " + to_string(x));
  const std::string mode = n.string_attr("mode", "nearest");
  if (mode != "nearest" && mode != "linear") n.unsupported("mode " + mode + " (nearest and linear are computed)");
  if (n.int_attr("antialias", 0) != 0) n.unsupported("antialias");
  if (n.has_attr("axes")) n.unsupported("an 'axes' subset");
  if (n.string_attr("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize") n.unsupported("tf_crop_and_resize");
  const auto scales = n.floats_attr("scales");
  if (!scales.empty() && scales.size() != x.size()) n.invalid(std::to_string(scales.size()) + " scales for rank " + std::to_string(x.size()));
  const Dims strides = strides_of(x);
  std::string defines, body = "    INDEX rest = e;\n";
  int64_t table_entries = 0;
  std::vector<size_t> linear_axes;
  std::string offset = "0";
  // Innermost first, each axis's output coordinate c<a>.
  for (size_t a = x.size(); a-- > 0;) {
    const std::string s = std::to_string(a);
    body += "    const INDEX c" + s + " = rest % " + std::to_string(out[a]) + "; rest /= " + std::to_string(out[a]) + ";\n";
  }
  body += "    (void)rest;\n    float sum = 0.0f;\n";
  std::vector<AxisTaps> taps;
  for (size_t a = 0; a < x.size(); ++a) {
    const double scale = scales.empty() ? static_cast<double>(out[a]) / static_cast<double>(x[a]) : scales[a];
    taps.push_back(axis_taps(n, x[a], out[a], scale, mode == "linear"));
    if (taps[a].identity) continue;
    table_entries += out[a];
    const std::string s = std::to_string(a);
    defines += table("int", "aoe_lo" + s, taps[a].lo, [](int64_t v) { return std::to_string(v); });
    if (taps[a].linear) {
      defines += table("int", "aoe_hi" + s, taps[a].hi, [](int64_t v) { return std::to_string(v); });
      defines += table("float", "aoe_w" + s, taps[a].weight, [](double v) { return float_literal(v); });
      linear_axes.push_back(a);
    }
  }
  if (table_entries > 65536) n.unsupported("outputs of more than 65536 positions along the resized axes");
  if (linear_axes.size() > 4) n.unsupported("linear over more than 4 axes");
  // Each corner of the linear axes' taps, weighted; the other axes read one position.
  body += "    for (int corner = 0; corner < " + std::to_string(1 << linear_axes.size()) + "; ++corner) {\n"
          "      float w = 1.0f;\n      INDEX at = 0;\n";
  for (size_t a = 0; a < x.size(); ++a) {
    const std::string s = std::to_string(a), stride = std::to_string(strides[a]);
    const auto bit = std::find(linear_axes.begin(), linear_axes.end(), a);
    if (taps[a].identity) {
      body += "      at += c" + s + " * " + stride + ";\n";
    } else if (bit == linear_axes.end()) {
      body += "      at += aoe_lo" + s + "[c" + s + "] * " + stride + ";\n";
    } else {
      const std::string b = std::to_string(bit - linear_axes.begin());
      body += "      if ((corner >> " + b + ") & 1) { at += aoe_hi" + s + "[c" + s + "] * " + stride + "; w *= aoe_w" + s + "[c" + s +
              "]; } else { at += aoe_lo" + s + "[c" + s + "] * " + stride + "; w *= 1.0f - aoe_w" + s + "[c" + s + "]; }\n";
    }
  }
  body += "      sum += w * x0[at];\n    }\n    y[e] = sum;\n";
  OpKernel k = walk_kernel({{element_count(out)}, {}, {}}, defines, body, limits);
  k.inputs = {0};
  return {k};
}

}  // namespace aoe::cuda
