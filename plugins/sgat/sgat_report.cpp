#include "sgat_report.h"

#include "report_fields.h"

namespace aoe::sgat {
namespace {

using aoe::modes::percent;
using nlohmann::json;

json node_names(const aoe::sdk::SubgraphTask& t) {
  json out = json::array();
  for (const auto& n : t.graph.nodes) out.push_back(n.name);
  return out;
}

// AOE's repo_key is a decimal string; the bank names its file by the same
// 64-bit hash in hex, kept beside it as bank_entry.
std::string repo_key(const aoe::sdk::SubgraphTask& t) {
  return std::to_string(std::stoull(t.hash(), nullptr, 16));
}

json modified_subgraph(const TunedSubgraph& t) {
  return {{"subgraph_name", t.group.task.name},
          {"repo_key", repo_key(t.group.task)},
          {"bank_entry", t.group.task.hash()},
          {"performance_before_tune(ms)", t.result.before_us / 1000},
          {"performance_after_tune(ms)", t.result.after_us / 1000},
          {"performance_improvement", percent(t.result.before_us, t.result.after_us)}};
}

// Each phase of a training step: its subgraphs, how many the device did not
// take, and the time of those it did, before and after tuning.
json phase_figures(const std::vector<TunedSubgraph>& done) {
  json out = json::object();
  for (const char* phase : {"forward", "loss", "backward", "optimizer"})
    out[phase] = {{"subgraphs", 0}, {"distinct", 0}, {"untuned", 0},
                  {"performance_before_tune(ms)", 0.0}, {"performance_after_tune(ms)", 0.0}};
  for (const auto& t : done) {
    if (!out.contains(t.group.phase) || t.result.outcome == Outcome::interrupted) continue;
    json& p = out[t.group.phase];
    const auto instances = t.group.occurrences.size();
    p["subgraphs"] = p["subgraphs"].get<size_t>() + instances;
    p["distinct"] = p["distinct"].get<size_t>() + 1;
    if (t.result.outcome == Outcome::failed || t.result.outcome == Outcome::unsupported) {
      p["untuned"] = p["untuned"].get<size_t>() + instances;
      continue;
    }
    p["performance_before_tune(ms)"] = p["performance_before_tune(ms)"].get<double>() + t.result.before_us * instances / 1000;
    p["performance_after_tune(ms)"] = p["performance_after_tune(ms)"].get<double>() + t.result.after_us * instances / 1000;
  }
  return out;
}

}  // namespace

json sgat_report(const std::vector<TunedSubgraph>& done, bool complete, const json& training_step) {
  json added = json::array(), updated = json::array(), failed = json::array(), subgraphs = json::array();
  json unsupported = json::array();
  // The nodes of every subgraph the model figures leave out: neither tuned
  // nor timed (the device does not run one of its ops, or it failed).
  json untimed = json::array();
  int add = 0, update = 0, reserved = 0, unsatisfied = 0;
  double baseline_us = 0, result_us = 0, untuned_us = 0;
  for (const auto& t : done) {
    const auto& r = t.result;
    if (r.outcome == Outcome::failed || r.outcome == Outcome::unsupported || r.outcome == Outcome::interrupted)
      for (const auto& n : t.group.task.graph.nodes) untimed.push_back(n.name);
    if (r.outcome == Outcome::interrupted) continue;
    json head = {{"subgraph_name", t.group.task.name}, {"repo_key", repo_key(t.group.task)},
                 {"bank_entry", t.group.task.hash()}, {"occurrences", t.group.occurrences},
                 {"nodes", node_names(t.group.task)}};
    if (!t.group.phase.empty()) head.update({{"phase", t.group.phase}, {"forward_ops", t.group.forward_ops}});
    // The device does not take it (an op it has no model or kernel for): listed untuned, no failure.
    if (r.outcome == Outcome::unsupported) {
      unsupported.push_back({{"subgraph_name", t.group.task.name}, {"reason", r.reason}});
      subgraphs.push_back(head);
      subgraphs.back().update({{"repo", "untuned"}, {"reason", r.reason}});
      continue;
    }
    if (r.outcome == Outcome::failed) {
      failed.push_back(t.group.task.name);
      subgraphs.push_back(head);
      subgraphs.back().update({{"repo", "failed"}, {"reason", r.reason}});
      continue;
    }
    add += r.outcome == Outcome::added;
    update += r.outcome == Outcome::updated;
    reserved += r.outcome == Outcome::reserved;
    unsatisfied += r.outcome == Outcome::unsatisfied;
    if (r.outcome == Outcome::added) added.push_back(modified_subgraph(t));
    if (r.outcome == Outcome::updated) updated.push_back(modified_subgraph(t));
    const double instances = static_cast<double>(t.group.occurrences.size());
    baseline_us += r.before_us * instances;
    result_us += r.after_us * instances;
    untuned_us += r.untuned_us * instances;
    subgraphs.push_back(head);
    subgraphs.back().update({{"repo", repo_word(r.outcome)},
                             {"performance_before_tune(ms)", r.before_us / 1000},
                             {"performance_after_tune(ms)", r.after_us / 1000},
                             {"performance_improvement", percent(r.before_us, r.after_us)},
                             {"performance_untuned(ms)", r.untuned_us / 1000},
                             {"searcher", r.searcher},
                             {"evaluations", r.evaluations},
                             {"replayed_evaluations", r.replayed},
                             {"refused_configs", r.refused},
                             {"stop_reason", r.stop_reason},
                             {"decisions", r.decisions}});
  }
  const std::string status = aoe::modes::tuning_result(complete, !failed.empty());
  json report = {{"model_baseline_performance(ms)", baseline_us / 1000},
                 {"model_result_performance(ms)", result_us / 1000},
                 {"model_performance_improvement", percent(baseline_us, result_us)},
                 {"model_untuned_performance(ms)", untuned_us / 1000},
                 {"sgat_tuning_result", status},
                 {"sgat_tuned_subgraphs", subgraphs},
                 {"repo_modified_subgraphs", {{"add_repo_subgraphs", added}, {"update_repo_subgraphs", updated}}},
                 {"repo_summary", aoe::modes::repo_summary(add, update, reserved, unsatisfied)},
                 {"untimed_operators", untimed},
                 {"unsupported_subgraphs", unsupported}};
  if (!training_step.is_null()) {
    report["training_step"] = training_step;
    report["training_step"]["phases"] = phase_figures(done);
  }
  if (status == "tuning failed") report["tuning_failed_subgraphs"] = failed;
  return report;
}

json tuned_plan(const std::string& model, const std::vector<TunedSubgraph>& done) {
  json subgraphs = json::array();
  for (const auto& t : done) {
    if (t.result.outcome == Outcome::interrupted) continue;
    subgraphs.push_back({{"subgraph_name", t.group.task.name},
                         {"repo_key", t.group.task.hash()},
                         {"occurrences", t.group.occurrences},
                         {"nodes", node_names(t.group.task)},
                         {"outcome", repo_word(t.result.outcome)},
                         {"reason", t.result.reason},
                         {"config", t.result.config},
                         {"decisions", t.result.decisions},
                         {"time_before_us", t.result.before_us},
                         {"time_after_us", t.result.after_us}});
    if (!t.group.phase.empty()) subgraphs.back().update({{"phase", t.group.phase}, {"forward_ops", t.group.forward_ops}});
  }
  return {{"model", model}, {"mode", "sgat"}, {"subgraphs", subgraphs}};
}

}  // namespace aoe::sgat
