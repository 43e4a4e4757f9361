// Resize, nearest, linear and cubic: each axis maps output positions to
// source positions (and their weights) once, in a table; a row of the output
// then sums the taps of the source rows its leading axes pick. The scale of
// an axis is the `scales` attribute where the task carries it, else output
// extent / input extent (exact for `sizes`, and for scales that give whole
// extents); scales and a tf_crop_and_resize roi fed as the model runs are
// read at run, the tables made again when they change. Linear over the last
// two axes (the others left as they are) sums each element's four source
// neighbours in float32 as ONNX Runtime does (bilinear_lerp.h), so a value
// that later meets a rounding (a DynamicQuantizeLinear) rounds alike.
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bilinear_lerp.h"
#include "buffer.h"
#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

class ResizeOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  // Source positions an output position reads along an axis: 1 nearest, 2 linear, 4 cubic.
  static constexpr int kMaxTaps = 4;

  // One output position along an axis: its source positions, weighted. The
  // `count` taps that weigh anything come first; a position outside a
  // tf_crop_and_resize roi's source takes the extrapolation value instead.
  struct Tap {
    int64_t at[kMaxTaps] = {};
    double weight[kMaxTaps] = {1, 0, 0, 0};
    int count = 1;
    bool outside = false;
  };
  // What the taps of a run follow: each axis's scale, and the roi (starts, then ends).
  struct Sampling {
    std::vector<double> scales, roi;
    bool operator==(const Sampling&) const = default;
  };

  ResizeOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "Resize '" + task.name + "'";
    require_plain(task, 1, 4, {1, 2, 3});
    const auto rank = static_cast<int64_t>(task.inputs[0].shape.size());
    const std::string mode = string_attr(task.attrs, "mode", "nearest");
    if (mode != "nearest" && mode != "linear" && mode != "cubic")
      invalid(who + ": mode " + mode + " is none of nearest, linear, cubic");
    mode_ = mode == "cubic" ? Mode::cubic : mode == "linear" ? Mode::linear : Mode::nearest;
    taps_ = mode_ == Mode::cubic ? 4 : mode_ == Mode::linear ? 2 : 1;
    transform_ = string_attr(task.attrs, "coordinate_transformation_mode", "half_pixel");
    if (transform_ != "half_pixel" && transform_ != "pytorch_half_pixel" && transform_ != "align_corners" &&
        transform_ != "asymmetric" && transform_ != "tf_half_pixel_for_nn" && transform_ != "half_pixel_symmetric" &&
        transform_ != "tf_crop_and_resize")
      unsupported("the cpu device does not run Resize with coordinate_transformation_mode " + transform_);
    crop_ = transform_ == "tf_crop_and_resize";
    nearest_mode_ = string_attr(task.attrs, "nearest_mode", "round_prefer_floor");
    if (nearest_mode_ != "round_prefer_floor" && nearest_mode_ != "round_prefer_ceil" && nearest_mode_ != "floor" &&
        nearest_mode_ != "ceil")
      invalid(who + ": nearest_mode " + nearest_mode_ + " is none of round_prefer_floor, round_prefer_ceil, floor, ceil");
    cubic_a_ = float_attr(task.attrs, "cubic_coeff_a", -0.75);
    exclude_outside_ = int_attr(task.attrs, "exclude_outside", 0) != 0;
    extrapolation_ = float_attr(task.attrs, "extrapolation_value", 0.0);
    if (int_attr(task.attrs, "antialias", 0) != 0) unsupported("the cpu device does not run antialiased Resize");
    if (task.attrs.contains("axes")) unsupported("the cpu device runs Resize over every axis, not an 'axes' subset");
    const Shape in = task.inputs[0].shape;
    if (in.empty() || task.outputs.empty() || !task.outputs[0].fully_known())
      invalid(who + " needs a ranked input and its output's shape");
    const Shape out = task.outputs[0].shape;
    if (out.size() != in.size()) invalid(who + ": output " + to_string(out) + " has another rank than its input " + to_string(in));
    if (in.size() > 6) unsupported("the cpu device runs Resize up to rank 6");
    for (size_t a = 0; a < in.size(); ++a)
      if (in[a] < 1 || out[a] < 1) invalid(who + ": input " + to_string(in) + " and output " + to_string(out) + " must not be empty");
    // Values fed as the model runs, read at run: the float input of one value
    // per axis is the scales, that of two (starts, then ends) the roi, which
    // only tf_crop_and_resize reads.
    for (size_t i = 1; i < task.inputs.size(); ++i) {
      const auto& t = task.inputs[i];
      if (t.dtype != sdk::DType::f32 && !computed_in_f32(t.dtype)) continue;
      if (elements(t.shape) == rank && !task.attrs.contains("scales") && !task.attrs.contains("sizes"))
        scales_input_ = static_cast<int>(i);
      if (elements(t.shape) == 2 * rank && crop_) roi_input_ = static_cast<int>(i);
    }
    std::vector<double> given;
    if (task.attrs.contains("scales") && task.attrs.at("scales").is_array()) {
      for (const auto& v : task.attrs.at("scales")) {
        if (!v.is_number() || !(v.get<double>() > 0)) invalid(who + ": scales must be positive numbers");
        given.push_back(v.get<double>());
      }
      if (given.size() != in.size()) invalid(who + ": " + std::to_string(given.size()) + " scales for rank " + std::to_string(in.size()));
    }
    // A crop's extents follow its roi too (input x (end - start) x scale), which may come as the model runs.
    for (size_t a = 0; a < in.size(); ++a) {
      sampling_.scales.push_back(given.empty() ? static_cast<double>(out[a]) / static_cast<double>(in[a]) : given[a]);
      if (!given.empty() && !crop_ && static_cast<int64_t>(std::floor(in[a] * given[a])) != out[a])
        invalid(who + ": scale " + std::to_string(given[a]) + " of axis " + std::to_string(a) + " gives " +
                std::to_string(static_cast<int64_t>(std::floor(in[a] * given[a]))) + ", the output has " + std::to_string(out[a]));
    }
    derived_scales_ = given.empty() && scales_input_ < 0;
    // Without a roi a crop takes the whole input.
    if (crop_) sampling_.roi.assign(in.size(), 0.0), sampling_.roi.resize(2 * in.size(), 1.0);
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {out};
    space_ = threads_space(host, static_cast<double>(elements(out)) * 0.5 * taps_ * taps_);
  }

  // Fed scales are drawn as the ones that give the planned output: out / in,
  // nudged up where float rounding would floor it below.
  ValueRange input_range(size_t i) const override {
    if (static_cast<int>(i) == roi_input_) return ValueRange{0.0f, 1.0f};
    if (static_cast<int>(i) != scales_input_) return {};
    ValueRange r;
    for (size_t a = 0; a < outputs_[0].size(); ++a) {
      const auto in = static_cast<double>(inputs_[0][a]), out = static_cast<double>(outputs_[0][a]);
      float scale = static_cast<float>(out / in);
      while (std::floor(in * scale) < out) scale = std::nextafter(scale, 2 * scale);
      r.values.push_back(scale);
    }
    return r;
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // Every output element as the weighted sum over every combination of its
  // axes' taps, in double; the extrapolation value where a crop's source
  // position falls outside the input along any axis.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& outs) const override {
    const Shape& o = outputs_[0];
    const auto strides = strides_of(inputs_[0]);
    const Sampling sampling = run_sampling(in);
    const size_t rank = o.size();
    std::vector<std::vector<Tap>> taps(rank);
    for (size_t a = 0; a < rank; ++a)
      for (int64_t x = 0; x < o[a]; ++x) taps[a].push_back(tap(a, x, sampling));
    for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
      std::vector<const Tap*> at(rank);
      bool outside = false;
      Shape counts(rank);
      for (size_t a = 0; a < rank; ++a) {
        at[a] = &taps[a][static_cast<size_t>(index[a])];
        outside = outside || at[a]->outside;
        counts[a] = at[a]->count;
      }
      double sum = extrapolation_;
      if (!outside) {
        sum = 0;
        for_each_index(counts, [&](const std::vector<int64_t>& k, int64_t) {
          double weight = 1;
          int64_t offset = 0;
          for (size_t a = 0; a < rank; ++a) {
            weight *= at[a]->weight[k[a]];
            offset += at[a]->at[k[a]] * strides[a];
          }
          sum += weight * in[0][offset];
        });
      }
      outs[0][flat] = static_cast<float>(sum);
    });
  }

 private:
  friend class ResizeKernel;
  enum class Mode { nearest, linear, cubic };

  // The source coordinate of output position `x` along `axis`, as the
  // coordinate_transformation_mode says.
  double source(size_t a, int64_t x, const Sampling& s) const {
    const double in = static_cast<double>(inputs_[0][a]), out = static_cast<double>(outputs_[0][a]);
    const double xd = static_cast<double>(x), scale = s.scales[a];
    // align_corners spans the output's own length, as ONNX Runtime and PyTorch take it (ONNX's
    // reference takes input x scale, unrounded); tf_crop_and_resize takes input x scale.
    const double resized = in * scale;
    if (transform_ == "align_corners") return out == 1 ? 0 : xd * (in - 1) / (out - 1);
    if (transform_ == "asymmetric") return xd / scale;
    if (transform_ == "tf_half_pixel_for_nn") return (xd + 0.5) / scale;
    if (transform_ == "pytorch_half_pixel") return out > 1 ? (xd + 0.5) / scale - 0.5 : 0;
    if (transform_ == "half_pixel_symmetric") {
      const double adjustment = out / resized;
      return in / 2 * (1 - adjustment) + (xd + 0.5) / scale - 0.5;
    }
    if (crop_) {
      const double start = s.roi[a], end = s.roi[a + inputs_[0].size()];
      return resized > 1 ? start * (in - 1) + xd * (end - start) * (in - 1) / (resized - 1) : 0.5 * (start + end) * (in - 1);
    }
    return (xd + 0.5) / scale - 0.5;
  }

  Tap tap(size_t a, int64_t x, const Sampling& s) const {
    const int64_t last = inputs_[0][a] - 1;
    Tap t;
    if (!crop_ && inputs_[0][a] == outputs_[0][a] && s.scales[a] == 1.0) {
      t.at[0] = x;
      return t;
    }
    const double at = source(a, x, s);
    if (crop_ && (at < 0 || at > static_cast<double>(last))) {
      t.outside = true, t.count = 0, t.weight[0] = 0;
      return t;
    }
    if (mode_ == Mode::nearest) {
      double pick;
      const double frac = at - std::floor(at);
      if (nearest_mode_ == "floor") pick = std::floor(at);
      else if (nearest_mode_ == "ceil") pick = std::ceil(at);
      else if (frac == 0.5) pick = nearest_mode_ == "round_prefer_ceil" ? std::ceil(at) : std::floor(at);
      else pick = std::round(at);
      t.at[0] = std::clamp<int64_t>(static_cast<int64_t>(pick), 0, last);
      return t;
    }
    // The taps around `at`, past the edges the edge's value (or, with
    // exclude_outside, no weight, the rest scaled to sum to 1); taps landing
    // on one source position merged, those that weigh something first.
    const double base = std::floor(at);
    double weight[kMaxTaps] = {};
    interpolation_weights(at - base, weight);
    const int64_t first = static_cast<int64_t>(base) - (taps_ / 2 - 1);
    if (exclude_outside_) {
      double sum = 0;
      for (int k = 0; k < taps_; ++k) {
        if (first + k < 0 || first + k > last) weight[k] = 0;
        sum += weight[k];
      }
      if (sum != 0)
        for (int k = 0; k < taps_; ++k) weight[k] /= sum;
    }
    t.count = 0;
    t.weight[0] = 0;
    for (int k = 0; k < taps_; ++k) {
      if (weight[k] == 0) continue;
      const int64_t pos = std::clamp<int64_t>(first + k, 0, last);
      int j = 0;
      while (j < t.count && t.at[j] != pos) ++j;
      if (j == t.count) t.at[t.count++] = pos;
      t.weight[j] += weight[k];
    }
    if (t.count == 0) t.count = 1, t.at[0] = std::clamp<int64_t>(static_cast<int64_t>(base), 0, last);
    return t;
  }

  // The weights of the taps at base - 1 .. base + 2 (cubic) or base, base + 1
  // (linear), `frac` past base.
  void interpolation_weights(double frac, double* weight) const {
    if (mode_ == Mode::linear) {
      weight[0] = 1 - frac, weight[1] = frac;
      return;
    }
    // Keys' cubic convolution kernel with a = cubic_coeff_a, at distances
    // 1 + frac, frac, 1 - frac, 2 - frac.
    const double a = cubic_a_;
    const auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };     // |d| <= 1
    const auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
    weight[0] = far(1 + frac), weight[1] = near(frac), weight[2] = near(1 - frac), weight[3] = far(2 - frac);
  }

  // The sampling of a run: scales and roi fed at run time where the task
  // feeds them, else the task's.
  Sampling run_sampling(const std::vector<const float*>& inputs) const {
    Sampling s = sampling_;
    if (scales_input_ >= 0 && inputs[static_cast<size_t>(scales_input_)]) {
      const float* given = inputs[static_cast<size_t>(scales_input_)];
      for (size_t a = 0; a < s.scales.size(); ++a) {
        const double scale = given[a];
        if (!(scale > 0) || (!crop_ && static_cast<int64_t>(std::floor(static_cast<double>(inputs_[0][a]) * scale)) != outputs_[0][a]))
          throw sdk::Error(sdk::StatusCode::invalid_argument,
                           "Resize: scale " + std::to_string(scale) + " of axis " + std::to_string(a) +
                               " fed as the model runs does not give its output's " + std::to_string(outputs_[0][a]));
        s.scales[a] = scale;
      }
    }
    if (roi_input_ >= 0 && inputs[static_cast<size_t>(roi_input_)]) {
      const float* roi = inputs[static_cast<size_t>(roi_input_)];
      for (size_t k = 0; k < s.roi.size(); ++k) s.roi[k] = roi[k];
    }
    return s;
  }

  // The two source positions of output position `x` along `a` and their
  // weights, in float32 as ONNX Runtime's SetupUpsampleBilinear takes them.
  Lerp lerp(size_t a, int64_t x, const Sampling& s) const {
    const float in = static_cast<float>(inputs_[0][a]), xf = static_cast<float>(x);
    // The float scale as ONNX Runtime holds it: out / in in float where sizes give the output.
    const float scale = derived_scales_
                            ? static_cast<float>(outputs_[0][a]) / in
                            : static_cast<float>(s.scales[a]);
    const float resized = static_cast<float>(inputs_[0][a] * s.scales[a]);
    float at = xf;
    if (scale != 1 || crop_) {
      if (transform_ == "align_corners") {
        const auto out = static_cast<float>(outputs_[0][a]);
        at = out == 1 ? 0.0f : xf * (in - 1) / (out - 1);
      } else if (transform_ == "asymmetric") at = xf / scale;
      else if (transform_ == "tf_half_pixel_for_nn") at = (xf + 0.5f) / scale;
      else if (transform_ == "pytorch_half_pixel") at = outputs_[0][a] > 1 ? (xf + 0.5f) / scale - 0.5f : 0.0f;
      else if (transform_ == "half_pixel_symmetric") {
        const float adjustment = static_cast<float>(outputs_[0][a]) / (scale * in), offset = in / 2 * (1 - adjustment);
        at = static_cast<float>(offset + (xf + 0.5) / scale - 0.5);  // in double, as ONNX Runtime writes it
      } else if (crop_) {
        const float start = static_cast<float>(s.roi[a]), end = static_cast<float>(s.roi[a + inputs_[0].size()]);
        at = resized > 1 ? start * (in - 1) + (xf * (end - start) * (in - 1)) / (resized - 1)
                         : static_cast<float>(0.5 * (start + end) * (in - 1));
      } else {
        at = ((xf + 0.5f) / scale) - 0.5f;
      }
    }
    return lerp_between(at, inputs_[0][a], crop_);
  }

  Mode mode_ = Mode::nearest;
  int taps_ = 1;  // taps per axis the mode reads
  std::string transform_, nearest_mode_;
  bool crop_ = false;  // tf_crop_and_resize: the roi picks the source window
  bool exclude_outside_ = false;
  double cubic_a_ = -0.75, extrapolation_ = 0;
  Sampling sampling_;
  int scales_input_ = -1;  // the task input holding scales fed as the model runs, if any
  int roi_input_ = -1;     // the task input holding the roi, if any
  bool derived_scales_ = false;  // the scales are out / in, neither given nor fed
};

