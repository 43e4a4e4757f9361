// The normaliser's rules, each a pass over the graph that counts what it changed.
#include "graph_normaliser.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "aoe/sdk/error.h"
#include "constant_folding.h"
#include "einsum_as_matmul.h"
#include "einsum_of_one_operand.h"
#include "loop_appends_as_scans.h"
#include "sequences_as_tensors.h"
#include "unroll_loops.h"
#include "value_attributes.h"

namespace aoe::host {
namespace {

using sdk::Error;
using sdk::StatusCode;
using T = onnx::TensorProto;
using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

// Nested Ifs each taking a constant branch: inlined level by level, up to this depth.
constexpr int kMaxRounds = 8;

}  // namespace

void read_in_subgraphs(const onnx::NodeProto& node, std::set<std::string>& names) {
  for (const auto& a : node.attribute()) {
    if (a.has_g()) read_in_graph(a.g(), names);
    for (const auto& g : a.graphs()) read_in_graph(g, names);
  }
}

void read_in_graph(const onnx::GraphProto& graph, std::set<std::string>& names) {
  for (const auto& node : graph.node()) {
    names.insert(node.input().begin(), node.input().end());
    read_in_subgraphs(node, names);
  }
  for (const auto& out : graph.output()) names.insert(out.name());
}

namespace {

std::set<std::string> subgraph_reads(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& node : graph.node()) read_in_subgraphs(node, names);
  return names;
}

std::set<std::string> output_names(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& out : graph.output()) names.insert(out.name());
  return names;
}

bool makes_an_output(const onnx::NodeProto& node, const std::set<std::string>& outputs) {
  for (const auto& o : node.output())
    if (outputs.count(o)) return true;
  return false;
}

// Keeps the nodes `keep` says yes to, in order; returns how many went.
template <typename Keep>
int64_t remove_nodes(onnx::GraphProto& graph, Keep keep) {
  Nodes kept;
  int64_t removed = 0;
  for (auto& node : *graph.mutable_node()) {
    if (keep(node)) *kept.Add() = std::move(node);
    else ++removed;
  }
  graph.mutable_node()->Swap(&kept);
  return removed;
}

// A Constant's value as a tensor named after its output; nullopt for a sparse one.
std::optional<T> constant_value(const onnx::NodeProto& node) {
  T t;
  for (const auto& a : node.attribute()) {
    if (a.name() == "value") {
      t = a.t();
    } else if (a.name() == "value_float") {
      t.set_data_type(T::FLOAT), t.add_float_data(a.f());
    } else if (a.name() == "value_floats") {
      t.set_data_type(T::FLOAT), t.add_dims(a.floats_size());
      for (auto v : a.floats()) t.add_float_data(v);
    } else if (a.name() == "value_int") {
      t.set_data_type(T::INT64), t.add_int64_data(a.i());
    } else if (a.name() == "value_ints") {
      t.set_data_type(T::INT64), t.add_dims(a.ints_size());
      for (auto v : a.ints()) t.add_int64_data(v);
    } else if (a.name() == "value_string") {
      t.set_data_type(T::STRING), t.add_string_data(a.s());
    } else if (a.name() == "value_strings") {
      t.set_data_type(T::STRING), t.add_dims(a.strings_size());
      for (const auto& v : a.strings()) t.add_string_data(v);
    } else {
      continue;
    }
    t.set_name(node.output(0));
    return t;
  }
  return std::nullopt;
}

// A graph output a Constant makes stays a node's output: an Identity of the initializer.
int64_t constant_to_initializer(onnx::GraphProto& graph) {
  const auto outputs = output_names(graph);
  std::vector<T> made;
  std::vector<onnx::NodeProto> copies;
  const auto removed = remove_nodes(graph, [&](const onnx::NodeProto& node) {
    if (node.op_type() != "Constant" || !default_domain(node) || node.output_size() != 1) return true;
    auto value = constant_value(node);
    if (!value) return true;
    if (makes_an_output(node, outputs)) {
      value->set_name(node.output(0) + "/value");
      copies.push_back(make_node("Identity", node.name(), {value->name()}, {node.output(0)}));
    }
    made.push_back(std::move(*value));
    return false;
  });
  for (auto& t : made) *graph.add_initializer() = std::move(t);
  for (auto& n : copies) *graph.add_node() = std::move(n);
  return removed;
}

