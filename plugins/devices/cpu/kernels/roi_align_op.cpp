// RoiAlign (opset 10 and 16): each region of interest, [x1, y1, x2, y2] in
// the input's coordinates times spatial_scale, cut into output_height x
// output_width bins, each bin the average (mode avg) or maximum (max) of a
// grid of bilinearly interpolated samples (sampling_ratio per side, or
// ceil(bin size) where 0). coordinate_transformation_mode half_pixel (opset
// 16's default) shifts the region by half a pixel; output_half_pixel (opset
// 10's only) does not, and widens a region to at least one pixel. max takes,
// as ONNX's and ONNX Runtime's references do, the largest weighted corner of
// each sample. batch_indices are the task's attribute where the model holds
// them as a constant, else its third input at run time; one out of range
// fails the run with its position.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// A region's samples: 2^22 take 192 MiB of corners and weights.
constexpr int64_t kMaxRegionSamples = int64_t{1} << 22;

// A region's bins: where its first bin starts, each bin's size and its grid of samples.
struct RoiBins {
  double start_y = 0, start_x = 0, bin_h = 0, bin_w = 0;
  int64_t grid_h = 0, grid_w = 0;
};

RoiBins bins_of(const float* roi, double scale, bool half_pixel, int64_t out_h, int64_t out_w, int64_t sampling) {
  const double offset = half_pixel ? 0.5 : 0.0;
  RoiBins b;
  b.start_x = roi[0] * scale - offset;
  b.start_y = roi[1] * scale - offset;
  double roi_w = roi[2] * scale - offset - b.start_x, roi_h = roi[3] * scale - offset - b.start_y;
  if (!half_pixel) roi_w = std::max(roi_w, 1.0), roi_h = std::max(roi_h, 1.0);
  b.bin_h = roi_h / static_cast<double>(out_h);
  b.bin_w = roi_w / static_cast<double>(out_w);
  // The adaptive grid held where an integer holds it; region() refuses one past kMaxRegionSamples.
  const auto grid = [&](double span, int64_t out) {
    if (sampling > 0) return sampling;
    return static_cast<int64_t>(std::clamp(std::ceil(span / static_cast<double>(out)), -1.0, static_cast<double>(kMaxRegionSamples) + 1));
  };
  b.grid_h = grid(roi_h, out_h);
  b.grid_w = grid(roi_w, out_w);
  return b;
}

// A sample's four corners in the plane and their bilinear weights; all
// weights 0 for a sample more than a pixel outside.
struct Corners {
  int64_t at[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
};

Corners corners_of(double y, double x, int64_t h, int64_t w) {
  Corners c;
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return c;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) y0 = y1 = h - 1, y = static_cast<double>(y0);
  if (x0 >= w - 1) x0 = x1 = w - 1, x = static_cast<double>(x0);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
  c.at[0] = y0 * w + x0, c.at[1] = y0 * w + x1, c.at[2] = y1 * w + x0, c.at[3] = y1 * w + x1;
  c.weight[0] = (1 - ly) * (1 - lx), c.weight[1] = (1 - ly) * lx, c.weight[2] = ly * (1 - lx), c.weight[3] = ly * lx;
  return c;
}

// A sample of every bin of a region, in bin order, with float weights.
struct Sample {
  int64_t at[4];
  float weight[4];
};

