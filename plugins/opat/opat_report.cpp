#include "opat_report.h"

#include "report_fields.h"

namespace aoe::opat {
namespace {

using aoe::modes::percent;
using nlohmann::json;

// AOE lists a modified op once, with its figures under each kind of change
// made (Format, Schedule, Impl) and whether the bank gained or changed an entry.
json modified_operator(const TunedTask& t) {
  const std::string mode = t.result.outcome == Outcome::added ? "add" : "update";
  json performance = json::object();
  for (const auto& tag : t.result.changed_tags)
    performance[tag] = {{"performance_before_tune(us)", t.result.before_us},
                        {"performance_after_tune(us)", t.result.after_us},
                        {"performance_improvement", percent(t.result.before_us, t.result.after_us)},
                        {"update_mode", mode}};
  json op = {{"op_name", t.group.task.name}, {"op_type", t.group.task.op_type}, {"tune_performance", performance}};
  if (!t.group.forward_ops.empty()) op["forward_op"] = t.group.forward_op();
  return op;
}

// Present for searched ops only: a bank hit opens no search to seed.
void add_warm_start(json& op, const TaskResult& r) {
  if (r.stop_reason.empty()) return;
  json warm = {{"seeds", r.warm_seeds}};
  if (r.best_seed_us > 0) warm["best_seed_us"] = r.best_seed_us;
  op["warm_start"] = std::move(warm);
}

}  // namespace

json opat_report(const std::vector<TunedTask>& tasks, bool complete) {
  json modified = json::array(), failed = json::array(), unsupported = json::array(), operators = json::array();
  // Every model node whose time the model figures leave out: its op was
  // neither tuned nor timed (the device does not run it, or it failed).
  json untimed = json::array();
  int add = 0, update = 0, reserved = 0, unsatisfied = 0;
  double baseline_us = 0, result_us = 0;
  for (const auto& t : tasks) {
    const auto& r = t.result;
    json op = {{"op_name", t.group.task.name}, {"op_type", t.group.task.op_type}};
    // A training step's kernel: the forward op it comes from, for each instance.
    if (!t.group.forward_ops.empty()) op.update({{"forward_op", t.group.forward_op()}, {"forward_ops", t.group.forward_ops}});
    if (r.outcome == Outcome::failed || r.outcome == Outcome::unsupported || r.outcome == Outcome::interrupted)
      for (const auto& node : t.group.node_names) untimed.push_back(node);
    if (r.outcome == Outcome::failed) {
      failed.push_back(t.group.task.name);
      operators.push_back(op);
      operators.back().update({{"nodes", t.group.node_names}, {"repo", "failed"}, {"reason", r.reason}});
      continue;
    }
    if (r.outcome == Outcome::unsupported) {
      unsupported.push_back(op);
      unsupported.back()["reason"] = r.reason;
      continue;
    }
    if (r.outcome == Outcome::interrupted) continue;
    add += r.outcome == Outcome::added;
    update += r.outcome == Outcome::updated;
    reserved += r.outcome == Outcome::reserved;
    unsatisfied += r.outcome == Outcome::unsatisfied;
    if (r.outcome == Outcome::added || r.outcome == Outcome::updated) modified.push_back(modified_operator(t));
    const double instances = static_cast<double>(t.group.node_names.size());
    baseline_us += r.before_us * instances;
    result_us += r.after_us * instances;
    operators.push_back(op);
    operators.back().update({{"nodes", t.group.node_names},
                             {"signature_hash", r.bank_entry},
                             {"repo", aoe::modes::repo_word(r.outcome)},
                             {"performance_before_tune(us)", r.before_us},
                             {"performance_after_tune(us)", r.after_us},
                             {"performance_improvement", percent(r.before_us, r.after_us)},
                             {"searcher", r.searcher},
                             {"evaluations", r.evaluations},
                             {"refused_configs", r.refused},
                             {"stop_reason", r.stop_reason},
                             {"config", r.config}});
    add_warm_start(operators.back(), r);
  }
  const std::string status = aoe::modes::tuning_result(complete, !failed.empty());
  json report = {{"model_baseline_performance(ms)", baseline_us / 1000},
                 {"model_result_performance(ms)", result_us / 1000},
                 {"model_performance_improvement", percent(baseline_us, result_us)},
                 {"opat_tuning_result", status},
                 {"opat_tuned_operators", operators},
                 {"repo_modified_operators", modified},
                 {"repo_summary", aoe::modes::repo_summary(add, update, reserved, unsatisfied)},
                 {"unsupported_operators", unsupported},
                 {"untimed_operators", untimed}};
  if (status == "tuning failed") report["tuning_failed_operators"] = failed;
  return report;
}

}  // namespace aoe::opat
