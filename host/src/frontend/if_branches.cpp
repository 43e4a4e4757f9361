#include "if_branches.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

#include "constant_folding.h"
#include "graph_normaliser.h"
#include "value_attributes.h"

namespace aoe::host {
namespace {

// Control flow whose subgraphs run as the model runs: an If's branches, a Loop's body.
bool runs_subgraphs(const onnx::NodeProto& node) {
  return (node.op_type() == "If" || node.op_type() == "Loop") && default_domain(node);
}

bool is_branch(const onnx::AttributeProto& a) {
  return a.has_g() && (a.name() == "then_branch" || a.name() == "else_branch" || a.name() == "body");
}

// Every name `branch` reads as `from` reads `to` instead.
void rename_reads(onnx::GraphProto& branch, const std::string& from, const std::string& to) {
  for (auto& node : *branch.mutable_node()) {
    for (auto& in : *node.mutable_input())
      if (in == from) in = to;
    for (auto& a : *node.mutable_attribute())
      if (a.has_g()) rename_reads(*a.mutable_g(), from, to);
  }
  for (auto& out : *branch.mutable_output())
    if (out.name() == from) out.set_name(to);
}

// The shapes `outer` knows of the names `node`'s branches read from it, in
// each branch's value_info: its folding and conversion see them.
void describe_outer_reads(const onnx::GraphProto& outer, onnx::NodeProto& node) {
  std::set<std::string> reads;
  read_in_subgraphs(node, reads);
  std::vector<const onnx::ValueInfoProto*> known;
  for (const auto* list : {&outer.input(), &outer.value_info(), &outer.output()})
    for (const auto& v : *list)
      if (reads.count(v.name())) known.push_back(&v);
  for (auto& a : *node.mutable_attribute()) {
    if (!is_branch(a)) continue;
    std::set<std::string> described;
    for (const auto& v : a.g().value_info()) described.insert(v.name());
    for (const auto* v : known)
      if (described.insert(v->name()).second) *a.mutable_g()->add_value_info() = *v;
  }
}

int64_t lift(onnx::GraphProto& root, onnx::GraphProto& graph, int64_t opset, const std::function<void()>& infer_shapes,
             std::set<std::string>& taken) {
  int64_t lifted = 0;
  for (auto& node : *graph.mutable_node()) {
    if (!runs_subgraphs(node)) continue;
    describe_outer_reads(graph, node);
    for (auto& a : *node.mutable_attribute()) {
      if (!is_branch(a)) continue;
      auto& branch = *a.mutable_g();
      (void)normalise_graph(branch, opset, infer_shapes);
      lifted += lift(root, branch, opset, infer_shapes, taken);
      for (auto& init : *branch.mutable_initializer()) {
        std::string name = init.name();
        for (int k = 1; taken.count(name); ++k) name = node.name() + "/" + a.name() + "/" + init.name() + "_" + std::to_string(k);
        if (name != init.name()) rename_reads(branch, init.name(), name), init.set_name(name);
        taken.insert(name);
        *root.add_initializer() = std::move(init);
        ++lifted;
      }
      branch.clear_initializer();
    }
  }
  return lifted;
}

}  // namespace

int64_t lift_branch_constants(onnx::GraphProto& graph, int64_t opset, const std::function<void()>& infer_shapes) {
  std::set<std::string> taken;
  for (const auto& init : graph.initializer()) taken.insert(init.name());
  for (const auto& v : graph.input()) taken.insert(v.name());
  for (const auto& node : graph.node()) taken.insert(node.output().begin(), node.output().end());
  return lift(graph, graph, opset, infer_shapes, taken);
}

void attach_if_branches(onnx::GraphProto& proto, const onnx::GraphProto& root, int64_t opset,
                        const BranchConverter& convert, sdk::Graph& ir) {
  for (int i = 0; i < proto.node_size() && static_cast<size_t>(i) < ir.nodes.size(); ++i) {
    auto& node = *proto.mutable_node(i);
    if (!runs_subgraphs(node)) continue;
    for (auto& a : *node.mutable_attribute()) {
      if (!is_branch(a)) continue;
      sdk::Graph branch = convert(*a.mutable_g());
      for (auto& [name, t] : branch.tensors)
        if (t.dtype == sdk::DType::undefined && ir.tensors.count(name)) t = ir.tensor(name);
      (void)add_value_attributes(root, opset, branch);
      attach_if_branches(*a.mutable_g(), root, opset, convert, branch);
      ir.nodes[static_cast<size_t>(i)].attrs[a.name()] = branch;
    }
  }
}

}  // namespace aoe::host
