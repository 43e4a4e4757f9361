// The search every tuning mode runs on a prepared task: ask the searcher for
// configs until a stop condition or an interruption, keep the fastest.
// Configs the device refuses cost a check, not a measurement. Seeds (a warm
// start) go first and reach the searcher as observations before it proposes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aoe/sdk/device_client.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/searcher_client.h"
#include "aoe/sdk/tuning_mode.h"
#include "search_stop.h"
#include "tune_options.h"

namespace aoe::modes {

struct Best {
  aoe::sdk::Config config;
  double time_us = 0;
};

struct SearchTally {
  uint64_t evaluations = 0;
  uint64_t refused = 0;     // configs the device's constraint check refused
  std::string stop_reason;  // budget, stall, time limit, searcher done, too many invalid configs
  uint64_t seeds_measured = 0;
  double best_seed_us = 0;  // the fastest seed that ran; 0 when none did
};

// Times configs that passed the device's check, one result each.
using MeasureBatch = std::function<std::vector<aoe::sdk::Measurement>(const std::vector<aoe::sdk::Config>&)>;
// Called after each measured batch: evaluations so far and the best time yet.
using SearchProgress = std::function<void(uint64_t evaluations, double best_us)>;
// Called for each measured config with its result, its evaluation index (from
// 1) and whether it was a seed: what measurements.jsonl records.
using SearchRecord = std::function<void(const aoe::sdk::Config&, const aoe::sdk::Measurement&, uint64_t evaluation, bool seed)>;

// False when interrupted. `searcher` is started; `best` holds the best so far.
// Seeds spend the budget as the searcher's own proposals do.
inline bool run_search(const aoe::sdk::Host& host, aoe::sdk::SearcherClient& searcher, const aoe::sdk::TaskClient& task,
                       const StopLimits& limits, uint32_t batch_size, const MeasureBatch& measure,
                       const SearchProgress& progress, Best& best, SearchTally& tally,
                       const std::vector<aoe::sdk::Config>& seeds = {}, const SearchRecord& record = {}) {
  SearchStop stop(limits);
  size_t next_seed = 0;
  // A searcher that only ever proposes invalid configs must not spin forever.
  const uint64_t max_refused = 50 * std::max<uint64_t>(limits.budget, 1);
  for (;;) {
    if (host.cancelled()) return false;
    tally.stop_reason = stop.reason();
    if (!tally.stop_reason.empty()) break;
    if (tally.refused > max_refused) {
      tally.stop_reason = "too many invalid configs";
      break;
    }
    const uint64_t room = std::min<uint64_t>(batch_size, stop.left());
    const bool seeding = next_seed < seeds.size();
    std::vector<aoe::sdk::Config> batch;
    if (seeding) {
      const size_t end = next_seed + std::min<size_t>(room, seeds.size() - next_seed);
      batch.assign(seeds.begin() + static_cast<std::ptrdiff_t>(next_seed), seeds.begin() + static_cast<std::ptrdiff_t>(end));
      next_seed = end;
    } else {
      batch = searcher.propose(room);
    }
    if (batch.empty()) {
      tally.stop_reason = "searcher done";
      break;
    }
    std::vector<aoe::sdk::Config> runnable;
    for (const auto& config : batch) {
      const aoe::sdk::Measurement verdict =
          task.space().in_domain(config)
              ? task.check(config)
              : aoe::sdk::Measurement::failed(aoe::sdk::ResultStatus::invalid, "outside the tuning space");
      if (verdict.ok()) {
        runnable.push_back(config);
      } else {
        ++tally.refused;
        searcher.observe(config, verdict);
      }
    }
    if (runnable.empty()) continue;
    const auto results = measure(runnable);
    for (size_t i = 0; i < runnable.size(); ++i) {
      searcher.observe(runnable[i], results[i]);
      const bool new_best = results[i].ok() && results[i].time_us < best.time_us;
      if (new_best) best = {runnable[i], results[i].time_us};
      stop.measured(new_best);
      if (record) record(runnable[i], results[i], stop.evaluations(), seeding);
      if (!seeding) continue;
      ++tally.seeds_measured;
      if (results[i].ok() && (tally.best_seed_us == 0 || results[i].time_us < tally.best_seed_us))
        tally.best_seed_us = results[i].time_us;
    }
    tally.evaluations = stop.evaluations();
    if (progress) progress(tally.evaluations, best.time_us);
  }
  return !host.cancelled();
}

// One task searched as every mode searches it: the searcher the job names for
// `kind` (an op type, or "Subgraph") started on the task's space, each
// measured config written to the options' log under the task's name and
// signature.
struct TaskSearch {
  std::string kind;
  std::string name, signature;
  std::string forward_op = {};  // a training step's kernel: the forward op it comes from
};

// run_search over a fresh searcher; `searcher_name` is set to the one used.
inline bool search_task(const aoe::sdk::Job& job, const TaskSearch& s, const TuneOptions& options,
                        const aoe::sdk::TaskClient& task, const MeasureBatch& measure, const SearchProgress& progress,
                        Best& best, SearchTally& tally, std::string& searcher_name,
                        const std::vector<aoe::sdk::Config>& seeds = {}) {
  auto searcher = job.searcher(s.kind);
  searcher_name = job.searcher_name(s.kind);
  searcher->start(task.space(), {options.seed, options.limits.budget});
  SearchRecord record;
  if (options.log)
    record = [&](const aoe::sdk::Config& config, const aoe::sdk::Measurement& m, uint64_t evaluation, bool seed) {
      options.log->record(s.name, s.signature, searcher_name, task.space().describe(config), m, evaluation, seed,
                          s.forward_op);
    };
  return run_search(job.host(), *searcher, task, options.limits, options.batch, measure, progress, best, tally, seeds,
                    record);
}

}  // namespace aoe::modes
