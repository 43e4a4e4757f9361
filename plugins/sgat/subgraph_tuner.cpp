#include "subgraph_tuner.h"

#include <algorithm>
#include <optional>

#include "bank_keys.h"
#include "report_fields.h"
#include "side_by_side.h"

namespace aoe::sgat {
namespace {

using aoe::modes::Best;
using aoe::modes::graph_bank_key;
using aoe::sdk::Config;
using aoe::sdk::Error;
using aoe::sdk::Measurement;
using aoe::sdk::SubgraphDecisions;
using aoe::sdk::TaskClient;
using aoe::sdk::TuningSpace;
using nlohmann::json;

SubgraphResult failed(std::string reason, Outcome outcome = Outcome::failed) {
  return aoe::modes::ended<SubgraphResult>(std::move(reason), outcome);
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
      if (auto known = journal_.find(key_, task_.space().version, configs[i])) {
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
        journal_.record(key_, task_.space().version, fresh[j], measured[j]);
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
    if (it == by_knob.end()) continue;
    if (const auto v = space.knobs[i].value_of(*it)) c[i] = *v;
  }
  return c;
}

// The default strategy with no tiling from the operator bank: the subgraph
// as it runs before any tuning.
Config untuned(const TuningSpace& space) {
  Config c = space.default_config;
  for (size_t i = 0; i < space.knobs.size(); ++i) {
    const auto& k = space.knobs[i];
    if (k.name.rfind(aoe::sdk::kTilingKnob, 0) != 0) continue;
    const auto it = std::find(k.labels.begin(), k.labels.end(), "default");
    if (it != k.labels.end()) c[i] = it - k.labels.begin();
  }
  return c;
}

// Where `c` is in `configs`, added at the end if it is not.
size_t slot(std::vector<Config>& configs, const Config& c) {
  const auto it = std::find(configs.begin(), configs.end(), c);
  if (it != configs.end()) return static_cast<size_t>(it - configs.begin());
  configs.push_back(c);
  return configs.size() - 1;
}

json values_by_name(const TuningSpace& space, const Config& c) {
  json out = json::object();
  for (size_t i = 0; i < space.knobs.size(); ++i) out[space.knobs[i].name] = c[i];
  return out;
}

// Each decision of the default strategy changed alone, when they take at
// most half the budget: a strategy's decisions are mostly independent (fuse
// this edge, run that core as one kernel), so these show which ones pay on
// their own before the searcher combines them.
std::vector<Config> single_changes(const TuningSpace& space, uint64_t budget) {
  std::vector<Config> out;
  for (size_t i = 0; i < space.knobs.size(); ++i)
    for (int64_t v : space.knobs[i].values)
      if (v != space.default_config[i]) {
        Config c = space.default_config;
        c[i] = v;
        out.push_back(std::move(c));
      }
  if (out.size() > budget / 2) out.clear();
  return out;
}

bool search(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph, const std::string& forward_ops,
            const TaskClient& task, const TuneOptions& options, Measurer& measure, const SearchProgress& progress,
            Best& best, SubgraphResult& result) {
  aoe::modes::SearchTally tally;
  const bool finished = aoe::modes::search_task(
      job, {"Subgraph", subgraph.name, subgraph.hash(), forward_ops}, options, task,
      [&](const std::vector<Config>& runnable) { return measure(runnable); }, progress, best, tally, result.searcher,
      single_changes(task.space(), options.limits.budget));
  result.take(tally);
  return finished;
}

}  // namespace

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

SubgraphResult measure_subgraph(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                                const TuneOptions& options, Journal& journal, const SearchProgress& progress,
                                const std::string& forward_ops) {
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
  const json key = graph_bank_key(subgraph, options.soc_version, space.version);
  std::optional<json> entry;
  try {
    entry = job.host().bank_lookup(key);
  } catch (const Error& e) {
    return failed(e.what());
  }
  // The default, the subgraph untuned and a bank hit, timed in one batch:
  // the device compares them side by side. A hit is timed again here: the
  // bank may come from another machine. Not journaled: on a noisy device a
  // figure from this batch does not compare with the search's (side_by_side.h),
  // so a search that proposes the default times it among its own.
  std::vector<Config> first = {space.default_config};
  const size_t untuned_at = slot(first, untuned(space));
  const std::optional<size_t> banked_at =
      entry ? std::optional<size_t>(slot(first, config_by_name(space, entry->value("config_by_knob", json::object()))))
            : std::nullopt;
  const auto timed = task->evaluate(first, {}, options.build_threads);
  const Measurement& base = timed[0];
  if (!base.ok())
    return failed(std::string("the default strategy did not run: ") + to_string(base.status) + " " + base.message);
  result.untuned_us = timed[untuned_at].ok() ? timed[untuned_at].time_us : base.time_us;
  std::optional<Best> banked;
  if (banked_at && timed[*banked_at].ok()) banked = Best{first[*banked_at], timed[*banked_at].time_us};

  result.before_us = base.time_us;
  Best best = aoe::modes::search_start(banked ? *banked : Best{space.default_config, base.time_us}, base);
  if (!banked || options.repeat_tune) {
    if (!search(job, subgraph, forward_ops, *task, options, measure, progress, best, result)) {
      result.outcome = Outcome::interrupted;
      return result;
    }
  }
  // Timed again beside the incumbent, afresh: a journal answer would not be a pair.
  const bool improved = aoe::modes::confirm_best(*task, banked, base, best, result.before_us);
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
                       {"before_us", result.before_us},
                       {"after_us", best.time_us},
                       {"provenance", aoe::modes::provenance(job.options().value("model_name", ""), "subgraph",
                                                             subgraph.name, result.searcher, result.evaluations,
                                                             options.seed)}};
  result.bank_record = record;
  result.outcome = Outcome::unsatisfied;  // until banked
  return result;
}

void bank_subgraph_result(const aoe::sdk::Host& host, SubgraphResult& result) {
  if (result.bank_record.is_null()) return;
  result.outcome = aoe::modes::stored_as(host.bank_record(result.bank_record));
}

SubgraphResult tune_subgraph(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                             const TuneOptions& options, Journal& journal, const SearchProgress& progress,
                             const std::string& forward_ops) {
  SubgraphResult result = measure_subgraph(job, subgraph, options, journal, progress, forward_ops);
  bank_subgraph_result(job.host(), result);
  return result;
}

json to_json(const SubgraphResult& r) {
  json j = aoe::modes::to_json(r);
  j.update({{"untuned_us", r.untuned_us}, {"decisions", r.decisions}, {"replayed", r.replayed}});
  return j;
}

SubgraphResult subgraph_result_from_json(const json& j) {
  SubgraphResult r;
  aoe::modes::read_json(j, r);
  r.untuned_us = j.at("untuned_us").get<double>();
  r.decisions = j.at("decisions");
  r.replayed = j.at("replayed").get<uint64_t>();
  return r;
}

}  // namespace aoe::sgat
