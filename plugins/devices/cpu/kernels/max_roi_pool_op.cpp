// MaxRoiPool (Fast R-CNN's RoI pooling): each region [batch, x1, y1, x2, y2]
// of `rois` (in the input's coordinates times spatial_scale, rounded to
// whole pixels, at least one pixel each side) cut into pooled_shape bins,
// each bin the maximum of the pixels it covers (floor of its start, ceiling
// of its end), 0 for a bin that covers none, as Caffe and ONNX Runtime pool.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// The pixels one bin covers: rows [h0, h1) and columns [w0, w1), clipped to the map.
struct Bin {
  int64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
  bool empty() const { return h1 <= h0 || w1 <= w0; }
};

class MaxRoiPoolOp final : public ThreadedOp {
 public:
  MaxRoiPoolOp(const sdk::OpTask& task, const HostCpu& host) : who_("MaxRoiPool '" + task.name + "'") {
    require_plain(task, 2, 2);
    const Shape& x = task.inputs[0].shape;
    const Shape& rois = task.inputs[1].shape;
    if (x.size() != 4) invalid(who_ + " takes an N x C x H x W input, got " + to_string(x));
    if (rois.size() != 2 || rois[1] != 5)
      invalid(who_ + ": rois '" + task.inputs[1].name + "' are " + to_string(rois) + ", expected num_rois x 5 (batch, x1, y1, x2, y2)");
    const auto pooled = ints_attr(task.attrs, "pooled_shape", {});
    if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) invalid(who_ + " needs pooled_shape of two sizes >= 1");
    n_ = x[0], c_ = x[1], h_ = x[2], w_ = x[3], rois_ = rois[0], out_h_ = pooled[0], out_w_ = pooled[1];
    scale_ = static_cast<float>(float_attr(task.attrs, "spatial_scale", 1.0));
    const Shape out = {rois_, c_, out_h_, out_w_};
    require_output_shape(task, out);
    set_shapes(task, {out}, host, static_cast<double>(elements(x)) + static_cast<double>(elements(out)) * 4.0);
  }

  // Drawn regions: each the whole map of the first image (every bin full).
  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    ValueRange whole;
    whole.values = {0.0f, 0.0f, 0.0f, static_cast<float>(w_ - 1) / scale_, static_cast<float>(h_ - 1) / scale_};
    return whole;
  }

  // A task per region and channel, the regions checked before any runs.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const std::vector<int64_t> batch = checked_batches(in[1]);
    pool.run(rois_ * c_, threads, [&](int64_t task, int) {
      const int64_t r = task / c_, ch = task % c_;
      const float* roi = in[1] + r * 5;
      const float* x = in[0] + (batch[static_cast<size_t>(r)] * c_ + ch) * h_ * w_;
      float* y = out[0] + task * out_h_ * out_w_;
      for (int64_t ph = 0; ph < out_h_; ++ph)
        for (int64_t pw = 0; pw < out_w_; ++pw) {
          const Bin b = bin_of(roi, ph, pw);
          float m = b.empty() ? 0.0f : -std::numeric_limits<float>::infinity();
          for (int64_t h = b.h0; h < b.h1; ++h) m = std::max(m, *std::max_element(x + h * w_ + b.w0, x + h * w_ + b.w1));
          *y++ = m;
        }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const std::vector<int64_t> batch = checked_batches(in[1]);
    for (int64_t r = 0; r < rois_; ++r)
      for (int64_t ch = 0; ch < c_; ++ch)
        for (int64_t ph = 0; ph < out_h_; ++ph)
          for (int64_t pw = 0; pw < out_w_; ++pw) {
            const float* roi = in[1] + r * 5;
            const Bin b = bin_of(roi, ph, pw);
            const float* x = in[0] + (batch[static_cast<size_t>(r)] * c_ + ch) * h_ * w_;
            double m = b.empty() ? 0.0 : -INFINITY;
            for (int64_t h = b.h0; h < b.h1; ++h)
              for (int64_t w = b.w0; w < b.w1; ++w) m = std::max(m, static_cast<double>(x[h * w_ + w]));
            out[0][((r * c_ + ch) * out_h_ + ph) * out_w_ + pw] = static_cast<float>(m);
          }
  }

 private:
  // Each region's image; a batch index out of range or a corner that is
  // not a finite number fails the run, naming the region.
  std::vector<int64_t> checked_batches(const float* rois) const {
    std::vector<int64_t> batch;
    for (int64_t r = 0; r < rois_; ++r) {
      const float* roi = rois + r * 5;
      if (!(roi[0] >= 0.0f && roi[0] < static_cast<float>(n_)))
        invalid(who_ + ": batch index " + std::to_string(roi[0]) + " of region " + std::to_string(r) + " is out of range for " +
                std::to_string(n_) + " images");
      for (int k = 1; k < 5; ++k)
        if (!std::isfinite(roi[k] * scale_))
          invalid(who_ + ": corner value " + std::to_string(roi[k]) + " of region " + std::to_string(r) + " is not a finite number");
      batch.push_back(static_cast<int64_t>(roi[0]));
    }
    return batch;
  }
  // Bin (ph, pw) of the region: its corners rounded to pixels (held within
  // 2^31 of the map, which clipping makes the same), split into equal bins.
  Bin bin_of(const float* roi, int64_t ph, int64_t pw) const {
    const auto pixel = [&](float v) {
      return static_cast<int64_t>(std::clamp(std::round(static_cast<double>(v * scale_)), -2147483648.0, 2147483648.0));
    };
    const int64_t x0 = pixel(roi[1]), y0 = pixel(roi[2]);
    const int64_t height = std::max<int64_t>(pixel(roi[4]) - y0 + 1, 1), width = std::max<int64_t>(pixel(roi[3]) - x0 + 1, 1);
    const float bin_h = static_cast<float>(height) / static_cast<float>(out_h_);
    const float bin_w = static_cast<float>(width) / static_cast<float>(out_w_);
    const auto clip = [](int64_t v, int64_t hi) { return std::clamp<int64_t>(v, 0, hi); };
    Bin b;
    b.h0 = clip(static_cast<int64_t>(std::floor(static_cast<float>(ph) * bin_h)) + y0, h_);
    b.h1 = clip(static_cast<int64_t>(std::ceil(static_cast<float>(ph + 1) * bin_h)) + y0, h_);
    b.w0 = clip(static_cast<int64_t>(std::floor(static_cast<float>(pw) * bin_w)) + x0, w_);
    b.w1 = clip(static_cast<int64_t>(std::ceil(static_cast<float>(pw + 1) * bin_w)) + x0, w_);
    return b;
  }

  std::string who_;
  int64_t n_ = 1, c_ = 1, h_ = 1, w_ = 1, rois_ = 0, out_h_ = 1, out_w_ = 1;
  float scale_ = 1.0f;
};

}  // namespace

std::unique_ptr<CpuOp> make_max_roi_pool_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<MaxRoiPoolOp>(task, host);
}

}  // namespace aoe::cpu
