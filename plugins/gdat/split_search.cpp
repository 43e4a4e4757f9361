#include "split_search.h"

#include <algorithm>
#include <stdexcept>

namespace aoe::gdat {

SplitSpace::SplitSpace(size_t gradients, int max_segments, const Split& default_split) : count_(gradients) {
  const size_t segments = max_segments <= 0 ? kUnlimitedSearchSegments : static_cast<size_t>(max_segments);
  const size_t knobs = gradients == 0 ? 0 : std::min(segments - 1, gradients - 1);
  space_.version = "1";
  for (size_t k = 0; k < knobs; ++k)
    space_.knobs.push_back(aoe::sdk::Knob::integer("segment_end_" + std::to_string(k + 1), aoe::sdk::KnobTag::schedule,
                                                   0, static_cast<int64_t>(gradients) - 1));
  try {
    space_.default_config = encode(default_split);
  } catch (const std::invalid_argument&) {
    space_.default_config = encode({gradients - 1});
  }
}

Split SplitSpace::decode(const aoe::sdk::Config& config) const {
  Split out;
  for (int64_t v : config)
    if (v >= 0 && static_cast<size_t>(v) + 1 < count_) out.push_back(static_cast<size_t>(v));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.push_back(count_ - 1);
  return out;
}

aoe::sdk::Config SplitSpace::encode(const Split& split) const {
  if (split.size() > knobs() + 1)
    throw std::invalid_argument(std::to_string(split.size()) + " segments do not fit in " +
                                std::to_string(knobs() + 1));
  aoe::sdk::Config out(knobs(), static_cast<int64_t>(count_) - 1);
  for (size_t k = 0; k + 1 < split.size(); ++k) out[k] = static_cast<int64_t>(split[k]);
  return out;
}

}  // namespace aoe::gdat
