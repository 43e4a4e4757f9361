// Loop and Scan unrolled: each a list of body copies whose names are made
// unique per copy, the values between them threaded by name.
#include "unroll_loops.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "constant_folding.h"
#include "written_nodes.h"

namespace aoe::host {
namespace {

using T = onnx::TensorProto;
using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

std::vector<int64_t> ints_or(const onnx::NodeProto& node, const std::string& name, size_t n, int64_t fallback) {
  const auto* a = find_attr(node, name);
  if (!a) return std::vector<int64_t>(n, fallback);
  return {a->ints().begin(), a->ints().end()};
}

// The node's name for the names its copies are given; an unnamed node goes by its first output.
std::string base_name(const onnx::NodeProto& node) {
  if (!node.name().empty()) return node.name();
  return node.op_type() + "_" + (node.output_size() ? node.output(0) : std::string());
}

// What an unrolling adds to the graph: nodes in order, initializers and the bodies' shapes.
struct Unrolled : WrittenNodes {
  std::vector<onnx::ValueInfoProto> shapes;

  // Names inside a body's nested graphs that the copy renamed. ONNX names
  // are unique across scopes, so every use of a renamed name is the body's.
  static void rename_in(onnx::GraphProto& g, const std::map<std::string, std::string>& rename) {
    const auto named = [&](std::string* n) {
      if (const auto it = rename.find(*n); it != rename.end()) *n = it->second;
    };
    for (auto& node : *g.mutable_node()) {
      for (auto& in : *node.mutable_input()) named(&in);
      for (auto& a : *node.mutable_attribute()) {
        if (a.has_g()) rename_in(*a.mutable_g(), rename);
        for (auto& sub : *a.mutable_graphs()) rename_in(sub, rename);
      }
    }
    for (auto& out : *g.mutable_output()) named(out.mutable_name());
  }

  // One copy of `body`, its inputs bound to `bound` (outer names); returns
  // the names its outputs have in the outer graph.
  std::vector<std::string> copy(const onnx::GraphProto& body, const std::string& prefix, const std::vector<std::string>& bound) {
    std::map<std::string, std::string> rename;
    for (int i = 0; i < body.input_size(); ++i) rename[body.input(i).name()] = bound[static_cast<size_t>(i)];
    for (const auto& init : body.initializer()) {
      T& t = constants.emplace_back(init);
      t.set_name(prefix + init.name());
      rename[init.name()] = t.name();
    }
    std::set<std::string> made_here;  // the values the copy's nodes make, whose shapes it keeps
    for (const auto& n : body.node())
      for (const auto& o : n.output())
        if (!o.empty()) rename[o] = prefix + o, made_here.insert(o);
    const auto named = [&](const std::string& n) { return rename.count(n) ? rename.at(n) : n; };
    for (int i = 0; i < body.node_size(); ++i) {
      auto& node = nodes.emplace_back(body.node(i));
      node.set_name(prefix + (node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name()));
      for (auto& in : *node.mutable_input()) in = named(in);
      for (auto& out : *node.mutable_output()) out = named(out);
      for (auto& a : *node.mutable_attribute()) {
        if (a.has_g()) rename_in(*a.mutable_g(), rename);
        for (auto& sub : *a.mutable_graphs()) rename_in(sub, rename);
      }
    }
    for (const auto& v : body.value_info())
      if (made_here.count(v.name())) shapes.push_back(v), shapes.back().set_name(rename.at(v.name()));
    std::vector<std::string> outputs;
    for (const auto& out : body.output()) outputs.push_back(named(out.name()));
    return outputs;
  }

