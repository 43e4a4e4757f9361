// ConvTranspose (1-D to 3-D, groups, strides, dilations, pads,
// output_padding, output_shape, auto_pad), two ways (the `method` knob):
// - col2im, as ONNX Runtime and PyTorch run it: one GEMM of the weights'
//   transpose by the input gives every tap's contribution of every input
//   pixel, which are then added to the output pixels they land on. Its
//   work is the op's own; the GEMM takes the Conv's GEMM knobs.
// - dilated_conv: a Conv over the input dilated by the strides, with the
//   kernel flipped and its channel axes swapped, so the Conv kernels and
//   their whole tuning space run it; stride^2 times the work, as the
//   dilated map is mostly zeros. 1-D and 2-D only: the Conv's kernels are.
// A 3-D one runs col2im, its GEMM knobs those of the 1x1 Conv that is the
// same product. The reordered weights are made when the kernel binds its inputs.
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

  // The Conv's knobs, then this one.
  static constexpr size_t kMethod = ConvOp::kKnobCount;
  enum Method : int64_t { kCol2im, kDilatedConv };

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class DilatedConvKernel;
  friend class Col2imKernel;
  // 1-D and 2-D as 3-D of depth (and height) 1: input n x c x d x h x w,
  // output n x m x od x oh x ow.
  struct Geometry {
    int64_t n = 0, c = 0, d = 1, h = 1, w = 1, m = 0, od = 1, oh = 1, ow = 1;
    int64_t kd = 1, kh = 1, kw = 1, sd = 1, sh = 1, sw = 1, dd = 1, dh = 1, dw = 1, pd = 0, ph = 0, pw = 0;
  };
  std::unique_ptr<ConvOp> conv_;
  Geometry geometry_;
  std::vector<int64_t> strides_, dilations_, pads_begin_;  // per spatial axis
  int64_t group_ = 1;
  Shape dilated_;        // the Conv's input
  Shape conv_weights_;   // the Conv's weights
};

}  // namespace aoe::cpu
