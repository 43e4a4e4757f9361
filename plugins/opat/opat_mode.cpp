// OPAT: operator tuning. Each tunable op of the model, grouped by signature,
// is tuned on the device with a searcher, through the knowledge bank.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "aoe/sdk/dropout_view.h"
#include "aoe/sdk/fusion.h"
#include "aoe/sdk/plugin.h"
#include "device_fusion.h"
#include "graph_strategy.h"
#include "op_tasks.h"
#include "opat_report.h"
#include "patterns.h"
#include "rank_farm.h"
#include "step_kernels.h"
#include "step_precision.h"
#include "training_step.h"
#include "task_farming.h"
#include "report_fields.h"
#include "task_tuner.h"
#include "tune_ops.h"
#include "tuned_plan.h"

namespace aoe::opat {
namespace {

std::string shape_text(const aoe::sdk::OpTask& op) {
  std::string out;
  for (const auto& t : op.inputs) {
    std::string dims = t.shape.empty() ? "scalar" : "";
    for (auto d : t.shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    out += (out.empty() ? "" : ", ") + dims;
  }
  return out;
}

// A fused op's console name: its first node, and how many more it holds.
std::string short_name(const std::string& fused_name) {
  const auto nodes = std::count(fused_name.begin(), fused_name.end(), '+');
  if (nodes <= 2) return fused_name;
  return fused_name.substr(0, fused_name.find('+')) + " +" + std::to_string(nodes) + " nodes";
}

std::string line_for(const TunedTask& t) {
  const auto& r = t.result;
  const std::string head = short_name(t.group.task.name) + " (" + t.group.task.op_type + " " + shape_text(t.group.task) + ", x" +
                           std::to_string(t.group.node_names.size()) + ")";
  if (r.outcome == Outcome::failed) return head + ": not tuned: " + r.reason;
  if (r.outcome == Outcome::interrupted) return head + ": interrupted";
  char figures[160];
  std::snprintf(figures, sizeof figures, ": %.2f us -> %.2f us (improved by %s), %llu evaluations", r.before_us,
                r.after_us, aoe::modes::percent(r.before_us, r.after_us).c_str(),
                static_cast<unsigned long long>(r.evaluations));
  const std::string by = r.searcher.empty() ? "" : " (" + r.searcher + ")";
  return head + figures + by + ", bank: " + to_string(r.outcome);
}

// One line for what the device cannot run, by op type, instead of one per node.
void log_unsupported(const aoe::sdk::Job& job, const std::vector<TunedTask>& done) {
  std::map<std::string, size_t> by_type;
  for (const auto& t : done)
    if (t.result.outcome == Outcome::unsupported) by_type[t.group.task.op_type] += t.group.node_names.size();
  if (by_type.empty()) return;
  std::string list;
  for (const auto& [type, count] : by_type) list += (list.empty() ? "" : ", ") + type + " x" + std::to_string(count);
  job.host().info("not tuned, the device does not run them: " + list);
}

TuneOptions tune_options(const nlohmann::json& opts, const aoe::sdk::Job& job) {
  TuneOptions options;
  aoe::modes::read_tune_options(opts, job.device().describe(), options);
  options.warm_start = opts.value("warm_start", true);
  options.bank_default = opts.value("bank_default", false);
  return options;
}

// Ops that only relabel a tensor's shape or pass it through: an inference
// compiler emits no kernel for them, so there is nothing to tune. A Dropout
// that gives its mask or drops in training is a kernel.
bool needs_no_kernel(const FusedOp& op) {
  static const std::set<std::string> views = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                              "Dropout", "Shape",   "Size",    "Constant"};
  if (op.op_types.size() != 1 || !views.count(op.op_types.front())) return false;
  return op.op_types.front() != "Dropout" ||
         aoe::sdk::dropout_is_view(op.task.attrs, op.task.inputs.size() >= 3, op.task.outputs.size());
}

std::string counts_text(const std::map<std::string, size_t>& counts) {
  std::vector<std::pair<std::string, size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string list;
  for (const auto& [type, count] : sorted) list += (list.empty() ? "" : ", ") + type + " x" + std::to_string(count);
  return list;
}

// --training: the kernels of the step derived from the model, fused as far
// as the device fuses them, each named with the forward op it comes from.
std::vector<TaskGroup> training_tasks(const aoe::sdk::Job& job, const TuneOps& tune_ops) {
  const auto& opts = job.options();
  const auto described = job.device().describe();
  const auto step_options = aoe::training::step_options(opts, described);
  const auto step = aoe::training::derive_training_step(job.graph(), step_options);
  const auto kernels = aoe::training::fuse_step(step, aoe::modes::fused_op_types(described));
  std::vector<FusedOp> chosen;
  std::vector<std::string> forward_ops;
  for (const auto& k : kernels)
    if (!aoe::training::runs_no_kernel(k) && tune_ops.selects(k.op)) {
      chosen.push_back(k.op);
      forward_ops.push_back(k.forward_op);
    }
  const auto counts = aoe::training::kernel_counts(kernels);
  size_t total = 0;
  for (const auto& [type, count] : counts) total += count;
  job.host().info("training step (" + std::string(aoe::training::to_string(step_options.optimizer)) + ", " +
                  (step_options.mixed ? "mixed precision" : "fp32") + "): " + std::to_string(total) + " kernels: " +
                  counts_text(counts));
  if (!tune_ops.selects_all() && chosen.empty())
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          "tune_ops_file " + opts.value("tune_ops_file", "") + " selects no kernel of the training step");
  return group_tasks(chosen, forward_ops);
}

std::vector<TaskGroup> selected_tasks(const aoe::sdk::Job& job) {
  const auto& opts = job.options();
  const TuneOps tune_ops = opts.value("tune_ops_file", "").empty() ? TuneOps{}
                                                                    : TuneOps::from_file(opts.value("tune_ops_file", ""));
  if (opts.value("training", false)) return training_tasks(job, tune_ops);
  const aoe::graph::RecognisedGraph recognised = aoe::graph::recognise_patterns(job.graph());
  const auto fusable = aoe::modes::fused_op_types(job.device().describe());
  const auto strategy =
      GraphStrategy::from_bank(job, recognised.graph, recognised.members, fusable, opts.value("soc_version", ""));
  if (strategy.subgraphs_followed() > 0)
    job.host().info("following the subgraph bank's strategy for " + std::to_string(strategy.subgraphs_followed()) +
                    " of " + std::to_string(strategy.subgraphs_seen()) + " subgraphs");
  auto fused = aoe::sdk::fuse(recognised.graph, fusable, recognised.members,
                              [&](const aoe::sdk::Node& node) { return strategy.may_fuse(node); });
  std::vector<FusedOp> chosen;
  std::map<std::string, size_t> views;
  for (auto& op : fused) {
    op.task = strategy.apply(op);
    if (needs_no_kernel(op))
      ++views[op.task.op_type];
    else if (tune_ops.selects(op))
      chosen.push_back(op);
  }
  if (!views.empty()) {
    std::string list;
    for (const auto& [type, count] : views) list += (list.empty() ? "" : ", ") + type + " x" + std::to_string(count);
    job.host().info("no kernel to tune for " + list);
  }
  job.host().info(std::to_string(job.graph().nodes.size()) + " nodes fused into " + std::to_string(fused.size()) +
                  " ops" + (tune_ops.selects_all() ? "" : ", " + std::to_string(chosen.size()) + " chosen by tune_ops_file"));
  if (!tune_ops.selects_all() && chosen.empty())
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          "tune_ops_file " + opts.value("tune_ops_file", "") + " selects no op of the model");
  return group_tasks(chosen);
}

