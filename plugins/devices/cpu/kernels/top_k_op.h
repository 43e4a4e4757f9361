// TopK: the k largest (or smallest) values along an axis, sorted, and their
// int64 indices held as floats (held_dtype.h); ties keep the lower index
// first. k is the outputs' extent along the axis; a K fed as the model runs
// must agree with it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class TopKOp final : public ThreadedOp {
 public:
  TopKOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  void require_k(const float* k) const;
  bool largest_ = true;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1, k_ = 1;
};

}  // namespace aoe::cpu
