// Conv2DBackpropFilter as CANN's kernel runs it: dw = dy^T x im2col(x)
// summed over the batch, the batch split over blocks (batch_dim). Each block
// runs the whole product over its images and adds its fp32 partial into dw
// atomically (after an AtomicAddrClean zeroed it); the output tiles of a
// block may split over further cores. Blocks beyond the cores run after
// them, a wave at a time.
#pragma once

#include <cstdint>

#include "aoe/sdk/op_task.h"
#include "matmul_model.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

class WeightGradientModel final : public OpModel {
 public:
  enum Knob : size_t { kBlockDim, kBatchDim, kML0, kNL0, kKL0, kKL1, kDbL0, kDbL1, kKnobCount };

  // `task` is a Conv2DBackpropFilter (x, dy -> dw); `fused` when the kernel
  // is FusedDbnDw, whose blocks each also take their images' data gradient.
  // Throws invalid_argument for a malformed task.
  WeightGradientModel(const Soc& soc, const sdk::OpTask& task, bool fused = false);

  const sdk::TuningSpace& space() const override { return space_; }
  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  // The product the blocks of one share of the batch run.
  MatMulModel share_model(int64_t batch_dim) const;
  MatMulTiling share_tiling(const sdk::Config& config) const;

  const Soc& soc_;
  sdk::OpTask task_;
  int64_t images_ = 1;
  double b_expansion_ = 1;
  MatMulModel whole_;
  sdk::TuningSpace space_;
};

}  // namespace aoe::sim