// A folded node's outputs become constants. One that makes a graph output
// keeps its node (a device runs it), but for a ConstantOfShape of a constant
// shape: a Constant in all but name, left as constant_to_initializer leaves
// one, an Identity of its value.
int64_t fold_constants(onnx::GraphProto& graph) {
  auto folded = fold_known_values(graph, kConstantElements);
  if (folded.empty()) return 0;
  const auto outputs = output_names(graph);
  std::vector<onnx::NodeProto> copies;
  const auto removed = remove_nodes(graph, [&](const onnx::NodeProto& node) {
    if (!default_domain(node) || node.output_size() == 0 || node.output(0).empty()) return true;
    for (const auto& o : node.output())
      if (!o.empty() && !folded.count(o)) return true;
    if (!makes_an_output(node, outputs)) return false;
    if (node.op_type() != "ConstantOfShape") return true;
    const std::string& o = node.output(0);
    *graph.add_initializer() = to_initializer(o + "/value", folded.at(o));
    copies.push_back(make_node("Identity", node.name(), {o + "/value"}, {o}));
    return false;
  });
  for (auto& n : copies) *graph.add_node() = std::move(n);
  if (!removed) return 0;
  // The folded values something still reads become initializers; the rest were steps on the way.
  std::set<std::string> read = subgraph_reads(graph);
  for (const auto& node : graph.node()) read.insert(node.input().begin(), node.input().end());
  std::set<std::string> made;
  for (const auto& node : graph.node())
    for (const auto& o : node.output()) made.insert(o);
  for (auto& [name, value] : folded)
    if (read.count(name) && !made.count(name)) *graph.add_initializer() = to_initializer(name, value);
  return removed;
}

const onnx::GraphProto* branch_of(const onnx::NodeProto& node, bool taken) {
  for (const auto& a : node.attribute())
    if (a.name() == (taken ? "then_branch" : "else_branch") && a.has_g()) return &a.g();
  return nullptr;
}

// An If whose condition is a constant (shape arithmetic folded, as PyTorch's
// scripted exports test a dim) is replaced by the branch it takes: its nodes,
// initializers and shapes, its outputs named as the If's.
int64_t inline_constant_if(onnx::GraphProto& graph) {
  const auto initializers = initializers_by_name(graph);
  Nodes kept;
  std::vector<T> constants;
  std::vector<onnx::ValueInfoProto> shapes;
  int64_t inlined = 0;
  for (auto& node : *graph.mutable_node()) {
    const auto cond = node.op_type() == "If" && default_domain(node) && node.input_size() == 1 &&
                              initializers.count(node.input(0))
                          ? read_known(*initializers.at(node.input(0)))
                          : std::nullopt;
    const auto* branch = cond && !cond->is_real() && cond->ints.size() == 1 ? branch_of(node, cond->ints[0] != 0) : nullptr;
    if (!branch || branch->output_size() != node.output_size()) {
      *kept.Add() = std::move(node);
      continue;
    }
    std::set<std::string> made;
    for (const auto& n : branch->node()) made.insert(n.output().begin(), n.output().end());
    std::map<std::string, std::string> rename;
    std::vector<std::pair<std::string, std::string>> copies;  // a branch output made elsewhere -> the If's output
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& from = branch->output(i).name();
      if (node.output(i).empty()) continue;
      if (made.count(from) && !rename.count(from)) rename[from] = node.output(i);
      else copies.emplace_back(from, node.output(i));
    }
    const auto named = [&](const std::string& n) { return rename.count(n) ? rename.at(n) : n; };
    for (const auto& n : branch->node()) {
      auto* copy = kept.Add();
      *copy = n;
      for (auto& in : *copy->mutable_input()) in = named(in);
      for (auto& out : *copy->mutable_output()) out = named(out);
    }
    for (const auto& [from, to] : copies) *kept.Add() = make_node("Identity", node.name() + "/" + to, {named(from)}, {to});
    constants.insert(constants.end(), branch->initializer().begin(), branch->initializer().end());
    for (const auto& v : branch->value_info()) shapes.push_back(v), shapes.back().set_name(named(v.name()));
    ++inlined;
  }
  graph.mutable_node()->Swap(&kept);
  for (auto& t : constants) *graph.add_initializer() = std::move(t);
  for (auto& v : shapes) *graph.add_value_info() = std::move(v);
  return inlined;
}

