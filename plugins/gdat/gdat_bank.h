// The bank entry of a split: keyed by the gradient profile (sizes and ready
// times, rounded) and the cluster, so the same model on the same cluster
// finds its answer again.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "cluster.h"
#include "gradient_profile.h"
#include "split.h"

namespace aoe::gdat {

// Bumps when the meaning of a stored split changes (the timeline or the cost model).
inline constexpr const char* kSpaceVersion = "1";

// {"kind","soc_version" (the cluster's name),"space_version","signature","hash"}
nlohmann::json bank_key(const GradientProfile& profile, const Cluster& cluster);

// The stored split, when the entry holds one that fits count gradients.
std::optional<Split> banked_split(const nlohmann::json& entry, size_t count);

}  // namespace aoe::gdat