class ResizeKernel final : public ThreadsKernel<ResizeOp> {
 public:
  ResizeKernel(const ResizeOp& op, int threads) : ThreadsKernel(op, threads), taps_(op.taps_) {
    tabulate(op.sampling_);
  }

  // Each axis's taps for `sampling`: made at build, and again at run where
  // scales or a roi fed as the model runs change.
  void tabulate(const ResizeOp::Sampling& sampling) {
    tabulated_ = sampling;
    const Shape& out = op_.outputs_[0];
    axes_.assign(out.size(), {});
    for (size_t a = 0; a < out.size(); ++a)
      for (int64_t x = 0; x < out[a]; ++x) axes_[a].push_back(op_.tap(a, x, sampling));
    // The last axis's taps as arrays, in float: its loop is the kernel's inner one.
    const size_t cols = axes_.back().size();
    last_at_.assign(cols * static_cast<size_t>(taps_), 0);
    last_weight_.assign(cols * static_cast<size_t>(taps_), 0.0f);
    last_outside_.assign(cols, 0);
    one_tap_ = true, any_outside_last_ = false;
    for (size_t c = 0; c < cols; ++c) {
      const auto& t = axes_.back()[c];
      for (int k = 0; k < taps_; ++k) {
        last_at_[c * static_cast<size_t>(taps_) + static_cast<size_t>(k)] = t.at[k];
        last_weight_[c * static_cast<size_t>(taps_) + static_cast<size_t>(k)] = static_cast<float>(t.weight[k]);
      }
      last_outside_[c] = t.outside;
      any_outside_last_ = any_outside_last_ || t.outside;
      one_tap_ = one_tap_ && t.count == 1 && t.weight[0] == 1 && !t.outside;
    }
    // Linear over the last two axes, the leading ones left as they are.
    const size_t rank = out.size();
    bilinear_ = op_.mode_ == ResizeOp::Mode::linear && rank >= 2;
    for (size_t a = 0; a + 2 < rank && bilinear_; ++a)
      for (int64_t x = 0; x < out[a] && bilinear_; ++x) {
        const auto& t = axes_[a][static_cast<size_t>(x)];
        bilinear_ = t.at[0] == x && t.count == 1 && t.weight[0] == 1 && !t.outside;
      }
    row_lerps_.clear(), col_lerps_.clear();
    for (int64_t x = 0; bilinear_ && x < out[rank - 2]; ++x) row_lerps_.push_back(op_.lerp(rank - 2, x, sampling));
    for (int64_t x = 0; bilinear_ && x < out[rank - 1]; ++x) col_lerps_.push_back(op_.lerp(rank - 1, x, sampling));
    // Per thread, the source rows (and weights) one output row reads: the
    // product of the leading axes' taps.
    combos_ = 1;
    for (size_t a = 0; a + 1 < out.size(); ++a) {
      int most = 1;
      for (const auto& t : axes_[a]) most = std::max(most, t.count);
      combos_ *= most;
    }
    combo_at_.resize(static_cast<size_t>(threads_ * combos_));
    combo_weight_.resize(static_cast<size_t>(threads_ * combos_));
    // A map whose leading axes stay as they are, in planes enough for the
    // threads: plane by plane, each source row resized along the last axis
    // once, not once per output row that reads it (twice on a 2x nearest
    // upsample, four times on a linear one, eight on a cubic one).
    const Shape& in = op_.inputs_[0];
    const size_t h = out.size() >= 2 ? out.size() - 2 : 0;
    by_plane_ = out.size() >= 2 && elements(out) / (out[h] * out.back()) >= threads_;
    for (size_t a = 0; a < h && by_plane_; ++a)
      for (int64_t x = 0; x < out[a] && by_plane_; ++x) {
        const auto& t = axes_[a][static_cast<size_t>(x)];
        by_plane_ = t.at[0] == x && t.count == 1 && t.weight[0] == 1 && !t.outside;
      }
    if (by_plane_) {
      used_rows_.assign(static_cast<size_t>(in[h]), false);
      for (const auto& t : axes_[h])
        for (int k = 0; k < t.count; ++k) used_rows_[static_cast<size_t>(t.at[k])] = true;
      if (rows_.size() < static_cast<int64_t>(threads_) * in[h] * out.back())
        rows_.resize(static_cast<int64_t>(threads_) * in[h] * out.back());
    }
  }

