// Every gradient kernel of a training step against central differences,
// in double, of the forward op it differentiates: for a scalar
// L = Σ dy · f(inputs), dL/dx_i ≈ (L(x + h e_i) - L(x - h e_i)) / 2h, which
// the kernel, fed dy, must give. The forward ops are written out here from
// their definitions; the shapes are small so that every element is probed.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>

#include "tasks.h"

namespace aoe::cpu {
namespace {

using nlohmann::json;
using test::f32;
using test::host;
using test::op;
using test::pool;
using Values = std::vector<double>;

// |kernel - difference| <= kAbs + kRel · |difference|: float kernels against
// double differences of step 1e-6.
constexpr double kAbs = 2e-5, kRel = 2e-4, kStep = 1e-6;

std::vector<float> random_floats(size_t n, uint64_t seed, float lo = -1, float hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

Values widen(const std::vector<float>& v) { return Values(v.begin(), v.end()); }
std::vector<float> narrow(const Values& v) { return std::vector<float>(v.begin(), v.end()); }

// dL/dx by central differences, L a function of x alone.
Values differences(const std::function<double(const Values&)>& loss, Values x) {
  Values g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + kStep;
    const double up = loss(x);
    x[i] = keep - kStep;
    const double down = loss(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * kStep);
  }
  return g;
}

double dot(const Values& a, const Values& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The kernel's outputs on `inputs`, with its default config.
std::vector<std::vector<float>> run(const sdk::OpTask& task, const std::vector<std::vector<float>>& inputs) {
  const auto o = make_op(task, host());
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  return run_once(*o, o->space().default_config, in, pool());
}

void expect_gradient(const std::vector<float>& kernel, const Values& want, const std::string& what) {
  ASSERT_EQ(kernel.size(), want.size()) << what;
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double excess = std::fabs(kernel[i] - want[i]) - (kAbs + kRel * std::fabs(want[i]));
    if (i == 0 || excess > worst) worst = excess, at = i;
  }
  EXPECT_LE(worst, 0) << what << ": element " << at << " is " << kernel[at] << ", the differences give " << want[at];
}

// ---- Conv: forward in double, then both gradients ----

struct Conv {
  int64_t n, c, h, w, m, kh, kw, sh, sw, dh, dw, group;
  int64_t pads[4];  // top, left, bottom, right
  int64_t oh() const { return (h + pads[0] + pads[2] - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + pads[1] + pads[3] - dw * (kw - 1) - 1) / sw + 1; }
  Shape x() const { return {n, c, h, w}; }
  Shape wt() const { return {m, c / group, kh, kw}; }
  Shape y() const { return {n, m, oh(), ow()}; }
  json attrs() const {
    return {{"kernel_shape", {kh, kw}}, {"strides", {sh, sw}}, {"dilations", {dh, dw}},
            {"pads", {pads[0], pads[1], pads[2], pads[3]}}, {"group", group}};
  }
  Values forward(const Values& x, const Values& wt) const {
    const int64_t cg = c / group, mg = m / group;
    Values y(static_cast<size_t>(elements(this->y())), 0.0);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o = 0; o < m; ++o)
        for (int64_t i = 0; i < oh(); ++i)
          for (int64_t j = 0; j < ow(); ++j) {
            double s = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t ih = i * sh - pads[0] + ky * dh, iw = j * sw - pads[1] + kx * dw;
                  if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                  s += x[static_cast<size_t>(((b * c + o / mg * cg + ci) * h + ih) * w + iw)] *
                       wt[static_cast<size_t>(((o * cg + ci) * kh + ky) * kw + kx)];
                }
            y[static_cast<size_t>(((b * m + o) * oh() + i) * ow() + j)] = s;
          }
    return y;
  }
  // The ConvTranspose this Conv is the adjoint of, y's shape to x's: each
  // value of `in` spread over the window the Conv read it from.
  Values transposed(const Values& in, const Values& wt) const {
    const int64_t cg = c / group, mg = m / group;
    Values out(static_cast<size_t>(elements(x())), 0.0);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o = 0; o < m; ++o)
        for (int64_t i = 0; i < oh(); ++i)
          for (int64_t j = 0; j < ow(); ++j)
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t ih = i * sh - pads[0] + ky * dh, iw = j * sw - pads[1] + kx * dw;
                  if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                  out[static_cast<size_t>(((b * c + o / mg * cg + ci) * h + ih) * w + iw)] +=
                      in[static_cast<size_t>(((b * m + o) * oh() + i) * ow() + j)] *
                      wt[static_cast<size_t>(((o * cg + ci) * kh + ky) * kw + kx)];
                }
    return out;
  }
};

