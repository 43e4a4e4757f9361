// ArgMax and ArgMin (any axis, keepdims, select_last_index): the int64
// index of the largest or smallest value along the axis, held as a float
// (held_dtype.h). The input may be of any dtype the device holds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class ArgReduceOp final : public ThreadedOp {
 public:
  ArgReduceOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  bool max_ = true, last_ = false;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace aoe::cpu