  Footprint footprint() const override {
    Footprint f = BufferKernel::footprint();
    if (rows_.size()) f.emplace_back(rows_.data(), rows_.bytes());
    return f;
  }

  void run(ThreadPool& pool) override {
    if (op_.scales_input_ >= 0 || op_.roi_input_ >= 0)
      if (const auto sampling = op_.run_sampling(inputs_); !(sampling == tabulated_)) tabulate(sampling);
    if (bilinear_) return run_bilinear(pool);
    if (by_plane_) return run_by_plane(pool);
    const Shape& in = op_.inputs_[0];
    const Shape& out = op_.outputs_[0];
    const size_t rank = out.size();
    const int64_t cols = out[rank - 1];
    const int64_t rows = elements(out) / std::max<int64_t>(1, cols);
    const auto in_strides = strides_of(in);
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    const float extrapolation = static_cast<float>(op_.extrapolation_);
    pool.run(rows, threads_, [&](int64_t r, int thread) {
      float* dst = y + r * cols;
      // The leading axes' taps: the source rows their products pick, weights multiplied.
      int64_t* row_at = combo_at_.data() + thread * combos_;
      float* row_weight = combo_weight_.data() + thread * combos_;
      int count = 1;
      row_at[0] = 0;
      row_weight[0] = 1;
      int64_t rest = r;
      for (size_t a = rank - 1; a-- > 0;) {
        const auto& t = axes_[a][static_cast<size_t>(rest % out[a])];
        rest /= out[a];
        if (t.outside) {
          std::fill(dst, dst + cols, extrapolation);
          return;
        }
        for (int i = 0; i < count; ++i)
          for (int k = t.count - 1; k >= 0; --k) {
            row_at[i + k * count] = row_at[i] + t.at[k] * in_strides[a];
            row_weight[i + k * count] = row_weight[i] * static_cast<float>(t.weight[k]);
          }
        count *= t.count;
      }
      if (one_tap_ && count == 1 && row_weight[0] == 1) {
        // Nearest, or an axis left as it is: a gather from one source row.
        const float* src = x + row_at[0];
        const int64_t* at = last_at_.data();
        for (int64_t c = 0; c < cols; ++c) dst[c] = src[at[c * taps_]];
        return;
      }
      for (int i = 0; i < count; ++i) {
        const float* src = x + row_at[i];
        const float w = row_weight[i];
        if (i == 0)
          for (int64_t c = 0; c < cols; ++c) dst[c] = w * along_last(src, c);
        else
          for (int64_t c = 0; c < cols; ++c) dst[c] += w * along_last(src, c);
      }
      extrapolate_columns(dst);
    });
  }

