// GridSample (opset 16): each output pixel (n, c, h, w) samples X[n, c] at
// the point grid[n, h, w] = (x, y), -1..1 across the map (corner pixels'
// centres with align_corners, their outer edges without), by `mode`
// bilinear, nearest (halves to even) or bicubic (A = -0.75), a point or tap
// outside read as `padding_mode` says: zeros, border (clamped) or
// reflection (mirrored at the edges). As PyTorch's grid_sample, which the
// ONNX operator follows.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

enum class Mode { bilinear, nearest, bicubic };
enum class Padding { zeros, border, reflection };

// Mirrors x into [low/2, high/2] (twice the bounds given, as PyTorch's).
float reflect(float x, float twice_low, float twice_high) {
  if (twice_low == twice_high) return 0.0f;
  const float low = twice_low / 2, span = (twice_high - twice_low) / 2;
  x = std::fabs(x - low);
  const float extra = std::fmod(x, span);
  const auto flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

// A pixel coordinate moved inside the map as the padding mode says (zeros: as it is).
float padded(float x, int64_t size, Padding padding, bool align_corners) {
  const auto clip = [&](float v) { return std::fmin(static_cast<float>(size - 1), std::fmax(v, 0.0f)); };
  if (padding == Padding::border) return clip(x);
  if (padding == Padding::reflection)
    return clip(align_corners ? reflect(x, 0.0f, 2.0f * static_cast<float>(size - 1))
                              : reflect(x, -1.0f, 2.0f * static_cast<float>(size) - 1.0f));
  return x;
}

float cubic_near(float t, float a) { return ((a + 2) * t - (a + 3)) * t * t + 1; }           // |t| <= 1
float cubic_far(float t, float a) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; }     // 1 < |t| < 2

class GridSampleOp final : public ThreadedOp {
 public:

  GridSampleOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "GridSample '" + task.name + "'";
    require_plain(task, 2, 2);
    const Shape x = task.inputs[0].shape, grid = task.inputs[1].shape;
    if (x.size() != 4 || grid.size() != 4 || grid[0] != x[0] || grid[3] != 2)
      invalid(who + " takes X of N x C x H x W and a grid of N x H_out x W_out x 2, not " + to_string(x) + " and " + to_string(grid));
    const std::string mode = string_attr(task.attrs, "mode", "bilinear");
    const std::string padding = string_attr(task.attrs, "padding_mode", "zeros");
    if (mode == "nearest") mode_ = Mode::nearest;
    else if (mode == "bicubic") mode_ = Mode::bicubic;
    else if (mode != "bilinear") invalid(who + ": mode '" + mode + "' is none of bilinear, nearest, bicubic");
    if (padding == "border") padding_ = Padding::border;
    else if (padding == "reflection") padding_ = Padding::reflection;
    else if (padding != "zeros") invalid(who + ": padding_mode '" + padding + "' is none of zeros, border, reflection");
    align_corners_ = int_attr(task.attrs, "align_corners", 0) != 0;
    n_ = x[0], c_ = x[1], h_ = x[2], w_ = x[3], out_h_ = grid[1], out_w_ = grid[2];
    inputs_ = {x, grid};
    outputs_ = {{n_, c_, out_h_, out_w_}};
    require_output_shape(task, outputs_[0]);
    space_ = threads_space(host, static_cast<double>(elements(outputs_[0])) * (mode_ == Mode::bicubic ? 16 : 4));
  }

  // A task per output row of an image: every channel at each of its points,
  // the point's taps and weights worked out once for all channels.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t h = h_, w = w_, oh = out_h_, ow = out_w_, channels = c_;
    const float* x = in[0];
    const float* grid = in[1];
    float* y = out[0];
    const bool align = align_corners_;
    const Padding padding = padding_;
    const auto unnormalize = [&](float v, int64_t size) {
      return align ? (v + 1) / 2 * static_cast<float>(size - 1) : ((v + 1) * static_cast<float>(size) - 1) / 2;
    };
    pool.run(n_ * oh, threads, [&](int64_t task, int) {
      const int64_t n = task / oh, row = task % oh;
      const float* image = x + n * channels * h * w;
      for (int64_t col = 0; col < ow; ++col) {
        const float* g = grid + ((n * oh + row) * ow + col) * 2;
        float* out = y + n * channels * oh * ow + row * ow + col;
        float ix = unnormalize(g[0], w), iy = unnormalize(g[1], h);
        // Taps (offsets into a plane, -1 outside) and their weights.
        int64_t at[16];
        float weight[16];
        int taps = 0;
        const auto tap = [&](int64_t px, int64_t py, float wt) {
          const bool inside = px >= 0 && px < w && py >= 0 && py < h;
          at[taps] = inside ? py * w + px : -1;
          weight[taps++] = wt;
        };
        if (mode_ == Mode::bicubic) {
          const float fx = std::floor(ix), fy = std::floor(iy), tx = ix - fx, ty = iy - fy;
          constexpr float a = -0.75f;
          const float wx[4] = {cubic_far(tx + 1, a), cubic_near(tx, a), cubic_near(1 - tx, a), cubic_far(2 - tx, a)};
          const float wy[4] = {cubic_far(ty + 1, a), cubic_near(ty, a), cubic_near(1 - ty, a), cubic_far(2 - ty, a)};
          for (int j = 0; j < 4; ++j)
            for (int i = 0; i < 4; ++i) {
              // Each tap's own coordinate moved by the padding mode, as PyTorch's bicubic reads it.
              const float px = padded(fx - 1 + static_cast<float>(i), w, padding, align);
              const float py = padded(fy - 1 + static_cast<float>(j), h, padding, align);
              tap(static_cast<int64_t>(px), static_cast<int64_t>(py), wx[i] * wy[j]);
            }
        } else {
          ix = padded(ix, w, padding, align);
          iy = padded(iy, h, padding, align);
          if (mode_ == Mode::nearest) {
            tap(static_cast<int64_t>(std::nearbyint(ix)), static_cast<int64_t>(std::nearbyint(iy)), 1.0f);
          } else {
            const float fx = std::floor(ix), fy = std::floor(iy), tx = ix - fx, ty = iy - fy;
            const auto x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
            tap(x0, y0, (1 - tx) * (1 - ty));
            tap(x0 + 1, y0, tx * (1 - ty));
            tap(x0, y0 + 1, (1 - tx) * ty);
            tap(x0 + 1, y0 + 1, tx * ty);
          }
        }
        for (int64_t ch = 0; ch < channels; ++ch) {
          const float* plane = image + ch * h * w;
          float sum = 0;
          for (int t = 0; t < taps; ++t)
            if (at[t] >= 0) sum += plane[at[t]] * weight[t];
          out[ch * oh * ow] = sum;
        }
      }
    });
  }

  // Output element by output element in double: the point in pixels, then
  // each tap read through the padding mode (0 outside with zeros).
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto source = [&](double v, int64_t size) {
      return align_corners_ ? (v + 1) / 2 * static_cast<double>(size - 1) : ((v + 1) * static_cast<double>(size) - 1) / 2;
    };
    // A coordinate as the padding mode moves it: clamped, or mirrored over the
    // edges (pixel centres with align_corners, outer edges without) and clamped.
    const auto move = [&](double v, int64_t size) {
      const double hi = static_cast<double>(size - 1);
      if (padding_ == Padding::zeros) return v;
      if (padding_ == Padding::reflection && size > 1) {
        const double low = align_corners_ ? 0.0 : -0.5, high = align_corners_ ? hi : hi + 0.5, span = high - low;
        const double d = std::fabs(v - low), rem = std::fmod(d, span);
        v = static_cast<int64_t>(std::floor(d / span)) % 2 == 0 ? low + rem : high - rem;
      }
      return std::min(hi, std::max(0.0, v));
    };
    const auto pixel = [&](int64_t n, int64_t c, double px, double py) -> double {
      const auto ix = static_cast<int64_t>(px), iy = static_cast<int64_t>(py);
      if (px != std::floor(px) || py != std::floor(py) || ix < 0 || ix >= w_ || iy < 0 || iy >= h_) return 0.0;
      return in[0][((n * c_ + c) * h_ + iy) * w_ + ix];
    };
    const auto cubic = [](double t) {
      constexpr double a = -0.75;
      t = std::fabs(t);
      return t <= 1 ? ((a + 2) * t - (a + 3)) * t * t + 1 : t < 2 ? ((a * t - 5 * a) * t + 8 * a) * t - 4 * a : 0.0;
    };
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t c = 0; c < c_; ++c)
        for (int64_t r = 0; r < out_h_; ++r)
          for (int64_t q = 0; q < out_w_; ++q) {
            const float* g = in[1] + ((n * out_h_ + r) * out_w_ + q) * 2;
            double sx = source(g[0], w_), sy = source(g[1], h_), v = 0;
            if (mode_ == Mode::bicubic) {
              const double fx = std::floor(sx), fy = std::floor(sy);
              for (int j = -1; j <= 2; ++j)
                for (int i = -1; i <= 2; ++i)
                  v += cubic(sx - (fx + i)) * cubic(sy - (fy + j)) * pixel(n, c, move(fx + i, w_), move(fy + j, h_));
            } else {
              sx = move(sx, w_), sy = move(sy, h_);
              if (mode_ == Mode::nearest) {
                v = pixel(n, c, std::nearbyint(sx), std::nearbyint(sy));
              } else {
                const double fx = std::floor(sx), fy = std::floor(sy), tx = sx - fx, ty = sy - fy;
                v = pixel(n, c, fx, fy) * (1 - tx) * (1 - ty) + pixel(n, c, fx + 1, fy) * tx * (1 - ty) +
                    pixel(n, c, fx, fy + 1) * (1 - tx) * ty + pixel(n, c, fx + 1, fy + 1) * tx * ty;
              }
            }
            out[0][((n * c_ + c) * out_h_ + r) * out_w_ + q] = static_cast<float>(v);
          }
  }

 private:
  Mode mode_ = Mode::bilinear;
  Padding padding_ = Padding::zeros;
  bool align_corners_ = false;
  int64_t n_ = 1, c_ = 1, h_ = 1, w_ = 1, out_h_ = 1, out_w_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_grid_sample_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<GridSampleOp>(task, host);
}

}  // namespace aoe::cpu
