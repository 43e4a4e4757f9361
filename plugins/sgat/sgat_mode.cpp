// SGAT: subgraph tuning. The model is split into subgraphs (partition.h);
// each distinct one is tuned on the device as a whole (which ops fuse, the
// layout of each tensor, what stays on chip, with the operators' tilings)
// through the subgraph bank, so OPAT can then tune operators inside it.
// With --training the subgraphs are those of the training step derived from
// the model (step_subgraphs.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "aoe/sdk/plugin.h"
#include "device_fusion.h"
#include "journal.h"
#include "op_configs.h"
#include "partition.h"
#include "patterns.h"
#include "plan_file.h"
#include "rank_farm.h"
#include "report_fields.h"
#include "sgat_report.h"
#include "step_subgraphs.h"
#include "subgraph_tuner.h"
#include "task_farming.h"

namespace aoe::sgat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

TuneOptions tune_options(const json& opts, const json& described) {
  TuneOptions options;
  aoe::modes::read_tune_options(opts, described, options);
  return options;
}

// Subgraphs with one repo_key are one task, as the bank would make them.
std::vector<SubgraphGroup> group_subgraphs(std::vector<SubgraphGroup> subgraphs) {
  std::vector<SubgraphGroup> groups;
  std::map<std::string, size_t> by_key;
  for (auto& sg : subgraphs) {
    const auto key = sg.task.hash();
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      by_key[key] = groups.size();
      groups.push_back(std::move(sg));
    } else {
      groups[it->second].occurrences.push_back(sg.task.name);
    }
  }
  return groups;
}

// The model's subgraphs, or with --training its training step's, described
// for the report (null for the model's).
std::vector<SubgraphGroup> subgraphs_to_tune(const aoe::sdk::Job& job, const json& described,
                                             const std::set<std::string>& fusable, json& training_step) {
  std::vector<SubgraphGroup> subgraphs;
  if (!job.options().value("training", false)) {
    const auto recognised = aoe::graph::recognise_patterns(job.graph());
    for (auto& sg : aoe::graph::partition(recognised.graph, fusable)) subgraphs.push_back({sg, {sg.name}, {}, {}});
    return subgraphs;
  }
  auto step = step_subgraphs(job.graph(), job.options(), described, fusable);
  std::map<std::string, size_t> per_phase;
  for (const auto& sg : step.subgraphs) ++per_phase[sg.phase];
  std::string phases;
  for (const char* phase : {"forward", "loss", "backward", "optimizer"})
    phases += (phases.empty() ? "" : ", ") + std::string(phase) + " " + std::to_string(per_phase[phase]);
  job.host().info("training step (" + step.optimizer + ", " + (step.mixed ? "mixed precision" : "fp32") + "): " +
                  std::to_string(step.kernels) + " kernels in " + std::to_string(step.subgraphs.size()) +
                  " subgraphs (" + phases + ")");
  training_step = {{"optimizer", step.optimizer},
                   {"precision", step.mixed ? "mixed" : "fp32"},
                   {"kernels", step.kernels}};
  return std::move(step.subgraphs);
}

