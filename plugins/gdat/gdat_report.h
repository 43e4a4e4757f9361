// The GDAT section of the result file and the console summary: the split in
// every API's form, its predicted timeline, and the baselines beside it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "gradient_profile.h"
#include "timeline.h"

namespace aoe::gdat {

struct Candidate {
  std::string name;  // dp_optimum, searcher_best, hccl_default, ...
  std::string description;
  Split split;
  Timeline timeline;  // under the cluster file's model
  bool fits = true;   // within max_segments and max_bucket
};

struct SearchSummary {
  std::string searcher;
  uint64_t evaluations = 0;
  uint64_t refused = 0;
  std::string stop_reason;
  std::optional<Candidate> best;
};

struct GdatOutcome {
  std::string model;
  GradientProfile profile;
  Cluster cluster;
  std::string cost_label;
  Candidate answer;
  std::string answer_from;  // how the answer was chosen
  Candidate optimum;            // the DP within the limits
  Candidate optimum_unlimited;  // the DP without a segment limit: the best any split does
  std::optional<SearchSummary> search;
  std::vector<Candidate> baselines;
  std::string baseline;  // the name compared with
  std::string repo;      // add, update, reserved, hit, unsatisfied, or empty before the bank
  std::string bank_hash;
  nlohmann::json measured;  // null unless measured under mpirun
  std::string measure_note;
  // When measured: the step times the improvement is computed from.
  std::optional<double> measured_baseline_step_us, measured_answer_step_us;
};

// HCCL by index and by size, MindSpore's fusion config, DDP's bucket caps.
nlohmann::json split_formats(const Split& split, const GradientProfile& profile);

nlohmann::json gdat_report(const GdatOutcome& outcome, const std::string& status);

// The console's account, a line each.
std::vector<std::string> summary_lines(const GdatOutcome& outcome);

}  // namespace aoe::gdat
