// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins]
// float32 matrix of triangular mel bands between lower_edge_hertz and
// upper_edge_hertz. Its five scalars are read as the model runs and must
// agree with the planned output shape; the band edges are whole bins, as
// ONNX's reference computes them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class MelWeightMatrixOp final : public ThreadedOp {
 public:
  MelWeightMatrixOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // The num_mel_bins + 2 band edges, in spectrogram bins, of the scalars fed.
  std::vector<int64_t> edges(const std::vector<const float*>& in) const;
  std::string who_;
  int64_t bins_ = 1, mels_ = 1;
};

}  // namespace aoe::cpu