// The forward ops a training step's subgraph comes from, as one text.
std::string forward_ops_text(const SubgraphGroup& group) {
  std::string out;
  for (const auto& op : group.forward_ops) out += (out.empty() ? "" : ", ") + op;
  return out;
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

// What a subgraph costs to tune, roughly: its nodes' output elements.
// Under mpirun the largest go out first.
double size_estimate(const SubgraphGroup& group) {
  double elements = 0;
  for (const auto& node : group.task.graph.nodes)
    for (const auto& out : node.outputs) {
      const auto it = group.task.graph.tensors.find(out);
      if (it == group.task.graph.tensors.end()) continue;
      double n = 1;
      for (auto d : it->second.shape) n *= static_cast<double>(std::max<int64_t>(d, 1));
      elements += n;
    }
  return std::max(elements, static_cast<double>(group.task.graph.nodes.size()));
}

std::string note_for(uint64_t evaluations, double best_us) {
  char note[64];
  std::snprintf(note, sizeof note, ": best %.2f us, %llu evaluations", best_us, static_cast<unsigned long long>(evaluations));
  return note;
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
    std::filesystem::path workspace = opts.value("workspace", "");
    if (workspace.empty()) throw Error(StatusCode::invalid_argument, "SGAT needs a workspace directory");
    TuneOptions options = tune_options(opts, described);
    const std::string model = opts.value("model_name", "");

    const auto fusable = aoe::modes::fused_op_types(described);
    json training_step;
    const auto groups = group_subgraphs(subgraphs_to_tune(job, described, fusable, training_step));
    size_t total = 0;
    for (const auto& g : groups) total += g.occurrences.size();
    if (training_step.is_null())
      job.host().info(std::to_string(job.graph().nodes.size()) + " nodes split into " + std::to_string(total) +
                      " subgraphs, " + std::to_string(groups.size()) + " distinct");
    else
      job.host().info(std::to_string(total) + " subgraphs of the training step, " + std::to_string(groups.size()) +
                      " distinct");

    std::string why_not;
    const auto farm = aoe::modes::RankFarm::join(why_not);
    std::string suffix;  // under mpirun, a measurement log and a journal per rank, in rank 0's workspace
    if (farm) {
      std::vector<std::string> ids;
      for (const auto& g : groups) ids.push_back(g.task.hash());
      aoe::modes::check_same_target(*farm, {{"device", opts.value("device", "")}, {"soc_version", options.soc_version}}, ids,
                                    described.value("measures_on_host_cpus", false));
      workspace = farm->broadcast(workspace.string());
      if (farm->rank() > 0) suffix = ".rank" + std::to_string(farm->rank());
    }
    aoe::modes::MeasurementLog log(workspace / ("measurements" + suffix + ".jsonl"));
    options.log = &log;
    const bool reload = opts.value("reload", false);
    Journal journal(workspace / "sgat" / ("journal" + suffix + ".jsonl"), reload,
                    {model, opts.value("device", std::string()), options.soc_version});
    if (reload)
      job.host().info("reload: " + std::to_string(journal.loaded()) + " measurements from " + workspace.string() +
                      (journal.foreign() ? "; " + std::to_string(journal.foreign()) +
                                               " of another model, device or SoC kept and not used"
                                         : std::string()));
    // A training step's strategies beside the inference graph's, not over them.
    const auto plan_file = workspace / "tunespace" / "result" /
                           (model + (training_step.is_null() ? "_sgat_plan.json" : "_sgat_training_plan.json"));

    // Tunes subgraph i without banking it; between_batches runs after each search batch.
    // Subgraph i with its kernels' tilings from the operator bank.
    auto tiled_group = [&](size_t i) {
      SubgraphGroup group = groups[i];
      group.task.op_configs = op_configs_from_bank(job, group.task, fusable, options.soc_version,
                                                   banked_decisions(job, group.task, options.soc_version));
      return group;
    };
    auto measure = [&](size_t i, const std::function<void()>& between_batches) {
      const SubgraphGroup group = tiled_group(i);
      job.host().progress("subgraph", i + 1, groups.size(), group.task.name);
      auto on_batch = [&](uint64_t evaluations, double best_us) {
        job.host().progress("subgraph", i + 1, groups.size(), group.task.name + note_for(evaluations, best_us));
        between_batches();
      };
      return TunedSubgraph{group, measure_subgraph(job, group.task, options, journal, on_batch, forward_ops_text(group))};
    };
    std::vector<std::optional<TunedSubgraph>> by_task(groups.size());
    auto finish = [&](TunedSubgraph t, size_t i, const std::string& by) {
      bank_subgraph_result(job.host(), t.result);
      job.host().info(line_for(t) + by);
      by_task[i] = std::move(t);
      const auto done = aoe::modes::finished_in_order(by_task);
      job.publish(sgat_report(done, false, training_step));
      aoe::modes::write_plan(plan_file, tuned_plan(model, done));
    };

    std::vector<size_t> tuned;
    if (!farm) {
      for (size_t i = 0; i < groups.size() && !job.host().cancelled(); ++i) finish(measure(i, [] {}), i, "");
    } else if (farm->rank() > 0) {
      aoe::modes::follow_tasks(*farm, groups.size(),
                               [&](size_t i) { return to_json(measure(i, [&] { farm->heartbeat(); }).result); });
      return sgat_report({}, !job.host().cancelled(), training_step);  // rank 0 reports for every rank
    } else {
      job.host().info(std::to_string(groups.size()) + " subgraphs to tune across " + std::to_string(farm->size()) +
                      " ranks of mpirun");
      auto farmed = aoe::modes::farmed_run<SubgraphResult>(job, opts);
      farmed.tune_here = [&](size_t i, const std::function<void()>& serve) { return to_json(measure(i, serve).result); };
      farmed.finished = [&](size_t i, const json& outcome, int rank) {
        finish({tiled_group(i), subgraph_result_from_json(outcome)}, i, " (rank " + std::to_string(rank) + ")");
      };
      std::vector<double> estimates;
      for (const auto& g : groups) estimates.push_back(size_estimate(g));
      tuned = aoe::modes::lead_tasks(*farm, aoe::modes::largest_first(estimates), farmed);
    }
    const auto done = aoe::modes::finished_in_order(by_task);
    const bool complete = done.size() == groups.size() && !job.host().cancelled();
    json report = sgat_report(done, complete, training_step);
    if (farm) report["mpi"] = {{"ranks", farm->size()}, {"tasks_per_rank", tuned}};
    return report;
  }
};

}  // namespace
}  // namespace aoe::sgat

AOE_REGISTER_TUNING_MODE(aoe::sgat::SgatMode, "sgat",
                         "subgraph tuning: fusion, layouts and on-chip residency of each subgraph, through the graph bank");