 private:
  // Output column `c` of the last axis from the source row `src`. A tap
  // past the first that weighs nothing is not read (an infinite value there
  // gives no NaN).
  float along_last(const float* src, int64_t c) const {
    const int64_t* at = last_at_.data() + c * taps_;
    const float* w = last_weight_.data() + c * taps_;
    float v = w[0] * src[at[0]];
    for (int k = 1; k < taps_; ++k)
      if (w[k] != 0) v += w[k] * src[at[k]];
    return v;
  }

  // The columns outside a tf_crop_and_resize roi's source take the extrapolation value.
  void extrapolate_columns(float* dst) const {
    if (!any_outside_last_) return;
    const float e = static_cast<float>(op_.extrapolation_);
    for (size_t c = 0; c < last_outside_.size(); ++c)
      if (last_outside_[c]) dst[c] = e;
  }

  // Output rows of every plane, shared out in runs of rows; each element as bilinear_value() sums it.
  // The last two axes' extents of the input and output, and what an element outside the roi takes.
  struct Maps {
    size_t h;  // the first of the two axes
    int64_t ih, iw, oh, ow;
    float extrapolation;
  };
  Maps maps() const {
    const Shape& in = op_.inputs_[0];
    const Shape& out = op_.outputs_[0];
    const size_t h = out.size() - 2;
    return {h, in[h], in[h + 1], out[h], out[h + 1], static_cast<float>(op_.extrapolation_)};
  }