// ConvTranspose's gradients as the step derives them (docs/training.md):
// dx the Conv of dy, dw the Conv's filter gradient with dy as its x.
void expect_conv_transpose_gradients(const Conv& conv) {
  const auto x = random_floats(static_cast<size_t>(elements(conv.y())), 1);
  const auto w = random_floats(static_cast<size_t>(elements(conv.wt())), 2);
  const auto dy = random_floats(static_cast<size_t>(elements(conv.x())), 3);
  const Values dyd = widen(dy), xd = widen(x), wd = widen(w);
  const auto dx = run(op("Conv", {f32(conv.x()), f32(conv.wt())}, conv.attrs()), {dy, w})[0];
  expect_gradient(dx, differences([&](const Values& v) { return dot(dyd, conv.transposed(v, wd)); }, xd), "dx");
  const auto dw = run(op("Conv2DBackpropFilter", {f32(conv.x()), f32(conv.y())}, conv.attrs()), {dy, x})[0];
  expect_gradient(dw, differences([&](const Values& v) { return dot(dyd, conv.transposed(xd, v)); }, wd), "dw");
}

TEST(TrainingGradients, ConvTransposeStridedGroupedAndWithOutputPadding) {
  expect_conv_transpose_gradients({1, 4, 8, 8, 6, 2, 2, 2, 2, 1, 1, 2, {0, 0, 0, 0}});  // the DB head's 2x2 stride 2
  expect_conv_transpose_gradients({2, 3, 8, 7, 4, 3, 3, 2, 2, 1, 1, 1, {1, 0, 0, 1}});  // a row the Conv leaves unread
}

void expect_conv_gradients(const Conv& conv) {
  const auto x = random_floats(static_cast<size_t>(elements(conv.x())), 1);
  const auto w = random_floats(static_cast<size_t>(elements(conv.wt())), 2);
  const auto dy = random_floats(static_cast<size_t>(elements(conv.y())), 3);
  const Values dyd = widen(dy), xd = widen(x), wd = widen(w);
  json input_attrs = conv.attrs();
  input_attrs["input_size"] = {conv.h, conv.w};
  const auto dx = run(op("Conv2DBackpropInput", {f32(conv.y()), f32(conv.wt())}, input_attrs), {dy, w})[0];
  expect_gradient(dx, differences([&](const Values& v) { return dot(dyd, conv.forward(v, wd)); }, xd), "dx");
  const auto dw = run(op("Conv2DBackpropFilter", {f32(conv.x()), f32(conv.y())}, conv.attrs()), {x, dy})[0];
  expect_gradient(dw, differences([&](const Values& v) { return dot(dyd, conv.forward(xd, v)); }, wd), "dw");
}

TEST(TrainingGradients, ConvStrideTwoPaddedGrouped) {
  expect_conv_gradients({2, 4, 7, 6, 6, 3, 3, 2, 2, 1, 1, 2, {1, 1, 1, 1}});
}

TEST(TrainingGradients, ConvStridesLeavingRowsAndDilatedAsymmetricPads) {
  expect_conv_gradients({2, 3, 8, 7, 4, 3, 3, 2, 2, 1, 1, 1, {0, 0, 0, 0}});  // the last row and column unread
  expect_conv_gradients({1, 3, 7, 6, 4, 3, 2, 1, 1, 2, 1, 1, {1, 0, 2, 1}});
}

