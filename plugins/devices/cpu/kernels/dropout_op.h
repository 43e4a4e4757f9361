// Dropout where it is more than a view: with its mask output, or with a
// training_mode input. At inference (training_mode false) and in training
// at ratio 0 it passes its input through and keeps every element (a mask
// all true); in training at another ratio its outputs are random, which
// the device refuses as the model runs, since no reference could check them.
// ratio and training_mode are read as the model runs (a constant
// training_mode as its folded attribute).
#pragma once

#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class DropoutOp final : public ThreadedOp {
 public:
  DropoutOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // Throws unsupported where this run would drop elements at random.
  void require_deterministic(const std::vector<const float*>& in) const;
  std::string who_;
  int64_t count_ = 0;
  int training_input_ = -1;  // the task's input holding training_mode, or -1
  int folded_training_ = -1; // a constant training_mode's value, or -1
};

}  // namespace aoe::cpu
