// The exact optimum of the split under the FIFO timeline, by dynamic
// programming over prefixes (the principle of optimality holds because a
// segment's end is non-decreasing in the previous segment's end and c(n) is
// non-decreasing). O(K L^2) evaluations of c with at most K segments.
#pragma once

#include "allreduce_cost.h"
#include "gradient_profile.h"
#include "split.h"

namespace aoe::gdat {

struct OptimalSplit {
  Split split;
  double comm_end_us = 0;
};

// max_segments 0: no limit. max_bucket_bytes 0: no limit (a single gradient
// larger than it still forms its own segment). Among equal ends, the fewest
// segments win. When no split fits both limits, the split is empty and the
// end infinite.
OptimalSplit optimal_split(const GradientProfile& profile, const AllreduceCost& cost, int max_segments = 0,
                           double max_bucket_bytes = 0);

}  // namespace aoe::gdat
