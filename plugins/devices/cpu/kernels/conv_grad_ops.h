// The gradients of a 2-D Conv (docs/training.md), from the forward Conv's
// kernel_shape, strides, pads, dilations and group:
// - Conv2DBackpropInput: dx, the transposed convolution of dy, run by the
//   ConvTranspose kernels (col2im or the dilated convolution) and tuned in
//   their space; input_size [H, W] fixes the extent the strides leave open.
// - Conv2DBackpropFilter: dw[g]ᵀ = Σ over images of im2col(x[g]) · dy[g]ᵀ,
//   per image and group the im2col matrix of x (a row per tap, a column per
//   output pixel) and one GEMM whose depth is the output pixels, its B dy
//   read down its columns; the products added up and transposed into dw.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conv_transpose_op.h"
#include "gemm.h"
#include "step_op.h"

namespace aoe::cpu {

// The forward Conv both gradients read: input n x c x h x w, output
// n x m x oh x ow, weights m x c/group x kh x kw.
struct ConvGradGeometry {
  int64_t n = 1, c = 1, h = 1, w = 1, m = 1, group = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
};

class ConvBackpropInputOp final : public CpuOp {
 public:
  ConvBackpropInputOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override { return transpose_->check(config); }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override { return transpose_->build(config); }
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  ConvGradGeometry g_;
  std::unique_ptr<ConvTransposeOp> transpose_;
};

class ConvBackpropFilterOp final : public CpuOp {
 public:
  enum Knob : size_t { kUKernel, kMc, kKc, kNc, kSplit, kThreads, kKnobCount };

  ConvBackpropFilterOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

  const ConvGradGeometry& geometry() const { return g_; }
  GemmConfig gemm_config(const sdk::Config& config) const;

 private:
  friend class ConvFilterKernel;
  sdk::Config default_config(const HostCpu& host) const;
  const HostCpu& host_;
  ConvGradGeometry g_;
  int64_t gemm_m_ = 1, gemm_n_ = 1, gemm_k_ = 1;  // taps, out channels of a group; output pixels of an image
};

}  // namespace aoe::cpu