// Sum, Max and Min of several inputs become a chain of two-input nodes, Mean
// that Sum times 1/n, so devices implement the binary op once; one input is an Identity.
int64_t variadic_to_binary(onnx::GraphProto& graph) {
  static const std::map<std::string, std::string> binary = {{"Sum", "Add"}, {"Mean", "Add"}, {"Max", "Max"}, {"Min", "Min"}};
  Nodes kept;
  std::vector<T> constants;
  int64_t split = 0;
  for (auto& node : *graph.mutable_node()) {
    const auto op = binary.find(node.op_type());
    if (op == binary.end() || !default_domain(node) || node.output_size() != 1 ||
        (node.input_size() == 2 && node.op_type() != "Sum" && node.op_type() != "Mean") || node.input_size() < 1) {
      *kept.Add() = std::move(node);
      continue;
    }
    const bool mean = node.op_type() == "Mean" && node.input_size() > 1;
    std::string acc = node.input(0);
    for (int i = 1; i < node.input_size(); ++i) {
      const std::string sum = i + 1 == node.input_size() && !mean ? node.output(0) : node.output(0) + "/" + std::to_string(i);
      *kept.Add() = make_node(op->second, node.name() + "/" + std::to_string(i), {acc, node.input(i)}, {sum});
      acc = sum;
    }
    if (node.input_size() == 1) {
      *kept.Add() = make_node("Identity", node.name(), {acc}, {node.output(0)});
    } else if (mean) {
      T scale;
      scale.set_name(node.output(0) + "/1_over_n");
      scale.set_data_type(T::FLOAT);
      scale.add_float_data(1.0f / static_cast<float>(node.input_size()));
      *kept.Add() = make_node("Mul", node.name() + "/mean", {acc, scale.name()}, {node.output(0)});
      constants.push_back(std::move(scale));
    }
    ++split;
  }
  graph.mutable_node()->Swap(&kept);
  for (auto& t : constants) *graph.add_initializer() = std::move(t);
  return split;
}

// A Clip whose bound is computed as the model runs (from opset 11 its bounds
// are inputs; one that is no initializer once constants are folded) becomes
// Max(x, min) then Min(., max): what Clip computes, in ops whose second
// operand is data, as a device reads it.
int64_t clip_bounds_as_max_min(onnx::GraphProto& graph) {
  const auto initializers = initializers_by_name(graph);
  const auto bound = [&](const onnx::NodeProto& node, int i) {
    return node.input_size() > i && !node.input(i).empty() ? node.input(i) : std::string();
  };
  Nodes kept;
  int64_t rewritten = 0;
  for (auto& node : *graph.mutable_node()) {
    const std::string min = bound(node, 1), max = bound(node, 2);
    const bool run_time = (!min.empty() && !initializers.count(min)) || (!max.empty() && !initializers.count(max));
    if (node.op_type() != "Clip" || !default_domain(node) || node.output_size() != 1 || !run_time) {
      *kept.Add() = std::move(node);
      continue;
    }
    std::string value = node.input(0);
    if (!min.empty()) {
      const std::string out = max.empty() ? node.output(0) : node.output(0) + "/at_least_min";
      *kept.Add() = make_node("Max", node.name() + "/min", {value, min}, {out});
      value = out;
    }
    if (!max.empty()) *kept.Add() = make_node("Min", node.name() + "/max", {value, max}, {node.output(0)});
    ++rewritten;
  }
  graph.mutable_node()->Swap(&kept);
  return rewritten;
}

// Before opset 13, Softmax and LogSoftmax (and Hardmax) take their input as
// 2-D, flattened at `axis` (default 1); from 13 they run along one axis (default -1),
// as devices read them. An older one is given its axis explicitly where the
// two agree (axis the last), and is wrapped in Flatten and Reshape where not.
// RoiAlign before opset 16 has no coordinate_transformation_mode and behaves as
// output_half_pixel; opset 16 added the attribute with half_pixel the default. The
// older nodes are given theirs, so a device reads one meaning (torchvision's detectors
// export at opset 11: read as opset 16's default, every pooled feature was half a pixel off).
int64_t roi_align_mode_of_its_opset(onnx::GraphProto& graph, int64_t opset) {
  if (opset >= 16) return 0;
  int64_t changed = 0;
  for (auto& node : *graph.mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) changed += roi_align_mode_of_its_opset(*a.mutable_g(), opset);
      for (auto& g : *a.mutable_graphs()) changed += roi_align_mode_of_its_opset(g, opset);
    }
    if (node.op_type() != "RoiAlign" || !default_domain(node) || find_attr(node, "coordinate_transformation_mode")) continue;
    auto* mode = node.add_attribute();
    mode->set_name("coordinate_transformation_mode"), mode->set_type(onnx::AttributeProto::STRING);
    mode->set_s("output_half_pixel");
    ++changed;
  }
  return changed;
}

