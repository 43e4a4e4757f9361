#include "step_fusion.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

namespace aoe::training {
namespace {

using aoe::sdk::FusedOp;

// CANN fuses the BN gradient into the conv's weight gradient (FusedDbnDw) for
// a fixed list of ResNet-50's conv shapes at batch 32 or 256, as MindSpore's
// Ascend backend lists them: c_in, c_out, x_h, x_w, y_h, y_w, k_h, k_w.
bool dbn_dw_shape(const Graph& step, const std::vector<const Node*>& chain) {
  static const std::vector<std::array<int64_t, 8>> shapes = {
      {64, 256, 56, 56, 56, 56, 1, 1},  {256, 64, 56, 56, 56, 56, 1, 1},  {3, 64, 224, 224, 112, 112, 7, 7},
      {512, 128, 28, 28, 28, 28, 1, 1}, {64, 64, 56, 56, 56, 56, 3, 3},   {256, 512, 56, 56, 28, 28, 1, 1},
      {128, 512, 28, 28, 28, 28, 1, 1}, {256, 128, 56, 56, 56, 56, 1, 1}, {64, 64, 56, 56, 56, 56, 1, 1}};
  const Node& filter = *chain.back();
  const auto& x = step.tensor(filter.inputs[0]).shape;
  const auto& dy = step.tensor(filter.inputs[1]).shape;
  const auto& w = step.tensor(filter.outputs[0]).shape;
  if (x.size() != 4 || dy.size() != 4 || w.size() != 4 || (x[0] != 32 && x[0] != 256)) return false;
  const std::array<int64_t, 8> key = {x[1], dy[1], x[2], x[3], dy[2], dy[3], w[2], w[3]};
  return std::find(shapes.begin(), shapes.end(), key) != shapes.end();
}

class StepFuser {
 public:
  StepFuser(const TrainingStep& step, const std::set<std::string>& fusable)
      : step_(step), g_(step.graph), fusable_(fusable), taken_(g_.nodes.size(), false) {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      for (size_t k = 0; k < g_.nodes[i].inputs.size(); ++k)
        if (!g_.nodes[i].inputs[k].empty()) readers_[g_.nodes[i].inputs[k]].push_back({i, k});
  }

  std::vector<StepKernel> run() {
    std::vector<StepKernel> out;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (taken_[i]) continue;
      std::optional<StepKernel> fused;
      for (const auto& rule : step_fusion_rules()) {
        if (rule.anchor != g_.nodes[i].op_type || !device_fuses(rule)) continue;
        if ((fused = try_rule(rule, i))) break;
      }
      if (!fused) {
        taken_[i] = true;
        fused = kernel({i}, "");
      }
      out.push_back(std::move(*fused));
    }
    return out;
  }

 private:
  bool device_fuses(const StepFusionRule& rule) const {
    return std::all_of(rule.followers.begin(), rule.followers.end(),
                       [&](const std::string& f) { return fusable_.count(f) > 0; });
  }

  bool is_output(const std::string& t) const {
    return std::count(g_.outputs.begin(), g_.outputs.end(), t) > 0;
  }

  std::optional<StepKernel> try_rule(const StepFusionRule& rule, size_t anchor) {
    std::vector<size_t> chain = {anchor};
    for (size_t f = 0; f < rule.followers.size(); ++f) {
      const Node& last = g_.nodes[chain.back()];
      if (last.outputs.empty()) return std::nullopt;
      const std::string& value = last.outputs[0];
      const auto it = readers_.find(value);
      if (it == readers_.end()) return std::nullopt;
      const bool hidden = f > 0 || !rule.keeps_anchor_output;
      if (hidden && (it->second.size() != 1 || is_output(value))) return std::nullopt;
      std::optional<size_t> next;
      for (const auto& [reader, position] : it->second)
        if (!taken_[reader] && g_.nodes[reader].op_type == rule.followers[f] && position == chain_input(rule.followers[f]))
          next = reader;
      if (!next) return std::nullopt;
      chain.push_back(*next);
    }
    if (rule.applies) {
      std::vector<const Node*> nodes;
      for (size_t i : chain) nodes.push_back(&g_.nodes[i]);
      if (!rule.applies(g_, nodes)) return std::nullopt;
    }
    for (size_t i : chain) taken_[i] = true;
    auto k = kernel(chain, rule.kernel);
    // The table's outputs: a kept anchor output first, then the followers';
    // else the last follower's, then the anchor's others.
    auto& outs = k.op.task.outputs;
    outs.clear();
    auto add = [&](const std::vector<std::string>& names, size_t from) {
      for (size_t o = from; o < names.size(); ++o)
        if (!names[o].empty()) outs.push_back(g_.tensor(names[o]));
    };
    if (rule.keeps_anchor_output) {
      for (size_t i : chain) add(g_.nodes[i].outputs, 0);
    } else {
      add(g_.nodes[chain.back()].outputs, 0);
      add(g_.nodes[anchor].outputs, 1);
    }
    return k;
  }

