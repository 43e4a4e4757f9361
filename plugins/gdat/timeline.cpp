#include "timeline.h"

#include <algorithm>

namespace aoe::gdat {

Timeline simulate(const GradientProfile& profile, const AllreduceCost& cost, const Split& split,
                  const std::vector<double>& release) {
  Timeline t;
  t.backward_us = profile.backward_us;
  t.forward_us = profile.forward_us;
  double link_free = 0;
  size_t first = 0;
  for (size_t k = 0; k < split.size(); ++k) {
    Segment s;
    s.first = first;
    s.last = split[k];
    for (size_t i = s.first; i <= s.last; ++i) {
      s.bytes += profile.grads[i].bytes;
      s.ready_us = std::max(s.ready_us, profile.grads[i].ready_us);
    }
    s.start_us = std::max({s.ready_us, link_free, k < release.size() ? release[k] : 0.0});
    s.end_us = s.start_us + cost(static_cast<double>(s.bytes));
    link_free = s.end_us;
    first = s.last + 1;
    t.segments.push_back(s);
  }
  t.comm_end_us = link_free;
  return t;
}

double comm_end(const GradientProfile& profile, const std::vector<uint64_t>& prefix, const AllreduceCost& cost,
                const Split& split) {
  double link_free = 0;
  size_t first = 0;
  for (size_t end : split) {
    const double start = std::max(profile.grads[end].ready_us, link_free);
    link_free = start + cost(static_cast<double>(prefix[end + 1] - prefix[first]));
    first = end + 1;
  }
  return link_free;
}

}  // namespace aoe::gdat