// Resize came at opset 10 without coordinate_transformation_mode and nearest_mode;
// ONNX Runtime keeps that opset's rule: asymmetric coordinates (x / scale), and in
// nearest mode the source index rounded down along an axis that grows and up along
// one that shrinks. An opset-10 Resize is given the opset-11 attributes that say so,
// read from its scales once they are folded (unknown ones taken to grow, as
// Upsample's must); one that grows some axes and shrinks others in nearest mode has
// no such attribute and is refused by name.
int64_t resize_mode_of_its_opset(onnx::GraphProto& graph, int64_t opset,
                                 std::map<std::string, const T*> initializers = {}) {
  if (opset >= 11) return 0;
  for (const auto& [name, init] : initializers_by_name(graph)) initializers[name] = init;
  int64_t changed = 0;
  for (auto& node : *graph.mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) changed += resize_mode_of_its_opset(*a.mutable_g(), opset, initializers);
      for (auto& g : *a.mutable_graphs()) changed += resize_mode_of_its_opset(g, opset, initializers);
    }
    if (node.op_type() != "Resize" || !default_domain(node) || find_attr(node, "coordinate_transformation_mode")) continue;
    const auto set = [&](const char* name, const char* value) {
      auto* a = node.add_attribute();
      a->set_name(name), a->set_type(onnx::AttributeProto::STRING);
      a->set_s(value);
    };
    set("coordinate_transformation_mode", "asymmetric");
    const auto* mode = find_attr(node, "mode");
    if (!mode || mode->s() == "nearest") {
      const auto it = node.input_size() > 1 ? initializers.find(node.input(1)) : initializers.end();
      const auto scales = it == initializers.end() ? std::nullopt : read_known(*it->second);
      bool grows = false, shrinks = false;
      for (size_t i = 0; scales && i < scales->size(); ++i) {
        const double scale = scales->is_real() ? scales->reals[i] : static_cast<double>(scales->ints[i]);
        grows |= scale > 1, shrinks |= scale < 1;
      }
      if (grows && shrinks)
        throw Error(StatusCode::unsupported,
                    "Resize '" + node_label(node) + "' of opset 10 grows some axes and shrinks others in nearest mode, "
                    "where ONNX Runtime rounds the source index down along the first and up along the second, "
                    "which no nearest_mode of opset 11 says; re-export the model at opset 11 or later");
      set("nearest_mode", shrinks ? "ceil" : "floor");
    }
    ++changed;
  }
  return changed;
}

int64_t softmax_along_an_axis(onnx::GraphProto& graph, int64_t opset) {
  if (opset >= 13) return 0;
  Nodes kept;
  std::vector<T> shapes;
  int64_t changed = 0;
  for (auto& node : *graph.mutable_node()) {
    const bool softmax = default_domain(node) && node.input_size() == 1 && node.output_size() == 1 &&
                         (node.op_type() == "Softmax" || node.op_type() == "LogSoftmax" || node.op_type() == "Hardmax");
    const auto dims = softmax ? known_dims(graph, node.input(0)) : std::nullopt;
    onnx::AttributeProto* axis_attr = nullptr;
    for (auto& a : *node.mutable_attribute())
      if (a.name() == "axis") axis_attr = &a;
    const auto rank = dims ? static_cast<int64_t>(dims->size()) : 0;
    int64_t axis = axis_attr ? axis_attr->i() : 1;
    if (axis < 0) axis += rank;
    if (!dims || rank == 0 || axis < 0 || axis >= rank || (axis_attr && axis_attr->i() == -1)) {
      *kept.Add() = std::move(node);
      continue;
    }
    ++changed;
    if (!axis_attr) {
      axis_attr = node.add_attribute();
      axis_attr->set_name("axis"), axis_attr->set_type(onnx::AttributeProto::INT);
    }
    if (axis == rank - 1) {
      axis_attr->set_i(-1);
      *kept.Add() = std::move(node);
      continue;
    }
    const std::string in = node.input(0), out = node.output(0), flat = out + "/2d", soft = out + "/2d_out";
    auto* flatten = kept.Add();
    *flatten = make_node("Flatten", node.name() + "/flatten", {in}, {flat});
    auto* at = flatten->add_attribute();
    at->set_name("axis"), at->set_type(onnx::AttributeProto::INT), at->set_i(axis);
    axis_attr->set_i(-1);
    node.set_input(0, flat), node.set_output(0, soft);
    *kept.Add() = std::move(node);
    T& shape = shapes.emplace_back();
    shape.set_name(out + "/shape"), shape.set_data_type(T::INT64), shape.add_dims(rank);
    for (auto d : *dims) shape.add_int64_data(d);
    *kept.Add() = make_node("Reshape", out + "/reshape", {soft, shape.name()}, {out});
  }
  graph.mutable_node()->Swap(&kept);
  for (auto& t : shapes) *graph.add_initializer() = std::move(t);
  return changed;
}

