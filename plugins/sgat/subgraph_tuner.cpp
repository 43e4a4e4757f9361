#include "subgraph_tuner.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>

namespace aoe::sgat {
namespace {

using aoe::sdk::Config;
using aoe::sdk::Error;
using aoe::sdk::Measurement;
using aoe::sdk::SubgraphDecisions;
using aoe::sdk::TaskClient;
using aoe::sdk::TuningSpace;
using nlohmann::json;

struct Best {
  Config config;
  double time_us = 0;
};

SubgraphResult failed(std::string reason, Outcome outcome = Outcome::failed) {
  SubgraphResult r;
  r.outcome = outcome;
  r.reason = std::move(reason);
  return r;
}

std::string utc_now() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Measures configs on the device, or takes their results from the journal of
// an interrupted run; whatever is measured goes into the journal at once.
class Measurer {
 public:
  Measurer(const TaskClient& task, Journal& journal, std::string repo_key, unsigned build_threads,
           SubgraphResult& result)
      : task_(task), journal_(journal), key_(std::move(repo_key)), threads_(build_threads), result_(result) {}

  std::vector<Measurement> operator()(const std::vector<Config>& configs) {
    std::vector<Measurement> out(configs.size());
    std::vector<Config> fresh;
    std::vector<size_t> where;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (auto known = journal_.find(key_, configs[i])) {
        out[i] = known->result;
        result_.replayed += known->earlier_run;
      } else {
        fresh.push_back(configs[i]);
        where.push_back(i);
      }
    }
    if (!fresh.empty()) {
      const auto measured = task_.evaluate(fresh, {}, threads_);
      for (size_t j = 0; j < fresh.size(); ++j) {
        journal_.record(key_, fresh[j], measured[j]);
        out[where[j]] = measured[j];
      }
    }
    return out;
  }

 private:
  const TaskClient& task_;
  Journal& journal_;
  std::string key_;
  unsigned threads_;
  SubgraphResult& result_;
};

// A banked strategy read by knob name: the space may have gained or lost
// tiling knobs since (the operator bank changed), the decisions stay.
Config config_by_name(const TuningSpace& space, const json& by_knob) {
  Config c = space.default_config;
  for (size_t i = 0; i < space.knobs.size(); ++i) {
    const auto it = by_knob.find(space.knobs[i].name);
    if (it != by_knob.end() && it->is_number_integer() && space.knobs[i].allows(it->get<int64_t>())) c[i] = it->get<int64_t>();
  }
  return c;
}

json values_by_name(const TuningSpace& space, const Config& c) {
  json out = json::object();
  for (size_t i = 0; i < space.knobs.size(); ++i) out[space.knobs[i].name] = c[i];
  return out;
}

bool search(const aoe::sdk::Job& job, const TaskClient& task, const TuneOptions& options, Measurer& measure,
            const SearchProgress& progress, Best& best, SubgraphResult& result) {
  auto searcher = job.searcher("Subgraph");
  searcher->start(task.space(), {options.seed, options.limits.budget});
  aoe::modes::SearchStop stop(options.limits);
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
      const Measurement verdict = task.space().in_domain(config)
                                      ? task.check(config)
                                      : Measurement::failed(aoe::sdk::ResultStatus::invalid, "outside the space");
      if (verdict.ok()) {
        runnable.push_back(config);
      } else {
        ++result.refused;
        searcher->observe(config, verdict);
      }
    }
    if (runnable.empty()) continue;
    const auto results = measure(runnable);
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

const char* repo_word(Outcome outcome) {
  switch (outcome) {
    case Outcome::added: return "add";
    case Outcome::updated: return "update";
    case Outcome::reserved: return "reserved";
    case Outcome::unsatisfied: return "unsatisfied";
    case Outcome::failed: return "failed";
    case Outcome::unsupported: return "unsupported";
    case Outcome::interrupted: return "interrupted";
  }
  return "failed";
}

json graph_bank_key(const aoe::sdk::SubgraphTask& subgraph, const std::string& soc_version,
                    const std::string& space_version) {
  return {{"kind", "graph"},
          {"soc_version", soc_version},
          {"space_version", space_version},
          {"signature", subgraph.signature()},
          {"hash", subgraph.hash()}};
}

std::optional<SubgraphDecisions> banked_decisions(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                                                 const std::string& soc_version) {
  try {
    const auto task = job.device().prepare_subgraph(subgraph);
    const auto entry = job.host().bank_lookup(graph_bank_key(subgraph, soc_version, task->space().version));
    if (entry && entry->contains("decisions")) return entry->at("decisions").get<SubgraphDecisions>();
  } catch (const Error&) {
    // Not preparable or a corrupt entry: tune_subgraph reports it.
  }
  return std::nullopt;
}

SubgraphResult tune_subgraph(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                             const TuneOptions& options, Journal& journal, const SearchProgress& progress) {
  std::unique_ptr<TaskClient> task;
  try {
    task = job.device().prepare_subgraph(subgraph);
  } catch (const Error& e) {
    return failed(e.what(), e.code() == aoe::sdk::StatusCode::unsupported ? Outcome::unsupported : Outcome::failed);
  }
  const TuningSpace& space = task->space();
  const std::string repo_key = subgraph.hash();
  SubgraphResult result;
  Measurer measure(*task, journal, repo_key, options.build_threads, result);
  const Measurement base = measure({space.default_config})[0];
  if (!base.ok())
    return failed(std::string("the default strategy did not run: ") + to_string(base.status) + " " + base.message);

  const json key = graph_bank_key(subgraph, options.soc_version, space.version);
  std::optional<json> entry;
  try {
    entry = job.host().bank_lookup(key);
  } catch (const Error& e) {
    return failed(e.what());
  }
  // A bank hit is timed again here: the bank may come from another machine.
  std::optional<Best> banked;
  if (entry) {
    const Config c = config_by_name(space, entry->value("config_by_knob", json::object()));
    const Measurement m = measure({c})[0];
    if (m.ok()) banked = Best{c, m.time_us};
  }

  result.before_us = base.time_us;
  Best best = banked ? *banked : Best{space.default_config, base.time_us};
  if (!banked || options.repeat_tune) {
    if (!search(job, *task, options, measure, progress, best, result)) {
      result.outcome = Outcome::interrupted;
      return result;
    }
  }
  const bool improved = banked ? best.time_us < banked->time_us : best.time_us < base.time_us;
  if (!improved && !banked) best = {space.default_config, base.time_us};
  result.after_us = best.time_us;
  result.config = space.describe(best.config);
  result.decisions = SubgraphDecisions::of(space, best.config);
  if (!improved) {
    result.outcome = banked ? Outcome::reserved : Outcome::unsatisfied;
    return result;
  }
  const json record = {{"key", key},
                       {"config", result.config},
                       {"config_by_knob", values_by_name(space, best.config)},
                       {"decisions", result.decisions},
                       {"before_us", base.time_us},
                       {"after_us", best.time_us},
                       {"provenance",
                        {{"model", job.options().value("model_name", "")},
                         {"subgraph", subgraph.name},
                         {"searcher", job.options().value("searcher", "")},
                         {"evaluations", result.evaluations},
                         {"seed", options.seed},
                         {"tuned_at", utc_now()}}}};
  const auto stored = job.host().bank_record(record);
  result.outcome = stored == aoe::sdk::BankOutcome::added     ? Outcome::added
                   : stored == aoe::sdk::BankOutcome::updated ? Outcome::updated
                                                              : Outcome::reserved;
  return result;
}

}  // namespace aoe::sgat
