#include "step_subgraphs.h"

#include <algorithm>
#include <map>
#include <set>

#include "aoe/sdk/fusion.h"
#include "partition.h"
#include "step_kernels.h"
#include "training_step.h"

namespace aoe::sgat {
namespace {

using aoe::sdk::Graph;
using aoe::sdk::Node;
using aoe::training::StepKernel;
using aoe::training::TrainingStep;

struct Phase {
  const char* name;
  size_t begin, end;  // node indices of the step
};

std::vector<Phase> phases(const TrainingStep& step) {
  return {{"forward", 0, step.loss_begin},
          {"loss", step.loss_begin, step.backward_begin},
          {"backward", step.backward_begin, step.updates_begin},
          {"optimizer", step.updates_begin, step.graph.nodes.size()}};
}

// One node per kernel: a fused chain as its anchor reading every input the
// chain reads, with the followers' op types in the fused_ops attr.
Node kernel_node(const StepKernel& k) {
  const auto& task = k.op.task;
  Node n;
  n.name = task.name;
  n.op_type = task.op_type;
  n.attrs = task.attrs.is_object() ? task.attrs : nlohmann::json::object();
  n.attrs[aoe::sdk::kFusedOpsAttr] = task.fused_ops;
  for (const auto& t : task.inputs) n.inputs.push_back(t.name);
  for (const auto& t : task.outputs) n.outputs.push_back(t.name);
  return n;
}

// A kernel that reads nothing the phase makes (a Cast of a weight, which
// the step writes first of all) runs just before its first reader, so it
// joins that reader's subgraph rather than a piece of casts of the whole model.
std::vector<Node> beside_readers(std::vector<Node> nodes) {
  std::map<std::string, size_t> maker;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs) maker[o] = i;
  std::vector<bool> free(nodes.size(), false), placed(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i)
    free[i] = std::none_of(nodes[i].inputs.begin(), nodes[i].inputs.end(),
                           [&](const std::string& in) { return maker.count(in) && maker.at(in) != i; });
  std::vector<Node> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& in : nodes[i].inputs)
      if (const auto it = maker.find(in); it != maker.end() && free[it->second] && !placed[it->second]) {
        placed[it->second] = true;
        out.push_back(nodes[it->second]);
      }
    if (placed[i]) continue;
    bool read_here = false;
    for (size_t j = i + 1; j < nodes.size() && !read_here && free[i]; ++j)
      for (const auto& o : nodes[i].outputs)
        read_here = read_here || std::count(nodes[j].inputs.begin(), nodes[j].inputs.end(), o) > 0;
    if (read_here) continue;  // placed before its reader
    placed[i] = true;
    out.push_back(nodes[i]);
  }
  return out;
}

// Kernels in an order that runs each after what it reads: the anchors'
// order, but a chain may read what a later anchor's kernel makes (a
// residual Add fused after the BN of the other branch).
std::vector<Node> in_run_order(std::vector<Node> nodes) {
  std::map<std::string, size_t> maker;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs) maker[o] = i;
  std::vector<Node> out;
  std::vector<bool> done(nodes.size(), false);
  auto ready = [&](size_t i) {
    return std::all_of(nodes[i].inputs.begin(), nodes[i].inputs.end(), [&](const std::string& in) {
      const auto it = maker.find(in);
      return it == maker.end() || it->second == i || done[it->second];
    });
  };
  while (out.size() < nodes.size()) {
    size_t next = 0;
    while (next < nodes.size() && (done[next] || !ready(next))) ++next;
    if (next == nodes.size()) next = std::find(done.begin(), done.end(), false) - done.begin();  // a cycle: keep order
    done[next] = true;
    out.push_back(nodes[next]);
  }
  return out;
}

std::string short_name(const std::string& n) { return n.substr(0, n.find('+')); }

