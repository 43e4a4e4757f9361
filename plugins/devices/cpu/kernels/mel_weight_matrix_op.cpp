// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins]
// float32 matrix of triangular mel bands between lower_edge_hertz and
// upper_edge_hertz. Its five scalars are read as the model runs and must
// agree with the planned output shape; the band edges are whole bins, as
// ONNX's reference computes them.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// The sample rate the tuner feeds: any positive one gives the same work.
constexpr float kTunedSampleRate = 16000;

// Band i's rising edge from edges[i] to edges[i + 1] and falling one to
// edges[i + 2], as ONNX's reference writes them (a zero-width rise is a 1 at
// its centre), into column i of a zeroed [bins, mels] matrix.
template <typename T>
void write_band(const std::vector<int64_t>& edges, int64_t i, int64_t mels, float* y) {
  const int64_t lower = edges[i], center = edges[i + 1], higher = edges[i + 2];
  if (center == lower) {
    y[center * mels + i] = 1;
  } else {
    for (int64_t j = lower; j <= center; ++j)
      y[j * mels + i] = static_cast<float>(static_cast<T>(j - lower) / static_cast<T>(center - lower));
  }
  for (int64_t j = center; j < higher; ++j)
    y[j * mels + i] = static_cast<float>(static_cast<T>(higher - j) / static_cast<T>(higher - center));
}

class MelWeightMatrixOp final : public ThreadedOp {
 public:
  MelWeightMatrixOp(const sdk::OpTask& task, const HostCpu& host)
      : who_("MelWeightMatrix '" + task.name + "'") {
    require_plain(task, 5, 5, {0, 1, 2});
    for (size_t i = 0; i < 3; ++i) require_dtype(task, i, false, Takes::integral);
    for (size_t i = 0; i < 5; ++i)
      if (elements(task.inputs[i].shape) != 1) invalid(who_ + ": input " + std::to_string(i) + " must be one value");
    if (int_attr(task.attrs, "output_datatype", 1) != 1) unsupported(who_ + ": the cpu device writes float32 matrices only");
    if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != 2)
      unsupported(who_ + ": its output's shape depends on num_mel_bins and dft_length, which the task does not give: "
                  "make them constants of the model");
    bins_ = task.outputs[0].shape[0];
    mels_ = task.outputs[0].shape[1];
    if (bins_ < 1) invalid(who_ + ": its output " + to_string(task.outputs[0].shape) + " has no spectrogram bins");
    set_shapes(task, {{bins_, mels_}}, host, static_cast<double>(bins_ * mels_));
  }

  ValueRange input_range(size_t i) const override {
    const float v[] = {static_cast<float>(mels_), static_cast<float>(2 * (bins_ - 1)), kTunedSampleRate, 0,
                       kTunedSampleRate / 2};
    return i < 5 ? ValueRange{v[i], v[i]} : ValueRange{};
  }

  // The matrix zeroed, then its columns (bands) split over the threads.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const auto e = edges(in);
    std::fill(out[0], out[0] + bins_ * mels_, 0.0f);
    parallel_runs(pool, threads, mels_, 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) write_band<float>(e, i, mels_, out[0]);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto e = edges(in);
    for (int64_t k = 0; k < bins_ * mels_; ++k) out[0][k] = 0;
    for (int64_t i = 0; i < mels_; ++i) write_band<double>(e, i, mels_, out[0]);
  }

 private:
  // The num_mel_bins + 2 band edges, in spectrogram bins, of the scalars fed.
  std::vector<int64_t> edges(const std::vector<const float*>& in) const {
    const auto mels = static_cast<int64_t>(std::lround(in[0][0]));
    const auto dft_length = static_cast<int64_t>(std::lround(in[1][0]));
    const auto sample_rate = static_cast<int64_t>(std::lround(in[2][0]));
    if (mels != mels_ || dft_length < 0 || dft_length / 2 + 1 != bins_)
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       who_ + ": num_mel_bins " + std::to_string(mels) + " and dft_length " + std::to_string(dft_length) +
                           " fed as the model runs do not give the [" + std::to_string(bins_) + ", " +
                           std::to_string(mels_) + "] output it was planned with");
    if (sample_rate <= 0)
      throw sdk::Error(sdk::StatusCode::invalid_argument, who_ + ": sample_rate " + std::to_string(sample_rate) + " must be positive");
    // The mel edges in float32, as the reference's float32 scalars are; the points in double.
    const auto mel = [](float hz) { return 2595.0f * std::log10(1.0f + hz / 700.0f); };
    const float low = mel(in[3][0]), step = (mel(in[4][0]) - low) / static_cast<float>(mels + 2);
    std::vector<int64_t> out(static_cast<size_t>(mels + 2));
    for (int64_t i = 0; i < mels + 2; ++i) {
      const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595) - 1);
      out[i] = static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
    }
    for (int64_t i = 0; i < mels; ++i)
      if (out[i] < 0 || out[i + 1] >= bins_ || out[i + 2] > bins_ || out[i] > out[i + 1] || out[i + 1] > out[i + 2])
        throw sdk::Error(sdk::StatusCode::invalid_argument,
                         who_ + ": band " + std::to_string(i) + " spans bins " + std::to_string(out[i]) + " to " +
                             std::to_string(out[i + 2]) + ", outside the " + std::to_string(bins_) +
                             " of the spectrogram: keep 0 <= lower_edge_hertz <= upper_edge_hertz <= sample_rate / 2");
    return out;
  }
  std::string who_;
  int64_t bins_ = 1, mels_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_mel_weight_matrix_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<MelWeightMatrixOp>(task, host);
}

}  // namespace aoe::cpu
