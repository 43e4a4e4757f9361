#include "step_timing.h"

#include <algorithm>
#include <map>

#include "device_fusion.h"
#include "device_timing.h"
#include "step_kernels.h"
#include "training_step.h"

namespace aoe::gdat {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

GradientProfile profile_from_step(const aoe::sdk::Job& job, const LogLine& log) {
  const auto described = job.device().describe();
  const auto options = aoe::training::step_options(job.options(), described);
  const auto step = aoe::training::derive_training_step(job.graph(), options);
  const auto kernels = aoe::training::fuse_step(step, aoe::modes::fused_op_types(described));
  const auto& nodes = step.graph.nodes;
  std::map<std::string, size_t> position;  // step node -> its index in the step
  std::map<std::string, size_t> producer;  // tensor -> the index of the step node that writes it
  for (size_t i = 0; i < nodes.size(); ++i) {
    position[nodes[i].name] = i;
    for (const auto& out : nodes[i].outputs) producer[out] = i;
  }
  std::vector<size_t> kernel_at(nodes.size());  // step node index -> the kernel that runs it
  for (size_t k = 0; k < kernels.size(); ++k)
    for (const auto& name : kernels[k].op.node_names) kernel_at[position.at(name)] = k;

  // Kernels run in order; each one's end, from the start of the backward.
  TaskTimer timer(job);
  GradientProfile p;
  std::vector<double> end_us(kernels.size(), 0);
  for (size_t k = 0; k < kernels.size() && !job.host().cancelled(); ++k) {
    const double us = aoe::training::runs_no_kernel(kernels[k]) ? 0 : timer.time(kernels[k].op.task);
    const size_t at = position.at(kernels[k].op.node_names.front());
    if (at < step.backward_begin) {
      p.forward_us += us;
    } else if (at < step.updates_begin) {
      p.backward_us += us;
      end_us[k] = p.backward_us;
    }
  }
  for (const auto& w : step.weights) {
    const auto grad = step.gradient_of.find(w);
    if (grad == step.gradient_of.end()) continue;
    const auto& desc = step.graph.tensor(grad->second);
    const double ready = end_us[kernel_at[producer.at(grad->second)]];
    p.grads.push_back({w, static_cast<uint64_t>(desc.elements()) * aoe::sdk::dtype_bytes(desc.dtype), ready});
  }
  if (p.grads.empty())
    throw Error(StatusCode::invalid_argument, "--training: the training step of model " +
                                                  job.options().value("model_name", job.graph().name) +
                                                  " updates no weight: no gradient to allreduce");
  // Ready order; weights finished by the same kernel keep the forward's order reversed, as backward reaches them.
  std::reverse(p.grads.begin(), p.grads.end());
  std::stable_sort(p.grads.begin(), p.grads.end(),
                   [](const Gradient& a, const Gradient& b) { return a.ready_us < b.ready_us; });

  const std::string device = job.options().value("soc_version", std::string("the device"));
  const std::string precision = options.mixed ? "mixed precision" : "fp32";
  std::string line = "training step (" + std::string(aoe::training::to_string(options.optimizer)) + ", " + precision +
                     "): " + std::to_string(timer.timed()) + " kernels timed on " + device + " with default configs";
  if (timer.estimated())
    line += ", " + std::to_string(timer.estimated()) + " estimated at HBM bandwidth (" + timer.estimated_ops() + ")";
  log(line + "; backward from the step's own kernels");
  p.source = "training step on " + device + " (" + precision + ", default configs; backward from its kernels)";
  return p;
}

}  // namespace aoe::gdat
