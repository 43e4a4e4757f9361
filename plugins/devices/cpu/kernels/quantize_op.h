// QuantizeLinear and DequantizeLinear, per tensor or per axis: y =
// saturate(round(x / scale) + zero_point) to the output's 8-bit integers
// (ties to even), and x = (q - zero_point) * scale; scale and zero point
// read as the model runs. Integers are held as whole-number floats
// (held_dtype.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class QuantizeOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  QuantizeOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class QuantizeKernel;
  bool quantize_ = true;
  double lo_ = 0, hi_ = 255;          // the quantized dtype's range
  int64_t channels_ = 1, inner_ = 1;  // per axis: the axis's extent, the elements after it
};

}  // namespace aoe::cpu
