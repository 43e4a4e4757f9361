// STFT (opset 17): the DFT of each frame of frame_length points taken every
// frame_step along a real ([batch, length, 1]) or complex ([.., 2]) signal,
// each point scaled by the window where there is one; every bin or the
// onesided frame_length / 2 + 1. frame_step and frame_length are read as the
// model runs and must agree with the planned output [batch, frames, bins, 2].
#include "op_factories.h"

#include <algorithm>
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

class StftOp final : public ThreadedOp {
 public:
  StftOp(const sdk::OpTask& task, const HostCpu& host) : who_("STFT '" + task.name + "'") {
    const std::vector<int> slot = tensor_slots(task, "input_slots", task.inputs.size(), 4);
    if (slot[0] != 0 || slot[1] != 1) invalid(who_ + " needs its signal and frame_step");
    window_input_ = slot[2];
    length_input_ = slot[3];
    std::vector<size_t> integral = {1};
    if (length_input_ >= 0) integral.push_back(static_cast<size_t>(length_input_));
    require_plain(task, 2, 4, integral);
    for (size_t i : integral) {
      require_dtype(task, i, false, Takes::integral);
      if (elements(task.inputs[i].shape) != 1) invalid(who_ + ": input " + std::to_string(i) + " must be one value");
    }
    const Shape& in = task.inputs[0].shape;
    if (in.size() != 3 || (in[2] != 1 && in[2] != 2))
      invalid(who_ + ": the signal " + to_string(in) + " must be [batch, length, 1 (real) or 2 (complex)]");
    complex_ = in[2] == 2;
    batch_ = in[0];
    signal_ = in[1];
    if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != 4)
      unsupported(who_ + ": its output's shape depends on frame_step and frame_length, which the task does not give: "
                  "make them constants of the model");
    frames_ = task.outputs[0].shape[1];
    bins_ = task.outputs[0].shape[2];
    const bool onesided = int_attr(task.attrs, "onesided", 1) != 0;
    if (window_input_ >= 0) {
      const Shape& w = task.inputs[window_input_].shape;
      if (w.size() != 1) invalid(who_ + ": the window " + to_string(w) + " must be one axis");
      planned_.length = w[0];
    } else if (length_input_ >= 0) {
      planned_.length = onesided ? 2 * (bins_ - 1) : bins_;
    } else {
      invalid(who_ + " needs a window or a frame_length");
    }
    if (planned_.length < 1 || planned_.length > signal_ || frames_ < 1)
      invalid(who_ + ": frames of " + std::to_string(planned_.length) + " points do not fit the signal " + to_string(in) +
              " as its output " + to_string(task.outputs[0].shape) + " is planned");
    // A frame_step that gives the planned frames: what the tuner feeds.
    planned_.step = frames_ > 1 ? std::max<int64_t>(1, (signal_ - planned_.length) / (frames_ - 1)) : signal_;
    Shape out = {batch_, frames_, onesided ? planned_.length / 2 + 1 : planned_.length, 2};
    require_output_shape(task, out);
    plan_ = std::make_unique<FourierPlan>(planned_.length, false);
    set_shapes(task, {out}, host,
               static_cast<double>(batch_ * frames_) * static_cast<double>(planned_.length) *
                   std::log2(static_cast<double>(planned_.length) + 1) * 4);
  }

  ValueRange input_range(size_t i) const override {
    if (static_cast<int>(i) == step_input_) return {static_cast<float>(planned_.step), static_cast<float>(planned_.step)};
    if (static_cast<int>(i) == length_input_)
      return {static_cast<float>(planned_.length), static_cast<float>(planned_.length)};
    return {};
  }

  // Frames (batch x frames) split over the threads, each with its own scratch.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const Frames f = frames(in);
    std::unique_ptr<FourierPlan> other;  // a frame_length other than the planned one of the same bins
    if (f.length != planned_.length) other = std::make_unique<FourierPlan>(f.length, false);
    const FourierPlan& plan = other ? *other : *plan_;
    const int64_t grain = std::max<int64_t>(1, 4096 / f.length);
    parallel_runs(
        pool, threads, batch_ * frames_, grain,
        [&](int64_t begin, int64_t end) {
          std::vector<float> scratch(static_cast<size_t>(2 * f.length));
          for (int64_t l = begin; l < end; ++l) plan.transform(line(in, f, l), out[0] + l * bins_ * 2, 2, bins_, scratch.data());
        },
        1);
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Frames f = frames(in);
    for (int64_t l = 0; l < batch_ * frames_; ++l) fourier_reference(line(in, f, l), f.length, false, out[0] + l * bins_ * 2, 2, bins_);
  }

 private:
  struct Frames {
    int64_t step = 1, length = 1;
  };

  // frame_step and frame_length as the inputs give them, checked against the plan.
  Frames frames(const std::vector<const float*>& in) const {
    Frames f = planned_;
    f.step = static_cast<int64_t>(std::lround(in[step_input_][0]));
    if (length_input_ >= 0) {
      const auto length = static_cast<int64_t>(std::lround(in[length_input_][0]));
      if (window_input_ >= 0 && length != planned_.length)
        throw sdk::Error(sdk::StatusCode::invalid_argument, who_ + ": frame_length " + std::to_string(length) +
                                                                " differs from the window's " +
                                                                std::to_string(planned_.length) + " points");
      f.length = length;
    }
    if (f.step < 1 || f.length < 1 || f.length > signal_ || (signal_ - f.length) / f.step + 1 != frames_ ||
        (bins_ != f.length && bins_ != f.length / 2 + 1))
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       who_ + ": frame_step " + std::to_string(f.step) + " and frame_length " + std::to_string(f.length) +
                           " fed as the model runs do not give the " + std::to_string(frames_) + " frames of " +
                           std::to_string(bins_) + " bins its output was planned with");
    return f;
  }

  // Frame `l` of batch x frames: its points in the signal.
  FourierLine line(const std::vector<const float*>& in, const Frames& f, int64_t l) const {
    const int64_t c = complex_ ? 2 : 1, b = l / frames_, frame = l % frames_;
    return {in[0] + (b * signal_ + frame * f.step) * c, c, f.length, complex_,
            window_input_ >= 0 ? in[window_input_] : nullptr};
  }
  std::string who_;
  bool complex_ = false;
  int step_input_ = 1, window_input_ = -1, length_input_ = -1;  // task input positions, -1: omitted
  int64_t batch_ = 1, signal_ = 1, frames_ = 1, bins_ = 1;
  Frames planned_;
  std::unique_ptr<FourierPlan> plan_;
};

}  // namespace

std::unique_ptr<CpuOp> make_stft_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<StftOp>(task, host);
}

}  // namespace aoe::cpu