class RoiAlignOp final : public ThreadedOp {
 public:
  RoiAlignOp(const sdk::OpTask& task, const HostCpu& host) : who_("RoiAlign '" + task.name + "'") {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after RoiAlign");
    require_inputs(task, 3, 3);
    require_dtype(task, 0, false, Takes::f32);
    require_dtype(task, 1, false, Takes::f32);
    require_dtype(task, 2, false, Takes::integral);
    if (!task.outputs.empty()) require_dtype(task, 0, true, Takes::f32);
    const Shape& x = task.inputs[0].shape;
    const Shape& rois = task.inputs[1].shape;
    if (x.size() != 4) invalid(who_ + " takes an N x C x H x W input, got " + to_string(x));
    if (rois.size() != 2 || rois[1] != 4) invalid(who_ + ": rois '" + task.inputs[1].name + "' are " + to_string(rois) + ", expected num_rois x 4");
    if (task.inputs[2].shape != Shape{rois[0]})
      invalid(who_ + ": batch_indices '" + task.inputs[2].name + "' are " + to_string(task.inputs[2].shape) + ", expected " +
              to_string(Shape{rois[0]}) + " (one per region)");
    n_ = x[0], c_ = x[1], h_ = x[2], w_ = x[3], rois_ = rois[0];
    out_h_ = int_attr(task.attrs, "output_height", 1);
    out_w_ = int_attr(task.attrs, "output_width", 1);
    sampling_ = int_attr(task.attrs, "sampling_ratio", 0);
    scale_ = float_attr(task.attrs, "spatial_scale", 1.0);
    if (out_h_ < 1 || out_w_ < 1 || sampling_ < 0) invalid(who_ + " needs output_height and output_width >= 1 and sampling_ratio >= 0");
    if (!std::isfinite(scale_)) invalid(who_ + " needs a spatial_scale that is a finite number");
    const std::string mode = string_attr(task.attrs, "mode", "avg");
    if (mode != "avg" && mode != "max") invalid(who_ + " mode '" + mode + "' is neither avg nor max");
    max_ = mode == "max";
    const std::string transform = string_attr(task.attrs, "coordinate_transformation_mode", "half_pixel");
    if (transform != "half_pixel" && transform != "output_half_pixel")
      invalid(who_ + " coordinate_transformation_mode '" + transform + "' is neither half_pixel nor output_half_pixel");
    half_pixel_ = transform == "half_pixel";
    if (task.attrs.is_object() && task.attrs.contains("batch_indices")) folded_ = folded_ints(task, 2, "batch_indices");
    else if (task.inputs[2].constant)
      unsupported(who_ + ": its batch_indices are a constant the frontend did not fold; the cpu device takes them folded or fed at run time");
    const Shape out = {rois_, c_, out_h_, out_w_};
    require_output_shape(task, out);
    const double samples = static_cast<double>(sampling_ > 0 ? sampling_ * sampling_ : 4);
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * samples * 2.0);
  }

  // Regions inside the input, corners in either order; images that exist.
  ValueRange input_range(size_t i) const override {
    if (i == 1) return {0.0f, static_cast<float>(static_cast<double>(std::min(h_, w_)) / scale_)};
    if (i == 2) return {0.0f, static_cast<float>(n_) - 0.5f};
    return {};
  }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // The region's bins, checked: corners that are finite numbers, and an
  // adaptive grid (sampling_ratio 0) of at most kMaxRegionSamples samples.
  RoiBins region(const float* rois, int64_t roi) const {
    const float* corners = rois + roi * 4;
    for (int k = 0; k < 4; ++k)
      if (!std::isfinite(static_cast<double>(corners[k]) * scale_))
        invalid(who_ + ": corner value " + std::to_string(corners[k]) + " of region " + std::to_string(roi) +
                " is not a finite number");
    const RoiBins b = bins_of(corners, scale_, half_pixel_, out_h_, out_w_, sampling_);
    if (static_cast<double>(b.grid_h) * static_cast<double>(b.grid_w) * static_cast<double>(out_h_ * out_w_) >
        static_cast<double>(kMaxRegionSamples))
      invalid(who_ + ": region " + std::to_string(roi) + " spans " + std::to_string(b.bin_h * static_cast<double>(out_h_)) + " x " +
              std::to_string(b.bin_w * static_cast<double>(out_w_)) + " pixels of the map, so many that its bins would take more than " +
              std::to_string(kMaxRegionSamples) + " samples; give sampling_ratio or regions within the map");
    return b;
  }
  // The region's image, checked.
  int64_t batch_of(const float* given, int64_t roi) const {
    const double b = folded_.empty() ? std::floor(static_cast<double>(given[roi])) : static_cast<double>(folded_[static_cast<size_t>(roi)]);
    if (!(b >= 0.0 && b < static_cast<double>(n_)))
      invalid(who_ + ": batch index " + std::to_string(b) + " of region " + std::to_string(roi) + " is out of range for " +
              std::to_string(n_) + " images");
    return static_cast<int64_t>(b);
  }
  std::string who_;
  int64_t n_ = 1, c_ = 1, h_ = 1, w_ = 1, rois_ = 0, out_h_ = 1, out_w_ = 1, sampling_ = 0;
  double scale_ = 1.0;
  bool half_pixel_ = true, max_ = false;
  std::vector<int64_t> folded_;  // constant batch_indices, or empty
};

