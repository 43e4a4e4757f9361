#include "task_tuner.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>
#include <set>

namespace aoe::opat {
namespace {

using aoe::sdk::Config;
using aoe::sdk::Error;
using aoe::sdk::Measurement;
using aoe::sdk::TaskClient;
using aoe::sdk::TuningSpace;
using nlohmann::json;

struct Best {
  Config config;
  double time_us = 0;
};

TaskResult failed(std::string reason) {
  TaskResult r;
  r.outcome = Outcome::failed;
  r.reason = std::move(reason);
  return r;
}

bool shapes_known(const aoe::sdk::OpTask& task) {
  for (const auto* side : {&task.inputs, &task.outputs})
    for (const auto& t : *side)
      if (!t.fully_known()) return false;
  return true;
}

std::vector<std::string> changed_tags(const TuningSpace& space, const Config& from, const Config& to) {
  std::set<std::string> tags;
  for (size_t i = 0; i < space.knobs.size(); ++i)
    if (from[i] != to[i]) tags.insert(aoe::sdk::to_string(space.knobs[i].tag));
  return {tags.begin(), tags.end()};
}

std::string utc_now() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// The bank's config, timed again here: the bank may come from another machine.
std::optional<Best> bank_config(const TaskClient& task, const json& entry) {
  const auto values = entry.value("config_values", Config{});
  if (!task.space().in_domain(values)) return std::nullopt;
  const Measurement m = task.evaluate({values}, {})[0];
  if (!m.ok()) return std::nullopt;
  return Best{values, m.time_us};
}

// Asks the searcher for configs until a stop condition or interruption;
// keeps the fastest. Configs the device refuses cost a check, not a measurement.
bool search(const aoe::sdk::Job& job, const TaskClient& task, const std::string& op_type, const TuneOptions& options,
            const SearchProgress& progress, Best& best, TaskResult& result) {
  auto searcher = job.searcher(op_type);
  searcher->start(task.space(), {options.seed, options.limits.budget});
  SearchStop stop(options.limits);
  // A searcher that only ever proposes invalid configs must not spin forever.
  const uint64_t max_refused = 50 * std::max<uint64_t>(options.limits.budget, 1);
  for (;;) {
    if (job.host().cancelled()) return false;
    result.stop_reason = stop.reason();
    if (!result.stop_reason.empty()) break;
    if (result.refused > max_refused) {
      result.stop_reason = "too many invalid configs";
      break;
    }
    const auto batch = searcher->propose(std::min<uint64_t>(options.batch, stop.left()));
    if (batch.empty()) {
      result.stop_reason = "searcher done";
      break;
    }
    std::vector<Config> runnable;
    for (const auto& config : batch) {
      Measurement verdict = task.space().in_domain(config)
                                ? task.check(config)
                                : Measurement::failed(aoe::sdk::ResultStatus::invalid, "outside the tuning space");
      if (verdict.ok()) {
        runnable.push_back(config);
      } else {
        ++result.refused;
        searcher->observe(config, verdict);
      }
    }
    if (runnable.empty()) continue;
    const auto results = task.evaluate(runnable, {}, options.build_threads);
    for (size_t i = 0; i < runnable.size(); ++i) {
      searcher->observe(runnable[i], results[i]);
      const bool new_best = results[i].ok() && results[i].time_us < best.time_us;
      if (new_best) best = {runnable[i], results[i].time_us};
      stop.measured(new_best);
    }
    result.evaluations = stop.evaluations();
    if (progress) progress(result.evaluations, best.time_us);
  }
  return !job.host().cancelled();
}

}  // namespace

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::added: return "added";
    case Outcome::updated: return "updated";
    case Outcome::reserved: return "reserved";
    case Outcome::unsatisfied: return "unsatisfied";
    case Outcome::failed: return "failed";
    case Outcome::unsupported: return "unsupported";
    case Outcome::interrupted: return "interrupted";
  }
  return "failed";
}

TaskResult tune_task(const aoe::sdk::Job& job, const TaskGroup& group, const TuneOptions& options,
                     const SearchProgress& progress) {
  const auto& op = group.task;
  if (!shapes_known(op)) return failed("a tensor of the op has unknown dimensions: pass --input_shape");
  std::unique_ptr<TaskClient> task;
  try {
    task = job.device().prepare(op);
  } catch (const Error& e) {
    TaskResult r = failed(e.what());
    if (e.code() == aoe::sdk::StatusCode::unsupported) r.outcome = Outcome::unsupported;
    return r;
  }
  const TuningSpace& space = task->space();
  const Measurement base = task->evaluate({space.default_config}, {})[0];
  if (!base.ok()) return failed(std::string("the default config did not run: ") + to_string(base.status) + " " + base.message);

  const json key = {{"kind", "op"},          {"op_type", op.op_type},     {"soc_version", options.soc_version},
                    {"space_version", space.version}, {"signature", op.signature()}, {"hash", op.hash()}};
  std::optional<json> entry;
  try {
    entry = job.host().bank_lookup(key);
  } catch (const Error& e) {
    return failed(e.what());
  }
  std::optional<Best> banked = entry ? bank_config(*task, *entry) : std::nullopt;

  TaskResult result;
  result.before_us = base.time_us;
  result.bank_entry = op.hash();
  Best best = banked ? *banked : Best{space.default_config, base.time_us};
  if (!banked || options.repeat_tune) {
    if (!search(job, *task, op.op_type, options, progress, best, result)) {
      result.outcome = Outcome::interrupted;
      return result;
    }
  }
  result.after_us = best.time_us;
  result.config = space.describe(best.config);
  result.changed_tags = changed_tags(space, space.default_config, best.config);

  const bool improved = banked ? best.time_us < banked->time_us : best.time_us < base.time_us;
  if (!improved) {
    result.outcome = banked ? Outcome::reserved : Outcome::unsatisfied;
    if (!banked) result.after_us = base.time_us, result.config = space.describe(space.default_config);
    return result;
  }
  const json record = {{"key", key},
                       {"op_type", op.op_type},
                       {"config", result.config},
                       {"config_values", best.config},
                       {"before_us", base.time_us},
                       {"after_us", best.time_us},
                       {"provenance",
                        {{"model", job.options().value("model_name", "")},
                         {"op_name", op.name},
                         {"searcher", job.options().value("searcher", "")},
                         {"evaluations", result.evaluations},
                         {"seed", options.seed},
                         {"tuned_at", utc_now()}}}};
  const auto stored = job.host().bank_record(record);
  // The bank decides: another process may have stored a faster entry meanwhile.
  result.outcome = stored == aoe::sdk::BankOutcome::added     ? Outcome::added
                   : stored == aoe::sdk::BankOutcome::updated ? Outcome::updated
                                                              : Outcome::reserved;
  return result;
}

}  // namespace aoe::opat
