#include "acl_op_plan.h"

#include <map>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"

namespace aoe::ascend {
namespace {

using sdk::Error;
using sdk::StatusCode;

[[noreturn]] void unsupported(const std::string& why) { throw Error(StatusCode::unsupported, why); }
[[noreturn]] void invalid(const std::string& why) { throw Error(StatusCode::invalid_argument, why); }

// ONNX elementwise op -> CANN op; the binary ones read the next task input.
const std::map<std::string, std::pair<std::string, bool>>& fusable() {
  static const std::map<std::string, std::pair<std::string, bool>> ops = {
      {"Add", {"Add", true}},   {"Sub", {"Sub", true}},         {"Mul", {"Mul", true}},
      {"Div", {"RealDiv", true}}, {"Relu", {"Relu", false}}, {"Sigmoid", {"Sigmoid", false}},
      {"Tanh", {"Tanh", false}},
  };
  return ops;
}

std::vector<int64_t> ints_attr(const nlohmann::json& attrs, const char* name, std::vector<int64_t> fallback) {
  return attrs.contains(name) ? attrs.at(name).get<std::vector<int64_t>>() : fallback;
}

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::string& what) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1) invalid(what + ": shapes do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

class Planner {
 public:
  explicit Planner(const sdk::OpTask& task) : task_(task) {
    for (const auto& t : task.inputs) {
      if (t.dtype != sdk::DType::f32) unsupported("the ascend device runs float32 tensors; " + t.name + " is " + to_string(t.dtype));
      if (!t.fully_known()) unsupported("the ascend device needs known dims; " + t.name + " has unknown ones");
      plan_.shapes.push_back(t.shape);
    }
  }

  OpPlan plan() {
    size_t binary = 0;
    for (const auto& op : task_.fused_ops) {
      const auto it = fusable().find(op);
      if (it == fusable().end()) unsupported("the ascend device cannot fuse '" + op + "' after " + task_.op_type);
      binary += it->second.second ? 1 : 0;
    }
    if (binary > task_.inputs.size()) invalid(task_.op_type + " fuses more binary ops than it has inputs");
    const size_t anchor_inputs = task_.inputs.size() - binary;
    const std::string& t = task_.op_type;
    if (t == "MatMul" || t == "Gemm")
      matmul(anchor_inputs);
    else if (t == "Conv")
      conv(anchor_inputs);
    else
      unsupported("the ascend device has no ACL op for '" + t + "'");
    size_t next = anchor_inputs;
    for (const auto& op : task_.fused_ops) {
      const auto& [cann, is_binary] = fusable().at(op);
      if (is_binary)
        call(cann, {last(), next++}, {});
      else
        call(cann, {last()}, {});
    }
    finish_space();
    return std::move(plan_);
  }

 private:
  size_t last() const { return plan_.calls.back().output; }

  void call(const std::string& op_type, std::vector<size_t> inputs, std::vector<AclAttr> attrs,
            std::vector<int64_t> out_shape = {}) {
    if (out_shape.empty()) {
      out_shape = plan_.shapes[inputs[0]];
      for (size_t i = 1; i < inputs.size(); ++i) out_shape = broadcast(out_shape, plan_.shapes[inputs[i]], op_type);
    }
    plan_.shapes.push_back(out_shape);
    plan_.calls.push_back({op_type, std::move(inputs), plan_.shapes.size() - 1, std::move(attrs)});
  }

  void matmul(size_t anchor_inputs) {
    const bool gemm = task_.op_type == "Gemm";
    if (anchor_inputs != 2 && !(gemm && anchor_inputs == 3)) invalid(task_.op_type + " takes 2 inputs (Gemm 2 or 3)");
    const auto& a = plan_.shapes[0];
    const auto& b = plan_.shapes[1];
    if (a.size() != 2 || b.size() != 2) unsupported("the ascend device runs 2-D " + task_.op_type + " only");
    const bool ta = gemm && task_.attrs.value("transA", 0) != 0, tb = gemm && task_.attrs.value("transB", 0) != 0;
    if (gemm && (task_.attrs.value("alpha", 1.0) != 1.0 || task_.attrs.value("beta", 1.0) != 1.0))
      unsupported("the ascend device runs Gemm with alpha = beta = 1 only");
    const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1], kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
    if (k != kb) invalid(task_.op_type + ": inner dims " + std::to_string(k) + " and " + std::to_string(kb) + " differ");
    call("MatMul", {0, 1},
         {{"transpose_x1", AclAttr::Kind::boolean, ta, {}, {}}, {"transpose_x2", AclAttr::Kind::boolean, tb, {}, {}}},
         {m, n});
    if (anchor_inputs == 3) call("Add", {last(), 2}, {});
    plan_.formats = {{0, {StorageFormat::nd, StorageFormat::fractal_nz}}, {1, {StorageFormat::nd, StorageFormat::fractal_nz}}};
  }

  void conv(size_t anchor_inputs) {
    if (anchor_inputs != 2 && anchor_inputs != 3) invalid("Conv takes 2 or 3 inputs");
    const auto& x = plan_.shapes[0];
    const auto& w = plan_.shapes[1];
    if (x.size() != 4 || w.size() != 4) unsupported("the ascend device runs 2-D Conv only");
    if (sdk::data_layout(task_.attrs, "Conv") == sdk::DataLayout::nhwc)
      unsupported("the ascend device runs Conv on NCHW feature maps only; this one reads NHWC (data_format)");
    if (task_.attrs.value("auto_pad", std::string("NOTSET")) != "NOTSET")
      unsupported("the ascend device runs Conv with explicit pads only (auto_pad NOTSET)");
    const int64_t group = task_.attrs.value("group", int64_t{1});
    const auto strides = ints_attr(task_.attrs, "strides", {1, 1});
    const auto dilations = ints_attr(task_.attrs, "dilations", {1, 1});
    const auto pads = ints_attr(task_.attrs, "pads", {0, 0, 0, 0});  // ONNX: top, left, bottom, right
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) invalid("Conv: 2-D strides, dilations and pads expected");
    if (x[1] != w[1] * group) invalid("Conv: input channels " + std::to_string(x[1]) + " do not match the weights' and group");
    auto out_dim = [&](int64_t in, int64_t kernel, size_t axis) {
      return (in + pads[axis] + pads[axis + 2] - dilations[axis] * (kernel - 1) - 1) / strides[axis] + 1;
    };
    const std::vector<int64_t> y = {x[0], w[0], out_dim(x[2], w[2], 0), out_dim(x[3], w[3], 1)};
    std::vector<size_t> inputs = {0, 1};
    if (anchor_inputs == 3) inputs.push_back(2);
    call("Conv2D", inputs,
         {{"strides", AclAttr::Kind::ints, 0, {}, {1, 1, strides[0], strides[1]}},
          {"pads", AclAttr::Kind::ints, 0, {}, {pads[0], pads[2], pads[1], pads[3]}},  // CANN: top, bottom, left, right
          {"dilations", AclAttr::Kind::ints, 0, {}, {1, 1, dilations[0], dilations[1]}},
          {"groups", AclAttr::Kind::integer, group, {}, {}},
          {"data_format", AclAttr::Kind::text, 0, "NCHW", {}}},
         y);
    plan_.formats = {{0, {StorageFormat::nchw, StorageFormat::nc1hwc0}}};
    // FRACTAL_Z here is the plain (group 1) layout.
    if (group == 1) plan_.formats.push_back({1, {StorageFormat::nchw, StorageFormat::fractal_z}});
  }

  void finish_space() {
    auto& space = plan_.space;
    for (const auto& choice : plan_.formats) {
      std::vector<std::string> labels;
      for (auto f : choice.formats) labels.emplace_back(format_name(f));
      const std::string name = (plan_.calls[0].op_type == "Conv2D" ? std::vector<std::string>{"x", "filter"}
                                                                    : std::vector<std::string>{"x1", "x2"})[choice.input];
      space.knobs.push_back(sdk::Knob::categorical(name + "_format", sdk::KnobTag::format, labels));
    }
    plan_.impl_knob = space.knobs.size();
    space.knobs.push_back(sdk::Knob::categorical("impl_mode", sdk::KnobTag::impl, impl_modes()));
    // ACL's own choice when a caller sets nothing: the model's layouts, high_performance.
    space.default_config.assign(space.knobs.size(), 0);
  }

  const sdk::OpTask& task_;
  OpPlan plan_;
};

}  // namespace

std::vector<std::string> fusable_op_types() {
  std::vector<std::string> out;
  for (const auto& [onnx, cann] : fusable()) out.push_back(onnx);
  return out;
}

const std::vector<std::string>& impl_modes() {
  static const std::vector<std::string> modes = {"high_performance", "high_precision"};
  return modes;
}

std::vector<StorageFormat> OpPlan::value_formats(const sdk::Config& config) const {
  std::vector<StorageFormat> out;
  for (const auto& s : shapes) out.push_back(s.size() == 4 && calls[0].op_type == "Conv2D" ? StorageFormat::nchw : StorageFormat::nd);
  for (size_t k = 0; k < formats.size(); ++k) out[formats[k].input] = formats[k].formats.at(static_cast<size_t>(config[k]));
  return out;
}

OpPlan plan_op(const sdk::OpTask& task) { return Planner(task).plan(); }

}  // namespace aoe::ascend