// "sg<i> <phase>: <first forward op>..<last>", as an inference subgraph is named by its nodes.
std::string subgraph_name(size_t index, const std::string& phase, const std::vector<std::string>& forward_ops) {
  std::string range = forward_ops.empty() ? std::string("?") : short_name(forward_ops.front());
  if (forward_ops.size() > 1) range += ".." + short_name(forward_ops.back());
  return "sg" + std::to_string(index) + " " + phase + ": " + range;
}

}  // namespace

StepSubgraphs step_subgraphs(const Graph& model, const nlohmann::json& job_options, const nlohmann::json& described,
                             const std::set<std::string>& fusable) {
  const auto options = aoe::training::step_options(job_options, described);
  const TrainingStep step = aoe::training::derive_training_step(model, options);
  const auto kernels = aoe::training::fuse_step(step, fusable);
  StepSubgraphs out;
  out.optimizer = aoe::training::to_string(options.optimizer);
  out.mixed = options.mixed;
  for (const auto& [type, count] : aoe::training::kernel_counts(kernels)) out.kernels += count;

  std::map<std::string, size_t> position;  // step node -> its index
  for (size_t i = 0; i < step.graph.nodes.size(); ++i) position[step.graph.nodes[i].name] = i;
  // Each kernel's forward ops: those of the nodes it runs, in order, once each.
  std::map<std::string, std::vector<std::string>> forward_ops_of;
  std::map<std::string, size_t> phase_of;  // tensor -> the phase of the kernel that writes it
  const auto all = phases(step);
  std::vector<std::vector<Node>> by_phase(all.size());
  for (const auto& k : kernels) {
    auto& ops = forward_ops_of[k.op.task.name];
    for (const auto& name : k.op.node_names) {
      const auto it = step.forward_of.find(name);
      const std::string& op = it == step.forward_of.end() ? name : it->second;
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    }
    const size_t at = position.at(k.op.node_names.front());
    size_t p = 0;
    while (p + 1 < all.size() && at >= all[p].end) ++p;
    by_phase[p].push_back(kernel_node(k));
    for (const auto& t : k.op.task.outputs) phase_of[t.name] = p;
  }
  // What a later phase reads, or the step's outputs: each subgraph hands on
  // what it writes of these, though its own phase reads them no more.
  std::set<std::string> read_later;
  for (size_t p = 0; p < by_phase.size(); ++p)
    for (const auto& n : by_phase[p])
      for (const auto& in : n.inputs)
        if (const auto it = phase_of.find(in); it != phase_of.end() && it->second < p) read_later.insert(in);
  for (const auto& o : step.graph.outputs) read_later.insert(o);

  for (size_t p = 0; p < by_phase.size(); ++p) {
    if (by_phase[p].empty()) continue;
    Graph g;
    g.name = all[p].name;
    g.opset = step.graph.opset;
    g.tensors = step.graph.tensors;
    g.nodes = in_run_order(beside_readers(std::move(by_phase[p])));
    // Cut by the phase's own flow, as an inference graph is: no output is
    // read at its end, so what the backward keeps does not glue the forward.
    for (auto& sg : aoe::graph::partition(g, {})) {
      for (const auto& n : sg.graph.nodes)
        for (const auto& o : n.outputs)
          if (read_later.count(o) && std::find(sg.graph.outputs.begin(), sg.graph.outputs.end(), o) == sg.graph.outputs.end())
            sg.graph.outputs.push_back(o);
      SubgraphGroup group;
      group.phase = all[p].name;
      for (const auto& n : sg.graph.nodes)
        for (const auto& op : forward_ops_of[n.name])
          if (std::find(group.forward_ops.begin(), group.forward_ops.end(), op) == group.forward_ops.end())
            group.forward_ops.push_back(op);
      sg.name = subgraph_name(out.subgraphs.size(), group.phase, group.forward_ops);
      sg.graph.name = sg.name;
      group.occurrences = {sg.name};
      group.task = std::move(sg);
      out.subgraphs.push_back(std::move(group));
    }
  }
  return out;
}

}  // namespace aoe::sgat
