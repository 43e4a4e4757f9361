// Resize, nearest, linear and cubic: each axis maps output positions to
// source positions (and their weights) once, in a table; a row of the output
// then sums the taps of the source rows its leading axes pick. The scale of
// an axis is the `scales` attribute where the task carries it, else output
// extent / input extent (exact for `sizes`, and for scales that give whole
// extents); scales and a tf_crop_and_resize roi fed as the model runs are
// read at run, the tables made again when they change.
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
  // Source positions an output position reads along an axis: 1 nearest, 2 linear, 4 cubic.
  static constexpr int kMaxTaps = 4;

  // One output position along an axis: its source positions, weighted. The
  // `count` taps that weigh anything come first; a position outside a
  // tf_crop_and_resize roi's source takes the extrapolation value instead.
  struct Tap {
    int64_t at[kMaxTaps] = {};
    double weight[kMaxTaps] = {1, 0, 0, 0};
    int count = 1;
    bool outside = false;
  };
  // What the taps of a run follow: each axis's scale, and the roi (starts, then ends).
  struct Sampling {
    std::vector<double> scales, roi;
    bool operator==(const Sampling&) const = default;
  };

  ResizeOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ResizeKernel;
  enum class Mode { nearest, linear, cubic };
  // The source coordinate of output position `x` along `axis`, as the
  // coordinate_transformation_mode says.
  double source(size_t axis, int64_t x, const Sampling& s) const;
  Tap tap(size_t axis, int64_t x, const Sampling& s) const;
  // The weights of the taps at base - 1 .. base + 2 (cubic) or base, base + 1
  // (linear), `frac` past base.
  void interpolation_weights(double frac, double* weight) const;
  // The sampling of a run: scales and roi fed at run time where the task
  // feeds them, else the task's.
  Sampling run_sampling(const std::vector<const float*>& inputs) const;

  Mode mode_ = Mode::nearest;
  int taps_ = 1;  // taps per axis the mode reads
  std::string transform_, nearest_mode_;
  bool crop_ = false;  // tf_crop_and_resize: the roi picks the source window
  bool exclude_outside_ = false;
  double cubic_a_ = -0.75, extrapolation_ = 0;
  Sampling sampling_;
  int scales_input_ = -1;  // the task input holding scales fed as the model runs, if any
  int roi_input_ = -1;     // the task input holding the roi, if any
};

}  // namespace aoe::cpu
