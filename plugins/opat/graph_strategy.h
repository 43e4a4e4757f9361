// SGAT's strategies, from the subgraph bank: OPAT fuses and lays out the
// nodes of each subgraph SGAT tuned as SGAT chose, then tunes the operators
// inside, so running SGAT then OPAT composes.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/fusion.h"
#include "aoe/sdk/subgraph_task.h"
#include "aoe/sdk/tuning_mode.h"

namespace aoe::opat {

class GraphStrategy {
 public:
  // Looks each subgraph of `graph` (pattern-recognised, `members` naming the
  // model's nodes behind a recognised one) up in the subgraph bank.
  static GraphStrategy from_bank(const aoe::sdk::Job& job, const aoe::sdk::Graph& graph,
                                 const std::map<std::string, std::vector<std::string>>& members,
                                 const std::set<std::string>& fusable, const std::string& soc_version);

  bool may_fuse(const aoe::sdk::Node& node) const;
  // The fused op's task under the decisions of the subgraph of its anchor.
  aoe::sdk::OpTask apply(const aoe::sdk::FusedOp& op) const;
  size_t subgraphs_followed() const { return decisions_.size(); }
  size_t subgraphs_seen() const { return seen_; }

 private:
  std::vector<aoe::sdk::SubgraphDecisions> decisions_;
  std::map<std::string, size_t> subgraph_of_node_;  // node name -> index in decisions_
  size_t seen_ = 0;
};

}  // namespace aoe::opat
