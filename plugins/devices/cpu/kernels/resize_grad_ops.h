// The gradients of Resize over H and W (docs/training.md):
// ResizeNearestNeighborV2Grad and ResizeBilinearV2Grad add each position of
// dy into the positions of x the forward Resize read it from, with the
// weights it read them by (half-pixel coordinates; nearest rounds half down).
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

class ResizeGradOp final : public ThreadedOp {
 public:
  ResizeGradOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // Where one output coordinate was read from along an axis: two positions
  // of x and their weights (nearest: the second weight 0).
  struct Tap {
    int64_t lo = 0, hi = 0;
    float w_lo = 1, w_hi = 0;
  };
  static std::vector<Tap> taps(int64_t in, int64_t out, bool linear);

  int64_t planes_ = 1, h_ = 1, w_ = 1, ho_ = 1, wo_ = 1;
  std::vector<Tap> rows_, cols_;
};

}  // namespace aoe::cpu
