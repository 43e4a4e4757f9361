// OneHot: `values` [off, on] everywhere, on where the axis inserted at
// `axis` reaches its index (negative ones count from the end of depth).
// Integer indices are the model's constants, folded into attribute
// "indices"; float ones may be fed at run time (cast to integers, as ONNX
// does). The depth is the output's extent along the axis.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class OneHotOp final : public ThreadedOp {
 public:
  OneHotOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t outer_ = 1, depth_ = 0, inner_ = 1;
  int64_t position(double index) const;  // along the axis, -1 where out of range
  bool constant_ = false;
  std::vector<int64_t> hot_;  // per constant index: its position
};

}  // namespace aoe::cpu
