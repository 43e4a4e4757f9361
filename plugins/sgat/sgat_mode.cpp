// SGAT: subgraph tuning. The model is split into subgraphs (partition.h);
// each distinct one is tuned on the device as a whole (which ops fuse, the
// layout of each tensor, what stays on chip, with the operators' tilings)
// through the subgraph bank, so OPAT can then tune operators inside it.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "aoe/sdk/plugin.h"
#include "device_fusion.h"
#include "journal.h"
#include "op_configs.h"
#include "partition.h"
#include "patterns.h"
#include "plan_file.h"
#include "report_fields.h"
#include "sgat_report.h"
#include "subgraph_tuner.h"

namespace aoe::sgat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

TuneOptions tune_options(const json& opts, const json& described) {
  TuneOptions options;
  options.limits.budget = opts.value("budget", uint64_t{64});
  options.limits.time_limit_s = opts.value("time_limit", 0.0);
  options.limits.stall = opts.value("stall", uint64_t{0});
  options.seed = opts.value("seed", uint64_t{0});
  options.repeat_tune = opts.value("repeat_tune", false);
  options.soc_version = opts.value("soc_version", "");
  options.batch = static_cast<uint32_t>(std::max<uint64_t>(1, opts.value("parallel_num", uint64_t{8})));
  options.build_threads = described.value("concurrent_build", false)
                              ? static_cast<unsigned>(std::max<uint64_t>(1, opts.value("build_threads", uint64_t{1})))
                              : 1;
  return options;
}

// Subgraphs with one repo_key are one task, as the bank would make them.
std::vector<SubgraphGroup> group_subgraphs(const std::vector<aoe::sdk::SubgraphTask>& subgraphs) {
  std::vector<SubgraphGroup> groups;
  std::map<std::string, size_t> by_key;
  for (const auto& sg : subgraphs) {
    const auto key = sg.hash();
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      by_key[key] = groups.size();
      groups.push_back({sg, {sg.name}});
    } else {
      groups[it->second].occurrences.push_back(sg.name);
    }
  }
  return groups;
}

std::string line_for(const TunedSubgraph& t) {
  const auto& r = t.result;
  const std::string head = t.group.task.name + " (" + std::to_string(t.group.task.graph.nodes.size()) + " nodes, x" +
                           std::to_string(t.group.occurrences.size()) + ")";
  if (r.outcome == Outcome::failed || r.outcome == Outcome::unsupported) return head + ": not tuned: " + r.reason;
  if (r.outcome == Outcome::interrupted) return head + ": interrupted";
  char figures[160];
  std::snprintf(figures, sizeof figures, ": %.2f us -> %.2f us (improved by %s), %llu evaluations", r.before_us,
                r.after_us, aoe::modes::percent(r.before_us, r.after_us).c_str(),
                static_cast<unsigned long long>(r.evaluations));
  const std::string replayed = r.replayed ? " (" + std::to_string(r.replayed) + " from the reloaded journal)" : "";
  const size_t tiled = t.group.task.op_configs.size();
  const std::string tilings = tiled ? ", " + std::to_string(tiled) + " kernels tiled from the operator bank" : "";
  return head + figures + replayed + tilings + ", bank: " + repo_word(r.outcome);
}

class SgatMode : public aoe::sdk::TuningMode {
 public:
  json run(const aoe::sdk::Job& job) override {
    const auto& opts = job.options();
    const json described = job.device().describe();
    if (!described.value("subgraphs", false))
      throw Error(StatusCode::unsupported, "the device (" + opts.value("soc_version", std::string("?")) +
                                               ") does not measure subgraphs: SGAT needs a device whose describe() "
                                               "says \"subgraphs\": true");
    const std::filesystem::path workspace = opts.value("workspace", "");
    if (workspace.empty()) throw Error(StatusCode::invalid_argument, "SGAT needs a workspace directory");
    TuneOptions options = tune_options(opts, described);
    aoe::modes::MeasurementLog log(workspace / "measurements.jsonl");
    options.log = &log;
    const std::string model = opts.value("model_name", "");

    const auto fusable = aoe::modes::fused_op_types(described);
    const auto recognised = aoe::graph::recognise_patterns(job.graph());
    const auto groups = group_subgraphs(aoe::graph::partition(recognised.graph, fusable));
    size_t total = 0;
    for (const auto& g : groups) total += g.occurrences.size();
    job.host().info(std::to_string(job.graph().nodes.size()) + " nodes split into " + std::to_string(total) +
                    " subgraphs, " + std::to_string(groups.size()) + " distinct");

    const bool reload = opts.value("reload", false);
    Journal journal(workspace / "sgat" / "journal.jsonl", reload,
                    {model, opts.value("device", std::string()), options.soc_version});
    if (reload)
      job.host().info("reload: " + std::to_string(journal.loaded()) + " measurements from " + workspace.string() +
                      (journal.foreign() ? "; " + std::to_string(journal.foreign()) +
                                               " of another model, device or SoC kept and not used"
                                         : std::string()));
    const auto plan_file = workspace / "tunespace" / "result" / (model + "_sgat_plan.json");

    std::vector<TunedSubgraph> done;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (job.host().cancelled()) break;
      SubgraphGroup group = groups[i];
      group.task.op_configs = op_configs_from_bank(job, group.task, fusable, options.soc_version,
                                                   banked_decisions(job, group.task, options.soc_version));
      job.host().progress("subgraph", i + 1, groups.size(), group.task.name);
      auto on_batch = [&](uint64_t evaluations, double best_us) {
        char note[64];
        std::snprintf(note, sizeof note, ": best %.2f us, %llu evaluations", best_us,
                      static_cast<unsigned long long>(evaluations));
        job.host().progress("subgraph", i + 1, groups.size(), group.task.name + note);
      };
      done.push_back({group, tune_subgraph(job, group.task, options, journal, on_batch)});
      job.host().info(line_for(done.back()));
      job.publish(sgat_report(done, false));
      aoe::modes::write_plan(plan_file, tuned_plan(model, done));
    }
    const bool complete = done.size() == groups.size() && !job.host().cancelled();
    return sgat_report(done, complete);
  }
};

}  // namespace
}  // namespace aoe::sgat

AOE_REGISTER_TUNING_MODE(aoe::sgat::SgatMode, "sgat",
                         "subgraph tuning: fusion, layouts and on-chip residency of each subgraph, through the graph bank");
