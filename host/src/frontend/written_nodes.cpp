#include "written_nodes.h"

namespace aoe::host {

using T = onnx::TensorProto;

void WrittenNodes::add(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs, const std::vector<std::pair<std::string, int64_t>>& ints) {
  auto& node = nodes.emplace_back();
  node.set_op_type(op), node.set_name(name);
  for (const auto& in : inputs) node.add_input(in);
  for (const auto& out : outputs) node.add_output(out);
  for (const auto& [key, value] : ints) {
    auto* a = node.add_attribute();
    a->set_name(key), a->set_type(onnx::AttributeProto::INT), a->set_i(value);
  }
}

void WrittenNodes::ints_attr(const std::string& name, const std::vector<int64_t>& values) {
  auto* a = nodes.back().add_attribute();
  a->set_name(name), a->set_type(onnx::AttributeProto::INTS);
  for (const int64_t v : values) a->add_ints(v);
}

std::string WrittenNodes::scalar(const std::string& name, int64_t value, int32_t type, bool as_list) {
  if (!made.insert(name).second) return name;
  T& t = constants.emplace_back();
  t.set_name(name), t.set_data_type(type);
  if (as_list) t.add_dims(1);
  if (type == T::BOOL) t.add_int32_data(static_cast<int32_t>(value));
  else t.add_int64_data(value);
  return t.name();
}

std::string WrittenNodes::list(const std::string& name, const std::vector<int64_t>& values) {
  if (!made.insert(name).second) return name;
  T& t = constants.emplace_back();
  t.set_name(name), t.set_data_type(T::INT64), t.add_dims(static_cast<int64_t>(values.size()));
  for (const int64_t v : values) t.add_int64_data(v);
  return t.name();
}

void WrittenNodes::transpose(const std::string& in, const std::vector<int64_t>& perm, const std::string& out,
                             const std::string& name) {
  add("Transpose", name, {in}, {out});
  ints_attr("perm", perm);
}

void WrittenNodes::unsqueeze(const std::string& in, int64_t axis, const std::string& out) {
  if (opset >= 13) return add("Unsqueeze", out, {in, scalar(out + "/axes", axis, T::INT64, true)}, {out});
  add("Unsqueeze", out, {in}, {out});
  ints_attr("axes", {axis});
}

void WrittenNodes::squeeze(const std::string& in, int64_t axis, const std::string& out) {
  if (opset >= 13) return add("Squeeze", out, {in, scalar(out + "/axes", axis, T::INT64, true)}, {out});
  add("Squeeze", out, {in}, {out});
  ints_attr("axes", {axis});
}

void WrittenNodes::reduce_sum(const std::string& in, const std::vector<int64_t>& axes, const std::string& out) {
  if (opset >= 13) return add("ReduceSum", out, {in, list(out + "/axes", axes)}, {out}, {{"keepdims", 0}});
  add("ReduceSum", out, {in}, {out}, {{"keepdims", 0}});
  ints_attr("axes", axes);
}

void WrittenNodes::split(const std::string& x, const std::vector<int64_t>& sizes, int64_t axis,
                         const std::vector<std::string>& outs) {
  const std::string name = outs.empty() ? base + "/split" : outs[0] + "/split";
  if (opset >= 13) return add("Split", name, {x, list(name + "/sizes", sizes)}, outs, {{"axis", axis}});
  add("Split", name, {x}, outs, {{"axis", axis}});
  ints_attr("split", sizes);
}

void WrittenNodes::take(const std::string& x, int64_t index, int64_t axis, const std::string& out) {
  if (opset >= 10)
    return add("Gather", out, {x, scalar(base + "/index" + std::to_string(index), index)}, {out}, {{"axis", axis}});
  add("Slice", out + "/slice", {x}, {out + "/slice"});
  ints_attr("starts", {index}), ints_attr("ends", {index + 1}), ints_attr("axes", {axis});
  add("Squeeze", out, {out + "/slice"}, {out});
  ints_attr("axes", {axis});
}

void WrittenNodes::stack(const std::vector<std::string>& values, int64_t axis, const std::string& out) {
  if (values.size() == 1) return unsqueeze(values[0], axis, out);
  std::vector<std::string> parts;
  for (size_t i = 0; i < values.size(); ++i) {
    parts.push_back(out + "/" + std::to_string(i));
    unsqueeze(values[i], axis, parts.back());
  }
  add("Concat", out + "/concat", parts, {out}, {{"axis", axis}});
}

int64_t rewrite_nodes(onnx::GraphProto& graph, int64_t opset,
                      const std::function<bool(const onnx::NodeProto&, WrittenNodes&)>& write) {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  std::vector<T> constants;
  int64_t changed = 0;
  for (auto& node : *graph.mutable_node()) {
    WrittenNodes out;
    out.base = node.name(), out.opset = opset;
    if (!write(node, out)) {
      *kept.Add() = std::move(node);
      continue;
    }
    for (auto& n : out.nodes) *kept.Add() = std::move(n);
    for (auto& t : out.constants) constants.push_back(std::move(t));
    ++changed;
  }
  graph.mutable_node()->Swap(&kept);
  for (auto& t : constants) *graph.add_initializer() = std::move(t);
  return changed;
}

}  // namespace aoe::host
