#include "device_timing.h"

#include <set>

namespace aoe::gdat {
namespace {

using aoe::sdk::Graph;
using aoe::sdk::Node;
using aoe::sdk::OpTask;

bool is_view(const std::string& op_type) {
  static const std::set<std::string> views = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout",
                                              "Shape",   "Size",    "Constant"};
  return views.count(op_type) > 0;
}

bool known(const OpTask& task) {
  for (const auto* side : {&task.inputs, &task.outputs})
    for (const auto& t : *side)
      if (!t.fully_known()) return false;
  return true;
}

OpTask task_of(const Graph& graph, const Node& node) {
  OpTask task;
  task.name = node.name;
  task.op_type = node.op_type;
  task.attrs = node.attrs;
  for (const auto& in : node.inputs)
    if (!in.empty()) task.inputs.push_back(graph.tensor(in));
  for (const auto& out : node.outputs)
    if (!out.empty()) task.outputs.push_back(graph.tensor(out));
  return task;
}

double bytes_moved(const OpTask& task) {
  double bytes = 0;
  for (const auto* side : {&task.inputs, &task.outputs})
    for (const auto& t : *side)
      if (t.fully_known()) bytes += static_cast<double>(t.elements()) * aoe::sdk::dtype_bytes(t.dtype);
  return bytes;
}

}  // namespace

TaskTimer::TaskTimer(const aoe::sdk::Job& job) : job_(job) {
  const auto described = job.device().describe();
  hbm_bytes_per_us_ = described.value("hbm_gbps", 0.0) * 1e3;
  launch_us_ = described.value("launch_us", 0.0);
}

double TaskTimer::time(const OpTask& task) {
  const std::string signature = task.signature();
  auto cached = by_signature_.find(signature);
  if (cached == by_signature_.end()) {
    Timing t;
    if (known(task)) {
      try {
        const auto prepared = job_.device().prepare(task);
        const auto m = prepared->evaluate({prepared->space().default_config}, {})[0];
        if (m.ok()) t = {m.time_us, true};
      } catch (const aoe::sdk::Error&) {
        // Not modelled by the device: estimated below.
      }
    }
    if (!t.timed && hbm_bytes_per_us_ > 0) t.us = bytes_moved(task) / hbm_bytes_per_us_ + launch_us_;
    cached = by_signature_.emplace(signature, t).first;
  }
  if (cached->second.timed) {
    ++timed_;
  } else {
    ++estimated_;
    ++estimated_by_type_[task.op_type];
  }
  return cached->second.us;
}

std::string TaskTimer::estimated_ops() const {
  std::string out;
  for (const auto& [type, count] : estimated_by_type_)
    out += (out.empty() ? "" : ", ") + type + " x" + std::to_string(count);
  return out;
}

NodeTimes forward_times(const aoe::sdk::Job& job) {
  const Graph& graph = job.graph();
  TaskTimer timer(job);
  NodeTimes out;
  for (const auto& node : graph.nodes) {
    if (job.host().cancelled()) break;
    if (is_view(node.op_type)) {
      out.forward_us.push_back(0);
      ++out.views;
      continue;
    }
    out.forward_us.push_back(timer.time(task_of(graph, node)));
  }
  while (out.forward_us.size() < graph.nodes.size()) out.forward_us.push_back(0);
  out.timed = timer.timed();
  out.estimated = timer.estimated();
  out.estimated_ops = timer.estimated_ops();
  return out;
}

}  // namespace aoe::gdat