  void run_bilinear(ThreadPool& pool) {
    const auto [h, ih, iw, oh, ow, extrapolation] = maps();
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    const int64_t rows = elements(op_.outputs_[0]) / ow;
    const int64_t per_task = std::max<int64_t>(1, 16384 / ow);
    pool.run((rows + per_task - 1) / per_task, threads_, [&](int64_t task, int) {
      for (int64_t r = task * per_task; r < std::min(rows, (task + 1) * per_task); ++r) {
        const Lerp& ry = row_lerps_[static_cast<size_t>(r % oh)];
        float* d = y + r * ow;
        if (ry.outside) {
          std::fill(d, d + ow, extrapolation);
          continue;
        }
        const float* plane = x + (r / oh) * ih * iw;
        const float* top = plane + ry.first * iw;
        const float* bottom = plane + ry.second * iw;
        for (int64_t c = 0; c < ow; ++c) {
          const Lerp& cx = col_lerps_[static_cast<size_t>(c)];
          d[c] = cx.outside ? extrapolation : bilinear_value(cx, ry, top, bottom);
        }
      }
    });
  }

  void run_by_plane(ThreadPool& pool) {
    const auto [h, ih, iw, oh, ow, extrapolation] = maps();
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(elements(op_.outputs_[0]) / (oh * ow), threads_, [&](int64_t p, int thread) {
      float* rows = rows_.data() + thread * ih * ow;
      const float* src = x + p * ih * iw;
      for (int64_t r = 0; r < ih; ++r) {
        if (!used_rows_[static_cast<size_t>(r)]) continue;
        const float* s = src + r * iw;
        float* d = rows + r * ow;
        for (int64_t c = 0; c < ow; ++c) d[c] = along_last(s, c);
      }
      float* dst = y + p * oh * ow;
      for (int64_t r = 0; r < oh; ++r) {
        const auto& t = axes_[h][static_cast<size_t>(r)];
        float* d = dst + r * ow;
        if (t.outside) {
          std::fill(d, d + ow, extrapolation);
          continue;
        }
        const float* a = rows + t.at[0] * ow;
        const float wa = static_cast<float>(t.weight[0]);
        if (t.count == 1) {
          for (int64_t c = 0; c < ow; ++c) d[c] = wa * a[c];
        } else {
          const float* b = rows + t.at[1] * ow;
          const float wb = static_cast<float>(t.weight[1]);
          for (int64_t c = 0; c < ow; ++c) d[c] = wa * a[c] + wb * b[c];
          for (int k = 2; k < t.count; ++k) {
            const float* more = rows + t.at[k] * ow;
            const float w = static_cast<float>(t.weight[k]);
            for (int64_t c = 0; c < ow; ++c) d[c] += w * more[c];
          }
        }
        extrapolate_columns(d);
      }
    });
  }

