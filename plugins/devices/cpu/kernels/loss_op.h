// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12/13):
// scores N x C x d..., integer targets N x d... (the frontend folds a
// constant one into attribute "target"), an optional weight per class;
// `reduction` none, sum or mean (the weighted losses over the weights of the
// targets not ignored), `ignore_index`. SoftmaxCrossEntropyLoss takes the
// log-softmax over C first, and may give it as its second output.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class LossOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Reduction { none, sum, mean };

  LossOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class LossKernel;
  bool softmax_ = false;  // SoftmaxCrossEntropyLoss
  bool weighted_ = false;
  Reduction reduction_ = Reduction::mean;
  int64_t n_ = 0, classes_ = 0, positions_ = 1;  // positions: the d... of each of N
  std::vector<int64_t> targets_;                 // N x positions; ignore_index_ where ignored
  int64_t ignore_index_ = 0;
  bool ignores_ = false;
};

}  // namespace aoe::cpu
