#include "resize_op.h"

#include <cmath>

#include "buffer.h"
#include "buffer_kernel.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {

class ResizeKernel final : public BufferKernel {
 public:
  ResizeKernel(const ResizeOp& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {
    tabulate(op.scales_);
  }

  // Each axis's taps for `scales`: made at build, and again at run where
  // scales fed as the model runs change.
  void tabulate(const std::vector<double>& scales) {
    tabulated_ = scales;
    const Shape& out = op_.outputs_[0];
    taps_.assign(out.size(), {});
    for (size_t a = 0; a < out.size(); ++a)
      for (int64_t x = 0; x < out[a]; ++x) taps_[a].push_back(op_.tap(a, x, scales[a]));
    // The last axis's taps as arrays, in float: its loop is the kernel's inner one.
    near_.clear(), far_.clear(), near_weight_.clear(), far_weight_.clear();
    one_tap_ = true;
    for (const auto& t : taps_.back()) {
      near_.push_back(t.at[0]);
      far_.push_back(t.at[1]);
      near_weight_.push_back(static_cast<float>(t.weight[0]));
      far_weight_.push_back(static_cast<float>(t.weight[1]));
      one_tap_ = one_tap_ && t.weight[1] == 0 && t.weight[0] == 1;
    }
    // A map whose leading axes stay as they are, in planes enough for the
    // threads: plane by plane, each source row resized along the last axis
    // once, not once per output row that reads it (twice on a 2x nearest
    // upsample, four times on a linear one).
    const Shape& in = op_.inputs_[0];
    const size_t h = out.size() >= 2 ? out.size() - 2 : 0;
    by_plane_ = out.size() >= 2 && elements(out) / (out[h] * out.back()) >= threads_;
    for (size_t a = 0; a < h && by_plane_; ++a)
      for (int64_t x = 0; x < out[a] && by_plane_; ++x) {
        const auto& t = taps_[a][static_cast<size_t>(x)];
        by_plane_ = t.at[0] == x && t.weight[0] == 1 && t.weight[1] == 0;
      }
    if (by_plane_) {
      used_rows_.assign(static_cast<size_t>(in[h]), false);
      for (const auto& t : taps_[h])
        for (int k = 0; k < 2; ++k)
          if (t.weight[k] != 0) used_rows_[static_cast<size_t>(t.at[k])] = true;
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
    if (op_.scales_input_ >= 0)
      if (const auto scales = op_.run_scales(inputs_); scales != tabulated_) tabulate(scales);
    if (by_plane_) return run_by_plane(pool);
    const Shape& in = op_.inputs_[0];
    const Shape& out = op_.outputs_[0];
    const size_t rank = out.size();
    const int64_t cols = out[rank - 1];
    const int64_t rows = elements(out) / std::max<int64_t>(1, cols);
    const auto in_strides = strides_of(in);
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(rows, threads_, [&](int64_t r, int) {
      // The leading axes' taps: up to two source rows per axis, weights multiplied.
      int64_t row_at[64];
      float row_weight[64];
      int count = 1;
      row_at[0] = 0;
      row_weight[0] = 1;
      int64_t rest = r;
      for (size_t a = rank - 1; a-- > 0;) {
        const auto& t = taps_[a][static_cast<size_t>(rest % out[a])];
        rest /= out[a];
        const int two = t.weight[1] != 0 && count * 2 <= 64 ? 2 : 1;
        for (int i = 0; i < count; ++i) {
          for (int k = two - 1; k >= 0; --k) {
            row_at[i + k * count] = row_at[i] + t.at[k] * in_strides[a];
            row_weight[i + k * count] = row_weight[i] * static_cast<float>(t.weight[k]);
          }
        }
        count *= two;
      }
      float* dst = y + r * cols;
      const int64_t* near = near_.data();
      if (one_tap_ && count == 1 && row_weight[0] == 1) {
        // Nearest, or an axis left as it is: a gather from one source row.
        const float* src = x + row_at[0];
        for (int64_t c = 0; c < cols; ++c) dst[c] = src[near[c]];
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
    });
  }

 private:
  // Output column `c` of the last axis from the source row `src`. A column
  // whose far tap weighs nothing does not read it (an infinite value there
  // gives no NaN).
  float along_last(const float* src, int64_t c) const {
    const float v = near_weight_.data()[c] * src[near_.data()[c]];
    return far_weight_.data()[c] != 0 ? v + far_weight_.data()[c] * src[far_.data()[c]] : v;
  }

  void run_by_plane(ThreadPool& pool) {
    const Shape& in = op_.inputs_[0];
    const Shape& out = op_.outputs_[0];
    const size_t h = out.size() - 2;
    const int64_t ih = in[h], iw = in[h + 1], oh = out[h], ow = out[h + 1];
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(elements(out) / (oh * ow), threads_, [&](int64_t p, int thread) {
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
        const auto& t = taps_[h][static_cast<size_t>(r)];
        const float* a = rows + t.at[0] * ow;
        const float wa = static_cast<float>(t.weight[0]), wb = static_cast<float>(t.weight[1]);
        float* d = dst + r * ow;
        if (wb == 0) {
          for (int64_t c = 0; c < ow; ++c) d[c] = wa * a[c];
        } else {
          const float* b = rows + t.at[1] * ow;
          for (int64_t c = 0; c < ow; ++c) d[c] = wa * a[c] + wb * b[c];
        }
      }
    });
  }

  const ResizeOp& op_;
  int threads_;
  std::vector<std::vector<ResizeOp::Tap>> taps_;
  bool by_plane_ = false;
  std::vector<bool> used_rows_;  // the source rows of the map some output row reads
  Buffer rows_;  // per thread: the map's source rows, each resized along the last axis
  std::vector<int64_t> near_, far_;  // the last axis's two source columns
  std::vector<float> near_weight_, far_weight_;
  bool one_tap_ = true;  // every column of the last axis takes one source column whole
  std::vector<double> tabulated_;  // the scales the tables are for
};

sdk::OpTask upsample_as_resize(sdk::OpTask task) {
  const std::string mode = string_attr(task.attrs, "mode", "nearest");
  if (!task.attrs.is_object()) task.attrs = nlohmann::json::object();
  task.attrs["mode"] = mode == "bilinear" ? "linear" : mode;
  task.attrs["coordinate_transformation_mode"] = "asymmetric";
  task.attrs["nearest_mode"] = "floor";
  return task;
}

ResizeOp::ResizeOp(const sdk::OpTask& task, const HostCpu& host) {
  const std::string who = "Resize '" + task.name + "'";
  require_plain(task, 1, 4, {1, 2, 3});
  const auto rank = static_cast<int64_t>(task.inputs[0].shape.size());
  // Scales fed as the model runs: the float input of one value per axis
  // (roi has two), read at run.
  if (!task.attrs.contains("scales") && !task.attrs.contains("sizes"))
    for (size_t i = 1; i < task.inputs.size(); ++i)
      if (task.inputs[i].dtype == sdk::DType::f32 && elements(task.inputs[i].shape) == rank && rank > 0)
        scales_input_ = static_cast<int>(i);
  const std::string mode = string_attr(task.attrs, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") unsupported("the cpu device runs Resize nearest and linear, not " + mode);
  linear_ = mode == "linear";
  transform_ = string_attr(task.attrs, "coordinate_transformation_mode", "half_pixel");
  if (transform_ != "half_pixel" && transform_ != "pytorch_half_pixel" && transform_ != "align_corners" &&
      transform_ != "asymmetric" && transform_ != "tf_half_pixel_for_nn" && transform_ != "half_pixel_symmetric")
    unsupported("the cpu device does not run Resize with coordinate_transformation_mode " + transform_);
  nearest_mode_ = string_attr(task.attrs, "nearest_mode", "round_prefer_floor");
  if (nearest_mode_ != "round_prefer_floor" && nearest_mode_ != "round_prefer_ceil" && nearest_mode_ != "floor" &&
      nearest_mode_ != "ceil")
    invalid(who + ": nearest_mode " + nearest_mode_ + " is none of round_prefer_floor, round_prefer_ceil, floor, ceil");
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
  std::vector<double> given;
  if (task.attrs.contains("scales") && task.attrs.at("scales").is_array()) {
    for (const auto& v : task.attrs.at("scales")) {
      if (!v.is_number() || !(v.get<double>() > 0)) invalid(who + ": scales must be positive numbers");
      given.push_back(v.get<double>());
    }
    if (given.size() != in.size()) invalid(who + ": " + std::to_string(given.size()) + " scales for rank " + std::to_string(in.size()));
  }
  for (size_t a = 0; a < in.size(); ++a) {
    scales_.push_back(given.empty() ? static_cast<double>(out[a]) / static_cast<double>(in[a]) : given[a]);
    if (!given.empty() && static_cast<int64_t>(std::floor(in[a] * given[a])) != out[a])
      invalid(who + ": scale " + std::to_string(given[a]) + " of axis " + std::to_string(a) + " gives " +
              std::to_string(static_cast<int64_t>(std::floor(in[a] * given[a]))) + ", the output has " + std::to_string(out[a]));
  }
  for (const auto& t : task.inputs) inputs_.push_back(t.shape);
  outputs_ = {out};
  space_ = threads_space(host, static_cast<double>(elements(out)) * (linear_ ? 2.0 : 0.5));
}

std::vector<double> ResizeOp::run_scales(const std::vector<const float*>& inputs) const {
  if (scales_input_ < 0 || !inputs[static_cast<size_t>(scales_input_)]) return scales_;
  const float* given = inputs[static_cast<size_t>(scales_input_)];
  std::vector<double> out;
  for (size_t a = 0; a < scales_.size(); ++a) {
    const double s = given[a];
    if (!(s > 0) || static_cast<int64_t>(std::floor(static_cast<double>(inputs_[0][a]) * s)) != outputs_[0][a])
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "Resize: scale " + std::to_string(s) + " of axis " + std::to_string(a) + " fed as the model runs does not give its output's " +
                           std::to_string(outputs_[0][a]));
    out.push_back(s);
  }
  return out;
}

double ResizeOp::source(size_t a, int64_t x, double s) const {
  const double in = static_cast<double>(inputs_[0][a]), out = static_cast<double>(outputs_[0][a]);
  const double xd = static_cast<double>(x);
  // ONNX takes align_corners' resized length as input x scale, unrounded.
  const double resized = in * s;
  if (transform_ == "align_corners") return resized == 1 ? 0 : xd * (in - 1) / (resized - 1);
  if (transform_ == "asymmetric") return xd / s;
  if (transform_ == "tf_half_pixel_for_nn") return (xd + 0.5) / s;
  if (transform_ == "pytorch_half_pixel") return out > 1 ? (xd + 0.5) / s - 0.5 : 0;
  if (transform_ == "half_pixel_symmetric") {
    const double adjustment = out / (in * s);
    return in / 2 * (1 - adjustment) + (xd + 0.5) / s - 0.5;
  }
  return (xd + 0.5) / s - 0.5;
}

ResizeOp::Tap ResizeOp::tap(size_t a, int64_t x, double scale) const {
  const int64_t last = inputs_[0][a] - 1;
  const double at = source(a, x, scale);
  Tap t;
  if (inputs_[0][a] == outputs_[0][a] && scale == 1.0) {
    t.at[0] = x;
    return t;
  }
  if (!linear_) {
    double pick;
    const double frac = at - std::floor(at);
    if (nearest_mode_ == "floor") pick = std::floor(at);
    else if (nearest_mode_ == "ceil") pick = std::ceil(at);
    else if (frac == 0.5) pick = nearest_mode_ == "round_prefer_ceil" ? std::ceil(at) : std::floor(at);
    else pick = std::round(at);
    t.at[0] = std::clamp<int64_t>(static_cast<int64_t>(pick), 0, last);
    return t;
  }
  const double base = std::floor(at);
  const double w = at - base;
  t.at[0] = std::clamp<int64_t>(static_cast<int64_t>(base), 0, last);
  t.at[1] = std::clamp<int64_t>(static_cast<int64_t>(base) + 1, 0, last);
  t.weight[0] = 1 - w;
  t.weight[1] = w;
  if (t.at[0] == t.at[1]) t.weight[0] = 1, t.weight[1] = 0;
  return t;
}

std::string ResizeOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> ResizeOp::build(const sdk::Config& c) const {
  return std::make_unique<ResizeKernel>(*this, static_cast<int>(c[kThreads]));
}

// Every output element as the weighted sum over all 2^rank corners of its
// source position, in double.
void ResizeOp::reference(const std::vector<const float*>& in, const std::vector<float*>& outs) const {
  const Shape& o = outputs_[0];
  const auto strides = strides_of(inputs_[0]);
  const std::vector<double> scales = run_scales(in);
  const size_t rank = o.size();
  std::vector<int64_t> index(rank, 0);
  size_t flat = 0;
  do {
    double sum = 0;
    for (int corner = 0; corner < (1 << rank); ++corner) {
      double weight = 1;
      int64_t offset = 0;
      for (size_t a = 0; a < rank; ++a) {
        const Tap t = tap(a, index[a], scales[a]);
        const int k = (corner >> a) & 1;
        weight *= t.weight[k];
        offset += t.at[k] * strides[a];
      }
      if (weight != 0) sum += weight * in[0][offset];
    }
    outs[0][flat++] = static_cast<float>(sum);
  } while (next_index(index, o));
}

}  // namespace aoe::cpu
