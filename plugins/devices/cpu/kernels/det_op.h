// Det: the determinant of each M x M matrix of [*, M, M], by LU
// decomposition with partial pivoting.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class DetOp final : public ThreadedOp {
 public:
  DetOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t matrices_ = 1, m_ = 1;
};

}  // namespace aoe::cpu
