// SPDX-License-Identifier: Apache-2.0
// Fusion before tuning, as an inference compiler does it: a cube op (Conv,
// MatMul, Gemm) or an elementwise op absorbs the chain of elementwise ops
// that follows it, and a Conv absorbs the BatchNormalization after it by
// folding it into its weights and bias. Each fused op is one tuning task.
//
// A node whose attrs hold "fused_ops" (a list of op types, maybe empty) is a
// kernel fused already, as a training step's rules fuse it: it runs as one
// kernel with those followers, and nothing fuses into it or it into another.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"

namespace aoe::sdk {

struct FusedOp {
  OpTask task;                // named after its nodes, joined by '+'
  std::vector<std::string> node_names;  // the model's nodes it stands for, anchor first
  std::vector<std::string> op_types;    // their op types, BatchNormalization included
};

// Says whether a node may join the kernel of the op before it; a tuned
// strategy can keep a fusable node on its own (BatchNormalization after a
// Conv is always folded: it costs nothing once folded).
using MayFuse = std::function<bool(const Node&)>;

// The attr of a node that is a kernel fused already (see the top of this file).
inline constexpr const char* kFusedOpsAttr = "fused_ops";

namespace fusion_detail {

inline const std::set<std::string> kCubeOps = {"Conv", "MatMul", "Gemm"};
// Fused ops that read a second tensor; the chain must be their first input
// unless the op commutes.
inline const std::set<std::string> kBinaryOps = {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "BiasAdd", "PRelu"};
inline const std::set<std::string> kCommutativeOps = {"Add", "Mul", "Max", "Min"};

inline std::vector<std::string> present(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names)
    if (!n.empty()) out.push_back(n);
  return out;
}

class Fuser {
 public:
  Fuser(const Graph& graph, const std::set<std::string>& fusable,
        const std::map<std::string, std::vector<std::string>>& members, const MayFuse& may_fuse)
      : graph_(graph), fusable_(fusable), members_(members), may_fuse_(may_fuse) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
      for (const auto& input : graph.nodes[i].inputs)
        if (!input.empty()) consumers_[input].push_back(i);
    outputs_.insert(graph.outputs.begin(), graph.outputs.end());
  }

