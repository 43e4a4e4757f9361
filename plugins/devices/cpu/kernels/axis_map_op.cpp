// Ops whose output element at (o0, o1, ...) is the input's element at
// (map0[o0], map1[o1], ...), or a fill value where a map says -1: Slice,
// Pad, Tile, Expand and Compress. Each axis maps its output positions once, in a table; a row of the
// output then reads one source row (or is all fill).
#include "op_factories.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

std::string who(const sdk::OpTask& task) { return task.op_type + " '" + task.name + "'"; }

// An attribute a newer opset takes as an input: folded by the frontend
// when that input is a constant of the model, else not known before it runs.
std::vector<int64_t> required_ints(const sdk::OpTask& task, const char* key) {
  if (!task.attrs.contains(key)) {
    if (task.inputs.size() > 1)
      unsupported(who(task) + ": its " + key + " are computed while the model runs; the cpu device runs " +
                  task.op_type + " only where they are constants of the model");
    invalid(who(task) + " has no " + key);
  }
  return ints_attr(task.attrs, key, {});
}

class AxisMapOp : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

 protected:
  // Sets the threads knob once the shapes and maps are known.
  void finish(const HostCpu& host) {
    space_ = threads_space(host, static_cast<double>(elements(outputs_[0])) * 0.25);
  }

  std::vector<std::vector<int64_t>> maps_;  // per axis, per output position: the source position, -1 for fill
  float fill_ = 0;
  size_t fill_input_ = 0;  // where not 0, the input whose one value is the fill, read as the model runs
  float fill(const std::vector<const float*>& inputs) const { return fill_input_ ? inputs[fill_input_][0] : fill_; }

 private:
  friend class AxisMapKernel;
};

class AxisMapKernel final : public ThreadsKernel<AxisMapOp> {
 public:
  AxisMapKernel(const AxisMapOp& op, int threads) : ThreadsKernel(op, threads) {
    const auto& last = op.maps_.back();
    contiguous_ = !last.empty() && last.front() >= 0;
    for (size_t c = 1; contiguous_ && c < last.size(); ++c) contiguous_ = last[c] == last[0] + static_cast<int64_t>(c);
  }

  void run(ThreadPool& pool) override {
    const Shape& out = op_.output_shapes()[0];
    const size_t rank = out.size();
    const int64_t cols = out[rank - 1];
    if (elements(out) == 0) return;  // an empty output: nothing to write, and its buffer has no data
    const int64_t rows = elements(out) / cols;
    const auto strides = strides_of(op_.input_shapes()[0]);
    const auto& last = op_.maps_[rank - 1];
    const float* x = inputs_[0];
    const float value = op_.fill(inputs_);
    float* y = outputs_[0].data();
    pool.run(rows, threads_, [&](int64_t r, int) {
      float* dst = y + r * cols;
      int64_t offset = 0, rest = r;
      bool fill = false;
      for (size_t a = rank - 1; a-- > 0;) {
        const int64_t at = op_.maps_[a][static_cast<size_t>(rest % out[a])];
        rest /= out[a];
        fill = fill || at < 0;
        offset += at * strides[a];
      }
      if (fill) return std::fill(dst, dst + cols, value);
      if (contiguous_) return (void)std::memcpy(dst, x + offset + last[0], static_cast<size_t>(cols) * sizeof(float));
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t at = last[static_cast<size_t>(c)];
        dst[c] = at < 0 ? value : x[offset + at];
      }
    });
  }

 private:
  bool contiguous_ = false;  // the last axis reads one run of the source row
};

std::unique_ptr<Kernel> AxisMapOp::build(const sdk::Config& c) const { return threads_kernel<AxisMapKernel>(*this, c); }