// Dropout in inference passes its input through, unless training_mode is given and not a constant false.
// Each value's element type where the graph states it (after shape inference, nearly everywhere).
std::map<std::string, int32_t> elem_types(const onnx::GraphProto& graph) {
  std::map<std::string, int32_t> types;
  for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()})
    for (const auto& v : *list)
      if (v.type().has_tensor_type()) types[v.name()] = v.type().tensor_type().elem_type();
  for (const auto& init : graph.initializer()) types[init.name()] = init.data_type();
  return types;
}

bool reads_through(const onnx::GraphProto& graph, const onnx::NodeProto& node,
                   const std::map<std::string, const T*>& initializers, const std::map<std::string, int32_t>& types) {
  if (!default_domain(node) || node.input_size() < 1 || node.output_size() < 1) return false;
  if (node.op_type() == "Identity") return node.input_size() == 1;
  if (node.op_type() == "Expand" || node.op_type() == "Tile") {  // to the shape its input has already (a scalar's too)
    const auto in = known_dims(graph, node.input(0)), out = known_dims(graph, node.output(0));
    return node.input_size() == 2 && in && out && in == out;
  }
  if (node.op_type() == "Cast") {  // to the type its input has already
    const auto from = types.find(node.input(0));
    for (const auto& a : node.attribute())
      if (a.name() == "to") return from != types.end() && from->second == a.i();
    return false;
  }
  if (node.op_type() != "Dropout") return false;
  if (node.input_size() >= 3 && !node.input(2).empty()) {
    const auto it = initializers.find(node.input(2));
    const auto mode = it == initializers.end() ? std::nullopt : read_known(*it->second);
    if (!mode || mode->is_real() || mode->ints.size() != 1 || mode->ints[0] != 0) return false;
  }
  return true;
}

int64_t remove_identity(onnx::GraphProto& graph) {
  const auto initializers = initializers_by_name(graph);
  const auto types = elem_types(graph);
  const auto outputs = output_names(graph);
  const auto in_subgraphs = subgraph_reads(graph);
  std::set<std::string> read;
  for (const auto& node : graph.node()) read.insert(node.input().begin(), node.input().end());
  std::map<std::string, int> producers;  // value -> index of the node that makes it
  for (int i = 0; i < graph.node_size(); ++i)
    for (const auto& o : graph.node(i).output()) producers[o] = i;

  std::map<std::string, std::string> alias;   // a removed node's output -> its input
  std::map<std::string, std::string> renamed;  // a producer's output -> the graph output it now makes
  std::set<int> gone;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    if (!reads_through(graph, node, initializers, types)) continue;
    bool mask_read = false;
    for (int k = 1; k < node.output_size(); ++k) mask_read |= !node.output(k).empty() && (read.count(node.output(k)) || outputs.count(node.output(k)));
    const std::string& in = node.input(0);
    const std::string& out = node.output(0);
    if (mask_read || in_subgraphs.count(out)) continue;
    if (!outputs.count(out)) {
      alias[out] = in;
      gone.insert(i);
      continue;
    }
    // The output is the graph's: its input's producer makes it under that name instead.
    const auto p = producers.find(in);
    if (p == producers.end() || outputs.count(in) || in_subgraphs.count(in) || renamed.count(in) || alias.count(in))
      continue;
    renamed[in] = out;
    gone.insert(i);
  }
  if (gone.empty()) return 0;
  const auto resolve = [&](std::string name) {
    for (auto it = alias.find(name); it != alias.end(); it = alias.find(name)) name = it->second;
    const auto r = renamed.find(name);
    return r == renamed.end() ? name : r->second;
  };
  for (int i = 0; i < graph.node_size(); ++i) {
    if (gone.count(i)) continue;
    auto& node = *graph.mutable_node(i);
    for (auto& in : *node.mutable_input())
      if (!in.empty()) in = resolve(in);
    for (auto& o : *node.mutable_output())
      if (const auto r = renamed.find(o); r != renamed.end()) o = r->second;
  }
  int index = 0;
  return remove_nodes(graph, [&](const onnx::NodeProto&) { return !gone.count(index++); });
}