TEST(TrainingGradients, ConvDepthwise) { expect_conv_gradients({2, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 4, {1, 1, 1, 1}}); }

// ---- BatchMatMul: the gradients of a product are products with a transposed operand ----

// y[b] = op(a[b]) · op(b[b]), a m x k and b k x n before transposition.
Values batch_matmul(const Values& a, const Values& b, int64_t batches, int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
  Values y(static_cast<size_t>(batches * m * n), 0.0);
  for (int64_t t = 0; t < batches; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p)
          y[static_cast<size_t>((t * m + i) * n + j)] += a[static_cast<size_t>(t * m * k + (ta ? p * m + i : i * k + p))] *
                                                         b[static_cast<size_t>(t * k * n + (tb ? j * k + p : p * n + j))];
  return y;
}

TEST(TrainingGradients, BatchMatMulBothOperands) {
  const int64_t batches = 2, m = 3, k = 5, n = 4;
  for (const bool tb : {false, true}) {
    const Shape as = {batches, m, k}, bs = tb ? Shape{batches, n, k} : Shape{batches, k, n}, ys = {batches, m, n};
    const auto a = random_floats(static_cast<size_t>(elements(as)), 4), b = random_floats(static_cast<size_t>(elements(bs)), 5);
    const auto dy = random_floats(static_cast<size_t>(elements(ys)), 6);
    const Values ad = widen(a), bd = widen(b), dyd = widen(dy);
    // dA = dY · op(B)ᵀ; dB = Aᵀ · dY, or dYᵀ · A where the forward read B transposed.
    const auto da = run(op("BatchMatMul", {f32(ys), f32(bs)}, {{"adj_x1", 0}, {"adj_x2", tb ? 0 : 1}}), {dy, b})[0];
    const auto db = tb ? run(op("BatchMatMul", {f32(ys), f32(as)}, {{"adj_x1", 1}, {"adj_x2", 0}}), {dy, a})[0]
                       : run(op("BatchMatMul", {f32(as), f32(ys)}, {{"adj_x1", 1}, {"adj_x2", 0}}), {a, dy})[0];
    expect_gradient(da, differences([&](const Values& v) { return dot(dyd, batch_matmul(v, bd, batches, m, k, n, false, tb)); }, ad),
                    "da");
    expect_gradient(db, differences([&](const Values& v) { return dot(dyd, batch_matmul(ad, v, batches, m, k, n, false, tb)); }, bd),
                    "db");
  }
}

// ---- Activations ----

TEST(TrainingGradients, ReluAndGelu) {
  const Shape s = {3, 17};
  const auto x = random_floats(51, 7, -3, 3), dy = random_floats(51, 8);
  const Values xd = widen(x), dyd = widen(dy);
  std::vector<float> relu(x.size());
  for (size_t i = 0; i < x.size(); ++i) relu[i] = std::max(0.0f, x[i]);
  const auto drelu = run(op("ReluGradV2", {f32(s), f32(s)}), {dy, relu})[0];
  expect_gradient(drelu, differences([&](const Values& v) {
                    double l = 0;
                    for (size_t i = 0; i < v.size(); ++i) l += dyd[i] * std::max(0.0, v[i]);
                    return l;
                  }, xd),
                  "relu dx");
  const auto dgelu = run(op("GeLUGrad", {f32(s), f32(s)}), {dy, x})[0];
  expect_gradient(dgelu, differences([&](const Values& v) {
                    double l = 0;
                    for (size_t i = 0; i < v.size(); ++i) l += dyd[i] * v[i] * 0.5 * std::erfc(-v[i] / std::sqrt(2.0));
                    return l;
                  }, xd),
                  "gelu dx");
}

