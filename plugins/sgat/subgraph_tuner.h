// Tunes one subgraph: time the default strategy, consult the subgraph bank,
// search the strategy space on the device, record the best.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/subgraph_task.h"
#include "aoe/sdk/tuning_mode.h"
#include "measurement_log.h"
#include "journal.h"
#include "search_loop.h"
#include "tune_options.h"
#include "tune_result.h"
#include "tuning_outcome.h"

namespace aoe::sgat {

using aoe::modes::Outcome;
using aoe::modes::repo_word;

using aoe::modes::TuneOptions;

// Its evaluations include those the journal answered; bank_subgraph_result()
// stores its bank_record.
struct SubgraphResult : aoe::modes::TuneResult {
  double untuned_us = 0;  // the default strategy with every kernel's default tiling, timed beside it
  nlohmann::json decisions = nlohmann::json::object();  // SubgraphDecisions of the config
  uint64_t replayed = 0;  // answered by the journal of an earlier, interrupted run
};

// A subgraph's result as one rank sends it to another.
nlohmann::json to_json(const SubgraphResult& result);
SubgraphResult subgraph_result_from_json(const nlohmann::json& j);

using aoe::modes::SearchProgress;

// Tunes and banks: measure_subgraph() then bank_subgraph_result().
// forward_ops: a training step's subgraph names the forward ops it comes
// from, as the measurement log records it.
SubgraphResult tune_subgraph(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                             const TuneOptions& options, Journal& journal, const SearchProgress& progress = {},
                             const std::string& forward_ops = {});
// Tunes without writing the bank: under mpirun the ranks measure, rank 0 banks.
SubgraphResult measure_subgraph(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                                const TuneOptions& options, Journal& journal, const SearchProgress& progress = {},
                                const std::string& forward_ops = {});
// Stores result.bank_record, if any, and says what the bank did with it.
void bank_subgraph_result(const aoe::sdk::Host& host, SubgraphResult& result);

// The strategy the subgraph bank holds for the subgraph on this device, if any.
std::optional<aoe::sdk::SubgraphDecisions> banked_decisions(const aoe::sdk::Job& job,
                                                            const aoe::sdk::SubgraphTask& subgraph,
                                                            const std::string& soc_version);

}  // namespace aoe::sgat