std::string best_note(const std::string& op, uint64_t evaluations, uint64_t budget, double best_us) {
  char text[96];
  std::snprintf(text, sizeof text, ": best %.2f us, %llu/%llu evaluations", best_us,
                static_cast<unsigned long long>(evaluations), static_cast<unsigned long long>(budget));
  return op + text;
}

// What a task costs to tune, roughly: its tensors' elements. Under mpirun
// the largest go out first, so no rank is left with a big one at the end.
double size_estimate(const TaskGroup& group) {
  double elements = 0;
  for (const auto* side : {&group.task.inputs, &group.task.outputs})
    for (const auto& t : *side) {
      double n = 1;
      for (auto d : t.shape) n *= static_cast<double>(std::max<int64_t>(d, 1));
      elements += n;
    }
  return elements;
}

std::string rank_text(const std::vector<size_t>& tuned) {
  std::string out;
  for (size_t rank = 0; rank < tuned.size(); ++rank)
    out += (out.empty() ? "" : ", ") + std::to_string(rank) + ": " + std::to_string(tuned[rank]);
  return out;
}

class OpatMode : public aoe::sdk::TuningMode {
 public:
  nlohmann::json run(const aoe::sdk::Job& job) override {
    const auto& opts = job.options();
    TuneOptions options = tune_options(opts, job);
    const auto groups = selected_tasks(job);
    std::string why_not;
    if (const auto farm = aoe::modes::RankFarm::join(why_not)) return run_across(job, *farm, groups, options);
    const std::string model = opts.value("model_name", "");
    const std::filesystem::path workspace = opts.value("workspace", "");
    aoe::modes::MeasurementLog log(workspace.empty() ? workspace : workspace / "measurements.jsonl");
    options.log = &log;
    const auto plan_file = workspace / "tunespace" / "result" / (model + "_tuned_plan.json");
    job.host().info(std::to_string(groups.size()) + " op tasks to tune");

    std::vector<TunedTask> done;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (job.host().cancelled()) break;
      const auto name = short_name(groups[i].task.name);
      job.host().progress("task", i + 1, groups.size(), name + " (" + groups[i].task.op_type + ")");
      auto on_batch = [&](uint64_t evaluations, double best_us) {
        job.host().progress("task", i + 1, groups.size(), best_note(name, evaluations, options.limits.budget, best_us));
      };
      done.push_back({groups[i], tune_task(job, groups[i], options, on_batch)});
      if (done.back().result.outcome == Outcome::unsupported)
        job.host().debug(line_for(done.back()));
      else
        job.host().info(line_for(done.back()));
      job.publish(opat_report(done, false));
      if (!workspace.empty()) write_plan(plan_file, tuned_plan(model, done));
    }
    log_unsupported(job, done);
    const bool complete = done.size() == groups.size() && !job.host().cancelled();
    return opat_report(done, complete);
  }

 private:
  // Under mpirun: every rank measures the tasks rank 0 hands it on its own
  // device; rank 0 banks each outcome and publishes the report as they come.
  nlohmann::json run_across(const aoe::sdk::Job& job, const aoe::modes::RankFarm& farm,
                            const std::vector<TaskGroup>& groups, TuneOptions options) {
    const auto& opts = job.options();
    std::vector<std::string> task_ids;
    for (const auto& g : groups) task_ids.push_back(g.task.hash());
    aoe::modes::check_same_target(farm, {{"device", opts.value("device", "")}, {"soc_version", opts.value("soc_version", "")}},
                                  task_ids, job.device().describe().value("measures_on_host_cpus", false));
    // One workspace, rank 0's, with a measurement log per rank.
    const std::filesystem::path workspace = farm.broadcast(opts.value("workspace", ""));
    const std::string log_name = farm.rank() == 0 ? "measurements.jsonl" : "measurements.rank" + std::to_string(farm.rank()) + ".jsonl";
    aoe::modes::MeasurementLog log(workspace.empty() ? workspace : workspace / log_name);
    options.log = &log;
    auto measure = [&](size_t i, const std::function<void()>& between_batches) {
      const auto name = short_name(groups[i].task.name);
      job.host().progress("task", i + 1, groups.size(), name + " (" + groups[i].task.op_type + ")");
      auto on_batch = [&](uint64_t evaluations, double best_us) {
        job.host().progress("task", i + 1, groups.size(), best_note(name, evaluations, options.limits.budget, best_us));
        between_batches();
      };
      return to_json(measure_task(job, groups[i], options, on_batch));
    };
    if (farm.rank() != 0) {
      aoe::modes::follow_tasks(farm, groups.size(), [&](size_t i) { return measure(i, [&] { farm.heartbeat(); }); });
      return opat_report({}, !job.host().cancelled());  // rank 0 reports for every rank
    }

    job.host().info(std::to_string(groups.size()) + " op tasks to tune across " + std::to_string(farm.size()) +
                    " ranks of mpirun, on " + opts.value("device", "") + " (" + opts.value("soc_version", "") + ") each");
    const std::string model = opts.value("model_name", "");
    const auto plan_file = workspace / "tunespace" / "result" / (model + "_tuned_plan.json");
    std::vector<std::optional<TunedTask>> by_task(groups.size());
    auto farmed = aoe::modes::farmed_run<TaskResult>(job, opts);
    farmed.tune_here = measure;
    farmed.finished = [&](size_t i, const nlohmann::json& outcome, int rank) {
      TunedTask t{groups[i], task_result_from_json(outcome)};
      bank_result(job.host(), t.result);
      const std::string line = line_for(t) + " (rank " + std::to_string(rank) + ")";
      if (t.result.outcome == Outcome::unsupported)
        job.host().debug(line);
      else
        job.host().info(line);
      by_task[i] = std::move(t);
      const auto done = aoe::modes::finished_in_order(by_task);
      job.publish(opat_report(done, false));
      if (!workspace.empty()) write_plan(plan_file, tuned_plan(model, done));
    };
    std::vector<double> estimates;
    for (const auto& g : groups) estimates.push_back(size_estimate(g));
    const auto tuned = aoe::modes::lead_tasks(farm, aoe::modes::largest_first(estimates), farmed);
    job.host().info("tasks per rank: " + rank_text(tuned));
    const auto done = aoe::modes::finished_in_order(by_task);
    log_unsupported(job, done);
    const bool complete = done.size() == groups.size() && !job.host().cancelled();
    auto report = opat_report(done, complete);
    report["mpi"] = {{"ranks", farm.size()}, {"tasks_per_rank", tuned}};
    return report;
  }
};

}  // namespace
}  // namespace aoe::opat
AOE_REGISTER_TUNING_MODE(aoe::opat::OpatMode, "opat", "operator tuning: tiling of each op, through the knowledge bank");