// dx of an elementwise activation's gradient kernel against the differences
// of `f`; `second` is what the kernel reads besides dy (x, or f(x) where it
// reads the output).
void expect_elementwise_gradient(const std::string& kernel, const json& attrs, const std::function<double(double)>& f,
                                 bool reads_y, float lo, float hi) {
  const Shape s = {3, 29};
  const auto x = random_floats(87, 11, lo, hi), dy = random_floats(87, 12);
  const Values xd = widen(x), dyd = widen(dy);
  std::vector<float> second = x;
  if (reads_y)
    for (auto& v : second) v = static_cast<float>(f(v));
  const auto dx = run(op(kernel, {f32(s), f32(s)}, attrs), {dy, second})[0];
  expect_gradient(dx, differences([&](const Values& v) {
                    double l = 0;
                    for (size_t i = 0; i < v.size(); ++i) l += dyd[i] * f(v[i]);
                    return l;
                  }, xd),
                  kernel + " dx");
}

TEST(TrainingGradients, Relu6SigmoidHardSwishHardSigmoid) {
  expect_elementwise_gradient("Relu6Grad", json::object(), [](double v) { return std::min(6.0, std::max(0.0, v)); },
                              false, -2, 8);
  expect_elementwise_gradient("SigmoidGrad", json::object(), [](double v) { return 1 / (1 + std::exp(-v)); }, true, -4, 4);
  expect_elementwise_gradient("HardSwishGrad", json::object(),
                              [](double v) { return v * std::min(1.0, std::max(0.0, v / 6 + 0.5)); }, false, -5, 5);
  for (const auto& [alpha, beta] : {std::pair{0.2, 0.5}, std::pair{-0.5, 0.25}})
    expect_elementwise_gradient("HardSigmoidGrad", {{"alpha", alpha}, {"beta", beta}},
                                [a = alpha, b = beta](double v) { return std::min(1.0, std::max(0.0, a * v + b)); },
                                false, -5, 5);
}

// ONNX's Resize of planes over H and W by half-pixel coordinates, read
// from its definition: output o at x = (o + 0.5) · in / out - 0.5; linear
// between the positions around it, clamped to the edge; nearest the closer,
// the lower on a tie.
Values resize(const Values& x, int64_t planes, int64_t h, int64_t w, int64_t ho, int64_t wo, bool linear) {
  auto source = [](int64_t o, int64_t in, int64_t out) {
    return (static_cast<double>(o) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
  };
  auto at = [](double i, int64_t in) { return std::clamp<int64_t>(static_cast<int64_t>(i), 0, in - 1); };
  Values y(static_cast<size_t>(planes * ho * wo));
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < ho; ++i)
      for (int64_t j = 0; j < wo; ++j) {
        const double r = source(i, h, ho), c = source(j, w, wo);
        const auto v = [&](int64_t a, int64_t b) { return x[static_cast<size_t>((p * h + a) * w + b)]; };
        double out;
        if (linear) {
          const double r0 = std::floor(r), c0 = std::floor(c), fr = r - r0, fc = c - c0;
          out = (1 - fr) * ((1 - fc) * v(at(r0, h), at(c0, w)) + fc * v(at(r0, h), at(c0 + 1, w))) +
                fr * ((1 - fc) * v(at(r0 + 1, h), at(c0, w)) + fc * v(at(r0 + 1, h), at(c0 + 1, w)));
        } else {
          const auto near = [&](double s, int64_t in) { return at(s - std::floor(s) > 0.5 ? std::ceil(s) : std::floor(s), in); };
          out = v(near(r, h), near(c, w));
        }
        y[static_cast<size_t>((p * ho + i) * wo + j)] = out;
      }
  return y;
}

TEST(TrainingGradients, ResizeNearestAndLinear) {
  // Whole scales as the detector's neck uses, and one that is not.
  for (const auto& [h, w, ho, wo] : {std::array<int64_t, 4>{4, 5, 8, 10}, std::array<int64_t, 4>{3, 4, 12, 16},
                                     std::array<int64_t, 4>{4, 6, 7, 9}})
    for (bool linear : {false, true}) {
      const int64_t planes = 2;
      const auto x = random_floats(static_cast<size_t>(planes * h * w), 21);
      const auto dy = random_floats(static_cast<size_t>(planes * ho * wo), 22);
      const Values xd = widen(x), dyd = widen(dy);
      const std::string kernel = linear ? "ResizeBilinearV2Grad" : "ResizeNearestNeighborV2Grad";
      const auto dx = run(op(kernel, {f32({1, planes, ho, wo})}, {{"input_size", {h, w}}}), {dy})[0];
      expect_gradient(dx, differences([&](const Values& v) { return dot(dyd, resize(v, planes, h, w, ho, wo, linear)); }, xd),
                      kernel + " dx");
    }
}

