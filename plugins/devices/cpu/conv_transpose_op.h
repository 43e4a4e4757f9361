// ConvTranspose (1-D and 2-D, groups, strides, dilations, pads,
// output_padding, output_shape, auto_pad) as a Conv over the input dilated
// by the strides, with the kernel flipped and its channel axes swapped: the
// Conv kernels and their whole tuning space run it. The dilated input and
// the reordered weights are made when the kernel binds its inputs, as
// Conv's own layout reorders are.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conv_op.h"
#include "cpu_op.h"

namespace aoe::cpu {

class ConvTransposeOp final : public CpuOp {
 public:
  ConvTransposeOp(const sdk::OpTask& task, const HostCpu& host);

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ConvTransposeKernel;
  std::unique_ptr<ConvOp> conv_;
  std::vector<int64_t> strides_, dilations_, pads_begin_;  // per spatial axis
  int64_t group_ = 1;
  Shape dilated_;        // the Conv's input
  Shape conv_weights_;   // the Conv's weights
};

}  // namespace aoe::cpu
