// Where: out = condition ? X : Y, the three broadcast numpy's way, X and Y
// of any dtype the device holds. The condition is read as the model runs
// (a bool held as 0 or 1), or from attribute "condition" where the frontend
// folded a constant one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class WhereOp final : public ThreadedOp {
 public:
  WhereOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  std::vector<float> condition_;  // 1 or 0, of the condition's shape; empty: input 0 at run time
  BroadcastRows rows_;            // condition, X, Y
};

}  // namespace aoe::cpu