// Slice (opset 1's attributes, or 10+'s inputs folded into them by the
// frontend): starts, ends, axes, steps; negative ones count from the end,
// bounds out of range are clamped, steps may be negative.
class SliceOp final : public AxisMapOp {
 public:
  SliceOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 1, 5, {1, 2, 3, 4}, Takes::held);
    const Shape in = task.inputs[0].shape;
    if (in.empty()) invalid(who(task) + " cannot slice a scalar");
    const auto rank = static_cast<int64_t>(in.size());
    const auto starts = required_ints(task, "starts");
    const auto ends = required_ints(task, "ends");
    std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
    axes = ints_attr(task.attrs, "axes", axes);
    steps = ints_attr(task.attrs, "steps", steps);
    // Each value input the task lists must have come in as its attribute.
    size_t folded = 0;
    for (const char* key : {"starts", "ends", "axes", "steps"}) folded += task.attrs.contains(key) ? 1 : 0;
    if (task.inputs.size() - 1 > folded)
      unsupported(who(task) + ": its axes or steps are computed while the model runs; the cpu device runs Slice only "
                              "where they are constants of the model");
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
      invalid(who(task) + ": starts, ends, axes and steps must be as many (" + std::to_string(starts.size()) + ", " +
              std::to_string(ends.size()) + ", " + std::to_string(axes.size()) + ", " + std::to_string(steps.size()) + ")");
    starts_.assign(in.size(), 0);
    steps_.assign(in.size(), 1);
    Shape out = in;
    std::set<int64_t> seen;
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t a = normalize_axis(axes[i], rank, who(task));
      if (!seen.insert(a).second) invalid(who(task) + ": axis " + std::to_string(axes[i]) + " is sliced twice");
      const int64_t step = steps[i], n = in[static_cast<size_t>(a)];
      if (step == 0) invalid(who(task) + ": step 0 on axis " + std::to_string(axes[i]));
      // As ONNX: negative bounds count from the end, then clamp; backwards, the start stays on an element.
      int64_t s = starts[i] < 0 ? starts[i] + n : starts[i];
      int64_t e = ends[i] < 0 ? ends[i] + n : ends[i];
      s = step > 0 ? std::clamp<int64_t>(s, 0, n) : std::clamp<int64_t>(s, 0, std::max<int64_t>(n - 1, 0));
      e = step > 0 ? std::clamp<int64_t>(e, 0, n) : std::clamp<int64_t>(e, -1, n - 1);
      // Steps come from the file: |INT64_MIN| and span + stride would overflow.
      const int64_t span = step > 0 ? e - s : s - e, stride = step > 0 ? step : step == INT64_MIN ? INT64_MAX : -step;
      out[static_cast<size_t>(a)] = n == 0 || span <= 0 ? 0 : 1 + (span - 1) / stride;
      starts_[static_cast<size_t>(a)] = s;
      steps_[static_cast<size_t>(a)] = step;
    }
    require_output_shape(task, out);
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {out};
    for (size_t a = 0; a < in.size(); ++a) {
      std::vector<int64_t> map(static_cast<size_t>(out[a]));
      for (int64_t o = 0; o < out[a]; ++o) map[static_cast<size_t>(o)] = starts_[a] + o * steps_[a];
      maps_.push_back(std::move(map));
    }
    finish(host);
  }

  // Each output element from the input position start + index * step, per axis.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto strides = strides_of(inputs_[0]);
    for_each_index(outputs_[0], [&](const std::vector<int64_t>& index, int64_t flat) {
      int64_t offset = 0;
      for (size_t d = 0; d < index.size(); ++d) offset += (starts_[d] + index[d] * steps_[d]) * strides[d];
      out[0][flat] = in[0][offset];
    });
  }

 private:
  std::vector<int64_t> starts_, steps_;  // per axis of the input, clamped
};

