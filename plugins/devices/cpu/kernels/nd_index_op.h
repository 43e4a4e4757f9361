// GatherND and ScatterND: each row of `indices` (its last axis, k long)
// names a slice of the data, data[b..., i0, ..., ik-1, :], after
// `batch_dims` leading axes the two share (GatherND). GatherND copies the
// slices out in order; ScatterND writes `updates` into a copy of the data
// there (or adds, multiplies: `reduction`), in order. The indices are the
// model's constants, folded into attribute "indices"; each slice's offset
// is worked out once, when the op is made.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class NdIndexOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Reduction { none, add, mul };

  NdIndexOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class NdIndexKernel;
  bool scatter_ = false;
  Reduction reduction_ = Reduction::none;
  size_t batch_ = 0;
  std::vector<int64_t> values_;   // the indices as given
  int64_t slice_ = 1;             // elements per slice
  std::vector<int64_t> offsets_;  // per row of indices: its slice's first element in the data
};

}  // namespace aoe::cpu