const onnx::OpSchema::FormalParameter* formal_input(const onnx::OpSchema& schema, int index) {
  const auto& inputs = schema.inputs();
  if (inputs.empty()) return nullptr;
  if (index < static_cast<int>(inputs.size())) return &inputs[static_cast<size_t>(index)];
  return inputs.back().GetOption() == onnx::OpSchema::Variadic ? &inputs.back() : nullptr;
}

// Inputs the schema calls required that the spec still reads as not given when
// empty: Resize-11's roi and scales (with sizes given), as Paddle2ONNX writes them.
bool empty_means_absent(const onnx::NodeProto& node, int index) {
  return (node.op_type() == "Resize" && (index == 1 || index == 2));
}

int64_t empty_optional_inputs(onnx::GraphProto& graph, int64_t opset) {
  std::set<std::string> empty;
  for (const auto& init : graph.initializer()) {
    bool none = false;
    for (auto d : init.dims()) none |= d == 0;
    if (none) empty.insert(init.name());
  }
  int64_t changed = 0;
  for (auto& node : *graph.mutable_node()) {
    if (!default_domain(node)) continue;
    const auto* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), "");
    bool edited = false;
    for (int i = 0; schema && i < node.input_size(); ++i) {
      const auto* formal = formal_input(*schema, i);
      const bool optional = (formal && formal->GetOption() == onnx::OpSchema::Optional) || empty_means_absent(node, i);
      if (!optional || !empty.count(node.input(i))) continue;
      node.mutable_input(i)->clear();
      edited = true;
    }
    // Absent inputs at the end are the same as inputs not given.
    while (node.input_size() > 0 && node.input(node.input_size() - 1).empty()) {
      node.mutable_input()->RemoveLast();
      edited = true;
    }
    changed += edited ? 1 : 0;
  }
  return changed;
}

// Initializers nothing reads any more (the folded steps' operands, emptied optional
// inputs), and shapes of values no longer in the graph. Initializers the graph also
// lists as inputs stay: dropping one would turn it into an input.
int64_t drop_unused(onnx::GraphProto& graph) {
  std::set<std::string> used = subgraph_reads(graph);
  for (const auto& node : graph.node()) {
    used.insert(node.input().begin(), node.input().end());
    used.insert(node.output().begin(), node.output().end());
  }
  for (const auto& v : graph.input()) used.insert(v.name());
  for (const auto& v : graph.output()) used.insert(v.name());
  google::protobuf::RepeatedPtrField<T> kept;
  int64_t dropped = 0;
  for (auto& init : *graph.mutable_initializer()) {
    if (used.count(init.name())) *kept.Add() = std::move(init);
    else ++dropped;
  }
  graph.mutable_initializer()->Swap(&kept);
  for (const auto& init : graph.initializer()) used.insert(init.name());
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> shapes;
  for (auto& v : *graph.mutable_value_info())
    if (used.count(v.name())) *shapes.Add() = std::move(v);
  graph.mutable_value_info()->Swap(&shapes);
  return dropped;
}

}  // namespace

void Normalisation::add(const std::string& rule, int64_t count) {
  for (auto& [name, n] : counts)
    if (name == rule) return void(n += count);
  counts.emplace_back(rule, count);
}

