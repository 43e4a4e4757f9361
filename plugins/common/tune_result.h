// What a mode's result of one tuned task says whatever the task (an op's
// TaskResult, a subgraph's SubgraphResult add their own), and its fields as
// one rank sends them to another.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "search_loop.h"
#include "tuning_outcome.h"

namespace aoe::modes {

struct TuneResult {
  Outcome outcome = Outcome::failed;
  std::string reason;    // why it failed, when it did
  double before_us = 0;  // the default config (a subgraph's: its default strategy)
  double after_us = 0;   // what the model runs with now
  nlohmann::json config = nlohmann::json::object();  // the config behind after_us, knob -> value as users read it
  uint64_t evaluations = 0;
  uint64_t refused = 0;     // configs the device's constraint check refused, not measured
  std::string stop_reason;  // budget, stall, time limit, searcher done; empty when not searched
  std::string searcher;     // the searcher that searched it; empty when not searched
  // What the search asks the bank to keep, until the mode stores it; null
  // when nothing is to be banked.
  nlohmann::json bank_record;

  // The search's counts and why it stopped.
  void take(const SearchTally& tally) {
    evaluations = tally.evaluations;
    refused = tally.refused;
    stop_reason = tally.stop_reason;
  }
};

inline nlohmann::json to_json(const TuneResult& r) {
  return {{"outcome", to_string(r.outcome)}, {"reason", r.reason},       {"before_us", r.before_us},
          {"after_us", r.after_us},          {"config", r.config},       {"evaluations", r.evaluations},
          {"refused", r.refused},            {"stop_reason", r.stop_reason}, {"searcher", r.searcher},
          {"bank_record", r.bank_record}};
}

// The fields to_json() wrote, back into `r`.
inline void read_json(const nlohmann::json& j, TuneResult& r) {
  r.outcome = outcome_from_string(j.at("outcome").get<std::string>());
  r.reason = j.at("reason").get<std::string>();
  r.before_us = j.at("before_us").get<double>();
  r.after_us = j.at("after_us").get<double>();
  r.config = j.at("config");
  r.evaluations = j.at("evaluations").get<uint64_t>();
  r.refused = j.at("refused").get<uint64_t>();
  r.stop_reason = j.at("stop_reason").get<std::string>();
  r.searcher = j.at("searcher").get<std::string>();
  r.bank_record = j.at("bank_record");
}

}  // namespace aoe::modes
