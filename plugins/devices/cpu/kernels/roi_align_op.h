// RoiAlign (opset 10 and 16): each region of interest, [x1, y1, x2, y2] in
// the input's coordinates times spatial_scale, cut into output_height x
// output_width bins, each bin the average (mode avg) or maximum (max) of a
// grid of bilinearly interpolated samples (sampling_ratio per side, or
// ceil(bin size) where 0). coordinate_transformation_mode half_pixel (opset
// 16's default) shifts the region by half a pixel; output_half_pixel (opset
// 10's only) does not, and widens a region to at least one pixel. max takes,
// as ONNX's and ONNX Runtime's references do, the largest weighted corner of
// each sample. batch_indices are the task's attribute where the model holds
// them as a constant, else its third input at run time; one out of range
// fails the run with its position.
#pragma once

#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class RoiAlignOp final : public ThreadedOp {
 public:
  RoiAlignOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // The region's image, checked.
  int64_t batch_of(const float* given, int64_t roi) const;
  std::string who_;
  int64_t n_ = 1, c_ = 1, h_ = 1, w_ = 1, rois_ = 0, out_h_ = 1, out_w_ = 1, sampling_ = 0;
  double scale_ = 1.0;
  bool half_pixel_ = true, max_ = false;
  std::vector<int64_t> folded_;  // constant batch_indices, or empty
};

}  // namespace aoe::cpu
