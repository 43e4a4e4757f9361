#include "gdat_bank.h"

#include <cmath>
#include <stdexcept>

#include "aoe/sdk/op_task.h"

namespace aoe::gdat {

using aoe::sdk::fnv1a_hex;

nlohmann::json bank_key(const GradientProfile& profile, const Cluster& cluster) {
  // Readable where it can be, hashed where it would be long.
  const nlohmann::json signature = {{"gradients", profile.size()},
                                    {"bytes", profile.total_bytes()},
                                    {"backward_ms", std::round(profile.backward_us / 10) / 100},
                                    {"profile", fnv1a_hex(profile.canonical_text())},
                                    {"cluster", fnv1a_hex(cluster.describe().dump())},
                                    {"max_segments", cluster.limits.max_segments},
                                    {"max_bucket_bytes", cluster.limits.max_bucket_bytes}};
  const std::string text = signature.dump();
  return {{"kind", "gradient"},
          {"soc_version", cluster.name},
          {"space_version", kSpaceVersion},
          {"signature", text},
          {"hash", fnv1a_hex(text)}};
}

std::optional<Split> banked_split(const nlohmann::json& entry, size_t count) {
  try {
    const auto split = entry.at("split").get<Split>();
    check_split(split, count);
    return split;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace aoe::gdat
