// The communication timeline of one step under FIFO on one link: backward
// makes gradients ready; a segment's allreduce starts once its last gradient
// is ready and the previous allreduce has finished.
#pragma once

#include <cstdint>
#include <vector>

#include "allreduce_cost.h"
#include "gradient_profile.h"
#include "split.h"

namespace aoe::gdat {

struct Segment {
  size_t first = 0, last = 0;  // gradients, inclusive
  uint64_t bytes = 0;
  double ready_us = 0;  // its last gradient is ready
  double start_us = 0;
  double end_us = 0;
};

struct Timeline {
  std::vector<Segment> segments;
  double backward_us = 0;
  double forward_us = 0;
  double comm_end_us = 0;  // end of the last allreduce, from the start of backward
  // Communication left after backward: end of the last allreduce - end of backward.
  double tail_us() const { return comm_end_us > backward_us ? comm_end_us - backward_us : 0; }
  // Forward, then backward overlapped with the allreduces.
  double step_us() const { return forward_us + (comm_end_us > backward_us ? comm_end_us : backward_us); }
};

// release (optional, one per segment): the earliest a segment may start, for
// schemes that launch on a clock (Horovod's cycle); never before its gradients.
Timeline simulate(const GradientProfile& profile, const AllreduceCost& cost, const Split& split,
                  const std::vector<double>& release = {});

// Only the end of the last allreduce: the searcher's objective, without allocation.
double comm_end(const GradientProfile& profile, const std::vector<uint64_t>& prefix, const AllreduceCost& cost,
                const Split& split);

}  // namespace aoe::gdat
