// EyeLike: a float32 tensor of the 2-D input's shape (of any type: its
// values are not read), 1 on the diagonal shifted by `k`, 0 elsewhere.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class EyeLikeOp final : public ThreadedOp {
 public:
  EyeLikeOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t k_ = 0;
};

}  // namespace aoe::cpu