// Softmax of `x` along the middle of outer x axis x inner.
Values softmax(const Values& x, int64_t outer, int64_t axis, int64_t inner) {
  Values y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const auto at = [&](int64_t a) { return static_cast<size_t>((o * axis + a) * inner + i); };
      double mx = x[at(0)], s = 0;
      for (int64_t a = 1; a < axis; ++a) mx = std::max(mx, x[at(a)]);
      for (int64_t a = 0; a < axis; ++a) s += std::exp(x[at(a)] - mx);
      for (int64_t a = 0; a < axis; ++a) y[at(a)] = std::exp(x[at(a)] - mx) / s;
    }
  return y;
}

TEST(TrainingGradients, Softmax) {
  struct Case {
    Shape s;
    int64_t axis, outer, extent, inner;
  };
  for (const Case& c : {Case{{4, 7}, -1, 4, 7, 1}, Case{{2, 5, 3}, 1, 2, 5, 3}}) {
    const size_t count = static_cast<size_t>(elements(c.s));
    const auto x = random_floats(count, 9, -2, 2), dy = random_floats(count, 10);
    const Values xd = widen(x), dyd = widen(dy);
    const auto y = narrow(softmax(xd, c.outer, c.extent, c.inner));
    const auto dx = run(op("SoftmaxGradExt", {f32(c.s), f32(c.s)}, {{"axis", c.axis}}), {dy, y})[0];
    expect_gradient(dx, differences([&](const Values& v) { return dot(dyd, softmax(v, c.outer, c.extent, c.inner)); }, xd),
                    "softmax dx, axis " + std::to_string(c.axis));
  }
}

TEST(TrainingGradients, SoftmaxCrossEntropy) {
  const int64_t n = 4, k = 6;
  const auto logits = random_floats(static_cast<size_t>(n * k), 11, -3, 3);
  auto labels = random_floats(static_cast<size_t>(n * k), 12, 0, 1);
  for (int64_t r = 0; r < n; ++r) {  // each row a distribution
    float s = 0;
    for (int64_t i = 0; i < k; ++i) s += labels[static_cast<size_t>(r * k + i)];
    for (int64_t i = 0; i < k; ++i) labels[static_cast<size_t>(r * k + i)] /= s;
  }
  const Values ld = widen(labels);
  const auto loss = [&](const Values& v) {
    const Values p = softmax(v, n, k, 1);
    double l = 0;
    for (size_t i = 0; i < p.size(); ++i) l -= ld[i] * std::log(p[i]);
    return l;
  };
  const auto out = run(op("SoftmaxCrossEntropyWithLogits", {f32({n, k}), f32({n, k})}), {logits, labels});
  double total = 0;
  for (float l : out[0]) total += l;
  EXPECT_NEAR(total, loss(widen(logits)), 1e-4);
  expect_gradient(out[1], differences(loss, widen(logits)), "dlogits");
}

// ---- LayerNorm over the last axis ----

