// MaxPool and AveragePool over 1 to 3 spatial dims, on NCHW planes or on
// the channel-blocked layout with one vector of channels per pixel.
// MaxPool's optional Indices output (each maximum's flat position in the
// input, row- or column-major within its plane: storage_order) runs on NCHW.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "isa.h"

namespace aoe::cpu {

// Output extents and pads of a sliding window along each spatial dim, as
// ONNX defines them (auto_pad, pads, ceil_mode). Shared with convolution.
struct Window3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t pad_begin[3] = {0, 0, 0}, pad_end[3] = {0, 0, 0};
};
// `spatial` dims right-aligned into three; throws invalid_argument naming `op`.
Window3 window_of(const std::string& op, const Shape& spatial, const std::vector<int64_t>& kernel,
                  const nlohmann::json& attrs, bool ceil_mode);

class PoolOp final : public CpuOp {
 public:
  enum Knob : size_t { kFormat, kIsa, kThreads, kKnobCount };

  PoolOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class PoolKernel;
  friend class MaxPoolIndicesKernel;
  PoolArgs args() const;
  // The flat index ONNX gives the input element at spatial `at` of plane `plane`.
  int64_t flat_index(int64_t plane, const int64_t at[3]) const;
  const HostCpu& host_;
  bool max_ = true;
  bool indices_ = false;       // MaxPool's second output
  bool column_major_ = false;  // storage_order 1
  bool count_include_pad_ = false;
  int64_t n_ = 1, c_ = 1;
  Window3 w_;
};

}  // namespace aoe::cpu
