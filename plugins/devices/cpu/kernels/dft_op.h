// DFT (opset 17): the discrete Fourier transform along `axis` of a real
// ([..., 1]) or complex ([..., 2]) signal, forward or inverse, every bin or
// the onesided n/2 + 1; n is dft_length (input 1, read as the model runs,
// which must agree with the planned output) or the axis's extent, the
// signal cut or padded with zeros to it. Output [..., bins, ..., 2].
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fourier.h"
#include "threaded_op.h"

namespace aoe::cpu {

class DftOp final : public ThreadedOp {
 public:
  DftOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override {
    return i == 1 ? ValueRange{static_cast<float>(n_), static_cast<float>(n_)} : ValueRange{};
  }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // n as input 1 gives it, checked against the planned bins.
  int64_t length(const std::vector<const float*>& in) const;
  // Line `l` of outer x inner: its points in the signal, where its bins go.
  FourierLine line(const float* x, int64_t l) const;
  std::string who_;
  bool inverse_ = false, onesided_ = false, complex_ = false;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1, n_ = 1, bins_ = 1;
  std::unique_ptr<FourierPlan> plan_;
};

}  // namespace aoe::cpu