TEST(TrainingGradients, LayerNorm) {
  const int64_t rows = 6, d = 9;
  const double eps = 1e-5;
  const Shape s = {3, 2, d}, stat = {3, 2, 1};
  const auto x = random_floats(static_cast<size_t>(rows * d), 13, -2, 2), dy = random_floats(static_cast<size_t>(rows * d), 14);
  const auto gamma = random_floats(static_cast<size_t>(d), 15, 0.5f, 1.5f), beta = random_floats(static_cast<size_t>(d), 16);
  const Values dyd = widen(dy), gd = widen(gamma), bd = widen(beta);
  const auto forward = [&](const Values& xv, const Values& g, const Values& b) {
    double l = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < d; ++i) mean += xv[static_cast<size_t>(r * d + i)] / d;
      for (int64_t i = 0; i < d; ++i) var += std::pow(xv[static_cast<size_t>(r * d + i)] - mean, 2) / d;
      for (int64_t i = 0; i < d; ++i) {
        const size_t at = static_cast<size_t>(r * d + i);
        l += dyd[at] * ((xv[at] - mean) / std::sqrt(var + eps) * g[static_cast<size_t>(i)] + b[static_cast<size_t>(i)]);
      }
    }
    return l;
  };
  std::vector<float> mean(static_cast<size_t>(rows)), invstd(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < d; ++i) m += x[static_cast<size_t>(r * d + i)] / static_cast<double>(d);
    for (int64_t i = 0; i < d; ++i) v += std::pow(x[static_cast<size_t>(r * d + i)] - m, 2) / static_cast<double>(d);
    mean[static_cast<size_t>(r)] = static_cast<float>(m);
    invstd[static_cast<size_t>(r)] = static_cast<float>(1 / std::sqrt(v + eps));
  }
  const Values xd = widen(x);
  const auto dx = run(op("LayerNormXBackpropV2", {f32(s), f32(s), f32(stat), f32(stat), f32({d})}), {dy, x, mean, invstd, gamma})[0];
  expect_gradient(dx, differences([&](const Values& v) { return forward(v, gd, bd); }, xd), "dx");
  const auto dgb = run(op("LayerNormBetaGammaBackpropV2", {f32(s), f32(s), f32(stat), f32(stat)}), {dy, x, mean, invstd});
  expect_gradient(dgb[0], differences([&](const Values& v) { return forward(xd, v, bd); }, gd), "dgamma");
  expect_gradient(dgb[1], differences([&](const Values& v) { return forward(xd, gd, v); }, bd), "dbeta");
}

// ---- Batch normalization by the batch's statistics ----

TEST(TrainingGradients, BatchNormTraining) {
  const int64_t n = 3, c = 4, plane = 10;
  const double eps = 1e-3;
  const Shape s = {n, c, 2, 5}, ch = {c};
  const size_t count = static_cast<size_t>(n * c * plane);
  const auto x = random_floats(count, 17, -2, 2), dy = random_floats(count, 18);
  const auto scale = random_floats(static_cast<size_t>(c), 19, 0.5f, 1.5f), offset = random_floats(static_cast<size_t>(c), 20);
  const Values dyd = widen(dy), xd = widen(x), sd = widen(scale), od = widen(offset);
  const auto forward = [&](const Values& xv, const Values& sc, const Values& of) {
    double l = 0;
    for (int64_t k = 0; k < c; ++k) {
      double mean = 0, var = 0;
      const auto at = [&](int64_t b, int64_t i) { return static_cast<size_t>((b * c + k) * plane + i); };
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < plane; ++i) mean += xv[at(b, i)] / (n * plane);
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < plane; ++i) var += std::pow(xv[at(b, i)] - mean, 2) / (n * plane);
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < plane; ++i)
          l += dyd[at(b, i)] * ((xv[at(b, i)] - mean) / std::sqrt(var + eps) * sc[static_cast<size_t>(k)] + of[static_cast<size_t>(k)]);
    }
    return l;
  };
  // The forward kernels give the statistics the gradients read.
  const auto sums = run(op("BNTrainingReduce", {f32(s)}), {x});
  const auto upd = run(op("BNTrainingUpdate", {f32(s), f32(ch), f32(ch), f32(ch), f32(ch)}, {{"epsilon", eps}}),
                       {x, sums[0], sums[1], scale, offset});
  const auto& mean = upd[1];
  const auto& invstd = upd[2];
  const auto grads = run(op("BNTrainingUpdateGrad", {f32(s), f32(s), f32(ch), f32(ch)}), {dy, x, mean, invstd});
  expect_gradient(grads[0], differences([&](const Values& v) { return forward(xd, v, od); }, sd), "dscale");
  expect_gradient(grads[1], differences([&](const Values& v) { return forward(xd, sd, v); }, od), "doffset");
  const auto dx = run(op("BNTrainingReduceGrad", {f32(s), f32(s), f32(ch), f32(ch), f32(ch), f32(ch), f32(ch)}),
                      {dy, x, grads[0], grads[1], scale, mean, invstd})[0];
  expect_gradient(dx, differences([&](const Values& v) { return forward(v, sd, od); }, xd), "dx");
}