// Pad in constant, reflect and edge modes (opset 2's attributes, or 11+'s
// inputs folded into them): pads as [x1_begin, x2_begin, ..., x1_end, ...],
// negative ones crop. A constant_value not folded is read as the model runs.
class PadOp final : public AxisMapOp {
 public:
  PadOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 1, 3, {1, 2}, Takes::held);
    mode_ = string_attr(task.attrs, "mode", "constant");
    if (mode_ != "constant" && mode_ != "reflect" && mode_ != "edge")
      unsupported("the cpu device pads in constant, reflect and edge modes, not '" + mode_ + "' (" + who(task) + ")");
    const Shape in = task.inputs[0].shape;
    if (in.empty()) invalid(who(task) + " cannot pad a scalar");
    const auto pads = required_ints(task, "pads");
    if (task.inputs.size() > 2 && !task.attrs.contains("value")) {
      if (elements(task.inputs[2].shape) != 1)
        invalid(who(task) + ": constant_value is " + to_string(task.inputs[2].shape) + "; it takes one value");
      fill_input_ = 2;
    }
    if (pads.size() != 2 * in.size())
      invalid(who(task) + ": " + std::to_string(pads.size()) + " pads for rank " + std::to_string(in.size()) +
              "; it takes a begin and an end per axis");
    fill_ = static_cast<float>(float_attr(task.attrs, "value", 0.0));
    Shape out = in;
    for (size_t a = 0; a < in.size(); ++a) {
      const int64_t n = in[a], b = pads[a], e = pads[a + in.size()];
      if (__builtin_add_overflow(n, b, &out[a]) || __builtin_add_overflow(out[a], e, &out[a]))
        invalid(who(task) + ": pads " + std::to_string(b) + " and " + std::to_string(e) + " overflow axis " + std::to_string(a));
      if (out[a] < 0) invalid(who(task) + ": pads " + std::to_string(b) + " and " + std::to_string(e) + " crop axis " + std::to_string(a) + " of " + std::to_string(n) + " below nothing");
      const bool grows = b > 0 || e > 0;
      if (mode_ == "reflect" && grows && (n < 2 || b > n - 1 || e > n - 1))
        invalid(who(task) + ": reflect pads of " + std::to_string(b) + " and " + std::to_string(e) + " on axis " +
                std::to_string(a) + " need an axis longer than either (it has " + std::to_string(n) + ")");
      if (mode_ == "edge" && grows && n == 0)
        invalid(who(task) + ": edge pads axis " + std::to_string(a) + ", which is empty and has no edge");
      begins_.push_back(b);
    }
    require_output_shape(task, out);
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {out};
    for (size_t a = 0; a < in.size(); ++a) {
      const int64_t n = in[a];
      std::vector<int64_t> map(static_cast<size_t>(out[a]));
      for (int64_t o = 0; o < out[a]; ++o) {
        int64_t i = o - begins_[a];
        if (mode_ == "edge") i = std::clamp<int64_t>(i, 0, n - 1);
        else if (mode_ == "reflect") i = i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
        else if (i < 0 || i >= n) i = -1;
        map[static_cast<size_t>(o)] = i;
      }
      maps_.push_back(std::move(map));
    }
    finish(host);
  }

  // Each output element by the ONNX definition: the source position shifted
  // back by the begin pad, then mirrored over the edge (reflect: with period
  // 2(n - 1), the edge not repeated), held at it (edge), or the value (constant).
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& x = inputs_[0];
    const float value = fill(in);
    const auto strides = strides_of(x);
    for_each_index(outputs_[0], [&](const std::vector<int64_t>& index, int64_t flat) {
      int64_t offset = 0;
      bool outside = false;
      for (size_t d = 0; d < index.size(); ++d) {
        int64_t i = index[d] - begins_[d];
        const int64_t n = x[d];
        if (i < 0 || i >= n) {
          if (mode_ == "constant") outside = true;
          else if (mode_ == "edge") i = i < 0 ? 0 : n - 1;
          else {
            const int64_t period = 2 * (n - 1), m = ((i % period) + period) % period;
            i = m < n ? m : period - m;
          }
        }
        offset += i * strides[d];
      }
      out[0][flat] = outside ? value : in[0][offset];
    });
  }

 private:
  std::string mode_;
  std::vector<int64_t> begins_;
};

// Tile: each axis repeated `repeats` times (the frontend folds the constant
// input into that attribute); output position o reads o mod the input's extent.
class TileOp final : public AxisMapOp {
 public:
  TileOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 2, 2, {1}, Takes::held);
    // A scalar (repeats []) is copied as the one element of a rank-1 tensor.
    const Shape in = task.inputs[0].shape.empty() ? Shape{1} : task.inputs[0].shape;
    auto repeats = folded_ints(task, 1, "repeats");
    if (task.inputs[0].shape.empty() && repeats.empty()) repeats = {1};
    if (repeats.size() != in.size())
      invalid(who(task) + ": " + std::to_string(repeats.size()) + " repeats for input " + to_string(task.inputs[0].shape));
    Shape out = in;
    for (size_t a = 0; a < in.size(); ++a) {
      if (repeats[a] < 0 || __builtin_mul_overflow(in[a], repeats[a], &out[a]))
        invalid(who(task) + ": repeats " + std::to_string(repeats[a]) + " on axis " + std::to_string(a));
    }
    require_output_shape(task, task.inputs[0].shape.empty() ? Shape{} : out);
    inputs_ = {in, task.inputs[1].shape};
    outputs_ = {out};
    for (size_t a = 0; a < in.size(); ++a) {
      std::vector<int64_t> map(static_cast<size_t>(out[a]));
      for (int64_t o = 0; o < out[a]; ++o) map[static_cast<size_t>(o)] = o % in[a];
      maps_.push_back(std::move(map));
    }
    finish(host);
  }

  // Each output element from the input at its index modulo the input's dims.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& x = inputs_[0];
    const auto strides = strides_of(x);
    for_each_index(outputs_[0], [&](const std::vector<int64_t>& index, int64_t flat) {
      int64_t offset = 0;
      for (size_t d = 0; d < index.size(); ++d) offset += index[d] % x[d] * strides[d];
      out[0][flat] = in[0][offset];
    });
  }
};

