// GridSample (opset 16): each output pixel (n, c, h, w) samples X[n, c] at
// the point grid[n, h, w] = (x, y), -1..1 across the map (corner pixels'
// centres with align_corners, their outer edges without), by `mode`
// bilinear, nearest (halves to even) or bicubic (A = -0.75), a point or tap
// outside read as `padding_mode` says: zeros, border (clamped) or
// reflection (mirrored at the edges). As PyTorch's grid_sample, which the
// ONNX operator follows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class GridSampleOp final : public ThreadedOp {
 public:
  enum class Mode { bilinear, nearest, bicubic };
  enum class Padding { zeros, border, reflection };

  GridSampleOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  Mode mode_ = Mode::bilinear;
  Padding padding_ = Padding::zeros;
  bool align_corners_ = false;
  int64_t n_ = 1, c_ = 1, h_ = 1, w_ = 1, out_h_ = 1, out_w_ = 1;
};

}  // namespace aoe::cpu
