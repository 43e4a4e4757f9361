#include "loop_appends_as_scans.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "constant_folding.h"
#include "graph_normaliser.h"
#include "written_nodes.h"

namespace aoe::host {
namespace {

using T = onnx::TensorProto;

// How many times the graph's nodes (their subgraphs too) and outputs read `name`.
int64_t reads_of(const onnx::GraphProto& graph, const std::string& name) {
  int64_t n = 0;
  for (const auto& node : graph.node()) {
    n += std::count(node.input().begin(), node.input().end(), name);
    std::set<std::string> nested;
    read_in_subgraphs(node, nested);
    n += static_cast<int64_t>(nested.count(name));
  }
  for (const auto& o : graph.output()) n += o.name() == name;
  return n;
}

// The element type a value's declared type gives, a sequence's elements' for a sequence.
int32_t elem_type_of(const onnx::TypeProto& type) {
  if (type.has_sequence_type()) return elem_type_of(type.sequence_type().elem_type());
  return type.has_tensor_type() ? type.tensor_type().elem_type() : T::UNDEFINED;
}

// The axis a ConcatFromSequence of elements of `rank` dims joins them on, from
// 0; nullopt where it has none or one out of range.
std::optional<int64_t> concat_axis(const onnx::NodeProto& concat, size_t rank) {
  const auto* attr = find_attr(concat, "axis");
  if (!attr) return std::nullopt;
  const auto r = static_cast<int64_t>(rank) + (int_attr(concat, "new_axis", 0) != 0 ? 1 : 0);
  const int64_t axis = attr->i() < 0 ? attr->i() + r : attr->i();
  if (axis < 0 || axis >= r) return std::nullopt;
  return axis;
}

// One appending sequence of a Loop: the carried slot and what is appended.
struct Append {
  int slot = 0;                  // carried value j: the Loop's input 2 + j, its body's input 2 + j and output 1 + j
  std::string element;           // the tensor it appends
  std::vector<int64_t> dims;     // the element's dims, -1 where unknown
  int32_t elem_type = T::FLOAT;
};

// The carried sequence `slot` of `loop`, if it starts empty, is only appended to
// in the body, and is read after the loop by ConcatFromSequence alone.
std::optional<Append> appending(const onnx::GraphProto& graph, const onnx::NodeProto& loop, const onnx::GraphProto& body,
                                int slot, const std::map<std::string, const onnx::NodeProto*>& maker, int64_t opset) {
  const int in = 2 + slot, out = 1 + slot;
  if (loop.input_size() <= in || body.input_size() <= in || body.output_size() <= out) return std::nullopt;
  const auto start = maker.find(loop.input(in));
  if (start == maker.end() || start->second->op_type() != "SequenceEmpty") return std::nullopt;
  const std::string& carried_in = body.input(in).name();
  const std::string& carried_out = body.output(out).name();
  Append a;
  a.slot = slot;
  const auto made = std::find_if(body.node().begin(), body.node().end(), [&](const onnx::NodeProto& n) {
    return n.output_size() == 1 && n.output(0) == carried_out;
  });
  if (made == body.node().end()) return std::nullopt;
  const auto& insert = *made;
  if (insert.op_type() != "SequenceInsert" || !default_domain(insert) || insert.input_size() < 2 ||
      insert.input(0) != carried_in || (insert.input_size() > 2 && !insert.input(2).empty()))
    return std::nullopt;
  if (reads_of(body, carried_in) != 1 || reads_of(body, carried_out) != 1) return std::nullopt;
  a.element = insert.input(1);
  auto dims = ranked_dims(body, a.element);
  if (!dims) dims = ranked_dims(graph, a.element);
  // Else the elements as the exporter declared the sequence (an If's output, say).
  const auto& declared = body.output(out).type();
  if (!dims && declared.has_sequence_type()) dims = ranked_shape(declared.sequence_type().elem_type());
  if (!dims) return std::nullopt;
  a.dims = std::move(*dims);
  a.elem_type = elem_type_of(body.output(out).type());
  // Reshape reads a 0 in its target as "keep this dim"; a dim only known as
  // the model runs is read by Shape and Slice, inputs from opset 10.
  const bool unknown = std::count(a.dims.begin(), a.dims.end(), -1) > 0;
  if (a.elem_type == T::UNDEFINED || std::count(a.dims.begin(), a.dims.end(), 0) || (unknown && opset < 10))
    return std::nullopt;
  if (loop.output_size() > slot && !loop.output(slot).empty()) {
    const std::string& seq = loop.output(slot);
    int64_t concats = 0;
    for (const auto& n : graph.node())
      if (std::count(n.input().begin(), n.input().end(), seq)) {
        if (n.op_type() != "ConcatFromSequence" || !default_domain(n) || !concat_axis(n, a.dims.size()))
          return std::nullopt;
        ++concats;
      }
    if (reads_of(graph, seq) != concats) return std::nullopt;  // a graph output or a subgraph reads it
  }
  return a;
}

// ConcatFromSequence of the appended values, from their stack [trips, dims...].
void concat_from_stack(const onnx::NodeProto& concat, const std::string& stack, const std::vector<int64_t>& dims,
                       WrittenNodes& out) {
  const auto rank = static_cast<int64_t>(dims.size());
  const bool new_axis = int_attr(concat, "new_axis", 0) != 0;
  const int64_t axis = *concat_axis(concat, dims.size());  // checked by appending()
  std::string moved = stack;
  if (axis > 0) {  // the stacked axis moved to `axis`
    moved = concat.output(0) + (new_axis ? "" : "/moved");
    std::vector<int64_t> perm;
    for (int64_t d = 1; d <= rank; ++d) {
      if (d == axis + 1) perm.push_back(0);
      perm.push_back(d);
    }
    if (axis == rank) perm.push_back(0);
    out.transpose(stack, perm, moved, moved);
  }
  if (new_axis) {
    if (axis == 0) out.add("Identity", concat.output(0), {stack}, {concat.output(0)});
    return;
  }
  // The stacked axis merged into `axis`: the other dims as known, else as the model runs.
  std::vector<int64_t> target = dims;
  target[static_cast<size_t>(axis)] = -1;
  const std::string& name = concat.output(0);
  std::string dims_of = name + "/dims";
  if (std::count(target.begin(), target.end(), -1) == 1) {
    out.list(dims_of, target);
  } else {
    out.add("Shape", name + "/shape", {moved}, {name + "/shape"});
    const auto part = [&](int64_t from, int64_t to) {
      const std::string p = name + "/dims" + std::to_string(from);
      out.add("Slice", p, {name + "/shape", out.list(p + "/from", {from}), out.list(p + "/to", {to})}, {p});
      return p;
    };
    std::vector<std::string> parts;
    if (axis > 0) parts.push_back(part(0, axis));
    parts.push_back(out.list(name + "/merged", {-1}));
    if (axis + 1 < rank) parts.push_back(part(axis + 2, rank + 1));
    out.add("Concat", dims_of, parts, {dims_of}, {{"axis", 0}});
  }
  out.add("Reshape", name, {moved, dims_of}, {name});
}

// Drops the body's input and output of `slot` and its SequenceInsert; the
// appended value becomes the body's last output, a scan output.
void make_scan(onnx::GraphProto& body, const Append& a, const std::string& scanned) {
  const std::string& appended = body.output(1 + a.slot).name();  // found by name: an earlier rewrite moved the nodes
  for (int i = 0; i < body.node_size(); ++i)
    if (body.node(i).output_size() == 1 && body.node(i).output(0) == appended) {
      body.mutable_node()->DeleteSubrange(i, 1);
      break;
    }
  body.mutable_input()->DeleteSubrange(2 + a.slot, 1);
  body.mutable_output()->DeleteSubrange(1 + a.slot, 1);
  auto* copy = body.add_node();
  *copy = make_node("Identity", scanned, {a.element}, {scanned});
  auto* value = body.add_output();
  value->set_name(scanned);
  auto* type = value->mutable_type()->mutable_tensor_type();
  type->set_elem_type(a.elem_type);
  for (const int64_t d : a.dims) {
    auto* dim = type->mutable_shape()->add_dim();
    if (d >= 0) dim->set_dim_value(d);
  }
}

onnx::GraphProto& body_of(onnx::NodeProto& loop) {
  for (auto& a : *loop.mutable_attribute())
    if (a.name() == "body") return *a.mutable_g();
  throw std::logic_error("a Loop without a body");
}

}  // namespace

int64_t loop_appends_as_scans(onnx::GraphProto& graph, int64_t opset) {
  const auto constants = initializers_by_name(graph);
  std::map<std::string, const onnx::NodeProto*> maker;
  for (const auto& n : graph.node())
    for (const auto& o : n.output()) maker[o] = &n;
  // Per Loop rewritten: its appends, found before anything moves.
  std::map<int, std::vector<Append>> found;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& loop = graph.node(i);
    const auto* body = find_attr(loop, "body");
    if (loop.op_type() != "Loop" || !default_domain(loop) || !body || !body->has_g()) continue;
    // A constant trip count is unroll_constant_loop's: the sequence then becomes known.
    if (loop.input_size() > 0 && constants.count(loop.input(0))) continue;
    for (int slot = loop.input_size() - 3; slot >= 0; --slot)  // the last first: removing it moves no other
      if (auto a = appending(graph, loop, body->g(), slot, maker, opset)) found[i].push_back(std::move(*a));
  }
  if (found.empty()) return 0;
  int64_t rewritten = 0;
  std::map<std::string, std::pair<std::string, std::vector<int64_t>>> stacks;  // sequence -> its stack, dims
  for (auto& [index, appends] : found) {
    auto& loop = *graph.mutable_node(index);
    auto& body = body_of(loop);
    for (const auto& a : appends) {
      const std::string seq = loop.output_size() > a.slot ? loop.output(a.slot) : std::string();
      const std::string base = seq.empty() ? node_label(loop) + "/appended" + std::to_string(a.slot) : seq;
      make_scan(body, a, base + "/element");
      loop.mutable_input()->DeleteSubrange(2 + a.slot, 1);
      if (loop.output_size() > a.slot) loop.mutable_output()->DeleteSubrange(a.slot, 1);
      // Scan outputs follow the carried ones, in the body's order: the one just made is last.
      while (loop.output_size() < body.output_size() - 2) loop.add_output("");
      loop.add_output(seq.empty() ? "" : base + "/stacked");
      if (!seq.empty()) stacks[seq] = {base + "/stacked", a.dims};
      ++rewritten;
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto& node : *graph.mutable_node()) {
    const auto it = node.input_size() ? stacks.find(node.input(0)) : stacks.end();
    if (node.op_type() != "ConcatFromSequence" || it == stacks.end()) {
      *kept.Add() = std::move(node);
      continue;
    }
    WrittenNodes out;
    out.base = node_label(node), out.opset = opset;
    concat_from_stack(node, it->second.first, it->second.second, out);
    for (auto& n : out.nodes) *kept.Add() = std::move(n);
    for (auto& t : out.constants) *graph.add_initializer() = std::move(t);
  }
  graph.mutable_node()->Swap(&kept);
  // The sequences' declared types no longer name anything.
  auto* infos = graph.mutable_value_info();
  infos->erase(std::remove_if(infos->begin(), infos->end(), [&](const auto& v) { return stacks.count(v.name()) > 0; }),
               infos->end());
  return rewritten;
}

}  // namespace aoe::host
