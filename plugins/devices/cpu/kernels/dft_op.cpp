// DFT (opset 17): the discrete Fourier transform along `axis` of a real
// ([..., 1]) or complex ([..., 2]) signal, forward or inverse, every bin or
// the onesided n/2 + 1; n is dft_length (input 1, read as the model runs,
// which must agree with the planned output) or the axis's extent, the
// signal cut or padded with zeros to it. Output [..., bins, ..., 2].
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "fourier.h"
#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class DftOp final : public ThreadedOp {
 public:
  DftOp(const sdk::OpTask& task, const HostCpu& host) : who_("DFT '" + task.name + "'") {
    require_plain(task, 1, 2, {1});
    if (task.inputs.size() > 1) {
      require_dtype(task, 1, false, Takes::integral);
      if (elements(task.inputs[1].shape) != 1) invalid(who_ + ": dft_length must be one value");
    }
    const Shape& in = task.inputs[0].shape;
    const auto rank = static_cast<int64_t>(in.size());
    if (rank < 2 || (in.back() != 1 && in.back() != 2))
      invalid(who_ + ": the signal " + to_string(in) + " must end in an axis of 1 (real) or 2 (complex)");
    int64_t axis = int_attr(task.attrs, "axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank - 1)
      invalid(who_ + ": axis " + std::to_string(int_attr(task.attrs, "axis", 1)) + " is outside the signal's axes " +
              to_string(in) + " but the last");
    inverse_ = int_attr(task.attrs, "inverse", 0) != 0;
    onesided_ = int_attr(task.attrs, "onesided", 0) != 0;
    if (inverse_ && onesided_) invalid(who_ + ": an inverse DFT is not onesided (ONNX defines no such output)");
    complex_ = in.back() == 2;
    const auto a = static_cast<size_t>(axis);
    outer_ = dims_product(in, 0, a);
    extent_ = in[a];
    inner_ = dims_product(in, a + 1, in.size() - 1);
    n_ = extent_;
    if (task.inputs.size() > 1) {
      // Read as the model runs; the planned output tells its bins.
      if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != in.size())
        unsupported(who_ + ": its output's shape depends on dft_length, which the task does not give: make dft_length a "
                    "constant of the model");
      const int64_t planned = task.outputs[0].shape[a];
      n_ = onesided_ ? 2 * (planned - 1) : planned;
    }
    if (n_ < 1) invalid(who_ + ": dft_length " + std::to_string(n_) + " must be 1 or more");
    bins_ = onesided_ ? n_ / 2 + 1 : n_;
    Shape out = in;
    out[a] = bins_;
    out.back() = 2;
    require_output_shape(task, out);
    plan_ = std::make_unique<FourierPlan>(n_, inverse_);
    const double per_line = static_cast<double>(n_) * (n_ > 1 && (n_ & (n_ - 1)) == 0 ? std::log2(static_cast<double>(n_)) * 4
                                                                                      : static_cast<double>(bins_) * 2);
    set_shapes(task, {out}, host, static_cast<double>(outer_ * inner_) * per_line);
  }
  ValueRange input_range(size_t i) const override {
    return i == 1 ? ValueRange{static_cast<float>(n_), static_cast<float>(n_)} : ValueRange{};
  }

  // Lines (outer x inner) split over the threads, each with its own scratch.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t n = length(in);
    std::unique_ptr<FourierPlan> odd;  // an odd dft_length of the same onesided bins
    if (n != n_) odd = std::make_unique<FourierPlan>(n, inverse_);
    const FourierPlan& plan = odd ? *odd : *plan_;
    const int64_t lines = outer_ * inner_;
    const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1));
    parallel_runs(
        pool, threads, lines, grain,
        [&](int64_t begin, int64_t end) {
          std::vector<float> scratch(static_cast<size_t>(2 * n));
          for (int64_t l = begin; l < end; ++l) {
            float* y = out[0] + ((l / inner_) * bins_ * inner_ + l % inner_) * 2;
            plan.transform(line(in[0], l), y, inner_ * 2, bins_, scratch.data());
          }
        },
        1);
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const int64_t n = length(in);
    for (int64_t l = 0; l < outer_ * inner_; ++l)
      fourier_reference(line(in[0], l), n, inverse_, out[0] + ((l / inner_) * bins_ * inner_ + l % inner_) * 2,
                        inner_ * 2, bins_);
  }

 private:
  // n as input 1 gives it, checked against the planned bins.
  int64_t length(const std::vector<const float*>& in) const {
    if (in.size() < 2 || !in[1]) return n_;
    const auto n = static_cast<int64_t>(std::lround(in[1][0]));
    if (n < 1 || (onesided_ ? n / 2 + 1 : n) != bins_)
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       who_ + ": dft_length " + std::to_string(n) + " fed as the model runs does not give the " +
                           std::to_string(bins_) + " bins its output was planned with");
    return n;
  }

  // Line `l` of outer x inner: its points in the signal, where its bins go.
  FourierLine line(const float* x, int64_t l) const {
    const int64_t c = complex_ ? 2 : 1, o = l / inner_, i = l % inner_;
    return {x + (o * extent_ * inner_ + i) * c, inner_ * c, extent_, complex_, nullptr};
  }
  std::string who_;
  bool inverse_ = false, onesided_ = false, complex_ = false;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1, n_ = 1, bins_ = 1;
  std::unique_ptr<FourierPlan> plan_;
};

}  // namespace

std::unique_ptr<CpuOp> make_dft_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<DftOp>(task, host);
}

}  // namespace aoe::cpu