std::string Normalisation::summary() const {
  static const std::map<std::string, std::string> says = {
      {"inline_functions", "calls of the model's functions inlined"},
      {"read_as_opset_7", "nodes of opsets 1 to 6 rewritten to their opset-7 form"},
      {"read_as_opset_17", "nodes of opsets 18 and later rewritten to their opset-17 form"},
      {"external_constants_read", "external shape, scale and index tensors read into the model"},
      {"topological_order", "nodes put in topological order"},
      {"constant_to_initializer", "Constant nodes made initializers"},
      {"fold_constants", "nodes folded into constants"},
      {"inline_constant_if", "If nodes with a constant condition inlined"},
      {"unroll_constant_loop", "Loop nodes with a constant trip count unrolled"},
      {"unroll_scan", "Scan nodes of a known length unrolled"},
      {"variadic_to_binary", "Sum/Mean/Max/Min nodes made two-input chains"},
      {"softmax_along_an_axis", "opset-11 Softmax nodes given one axis"},
      {"einsum_as_matmul", "Einsum nodes made MatMuls"},
      {"einsum_of_one_operand", "one-operand Einsum nodes made ReduceSum and Transpose"},
      {"roi_align_mode_of_its_opset", "opset-10 RoiAligns given their output_half_pixel mode"},
      {"resize_mode_of_its_opset", "opset-10 Resizes given their asymmetric coordinates"},
      {"zipmap_as_tensor", "ZipMap outputs given as their probability tensors"},
      {"remove_identity", "Identity/Dropout/same-type Cast/same-shape Expand and Tile nodes read through"},
      {"empty_optional_inputs", "nodes with empty optional inputs made absent"},
      {"clip_bounds_as_max_min", "Clip nodes with bounds computed at run time made Max and Min"},
      {"optional_inputs_as_tensors", "optional inputs fed as the tensors they hold"},
      {"sequences_as_tensors", "sequence ops of known sequences made tensor ops"},
      {"loop_appends_as_scans", "sequences a Loop appends to made scan outputs"},
      {"drop_unused", "unused initializers dropped"},
      {"lift_branch_constants", "constants of If branches chosen at run time made the model's"},
      {"value_attributes", "nodes given their constant inputs as attributes"}};
  std::string text;
  for (const auto& [rule, count] : counts)
    if (count) text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + (says.count(rule) ? says.at(rule) : rule);
  return text.empty() ? "nothing to change" : text;
}

nlohmann::json Normalisation::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [rule, count] : counts) j[rule] = count;
  return j;
}

Normalisation normalise_graph(onnx::GraphProto& graph, int64_t opset, const std::function<void()>& infer_shapes) {
  Normalisation done;
  // An inlined branch or unrolled body brings Constants and foldable arithmetic
  // of its own, and it and the split chains values whose shapes inference then finds.
  for (int round = 0; round < kMaxRounds; ++round) {
    done.add("constant_to_initializer", constant_to_initializer(graph));
    done.add("fold_constants", fold_constants(graph));
    const int64_t inlined = inline_constant_if(graph);
    const int64_t loops = unroll_constant_loop(graph, opset);
    const int64_t scans = unroll_scan(graph, opset);
    const int64_t split = variadic_to_binary(graph);
    const int64_t softmax = softmax_along_an_axis(graph, opset);
    const int64_t einsums = einsum_as_matmul(graph, opset);
    const int64_t one_operand = einsum_of_one_operand(graph, opset);
    const int64_t sequences = sequences_as_tensors(graph, opset);
    const int64_t appends = loop_appends_as_scans(graph, opset);
    done.add("inline_constant_if", inlined);
    done.add("unroll_constant_loop", loops);
    done.add("unroll_scan", scans);
    done.add("variadic_to_binary", split);
    done.add("softmax_along_an_axis", softmax);
    done.add("einsum_as_matmul", einsums);
    done.add("einsum_of_one_operand", one_operand);
    done.add("sequences_as_tensors", sequences);
    done.add("loop_appends_as_scans", appends);
    if (!inlined && !loops && !scans && !appends && !split && !softmax && !einsums && !one_operand && !sequences) break;
    infer_shapes();
  }
  done.add("remove_identity", remove_identity(graph));
  done.add("empty_optional_inputs", empty_optional_inputs(graph, opset));
  done.add("roi_align_mode_of_its_opset", roi_align_mode_of_its_opset(graph, opset));
  done.add("resize_mode_of_its_opset", resize_mode_of_its_opset(graph, opset));
  const int64_t clips = clip_bounds_as_max_min(graph);
  done.add("clip_bounds_as_max_min", clips);
  if (clips) infer_shapes();  // the values between each Max and its Min
  done.add("drop_unused", drop_unused(graph));
  return done;
}

void normalise_converted(const onnx::GraphProto& proto, int64_t opset, sdk::Graph& graph, Normalisation& done) {
  done.add("value_attributes", add_value_attributes(proto, opset, graph));
}

}  // namespace aoe::host