// A task per region: its samples' corners and weights worked out once, then
// every channel's bins from them.
void RoiAlignOp::compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
                         int threads) const {
  // Every region checked before the threads run (they do not carry errors).
  std::vector<int64_t> batch(static_cast<size_t>(rois_));
  std::vector<RoiBins> regions(static_cast<size_t>(rois_));
  for (int64_t r = 0; r < rois_; ++r) {
    batch[static_cast<size_t>(r)] = batch_of(in[2], r);
    regions[static_cast<size_t>(r)] = region(in[1], r);
  }
  const int64_t plane = h_ * w_, bins = out_h_ * out_w_;
  pool.run(rois_, threads, [&](int64_t r, int) {
    const RoiBins& b = regions[static_cast<size_t>(r)];
    const int64_t per_bin = std::max<int64_t>(b.grid_h, 0) * std::max<int64_t>(b.grid_w, 0);
    std::vector<Sample> samples;
    samples.reserve(static_cast<size_t>(bins * per_bin));
    for (int64_t ph = 0; ph < out_h_; ++ph)
      for (int64_t pw = 0; pw < out_w_; ++pw)
        for (int64_t iy = 0; iy < b.grid_h; ++iy)
          for (int64_t ix = 0; ix < b.grid_w; ++ix) {
            const double y = b.start_y + static_cast<double>(ph) * b.bin_h + (static_cast<double>(iy) + 0.5) * b.bin_h / static_cast<double>(b.grid_h);
            const double x = b.start_x + static_cast<double>(pw) * b.bin_w + (static_cast<double>(ix) + 0.5) * b.bin_w / static_cast<double>(b.grid_w);
            const Corners c = corners_of(y, x, h_, w_);
            Sample s;
            for (int k = 0; k < 4; ++k) s.at[k] = c.at[k], s.weight[k] = static_cast<float>(c.weight[k]);
            samples.push_back(s);
          }
    const float count = static_cast<float>(std::max<int64_t>(b.grid_h * b.grid_w, 1));
    for (int64_t ch = 0; ch < c_; ++ch) {
      const float* x = in[0] + (batch[static_cast<size_t>(r)] * c_ + ch) * plane;
      float* y = out[0] + (r * c_ + ch) * bins;
      const Sample* s = samples.data();
      for (int64_t bin = 0; bin < bins; ++bin) {
        float acc = 0.0f;
        for (int64_t k = 0; k < per_bin; ++k, ++s) {
          if (max_) {
            const float v = std::max(std::max(s->weight[0] * x[s->at[0]], s->weight[1] * x[s->at[1]]),
                                     std::max(s->weight[2] * x[s->at[2]], s->weight[3] * x[s->at[3]]));
            acc = k == 0 ? v : std::max(acc, v);
          } else {
            acc += s->weight[0] * x[s->at[0]] + s->weight[1] * x[s->at[1]] + s->weight[2] * x[s->at[2]] + s->weight[3] * x[s->at[3]];
          }
        }
        y[bin] = max_ ? acc : acc / count;
      }
    }
  });
}

// Bin by bin, sample by sample, in double.
void RoiAlignOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  for (int64_t r = 0; r < rois_; ++r) {
    const int64_t batch = batch_of(in[2], r);
    const RoiBins b = region(in[1], r);
    const double count = static_cast<double>(std::max<int64_t>(b.grid_h * b.grid_w, 1));
    for (int64_t ch = 0; ch < c_; ++ch) {
      const float* x = in[0] + (batch * c_ + ch) * h_ * w_;
      for (int64_t ph = 0; ph < out_h_; ++ph)
        for (int64_t pw = 0; pw < out_w_; ++pw) {
          double acc = 0.0;
          bool first = true;
          for (int64_t iy = 0; iy < b.grid_h; ++iy)
            for (int64_t ix = 0; ix < b.grid_w; ++ix) {
              const double y = b.start_y + ph * b.bin_h + (iy + 0.5) * b.bin_h / static_cast<double>(b.grid_h);
              const double xx = b.start_x + pw * b.bin_w + (ix + 0.5) * b.bin_w / static_cast<double>(b.grid_w);
              const Corners c = corners_of(y, xx, h_, w_);
              double v = max_ ? -INFINITY : 0.0;
              for (int k = 0; k < 4; ++k) {
                const double term = c.weight[k] * x[c.at[k]];
                v = max_ ? std::max(v, term) : v + term;
              }
              acc = max_ ? (first ? v : std::max(acc, v)) : acc + v;
              first = false;
            }
          out[0][((r * c_ + ch) * out_h_ + ph) * out_w_ + pw] = static_cast<float>(max_ ? acc : acc / count);
        }
    }
  }
}

}  // namespace

std::unique_ptr<CpuOp> make_roi_align_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<RoiAlignOp>(task, host);
}

}  // namespace aoe::cpu
