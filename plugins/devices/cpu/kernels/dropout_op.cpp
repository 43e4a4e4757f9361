// Dropout where it is more than a view: with its mask output, or with a
// training_mode input. At inference (training_mode false) and in training
// at ratio 0 it passes its input through and keeps every element (a mask
// all true); in training it drops each element whose draw of
// counter_random.h falls below the ratio and scales the rest by
// 1 / (1 - ratio), so its reference draws the same mask. ratio and
// training_mode are read as the model runs (a constant training_mode as
// its folded attribute).
#include "op_factories.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "counter_random.h"
#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class DropoutOp final : public ThreadedOp {
 public:
  DropoutOp(const sdk::OpTask& task, const HostCpu& host) : who_("Dropout '" + task.name + "'"), random_(op_seed(task)) {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after Dropout");
    require_inputs(task, 1, 3);
    require_dtype(task, 0, false, Takes::f32);
    if (task.inputs.size() > 1) require_dtype(task, 1, false, Takes::f32);
    if (task.outputs.size() > 2) invalid(who_ + " gives " + std::to_string(task.outputs.size()) + " outputs (output and mask)");
    if (!task.outputs.empty()) require_dtype(task, 0, true, Takes::f32);
    if (task.outputs.size() == 2) require_dtype(task, 1, true, Takes::integral);
    const Shape& x = task.inputs[0].shape;
    for (size_t i = 0; i < task.outputs.size(); ++i)
      if (task.outputs[i].shape != x)
        invalid(who_ + " output '" + task.outputs[i].name + "' is " + to_string(task.outputs[i].shape) + ", its input " +
                to_string(x));
    if (task.inputs.size() > 1 && elements(task.inputs[1].shape) != 1) invalid(who_ + ": ratio must be one value");
    if (task.inputs.size() > 2) {
      require_dtype(task, 2, false, Takes::integral);
      if (elements(task.inputs[2].shape) != 1) invalid(who_ + ": training_mode must be one value");
      training_input_ = 2;
      if (task.attrs.is_object() && task.attrs.contains("training_mode"))
        folded_training_ = folded_ints(task, 2, "training_mode").at(0) != 0 ? 1 : 0;
    }
    count_ = elements(x);
    // The mask, where the task asks for it (a model lists it; an op task may leave it out).
    std::vector<Shape> outputs = {x};
    if (task.outputs.size() != 1) outputs.push_back(x);
    set_shapes(task, outputs, host, static_cast<double>(count_) * 0.25);
  }

  // A run-time training_mode is drawn true: a model gives Dropout the input to train with it.
  ValueRange input_range(size_t i) const override {
    if (static_cast<int>(i) == training_input_) return {1.0f, 1.0f};
    if (i == 1) return {0.0f, 0.9f};
    return {};
  }

  // At inference the input copied in runs and the mask all true; in
  // training each element kept where its draw is at least the ratio, scaled by 1 / (1 - ratio).
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float ratio = drop_ratio(in);
    const float scale = 1.0f / (1.0f - ratio);
    parallel_runs(pool, threads, count_, 16384, [&](int64_t begin, int64_t end) {
      if (ratio == 0.0f) {
        std::memcpy(out[0] + begin, in[0] + begin, static_cast<size_t>(end - begin) * sizeof(float));
        if (out.size() > 1) std::fill(out[1] + begin, out[1] + end, 1.0f);
        return;
      }
      random_.each_uniform(begin, end, [&](int64_t i, float u) {
        const bool keep = u >= ratio;
        out[0][i] = keep ? in[0][i] * scale : 0.0f;
        if (out.size() > 1) out[1][i] = keep ? 1.0f : 0.0f;
      });
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const float ratio = drop_ratio(in);
    for (int64_t i = 0; i < count_; ++i) {
      const bool keep = ratio == 0.0f || random_.uniform(static_cast<uint64_t>(i)) >= ratio;
      out[0][i] = keep ? in[0][i] / (1.0f - ratio) : 0.0f;
      if (out.size() > 1) out[1][i] = keep ? 1.0f : 0.0f;
    }
  }

 private:
  // The share of elements this run drops: 0 at inference, else the ratio, which must lie in [0, 1).
  float drop_ratio(const std::vector<const float*>& in) const {
    bool training = folded_training_ == 1;
    if (folded_training_ < 0 && training_input_ >= 0) {
      if (!in[static_cast<size_t>(training_input_)])
        unsupported(who_ + ": its training_mode is a constant the model does not hand over; fold it into the attribute 'training_mode'");
      training = in[static_cast<size_t>(training_input_)][0] != 0.0f;
    }
    if (!training) return 0.0f;
    if (in.size() > 1 && !in[1]) unsupported(who_ + ": its ratio is a constant the model does not hand over");
    const float ratio = in.size() > 1 ? in[1][0] : 0.5f;  // ONNX's default
    if (!(ratio >= 0.0f && ratio < 1.0f)) {
      std::ostringstream r;
      r << ratio;
      invalid(who_ + ": a ratio in [0, 1) is the share of elements it drops in training, not " + r.str());
    }
    return ratio;
  }
  std::string who_;
  CounterRandom random_;
  int64_t count_ = 0;
  int training_input_ = -1;  // the task's input holding training_mode, or -1
  int folded_training_ = -1; // a constant training_mode's value, or -1
};

}  // namespace

std::unique_ptr<CpuOp> make_dropout_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<DropoutOp>(task, host);
}

}  // namespace aoe::cpu
