// Conv (1-D, 2-D and 3-D; groups, strides, pads, dilations, auto_pad) with
// bias and fused ops: GEMM on NCHW or, for 1-D and 2-D, direct on the
// channel-blocked layout, with depthwise kernels for group == channels.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "chain.h"
#include "conv.h"
#include "cpu_op.h"

namespace aoe::cpu {

class ConvOp final : public CpuOp {
 public:
  enum Knob : size_t {
    kFormat, kAlgo, kIsa, kUKernel, kMc, kKc, kNc, kTile, kDirectOrder, kThreads, kKnobCount
  };
  enum Format : int64_t { kNchw, kNchwc };
  enum Algo : int64_t { kGemm, kDirect, kOneDnn, kOneDnnWinograd };  // oneDNN's where built

  ConvOp(const sdk::OpTask& task, const HostCpu& host);

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

  // A first layer (fewer input channels than a channel block, which the
  // blocked layout would mostly pad) run by oneDNN reads an NCHW input as it
  // is and writes its output blocked, as ONNX Runtime's blocked first layer
  // does: no conversion of the input, no padding lanes.
  bool reads_nchw_input(const sdk::Config& config) const override;

  const ConvShape& shape() const { return s_; }
  GemmConfig gemm_config(const sdk::Config& config) const;

 private:
  // Every fused operand has the output's shape (the blocked layout takes no other).
  bool full_operands() const { return std::all_of(operand_full_.begin(), operand_full_.end(), [](bool f) { return f; }); }
  friend class ConvKernel;
  sdk::Config default_config(const HostCpu& host) const;
  // Whether oneDNN has more than its reference kernel for this shape from
  // NCHW (lanes 0) or NCHWc to NCHW or NCHWc, direct or Winograd: asked of
  // oneDNN once each.
  bool onednn_compiles(int src_lanes, int dst_lanes, bool winograd) const;

  const HostCpu& host_;
  ConvShape s_;
  bool volumetric_ = false;  // 3-D: im2col + GEMM on NCHW only
  bool has_bias_ = false;
  Shape out_;
  std::vector<ChainStep> fused_;         // operand = index into fused_inputs_
  std::vector<size_t> fused_inputs_;
  std::vector<OperandLayout> nchw_layouts_;  // rows n * m, cols oh * ow
  std::vector<bool> operand_full_;       // per fused operand: it has the output's shape
  OperandLayout bias_layout_;
  mutable std::mutex onednn_mutex_;
  // [src NCHW, NCHWc][dst NCHW, NCHWc][direct, Winograd]: unknown (-1), no, yes
  mutable int onednn_compiles_[2][2][2] = {{{-1, -1}, {-1, -1}}, {{-1, -1}, {-1, -1}}};
};

// With algo=gemm: whether the config's ukernel is OpenBLAS's sgemm, and
// else the GEMM its knobs (ukernel, mc, kc, nc, threads) describe for a
// product of m rows by n columns.
bool conv_uses_openblas(const sdk::Config& config);
// Whether the config's algo is oneDNN's, direct or Winograd.
bool conv_uses_onednn(const sdk::Config& config);
GemmConfig conv_gemm_config(const sdk::Config& config, int64_t m, int64_t n);

}  // namespace aoe::cpu
