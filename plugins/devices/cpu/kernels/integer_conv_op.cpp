// ConvInteger and QLinearConv: convolution (1 to 3 spatial dims, groups,
// strides, pads, dilations, auto_pad) of 8-bit integer tensors less their
// zero points (x's per tensor, w's per tensor or per output channel),
// summed exactly in int64; a padded tap adds nothing. ConvInteger gives
// the int32 sums; QLinearConv adds its int32 bias B, scales each sum by
// x_scale * w_scale / y_scale (w_scale per tensor or channel), rounds half
// to even, adds y_zero_point and saturates to its dtype. Integers are held
// as whole-number floats (held_dtype.h); the kernel sums them as an integer
// GEMM (integer_gemm.h), the reference in double.
#include "op_factories.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "integer_gemm.h"
#include "op_util.h"
#include "pool_op.h"
#include "quantized.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class IntegerConvOp final : public ThreadedOp {
 public:
  IntegerConvOp(const sdk::OpTask& task, const HostCpu& host)
      : who_(task.op_type + " '" + task.name + "'") {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    requantize_ = task.op_type == "QLinearConv";
    static const std::vector<const char*> kNames = {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B"};
    find_quantized_inputs(task, who_, kNames, at_.data(), count_.data(), ranges_);
    if (requantize_) out_range_ = quantized_range(task.inputs[at_[kYZero]].dtype, who_, "input 'y_zero_point'");
    else if (!task.outputs.empty()) require_dtype(task, 0, true, Takes::integral);

    const Shape& x = task.inputs[at_[kX]].shape;
    const Shape& w = task.inputs[at_[kW]].shape;
    if (x.size() < 3 || w.size() != x.size())
      invalid(who_ + ": x " + to_string(x) + " and w " + to_string(w) + " are not N x C x spatial and M x C/group x kernel");
    n_ = x[0], c_ = x[1], m_ = w[0];
    group_ = int_attr(task.attrs, "group", 1);
    if (group_ < 1 || c_ % group_ != 0 || m_ % group_ != 0 || w[1] != c_ / group_)
      invalid(who_ + ": group " + std::to_string(group_) + " does not fit x " + to_string(x) + " and w " + to_string(w));
    const Shape spatial(x.begin() + 2, x.end());
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    if (task.attrs.contains("kernel_shape") && ints_attr(task.attrs, "kernel_shape", {}) != kernel)
      invalid(who_ + ": kernel_shape disagrees with w " + to_string(w));
    win_ = window_of(who_, spatial, kernel, task.attrs, false);
    for (const Role r : {kXScale, kXZero, kYScale, kYZero})
      if (at_[r] >= 0 && count_[r] != 1) invalid(who_ + ": input '" + kNames[r] + "' holds " + std::to_string(count_[r]) + " values, not one");
    for (const Role r : {kWScale, kWZero})
      if (at_[r] >= 0 && count_[r] != 1 && count_[r] != m_)
        invalid(who_ + ": input '" + kNames[r] + "' holds " + std::to_string(count_[r]) + " values; give one, or one per output channel (" +
                std::to_string(m_) + ")");
    if (at_[kBias] >= 0 && count_[kBias] != m_) invalid(who_ + ": B holds one value per output channel (" + std::to_string(m_) + ")");
    Shape out = {n_, m_};
    for (size_t e = 3 - spatial.size(); e < 3; ++e) out.push_back(win_.out[e]);
    require_output_shape(task, out);
    const double taps = static_cast<double>(elements(Shape(w.begin() + 1, w.end())));
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * taps);
  }
  ValueRange input_range(size_t i) const override { return ranges_.at(i); }

  // The convolution as an integer GEMM per group: the image less its zero
  // point taken once to int16, then per task (image, group, run of output
  // positions) its im2col panel packed in pairs of taps, multiplied by the
  // group's packed weights (integer_gemm.h) in int32 and finished per channel.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const Window3& k = win_;
    const int64_t cg = c_ / group_, mg = m_ / group_;
    const int64_t taps = k.kernel[0] * k.kernel[1] * k.kernel[2], plane = k.out[0] * k.out[1] * k.out[2];
    const int64_t in_plane = k.in[0] * k.in[1] * k.in[2];
    const int64_t depth = cg * taps, pairs = (depth + 1) / 2;
    const int64_t row_blocks = (mg + kIntRows - 1) / kIntRows, col_runs = (plane + kRunCols - 1) / kRunCols;
    const float* x = in[static_cast<size_t>(at_[kX])];
    const float* w = in[static_cast<size_t>(at_[kW])];
    const int64_t zx = held_int(static_cast<float>(param(in, kXZero, 0, 0)));
    const IntTileIsa isa = widest_int_tile_isa();

    // Every value less its zero point lies in [-255, 255]: int16 holds it.
    std::vector<int16_t> image(static_cast<size_t>(n_ * c_ * in_plane));
    pool.run(n_ * c_, threads, [&](int64_t p, int) {
      for (int64_t i = p * in_plane; i < (p + 1) * in_plane; ++i) image[i] = static_cast<int16_t>(held_int(x[i]) - zx);
    });
    std::vector<int16_t> weights(static_cast<size_t>(group_ * row_blocks * pairs * kIntRows * 2), 0);
    for (int64_t m = 0; m < m_; ++m) {
      const int64_t zw = held_int(static_cast<float>(param(in, kWZero, m, 0)));
      const int64_t g = m / mg, r = m % mg;
      int16_t* block = weights.data() + (g * row_blocks + r / kIntRows) * pairs * kIntRows * 2;
      for (int64_t d = 0; d < depth; ++d)
        block[((d / 2) * kIntRows + r % kIntRows) * 2 + d % 2] = static_cast<int16_t>(held_int(w[m * depth + d]) - zw);
    }
    std::vector<double> bias(static_cast<size_t>(m_), 0);
    std::vector<float> multiplier(static_cast<size_t>(m_), 1);
    for (int64_t m = 0; m < m_ && requantize_; ++m) {
      bias[m] = std::nearbyint(param(in, kBias, m, 0));
      // The multiplier in float32, as the float scales give it.
      multiplier[m] = static_cast<float>(param(in, kXScale, m, 1)) * static_cast<float>(param(in, kWScale, m, 1)) /
                      static_cast<float>(param(in, kYScale, m, 1));
    }
    const double zy = requantize_ ? param(in, kYZero, 0, 0) : 0;

    // Per tap of the depth: its channel's offset and its offsets along the three axes.
    std::vector<std::array<int64_t, 4>> tap_of(static_cast<size_t>(depth));
    for (int64_t d = 0; d < depth; ++d) {
      const int64_t t = d % taps;
      tap_of[d] = {(d / taps) * in_plane, t / (k.kernel[1] * k.kernel[2]) * k.dilation[0],
                   t / k.kernel[2] % k.kernel[1] * k.dilation[1], t % k.kernel[2] * k.dilation[2]};
    }

    // A panel per thread, zeroed once: fill_panel writes every tap it reads
    // (0 outside the input); the odd depth's last tap stays 0, and a short
    // last block's unused columns hold values of an earlier panel, in range.
    const int64_t panel_size = (kRunCols / kIntCols) * pairs * kIntCols * 2;
    std::vector<int16_t> panels(static_cast<size_t>(std::max(1, threads) * panel_size), 0);
    pool.run(n_ * group_ * col_runs, threads, [&](int64_t task, int thread) {
      const int64_t run = task % col_runs, ng = task / col_runs, n = ng / group_, g = ng % group_;
      const int64_t p0 = run * kRunCols, cols = std::min(kRunCols, plane - p0);
      const int64_t col_blocks = (cols + kIntCols - 1) / kIntCols;
      // panel[col block][pair][column][tap of the pair]
      int16_t* panel = panels.data() + thread * panel_size;
      const int16_t* src = image.data() + (n * c_ + g * cg) * in_plane;
      fill_panel(src, p0, cols, depth, tap_of, panel);
      std::array<int64_t, kIntRows * kIntCols> sums{};
      for (int64_t rb = 0; rb < row_blocks; ++rb) {
        const int16_t* wb = weights.data() + (g * row_blocks + rb) * pairs * kIntRows * 2;
        for (int64_t cb = 0; cb < col_blocks; ++cb) {
          integer_tile_sums(pairs, wb, panel + cb * pairs * kIntCols * 2, sums.data(), isa);
          for (int64_t r = 0; r < kIntRows && rb * kIntRows + r < mg; ++r) {
            const int64_t m = g * mg + rb * kIntRows + r;
            float* dst = out[0] + (n * m_ + m) * plane + p0 + cb * kIntCols;
            for (int64_t j = 0; j < kIntCols && cb * kIntCols + j < cols; ++j) {
              const double sum = static_cast<double>(sums[r * kIntCols + j]);
              dst[j] = requantize_ ? requantized((sum + bias[m]) * multiplier[m], zy, out_range_) : static_cast<float>(sum);
            }
          }
        }
      }
    });
  }

  // The im2col panel of output positions [p0, p0 + cols) of one image and
  // group (its channels from `src`), a block of kIntCols columns at a time:
  // a block within one output row reads, per tap, kIntCols values of one
  // input row, copied at the stride where all lie inside the input.
  void fill_panel(const int16_t* src, int64_t p0, int64_t cols, int64_t depth,
                  const std::vector<std::array<int64_t, 4>>& tap_of, int16_t* panel) const {
    const Window3& k = win_;
    const int64_t pairs = (depth + 1) / 2;
    // Each column's first input position along each axis, before the taps' offsets.
    std::vector<std::array<int64_t, 3>> base(static_cast<size_t>(cols));
    int64_t o2 = p0 % k.out[2], o1 = p0 / k.out[2] % k.out[1], o0 = p0 / (k.out[1] * k.out[2]);
    for (int64_t j = 0; j < cols; ++j) {
      base[j] = {o0 * k.stride[0] - k.pad_begin[0], o1 * k.stride[1] - k.pad_begin[1], o2 * k.stride[2] - k.pad_begin[2]};
      if (++o2 == k.out[2]) {
        o2 = 0;
        if (++o1 == k.out[1]) o1 = 0, ++o0;
      }
    }
    const auto inside = [](int64_t i, int64_t extent) { return i >= 0 && i < extent; };
    for (int64_t j0 = 0; j0 < cols; j0 += kIntCols) {
      const int64_t width = std::min(kIntCols, cols - j0);
      const auto& first = base[j0];
      const auto& last = base[j0 + width - 1];
      const bool one_row = last[0] == first[0] && last[1] == first[1];
      int16_t* block = panel + (j0 / kIntCols) * pairs * kIntCols * 2;
      for (int64_t d = 0; d < depth; ++d) {
        const auto& t = tap_of[d];
        const int16_t* channel = src + t[0];
        int16_t* dst = block + (d / 2) * kIntCols * 2 + d % 2;
        if (one_row) {
          const int64_t i0 = first[0] + t[1], i1 = first[1] + t[2];
          if (!inside(i0, k.in[0]) || !inside(i1, k.in[1])) {
            for (int64_t j = 0; j < width; ++j) dst[j * 2] = 0;
            continue;
          }
          const int16_t* line = channel + (i0 * k.in[1] + i1) * k.in[2];
          const int64_t a = first[2] + t[3], step = k.stride[2];
          if (a >= 0 && a + (width - 1) * step < k.in[2]) {
            for (int64_t j = 0; j < width; ++j) dst[j * 2] = line[a + j * step];
          } else {
            for (int64_t j = 0; j < width; ++j) dst[j * 2] = inside(a + j * step, k.in[2]) ? line[a + j * step] : int16_t{0};
          }
          continue;
        }
        for (int64_t j = 0; j < width; ++j) {
          const auto& b = base[j0 + j];
          const int64_t i0 = b[0] + t[1], i1 = b[1] + t[2], i2 = b[2] + t[3];
          dst[j * 2] = inside(i0, k.in[0]) && inside(i1, k.in[1]) && inside(i2, k.in[2])
                           ? channel[(i0 * k.in[1] + i1) * k.in[2] + i2]
                           : int16_t{0};
        }
      }
    }
  }

  // Each output from the definition: every tap of every channel of its group,
  // inside the input, as (x - x_zero_point) * (w - w_zero_point), summed
  // exactly in int64; taken tap by tap over a whole output plane, so the
  // reference of a large convolution takes seconds, not minutes.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Window3& k = win_;
    const int64_t cg = c_ / group_, mg = m_ / group_;
    const int64_t in_plane = k.in[0] * k.in[1] * k.in[2], plane = k.out[0] * k.out[1] * k.out[2];
    const auto whole = [](double v) { return static_cast<int64_t>(std::nearbyint(v)); };
    const float* w = in[static_cast<size_t>(at_[kW])];
    const int64_t zx = whole(param(in, kXZero, 0, 0));
    std::vector<int32_t> x(static_cast<size_t>(c_ * in_plane));  // one image less its zero point
    std::vector<int64_t> sum(static_cast<size_t>(plane));
    for (int64_t n = 0; n < n_; ++n) {
      const float* image = in[static_cast<size_t>(at_[kX])] + n * c_ * in_plane;
      for (int64_t i = 0; i < c_ * in_plane; ++i) x[i] = static_cast<int32_t>(whole(image[i]) - zx);
      for (int64_t m = 0; m < m_; ++m) {
        std::fill(sum.begin(), sum.end(), int64_t{0});
        const int64_t zw = whole(param(in, kWZero, m, 0));
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t t0 = 0; t0 < k.kernel[0]; ++t0)
            for (int64_t t1 = 0; t1 < k.kernel[1]; ++t1)
              for (int64_t t2 = 0; t2 < k.kernel[2]; ++t2) {
                const int64_t wv = whole(w[(((m * cg + c) * k.kernel[0] + t0) * k.kernel[1] + t1) * k.kernel[2] + t2]) - zw;
                const int32_t* channel = x.data() + ((m / mg) * cg + c) * in_plane;
                for (int64_t o0 = 0; o0 < k.out[0]; ++o0) {
                  const int64_t i0 = o0 * k.stride[0] - k.pad_begin[0] + t0 * k.dilation[0];
                  if (i0 < 0 || i0 >= k.in[0]) continue;
                  for (int64_t o1 = 0; o1 < k.out[1]; ++o1) {
                    const int64_t i1 = o1 * k.stride[1] - k.pad_begin[1] + t1 * k.dilation[1];
                    if (i1 < 0 || i1 >= k.in[1]) continue;
                    const int32_t* row = channel + (i0 * k.in[1] + i1) * k.in[2];
                    int64_t* s = sum.data() + (o0 * k.out[1] + o1) * k.out[2];
                    for (int64_t o2 = 0; o2 < k.out[2]; ++o2) {
                      const int64_t i2 = o2 * k.stride[2] - k.pad_begin[2] + t2 * k.dilation[2];
                      if (i2 >= 0 && i2 < k.in[2]) s[o2] += wv * row[i2];
                    }
                  }
                }
              }
        float* dst = out[0] + (n * m_ + m) * plane;
        for (int64_t p = 0; p < plane; ++p) {
          double y = static_cast<double>(sum[p]);
          if (requantize_) {
            const double with_bias = y + std::nearbyint(param(in, kBias, m, 0));
            const float multiplier = static_cast<float>(param(in, kXScale, m, 1)) *
                                     static_cast<float>(param(in, kWScale, m, 1)) / static_cast<float>(param(in, kYScale, m, 1));
            y = std::clamp(std::nearbyint(with_bias * multiplier) + param(in, kYZero, m, 0), out_range_.lo, out_range_.hi);
          }
          dst[p] = static_cast<float>(y);
        }
      }
    }
  }

 private:
  // QLinearConv's inputs in order; ConvInteger takes x, w and the two zero points.
  enum Role : size_t { kX, kXScale, kXZero, kW, kWScale, kWZero, kYScale, kYZero, kBias, kRoles };

  // Input `role`'s value for output channel `m` (one value, or one per channel); `fallback` where absent.
  double param(const std::vector<const float*>& in, Role role, int64_t m, double fallback) const {
    if (at_[role] < 0) return fallback;
    const float* p = in[static_cast<size_t>(at_[role])];
    return count_[role] == 1 ? p[0] : p[m];
  }

  // A finished sum of output channel `m` as the output holds it.
  float output_of(const std::vector<const float*>& in, double sum, int64_t m) const {
    if (!requantize_) return static_cast<float>(sum);
    sum += std::nearbyint(param(in, kBias, m, 0));
    // The multiplier in float32, as the float scales give it.
    const float multiplier = static_cast<float>(param(in, kXScale, m, 1)) * static_cast<float>(param(in, kWScale, m, 1)) /
                             static_cast<float>(param(in, kYScale, m, 1));
    return requantized(sum * multiplier, param(in, kYZero, m, 0), out_range_);
  }

  // Output positions per task: a panel of kRunCols columns by up to a few
  // thousand taps stays within the core's L2.
  static constexpr int64_t kRunCols = 128;

  std::string who_;
  std::array<int, kRoles> at_{};
  std::array<int64_t, kRoles> count_{};
  bool requantize_ = false;
  QuantRange out_range_;
  int64_t n_ = 1, c_ = 1, m_ = 1, group_ = 1;
  Window3 win_;
  std::vector<ValueRange> ranges_;
};

}  // namespace

std::unique_ptr<CpuOp> make_integer_conv_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<IntegerConvOp>(task, host);
}

}  // namespace aoe::cpu
