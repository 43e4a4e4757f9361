// MaxUnpool: the inverse of MaxPool with its Indices. Zeros but where an
// index puts an input value: Y.flat[I[i]] = X[i], in order (a repeated index
// keeps the last value), the indices flat over the pooling's inverse shape
// N x C x ((in - 1) * stride + kernel - pads). Where output_shape is given
// (the task's output; pads then count for nothing, as ONNX's reference has
// it) that shape's values are the top-left corner of a larger zero output.
// The indices are the task's `indices` attribute where the model holds them
// as a constant, else its second input at run time as whole-number floats;
// one out of range fails the run with its position.
#pragma once

#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class MaxUnpoolOp final : public ThreadedOp {
 public:
  MaxUnpoolOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // Each input element's output position, checked against the output's size.
  std::vector<int64_t> positions(const float* given) const;
  std::string who_;
  int64_t planes_ = 1, in_plane_ = 1, out_plane_ = 1;
  int64_t inferred_[3] = {1, 1, 1}, out_[3] = {1, 1, 1};  // spatial dims, right-aligned
  std::vector<int64_t> folded_;  // constant indices, or empty
};

}  // namespace aoe::cpu
