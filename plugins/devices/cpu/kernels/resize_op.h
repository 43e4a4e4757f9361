// Resize, nearest and linear: each axis maps output positions to source
// positions (and linear weights) once, in a table; a row of the output then
// sums the taps of the source rows its leading axes pick. The scale of an
// axis is the `scales` attribute where the task carries it, else output
// extent / input extent (exact for `sizes`, and for scales that give whole
// extents); scales computed as the model runs are read at run, the tables
// made again when they change.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

// Upsample (opsets 7 to 9) as the Resize it became: asymmetric coordinates,
// nearest rounding down, `bilinear` named `linear`.
sdk::OpTask upsample_as_resize(sdk::OpTask task);

class ResizeOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  // One output position along an axis: up to two source positions, weighted.
  struct Tap {
    int64_t at[2] = {0, 0};
    double weight[2] = {1, 0};
  };

  ResizeOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ResizeKernel;
  // The source coordinate of output position `x` along `axis`, as the
  // coordinate_transformation_mode says.
  double source(size_t axis, int64_t x, double scale) const;
  Tap tap(size_t axis, int64_t x, double scale) const;
  // The scales of a run: those fed at run time (input scales_input_), else the task's.
  std::vector<double> run_scales(const std::vector<const float*>& inputs) const;

  bool linear_ = false;
  std::string transform_, nearest_mode_;
  std::vector<double> scales_;
  int scales_input_ = -1;  // the task input holding scales fed as the model runs, if any
};

}  // namespace aoe::cpu
