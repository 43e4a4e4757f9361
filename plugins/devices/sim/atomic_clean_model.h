// CANN's AtomicAddrClean: before a kernel that accumulates into its outputs
// with atomic adds (a reduction split over cores, a weight gradient whose K
// is), a kernel of its own zeroes them. Its cost is its launch and the bytes
// it clears, not the size of the tensors the accumulating kernel reads.
#pragma once

#include <cstdint>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct AtomicCleanProblem {
  std::vector<int64_t> bytes;  // each cleared tensor's, whole 32 B blocks
};

// The task's inputs are the tensors to clear, in the dtype they are
// accumulated in. Throws invalid_argument for one of unknown or empty shape.
AtomicCleanProblem atomic_clean_problem(const sdk::OpTask& task);

// TBE's atomic_addr_clean: the bytes split into per-core shares of whole
// 32 B blocks, each share rounded up to the 48 KB zero buffer it copies out
// of UB; each tensor cut into segments of that share, a core taking the
// largest segment left and then the smallest while they fit its share.
// The bytes each core clears, for a kernel compiled for `cores`.
std::vector<int64_t> atomic_clean_shares(const std::vector<int64_t>& bytes, int64_t cores);

class AtomicCleanModel final : public ProblemModel<AtomicCleanProblem> {
 public:
  enum Knob : size_t { kBlockDim, kKnobCount };

  AtomicCleanModel(const Soc& soc, AtomicCleanProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  double total_bytes() const;
};

}  // namespace aoe::sim