  int taps_;  // per axis, as the mode reads them
  std::vector<std::vector<ResizeOp::Tap>> axes_;  // each axis's taps, per output position
  bool bilinear_ = false;  // linear over the last two axes alone: run_bilinear
  std::vector<Lerp> row_lerps_, col_lerps_;  // its source positions, per output row and column
  bool by_plane_ = false;
  std::vector<bool> used_rows_;  // the source rows of the map some output row reads
  Buffer rows_;  // per thread: the map's source rows, each resized along the last axis
  std::vector<int64_t> last_at_;  // the last axis's taps, `taps_` per column
  std::vector<float> last_weight_;
  std::vector<char> last_outside_;  // the last axis's columns outside a crop's source
  bool any_outside_last_ = false;
  bool one_tap_ = true;  // every column of the last axis takes one source column whole
  int combos_ = 1;       // the most source rows one output row reads
  std::vector<int64_t> combo_at_;  // per thread: the source rows of the output row at hand
  std::vector<float> combo_weight_;
  ResizeOp::Sampling tabulated_;  // the sampling the tables are for
};

std::unique_ptr<Kernel> ResizeOp::build(const sdk::Config& c) const { return threads_kernel<ResizeKernel>(*this, c); }

}  // namespace

sdk::OpTask upsample_as_resize(sdk::OpTask task) {
  const std::string mode = string_attr(task.attrs, "mode", "nearest");
  if (!task.attrs.is_object()) task.attrs = nlohmann::json::object();
  task.attrs["mode"] = mode == "bilinear" ? "linear" : mode;
  task.attrs["coordinate_transformation_mode"] = "asymmetric";
  task.attrs["nearest_mode"] = "floor";
  return task;
}

std::unique_ptr<CpuOp> make_resize_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ResizeOp>(task, host);
}

}  // namespace aoe::cpu