// ---- Pooling ----

TEST(TrainingGradients, MaxPoolOverlappingPaddedWindows) {
  const int64_t planes = 6, h = 7, w = 8, k = 3, stride = 2, pad = 1;
  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  const auto x = random_floats(static_cast<size_t>(planes * h * w), 21), dy = random_floats(static_cast<size_t>(planes * oh * ow), 22);
  const Values dyd = widen(dy);
  const auto forward = [&](const Values& v) {
    double l = 0;
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double mx = -1e300;
          for (int64_t a = 0; a < k; ++a)
            for (int64_t b = 0; b < k; ++b) {
              const int64_t r = i * stride - pad + a, c = j * stride - pad + b;
              if (r >= 0 && r < h && c >= 0 && c < w) mx = std::max(mx, v[static_cast<size_t>((p * h + r) * w + c)]);
            }
          l += dyd[static_cast<size_t>((p * oh + i) * ow + j)] * mx;
        }
    return l;
  };
  const auto dx = run(op("MaxPoolGradWithArgmax", {f32({2, 3, h, w}), f32({2, 3, oh, ow})},
                         {{"kernel_shape", {k, k}}, {"strides", {stride, stride}}, {"pads", {pad, pad, pad, pad}}}),
                      {x, dy})[0];
  expect_gradient(dx, differences(forward, widen(x)), "dx");
}

TEST(TrainingGradients, GlobalAveragePool) {
  const int64_t planes = 6, plane = 20;
  const auto x = random_floats(static_cast<size_t>(planes * plane), 23), dy = random_floats(static_cast<size_t>(planes), 24);
  const Values dyd = widen(dy);
  const auto forward = [&](const Values& v) {
    double l = 0;
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t i = 0; i < plane; ++i) l += dyd[static_cast<size_t>(p)] * v[static_cast<size_t>(p * plane + i)] / plane;
    return l;
  };
  const auto dx = run(op("GlobalAveragePoolGrad", {f32({2, 3, 1, 1})}, {{"input_size", {4, 5}}}), {dy})[0];
  expect_gradient(dx, differences(forward, widen(x)), "dx");
}

// ---- A bias added along a feature map's channels, or along rows ----

TEST(TrainingGradients, BiasAdd) {
  struct Case {
    Shape s;
    int64_t axis, outer, c, inner;
  };
  for (const Case& k : {Case{{2, 3, 4, 5}, 1, 2, 3, 20}, Case{{7, 6}, -1, 7, 6, 1}}) {
    const size_t count = static_cast<size_t>(elements(k.s));
    const auto x = random_floats(count, 25), dy = random_floats(count, 26), b = random_floats(static_cast<size_t>(k.c), 27);
    const Values xd = widen(x), dyd = widen(dy);
    const auto forward = [&](const Values& bias) {
      double l = 0;
      for (size_t i = 0; i < count; ++i)
        l += dyd[i] * (xd[i] + bias[static_cast<size_t>((static_cast<int64_t>(i) / k.inner) % k.c)]);
      return l;
    };
    const auto db = run(op("BiasAddGrad", {f32(k.s)}, {{"axis", k.axis}}), {dy})[0];
    expect_gradient(db, differences(forward, widen(b)), "db, axis " + std::to_string(k.axis));
  }
}

}  // namespace
}  // namespace aoe::cpu
