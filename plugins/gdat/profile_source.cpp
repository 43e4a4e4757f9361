#include "profile_source.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "device_timing.h"
#include "model_gradients.h"
#include "step_timing.h"
#include "units.h"

namespace aoe::gdat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

GradientProfile from_model(const aoe::sdk::Job& job, const LogLine& log) {
  if (job.options().value("training", false)) return profile_from_step(job, log);
  const std::string model = job.options().value("model_name", job.graph().name);
  const auto tensors = trainable_tensors(job.graph());
  if (tensors.empty())
    throw Error(StatusCode::invalid_argument,
                "model " + model + " has no trained weights (float initializers of Conv, Gemm, MatMul, "
                "normalisation or bias nodes): no gradient to allreduce");
  const NodeTimes times = forward_times(job);
  std::vector<double> backward;
  double forward = 0;
  for (double us : times.forward_us) backward.push_back(kBackwardFactor * us), forward += us;
  const std::string device = job.options().value("soc_version", std::string("the device"));
  std::string line = std::to_string(times.timed) + " nodes timed on " + device + " with default configs";
  if (times.estimated) line += ", " + std::to_string(times.estimated) + " estimated at HBM bandwidth (" + times.estimated_ops + ")";
  if (times.views) line += ", " + std::to_string(times.views) + " views";
  log(line + "; backward = 2 x forward");
  char factor[16];
  std::snprintf(factor, sizeof factor, "%.0f", kBackwardFactor);
  return profile_from_model(tensors, backward, forward,
                            "device " + device + " (default configs; backward = " + factor + " x forward)");
}

// Sizes from the file in its definition order, ready times of the same
// tensors in the model.
GradientProfile sizes_from_file(const aoe::sdk::Job& job, const ProfileFile& file, const std::string& path,
                                const LogLine& log) {
  const GradientProfile model = from_model(job, log);
  std::map<std::string, double> ready;
  for (const auto& g : model.grads) ready[comparable_name(g.name)] = g.ready_us;
  GradientProfile p;
  std::vector<std::string> missing;
  for (auto it = file.rows.rbegin(); it != file.rows.rend(); ++it) {
    const auto found = ready.find(comparable_name(it->name));
    if (found == ready.end()) {
      missing.push_back(it->name);
      continue;
    }
    p.grads.push_back({it->name, it->bytes, found->second});
  }
  if (!missing.empty())
    throw Error(StatusCode::invalid_argument,
                "gradient profile " + path + " has no ready_us column, and " + std::to_string(missing.size()) + " of its " +
                    std::to_string(file.rows.size()) + " tensors are not weights of model " +
                    job.options().value("model_name", std::string()) + " (first: " + missing.front() +
                    "): add a ready_us column, or pass the model the tensors belong to");
  std::stable_sort(p.grads.begin(), p.grads.end(),
                   [](const Gradient& a, const Gradient& b) { return a.ready_us < b.ready_us; });
  p.backward_us = model.backward_us;
  p.forward_us = file.forward_us.value_or(model.forward_us);
  p.source = "sizes from " + path + ", ready times from " + model.source;
  return p;
}

}  // namespace

GradientProfile gradient_profile(const aoe::sdk::Job& job, const LogLine& log) {
  const std::string path = job.options().value("gradient_profile", std::string());
  GradientProfile p;
  if (path.empty()) {
    p = from_model(job, log);
    check_profile(p, "model " + job.options().value("model_name", std::string()));
  } else {
    const ProfileFile file = read_profile_csv(path);
    p = file.has_ready ? profile_from_file(file, path) : sizes_from_file(job, file, path, log);
    check_profile(p, "gradient profile " + path);
  }
  char line[160];
  std::snprintf(line, sizeof line, "gradients: %zu tensors, %s, forward %.3f ms, backward %.3f ms; ", p.size(),
                format_bytes(static_cast<double>(p.total_bytes())).c_str(), p.forward_us / 1000, p.backward_us / 1000);
  log(line + p.source);
  return p;
}

}  // namespace aoe::gdat
