// Warm start: configs the bank learnt for ops of the same type on nearby
// shapes, carried into a new task's space to open its search, as TVM starts
// from earlier tuning logs.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/device_client.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::opat {

// How far apart two ops' shapes lie: the sum over corresponding dims of
// |log(a/b)|. None when the ops are not alike enough for a config of one to
// mean the same on the other: another type, other fused ops or attributes,
// other dtypes or formats, or tensors of other ranks. Signatures are
// OpTask::signature() text.
std::optional<double> shape_distance(const std::string& signature, const std::string& other);

// A config written by knob name (TuningSpace::describe) in this space: a
// value the knob allows as it is, else the nearest it allows (by ratio for
// sizes); a label the knob lacks, or a knob the config lacks, gives the
// space's default for that knob.
aoe::sdk::Config map_config(const aoe::sdk::TuningSpace& space, const nlohmann::json& config_by_name);

struct Seed {
  aoe::sdk::Config config;
  double distance = 0;  // of the banked op it came from
};

// Bank entries' configs in this space, nearest op first, each config once:
// none from the op's own entry (that is a bank hit), none equal to the
// default (the search measures that anyway), none from ops unlike it.
std::vector<Seed> ranked_seeds(const aoe::sdk::TuningSpace& space, const std::string& signature,
                               const std::vector<nlohmann::json>& entries);

// How many seeds a search of this budget opens with: a quarter of it, at
// most 4, so most of the budget stays the searcher's.
size_t seed_count(uint64_t budget);

// The seeds for a task: the nearest ranked_seeds the device accepts, at most
// seed_count(budget), from the entries of the op's family the bank finds
// nearest (SDK 1.3's bank_nearest; an older host's bank_entries lists the
// whole family). `key` is the task's op bank key.
std::vector<aoe::sdk::Config> warm_start_seeds(const aoe::sdk::Host& host, const aoe::sdk::TaskClient& task,
                                               const aoe::sdk::OpTask& op, const nlohmann::json& key,
                                               uint64_t budget);

}  // namespace aoe::opat
