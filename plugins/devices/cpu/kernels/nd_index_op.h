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

#include "indexed_slices_op.h"

namespace aoe::cpu {

class NdIndexOp final : public IndexedSlicesOp {
 public:
  NdIndexOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  size_t batch_ = 0;
  std::vector<int64_t> values_;   // the indices as given
};

}  // namespace aoe::cpu