  // The node's output `out` (if it is read) made as the value `value`.
  void name_output(const std::string& value, const std::string& out) {
    if (!out.empty()) add("Identity", out, {value}, {out});
  }
};

// The body's condition output is its condition input, read through Identity,
// or a constant true: its own, or the outer graph's (PyTorch's scripted loops
// pass on the true they started with).
bool keeps_running(const onnx::GraphProto& body, const std::map<std::string, const T*>& outer) {
  if (body.input_size() < 2 || body.output_size() < 1) return false;
  std::string cond = body.output(0).name();
  for (int steps = 0, moved = 1; moved && cond != body.input(1).name() && steps <= body.node_size(); ++steps) {
    moved = 0;
    for (const auto& n : body.node()) {
      if (n.output_size() != 1 || n.output(0) != cond) continue;
      if (n.op_type() == "Identity" && n.input_size() == 1) cond = n.input(0), moved = 1;
      else if (n.op_type() == "Constant")
        for (const auto& a : n.attribute()) {
          if (a.name() != "value") continue;
          const auto v = read_known(a.t());
          return v && !v->is_real() && v->ints.size() == 1 && v->ints[0] != 0;
        }
    }
  }
  if (cond == body.input(1).name()) return true;
  for (const auto& init : body.initializer())
    if (init.name() == cond) {
      const auto v = read_known(init);
      return v && !v->is_real() && v->ints.size() == 1 && v->ints[0] != 0;
    }
  const auto value = constant_int(outer, cond);
  return value && *value != 0;
}

// Whether `copies` copies of `per_copy` nodes stay within the bound (without overflowing on the way).
bool within_bound(int64_t copies, int64_t per_copy) { return copies <= kMaxUnrolledNodes / std::max<int64_t>(per_copy, 1); }

// How many nodes a copy of the body holds, its nested graphs' counted.
int64_t node_count(const onnx::GraphProto& graph) {
  int64_t n = graph.node_size();
  for (const auto& node : graph.node())
    for (const auto& a : node.attribute()) {
      if (a.has_g()) n += node_count(a.g());
      for (const auto& g : a.graphs()) n += node_count(g);
    }
  return n;
}

const onnx::GraphProto* body_of(const onnx::NodeProto& node) {
  const auto* a = find_attr(node, "body");
  return a && a->has_g() ? &a->g() : nullptr;
}

// Unrolls the Loop into `out`, or returns false to leave it.
bool unroll_loop(const onnx::NodeProto& node, const std::map<std::string, const T*>& initializers, Unrolled& out) {
  const auto* body = body_of(node);
  if (!body || node.input_size() < 2 || node.input(0).empty()) return false;
  auto trips = constant_int(initializers, node.input(0));
  if (!trips || *trips < 0) return false;
  if (!node.input(1).empty()) {  // a constant false runs no iteration
    const auto cond = constant_int(initializers, node.input(1));
    if (!cond) return false;
    if (*cond == 0) trips = 0;
  }
  const int carried = node.input_size() - 2;
  const int scans = body->output_size() - 1 - carried;
  if (carried < 0 || scans < 0 || body->input_size() != carried + 2 || node.output_size() > carried + scans) return false;
  bool scanned_read = false;  // a scan output of no iterations has no shape to give it
  for (int k = carried; k < node.output_size(); ++k) scanned_read |= !node.output(k).empty();
  if (!keeps_running(*body, initializers) || (*trips == 0 && scanned_read)) return false;
  if (!within_bound(*trips, node_count(*body) + 2 * scans)) return false;
  std::vector<std::string> values(node.input().begin() + 2, node.input().end());
  std::vector<std::vector<std::string>> scanned(static_cast<size_t>(scans));
  const std::string cond = *trips ? out.scalar(out.base + "/cond", 1, T::BOOL) : "";
  for (int64_t i = 0; i < *trips; ++i) {
    const std::string prefix = out.base + "/iter" + std::to_string(i) + "/";
    std::vector<std::string> bound = {out.scalar(out.base + "/iteration_num" + std::to_string(i), i), cond};
    bound.insert(bound.end(), values.begin(), values.end());
    const auto made = out.copy(*body, prefix, bound);
    for (int j = 0; j < carried; ++j) values[static_cast<size_t>(j)] = made[static_cast<size_t>(1 + j)];
    for (int k = 0; k < scans; ++k) scanned[static_cast<size_t>(k)].push_back(made[static_cast<size_t>(1 + carried + k)]);
  }
  for (int j = 0; j < node.output_size(); ++j) {
    if (node.output(j).empty()) continue;
    if (j < carried) out.name_output(values[static_cast<size_t>(j)], node.output(j));
    else out.stack(scanned[static_cast<size_t>(j - carried)], 0, node.output(j));
  }
  return true;
}

// known_dims, or an initializer's.
std::optional<std::vector<int64_t>> dims_of(const onnx::GraphProto& graph, const std::string& name) {
  if (const auto dims = known_dims(graph, name)) return dims;
  for (const auto& init : graph.initializer())
    if (init.name() == name) return std::vector<int64_t>(init.dims().begin(), init.dims().end());
  return std::nullopt;
}

// Unrolls the Scan into `out`, or returns false to leave it. Opset 8's form
// has a batch axis 0 before each value and the sequence axis 1: taken where
// the batch is 1, its values read at batch 0 and the outputs given it back.
bool unroll_one_scan(const onnx::GraphProto& graph, const onnx::NodeProto& node, int64_t opset, Unrolled& out) {
  const auto* body = body_of(node);
  const auto* num = find_attr(node, "num_scan_inputs");
  if (!body || !num) return false;
  const bool batched = opset < 9;
  if (batched && (node.input_size() < 1 || !node.input(0).empty())) return false;  // sequence_lens given
  const int first = batched ? 1 : 0;
  const int scan_in = static_cast<int>(num->i());
  const int states = node.input_size() - first - scan_in;
  const int scan_out = body->output_size() - states;
  if (states < 0 || scan_out < 0 || scan_in < 1 || body->input_size() != states + scan_in ||
      node.output_size() > states + scan_out)
    return false;
  const auto directions = ints_or(node, batched ? "directions" : "scan_input_directions", static_cast<size_t>(scan_in), 0);
  auto in_axes = ints_or(node, "scan_input_axes", static_cast<size_t>(scan_in), 0);
  const auto out_axes = ints_or(node, "scan_output_axes", static_cast<size_t>(scan_out), 0);
  const auto out_directions = ints_or(node, "scan_output_directions", static_cast<size_t>(scan_out), 0);
  if (batched && (find_attr(node, "scan_input_axes") || find_attr(node, "scan_output_axes"))) return false;
  if (directions.size() != static_cast<size_t>(scan_in) || in_axes.size() != static_cast<size_t>(scan_in) ||
      out_axes.size() != static_cast<size_t>(scan_out) || out_directions.size() != static_cast<size_t>(scan_out))
    return false;
  for (auto axis : out_axes)
    if (axis < 0) return false;  // the outputs' rank is not known here
  // The scan inputs' axes and the sequence length, from the first one's shape.
  std::optional<int64_t> length;
  for (int j = 0; j < scan_in; ++j) {
    const auto dims = dims_of(graph, node.input(first + states + j));
    if (!dims) return false;
    if (batched && (dims->size() < 2 || (*dims)[0] != 1)) return false;
    const auto rank = static_cast<int64_t>(dims->size());
    auto& axis = in_axes[static_cast<size_t>(j)];
    if (batched) axis = 1;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    if (!length) length = (*dims)[static_cast<size_t>(axis)];
    if ((*dims)[static_cast<size_t>(axis)] != *length) return false;
  }
  if (!length || *length < 1) return false;
  for (int s = 0; s < states && batched; ++s) {
    const auto dims = dims_of(graph, node.input(first + s));
    if (!dims || dims->empty() || (*dims)[0] != 1) return false;
  }
  if (!within_bound(*length, node_count(*body) + scan_in + 2 * scan_out)) return false;
  std::vector<std::string> values;
  for (int s = 0; s < states; ++s) {
    const std::string& in = node.input(first + s);
    if (!batched) {
      values.push_back(in);
      continue;
    }
    values.push_back(out.base + "/state" + std::to_string(s) + "/batch0");
    out.take(in, 0, 0, values.back());
  }
  std::vector<std::vector<std::string>> scanned(static_cast<size_t>(scan_out));
  for (int64_t t = 0; t < *length; ++t) {
    const std::string prefix = out.base + "/iter" + std::to_string(t) + "/";
    std::vector<std::string> bound = values;
    for (int j = 0; j < scan_in; ++j) {
      const auto uj = static_cast<size_t>(j);
      const int64_t step = directions[uj] ? *length - 1 - t : t;
      std::string x = node.input(first + states + j);
      if (batched) {
        const std::string all = out.base + "/input" + std::to_string(j) + "/batch0";
        if (t == 0) out.take(x, 0, 0, all);
        x = all;
      }
      const std::string slice = prefix + "input" + std::to_string(j);
      out.take(x, step, batched ? 0 : in_axes[uj], slice);
      bound.push_back(slice);
    }
    const auto made = out.copy(*body, prefix, bound);
    for (int s = 0; s < states; ++s) values[static_cast<size_t>(s)] = made[static_cast<size_t>(s)];
    for (int k = 0; k < scan_out; ++k) scanned[static_cast<size_t>(k)].push_back(made[static_cast<size_t>(states + k)]);
  }
  for (int j = 0; j < node.output_size(); ++j) {
    const std::string& o = node.output(j);
    if (o.empty()) continue;
    if (j < states) {
      if (batched) out.unsqueeze(values[static_cast<size_t>(j)], 0, o);
      else out.name_output(values[static_cast<size_t>(j)], o);
      continue;
    }
    const auto k = static_cast<size_t>(j - states);
    auto steps = scanned[k];
    if (out_directions[k]) std::reverse(steps.begin(), steps.end());
    if (!batched) {
      out.stack(steps, out_axes[k], o);
      continue;
    }
    out.stack(steps, 0, o + "/batch0");
    out.unsqueeze(o + "/batch0", 0, o);
  }
  return true;
}

// Replaces each node `unroll` takes by what it made, in its place.
template <typename Unroll>
int64_t unroll_each(onnx::GraphProto& graph, const std::string& op, int64_t opset, Unroll unroll) {
  Nodes kept;
  std::vector<T> constants;
  std::vector<onnx::ValueInfoProto> shapes;
  int64_t unrolled = 0;
  for (auto& node : *graph.mutable_node()) {
    Unrolled out;
    out.base = base_name(node), out.opset = opset;
    if (node.op_type() != op || !default_domain(node) || !unroll(node, out)) {
      *kept.Add() = std::move(node);
      continue;
    }
    for (auto& n : out.nodes) *kept.Add() = std::move(n);
    constants.insert(constants.end(), out.constants.begin(), out.constants.end());
    shapes.insert(shapes.end(), out.shapes.begin(), out.shapes.end());
    ++unrolled;
  }
  graph.mutable_node()->Swap(&kept);
  for (auto& t : constants) *graph.add_initializer() = std::move(t);
  for (auto& v : shapes) *graph.add_value_info() = std::move(v);
  return unrolled;
}

}  // namespace

int64_t unroll_constant_loop(onnx::GraphProto& graph, int64_t opset) {
  const auto initializers = initializers_by_name(graph);
  return unroll_each(graph, "Loop", opset, [&](const onnx::NodeProto& node, Unrolled& out) {
    return unroll_loop(node, initializers, out);
  });
}

int64_t unroll_scan(onnx::GraphProto& graph, int64_t opset) {
  // Only the nodes move as it runs: the shapes it reads stay.
  return unroll_each(graph, "Scan", opset, [&](const onnx::NodeProto& node, Unrolled& out) {
    return unroll_one_scan(graph, node, opset, out);
  });
}

}  // namespace aoe::host
