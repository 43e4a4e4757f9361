// A searcher's hyperparameters as --searcher_options gives them: a JSON
// object whose keys name fields. An unknown key, or a value of the wrong
// kind or outside its range, is an error naming the searcher and the key,
// and listing the keys it takes, before any search starts.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::search::common {

struct Hyperparameter {
  std::string key;
  std::variant<size_t*, double*> field;
  double lo, hi;  // the values it accepts: counts become allocations, so they are bounded too
};

inline void read_hyperparameters(const std::string& searcher, const nlohmann::json& options,
                                 const std::vector<Hyperparameter>& known) {
  const auto fail = [&](const std::string& why) {
    std::string keys;
    for (const auto& h : known) keys += (keys.empty() ? "" : ", ") + h.key;
    throw sdk::Error(sdk::StatusCode::invalid_argument,
                     "searcher_options for " + searcher + ": " + why + " (" + searcher +
                         (keys.empty() ? " takes no options)" : " takes " + keys + ")"));
  };
  if (options.is_null()) return;
  if (!options.is_object()) fail("not a JSON object");
  for (const auto& [key, value] : options.items()) {
    const Hyperparameter* h = nullptr;
    for (const auto& k : known)
      if (k.key == key) h = &k;
    if (!h) fail("unknown key '" + key + "'");
    if (!value.is_number()) fail("'" + key + "' is " + value.dump() + ", not a number");
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < h->lo || v > h->hi)
      fail("'" + key + "' is " + value.dump() + ", outside [" + nlohmann::json(h->lo).dump() + ", " +
           nlohmann::json(h->hi).dump() + "]");
    if (auto* count = std::get_if<size_t*>(&h->field)) {
      if (!value.is_number_integer()) fail("'" + key + "' is " + value.dump() + ", not a whole number");
      **count = value.get<size_t>();
    } else {
      *std::get<double*>(h->field) = v;
    }
  }
}

}  // namespace aoe::search::common