  std::vector<FusedOp> run() {
    std::vector<FusedOp> out;
    std::vector<bool> taken(graph_.nodes.size(), false);
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (taken[i]) continue;
      taken[i] = true;
      out.push_back(grow(i, taken));
    }
    return out;
  }

 private:
  // The one node reading `tensor`, when nothing else needs the value: fusing
  // it away must not hide a tensor another node or the graph output reads.
  std::optional<size_t> sole_consumer(const std::string& tensor) const {
    if (outputs_.count(tensor)) return std::nullopt;
    auto it = consumers_.find(tensor);
    if (it == consumers_.end() || it->second.size() != 1) return std::nullopt;
    return it->second.front();
  }

  static std::optional<std::string> single_output(const Node& node) {
    const auto outs = present(node.outputs);
    if (outs.size() != 1) return std::nullopt;
    return outs.front();
  }

  // Inference BatchNormalization with constant statistics after a Conv.
  bool foldable_batch_norm(const Node& node, const std::string& value) const {
    if (node.op_type != "BatchNormalization" || node.inputs.size() != 5 || node.inputs[0] != value) return false;
    if (present(node.outputs).size() != 1) return false;
    if (node.attrs.is_object() && node.attrs.contains("training_mode") && node.attrs.at("training_mode") != 0) return false;
    for (size_t k = 1; k < 5; ++k)
      if (node.inputs[k].empty() || !graph_.tensor(node.inputs[k]).constant) return false;
    return true;
  }

  // The second operand a fused binary op reads, if the chain may take it:
  // the chain value stays the op's output shape, so the op never grows it.
  // After a Conv it is one value per (batch, channel) map or the whole map,
  // as a conv's epilogue reads it; one broadcast over part of a map stays apart.
  std::optional<TensorDesc> fusable_operand(const Node& anchor, const Node& node, const std::string& value) const {
    const auto inputs = present(node.inputs);
    if (inputs.size() != 2 || inputs[0] == inputs[1]) return std::nullopt;
    const int side = inputs[0] == value ? 0 : 1;
    if (side == 1 && !kCommutativeOps.count(node.op_type)) return std::nullopt;
    const auto out = single_output(node);
    const auto& shape = graph_.tensor(value).shape;
    if (!out || graph_.tensor(*out).shape != shape) return std::nullopt;
    const TensorDesc operand = graph_.tensor(inputs[1 - side]);
    if (anchor.op_type == "Conv" && shape.size() > 2 && operand.shape.size() <= shape.size()) {
      bool ones = true, whole = true;
      for (size_t d = 2; d < shape.size(); ++d) {
        const size_t from_end = shape.size() - d;
        const int64_t dim = from_end <= operand.shape.size() ? operand.shape[operand.shape.size() - from_end] : 1;
        ones = ones && dim == 1;
        whole = whole && dim == shape[d];
      }
      if (!ones && !whole) return std::nullopt;
    }
    return operand;
  }

  static bool fused_already(const Node& node) {
    return node.attrs.is_object() && node.attrs.contains(kFusedOpsAttr) && node.attrs.at(kFusedOpsAttr).is_array();
  }

  void add_names(FusedOp& op, const std::string& node_name) const {
    auto it = members_.find(node_name);
    if (it == members_.end())
      op.node_names.push_back(node_name);
    else
      op.node_names.insert(op.node_names.end(), it->second.begin(), it->second.end());
  }

  FusedOp grow(size_t anchor_index, std::vector<bool>& taken) const {
    const Node& anchor = graph_.nodes[anchor_index];
    FusedOp op;
    op.task.op_type = anchor.op_type;
    op.task.attrs = anchor.attrs;
    for (const auto& input : present(anchor.inputs)) op.task.inputs.push_back(graph_.tensor(input));
    add_names(op, anchor.name);
    op.op_types.push_back(anchor.op_type);

    size_t tail = anchor_index;
    if (fused_already(anchor)) {
      op.task.fused_ops = anchor.attrs.at(kFusedOpsAttr).get<std::vector<std::string>>();
      op.task.attrs.erase(kFusedOpsAttr);
      for (const auto& output : present(anchor.outputs)) op.task.outputs.push_back(graph_.tensor(output));
      for (const auto& name : op.node_names) op.task.name += (op.task.name.empty() ? "" : "+") + name;
      return op;
    }
    std::optional<std::string> value = single_output(anchor);
    const bool anchors_chain = kCubeOps.count(anchor.op_type) || fusable_.count(anchor.op_type);
    nlohmann::json fused_attrs = nlohmann::json::array();
    bool any_fused_attrs = false;
    while (value && anchors_chain) {
      const auto next = sole_consumer(*value);
      if (!next || taken[*next]) break;
      const Node& node = graph_.nodes[*next];
      if (fused_already(node)) break;
      const bool folds = anchor.op_type == "Conv" && node.op_type == "BatchNormalization";
      if (may_fuse_ && !folds && !may_fuse_(node)) break;
      if (anchor.op_type == "Conv" && op.task.fused_ops.empty() && foldable_batch_norm(node, *value)) {
        // Folded: the conv's weights and bias absorb scale and shift, so it costs nothing at run time.
        if (op.task.inputs.size() == 2) op.task.inputs.push_back(graph_.tensor(node.inputs[2]));
      } else if (fusable_.count(node.op_type) && kBinaryOps.count(node.op_type)) {
        const auto operand = fusable_operand(anchor, node, *value);
        if (!operand) break;
        op.task.inputs.push_back(*operand);
        op.task.fused_ops.push_back(node.op_type);
      } else if (fusable_.count(node.op_type) && !node.inputs.empty() && node.inputs[0] == *value) {
        op.task.fused_ops.push_back(node.op_type);
      } else {
        break;
      }
      if (node.op_type != "BatchNormalization") {
        fused_attrs.push_back(node.attrs);
        any_fused_attrs = any_fused_attrs || !node.attrs.empty();
      }
      taken[*next] = true;
      tail = *next;
      add_names(op, node.name);
      op.op_types.push_back(node.op_type);
      value = single_output(node);
    }
    if (any_fused_attrs) op.task.attrs["fused_attrs"] = fused_attrs;

    for (const auto& output : present(graph_.nodes[tail].outputs)) op.task.outputs.push_back(graph_.tensor(output));
    for (const auto& name : op.node_names) op.task.name += (op.task.name.empty() ? "" : "+") + name;
    return op;
  }

  const Graph& graph_;
  const std::set<std::string>& fusable_;
  const std::map<std::string, std::vector<std::string>>& members_;
  const MayFuse& may_fuse_;
  std::map<std::string, std::vector<size_t>> consumers_;
  std::set<std::string> outputs_;
};

}  // namespace fusion_detail

// `fusable` are the op types the device runs fused after an anchor (its
// describe()'s "fused_op_types"). Every node of the graph ends up in exactly
// one FusedOp, in graph order of the anchors.
// `members` names the model's nodes behind a node that stands for several
// (a recognised pattern); they are what FusedOp::node_names lists.
inline std::vector<FusedOp> fuse(const Graph& graph, const std::set<std::string>& fusable,
                                 const std::map<std::string, std::vector<std::string>>& members = {},
                                 const MayFuse& may_fuse = {}) {
  return fusion_detail::Fuser(graph, fusable, members, may_fuse).run();
}

}  // namespace aoe::sdk