  StepKernel kernel(const std::vector<size_t>& chain, const std::string& fusion) const {
    StepKernel k;
    const Node& anchor = g_.nodes[chain.front()];
    auto& task = k.op.task;
    task.op_type = anchor.op_type;
    task.attrs = anchor.attrs;
    nlohmann::json fused_attrs = nlohmann::json::array();
    bool any_attrs = false;
    for (size_t c = 0; c < chain.size(); ++c) {
      const Node& n = g_.nodes[chain[c]];
      const size_t handed = c == 0 ? n.inputs.size() : chain_input(n.op_type);
      for (size_t k_in = 0; k_in < n.inputs.size(); ++k_in)
        if (k_in != handed && !n.inputs[k_in].empty()) task.inputs.push_back(g_.tensor(n.inputs[k_in]));
      if (c > 0) {
        task.fused_ops.push_back(n.op_type);
        fused_attrs.push_back(n.attrs);
        any_attrs = any_attrs || !n.attrs.empty();
      }
      task.name += (task.name.empty() ? "" : "+") + n.name;
      k.op.node_names.push_back(n.name);
      k.op.op_types.push_back(n.op_type);
    }
    if (any_attrs) task.attrs["fused_attrs"] = fused_attrs;
    for (const auto& out : anchor.outputs)
      if (!out.empty()) task.outputs.push_back(g_.tensor(out));
    k.fusion = fusion;
    const auto it = step_.forward_of.find(anchor.name);
    k.forward_op = it == step_.forward_of.end() ? anchor.name : it->second;
    return k;
  }

  const TrainingStep& step_;
  const Graph& g_;
  const std::set<std::string>& fusable_;
  std::vector<bool> taken_;
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> readers_;
};

}  // namespace

const std::vector<StepFusionRule>& step_fusion_rules() {
  // Longer chains of an anchor first: they win where both would match.
  static const std::vector<StepFusionRule> rules = {
      {"FusionOp_Conv2D_BNTrainingReduce", "Conv", {"BNTrainingReduce"}, true},
      {"FusionOp_BNTrainingUpdate_Add_ReLUV2", "BNTrainingUpdate", {"Add", "Relu"}},
      {"FusionOp_BNTrainingUpdate_ReLUV2", "BNTrainingUpdate", {"Relu"}},
      {"FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", "Conv2DBackpropInput", {"AddN", "ReluGradV2"}},
      {"FusionOp_Conv2DBackpropInput_ReluGradV2", "Conv2DBackpropInput", {"ReluGradV2"}},
      {"FusionOp_MatMul_GeLU", "MatMul", {"Add", "Gelu"}},
      {"FusionOp_MatMul_GeLUGrad", "BatchMatMul", {"GeLUGrad"}},
      {"FusedMulApplyMomentum", "Mul", {"ApplyMomentum"}},
      {"FusedDbnDw", "BNTrainingReduceGrad", {"Conv2DBackpropFilter"}, true, dbn_dw_shape},
  };
  return rules;
}

size_t chain_input(const std::string& follower) {
  if (follower == "ApplyMomentum") return 2;
  if (follower == "Conv2DBackpropFilter") return 1;
  return 0;
}

std::vector<StepKernel> fuse_step(const TrainingStep& step, const std::set<std::string>& fusable) {
  return StepFuser(step, fusable).run();
}

}  // namespace aoe::training
