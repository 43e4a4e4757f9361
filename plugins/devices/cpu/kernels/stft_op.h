// STFT (opset 17): the DFT of each frame of frame_length points taken every
// frame_step along a real ([batch, length, 1]) or complex ([.., 2]) signal,
// each point scaled by the window where there is one; every bin or the
// onesided frame_length / 2 + 1. frame_step and frame_length are read as the
// model runs and must agree with the planned output [batch, frames, bins, 2].
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fourier.h"
#include "threaded_op.h"

namespace aoe::cpu {

class StftOp final : public ThreadedOp {
 public:
  StftOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  struct Frames {
    int64_t step = 1, length = 1;
  };
  // frame_step and frame_length as the inputs give them, checked against the plan.
  Frames frames(const std::vector<const float*>& in) const;
  // Frame `l` of batch x frames: its points in the signal.
  FourierLine line(const std::vector<const float*>& in, const Frames& f, int64_t l) const;
  std::string who_;
  bool complex_ = false;
  int step_input_ = 1, window_input_ = -1, length_input_ = -1;  // task input positions, -1: omitted
  int64_t batch_ = 1, signal_ = 1, frames_ = 1, bins_ = 1;
  Frames planned_;
  std::unique_ptr<FourierPlan> plan_;
};

}  // namespace aoe::cpu