// Expand: the input broadcast with `shape` (folded as Tile's repeats), numpy's
// way; an axis of extent 1 reads its one position.
class ExpandOp final : public AxisMapOp {
 public:
  ExpandOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 2, 2, {1}, Takes::held);
    const Shape shape = folded_ints(task, 1, "shape");
    const Shape broadcast_shape = broadcast({task.inputs[0].shape, shape}, who(task));
    require_output_shape(task, broadcast_shape);
    // A scalar to a scalar is copied as the one element of a rank-1 tensor.
    const Shape out = broadcast_shape.empty() ? Shape{1} : broadcast_shape;
    // The input as the output's rank: the same elements, leading axes of 1.
    inputs_ = {align_rank(task.inputs[0].shape, out.size()), task.inputs[1].shape};
    outputs_ = {out};
    for (size_t a = 0; a < out.size(); ++a) {
      std::vector<int64_t> map(static_cast<size_t>(out[a]));
      for (int64_t o = 0; o < out[a]; ++o) map[static_cast<size_t>(o)] = inputs_[0][a] == 1 ? 0 : o;
      maps_.push_back(std::move(map));
    }
    finish(host);
  }

  // Each output element from the input element broadcasting maps it to.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& o = outputs_[0];
    for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
      out[0][flat] = static_cast<float>(at_broadcast(in[0], inputs_[0], o, index));
    });
  }
};

// Compress: the positions along `axis` (or of the flattened input, without
// one) whose condition is true; a condition shorter than the axis drops the
// rest. The condition is the model's bool constant, folded into attribute
// "condition".
class CompressOp final : public AxisMapOp {
 public:
  CompressOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 2, 2, {1}, Takes::held);
    const Shape given = task.inputs[0].shape;
    const bool flat = !task.attrs.is_object() || !task.attrs.contains("axis");
    const Shape in = flat ? Shape{elements(given)} : given;
    if (in.empty()) invalid(who(task) + " cannot compress a scalar along an axis");
    axis_ = flat ? 0 : static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 0), static_cast<int64_t>(in.size()), who(task)));
    const auto condition = folded_ints(task, 1, "condition");
    if (static_cast<int64_t>(condition.size()) > in[axis_])
      invalid(who(task) + ": a condition of " + std::to_string(condition.size()) + " for an axis of " + std::to_string(in[axis_]));
    for (size_t i = 0; i < condition.size(); ++i)
      if (condition[i] != 0) kept_.push_back(static_cast<int64_t>(i));
    Shape out = in;
    out[axis_] = static_cast<int64_t>(kept_.size());
    require_output_shape(task, out);
    inputs_ = {in, task.inputs[1].shape};
    outputs_ = {out};
    for (size_t a = 0; a < in.size(); ++a) {
      std::vector<int64_t> map(static_cast<size_t>(out[a]));
      for (int64_t o = 0; o < out[a]; ++o) map[static_cast<size_t>(o)] = a == axis_ ? kept_[static_cast<size_t>(o)] : o;
      maps_.push_back(std::move(map));
    }
    finish(host);
  }

  // The slices of the kept positions, in order.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& x = inputs_[0];
    const int64_t outer = dims_product(x, 0, axis_), inner = dims_product(x, axis_ + 1, x.size());
    size_t flat = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k : kept_)
        for (int64_t i = 0; i < inner; ++i) out[0][flat++] = in[0][(o * x[axis_] + k) * inner + i];
  }

 private:
  size_t axis_ = 0;  // of inputs_[0], the flattened input without an axis
  std::vector<int64_t> kept_;
};

}  // namespace

std::unique_ptr<CpuOp> make_axis_map_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "Slice") return std::make_unique<SliceOp>(task, host);
  if (task.op_type == "Pad") return std::make_unique<PadOp>(task, host);
  if (task.op_type == "Tile") return std::make_unique<TileOp>(task, host);
  if (task.op_type == "Expand") return std::make_unique<ExpandOp>(task, host);
  return std::make_unique<CompressOp>(task, host);
}

}  // namespace aoe::cpu
