// OPAT: operator tuning. Each tunable op of the model, grouped by signature,
// is tuned on the device with a searcher, through the knowledge bank.
#include <cstdio>
#include <map>

#include "aoe/sdk/plugin.h"
#include "op_tasks.h"
#include "opat_report.h"
#include "task_tuner.h"

namespace aoe::opat {
namespace {

std::string shape_text(const aoe::sdk::OpTask& op) {
  std::string out;
  for (const auto& t : op.inputs) {
    std::string dims;
    for (auto d : t.shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    out += (out.empty() ? "" : ", ") + dims;
  }
  return out;
}

std::string line_for(const TunedTask& t) {
  const auto& r = t.result;
  const std::string head = t.group.task.name + " (" + t.group.task.op_type + " " + shape_text(t.group.task) + ", x" +
                           std::to_string(t.group.node_names.size()) + ")";
  if (r.outcome == Outcome::failed) return head + ": not tuned: " + r.reason;
  char figures[160];
  std::snprintf(figures, sizeof figures, ": %.2f us -> %.2f us (%+.1f%%), %llu evaluations, bank: ", r.before_us,
                r.after_us, r.before_us > 0 ? (r.after_us - r.before_us) / r.before_us * 100 : 0.0,
                static_cast<unsigned long long>(r.evaluations));
  return head + figures + to_string(r.outcome);
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

class OpatMode : public aoe::sdk::TuningMode {
 public:
  nlohmann::json run(const aoe::sdk::Job& job) override {
    const auto& opts = job.options();
    TuneOptions options;
    options.budget = opts.value("budget", uint64_t{64});
    options.seed = opts.value("seed", uint64_t{0});
    options.repeat_tune = opts.value("repeat_tune", false);
    options.soc_version = opts.value("soc_version", "");

    const auto groups = group_tasks(job.graph());
    job.host().info(std::to_string(groups.size()) + " op tasks to tune");
    std::vector<TunedTask> done;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (job.host().cancelled()) break;
      job.host().progress("tuning", i, groups.size(), groups[i].task.name);
      done.push_back({groups[i], tune_task(job, groups[i], options)});
      if (done.back().result.outcome == Outcome::unsupported)
        job.host().debug(line_for(done.back()));
      else
        job.host().info(line_for(done.back()));
      job.publish(opat_report(done, "tuning incomplete"));
    }
    log_unsupported(job, done);
    const bool complete = done.size() == groups.size() && !job.host().cancelled();
    return opat_report(done, complete ? "tuning successful" : "tuning incomplete");
  }
};

}  // namespace
}  // namespace aoe::opat

AOE_REGISTER_TUNING_MODE(aoe::opat::OpatMode, "opat", "operator tuning: tiling of each op, through the knowledge bank");
