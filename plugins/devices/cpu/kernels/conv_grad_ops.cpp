#include "conv_grad_ops.h"

#include <algorithm>
#include <cstring>

#include "buffer_kernel.h"
#include "catalog.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

const std::vector<int64_t> kMcValues = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
const std::vector<int64_t> kKcValues = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
const std::vector<int64_t> kNcValues = {64, 128, 256, 512, 1024, 2048, 4096, 8192};

// The forward Conv's attributes, around the feature map `x` (input `xi`,
// N x Ci x H x W, or only its extents) and the gradient dy (input `dyi`).
ConvGradGeometry geometry_of(const StepTask& t, const Shape& x, size_t dyi, int64_t out_channels) {
  ConvGradGeometry g;
  const auto& attrs = t.task().attrs;
  const auto kernel = t.ints("kernel_shape");
  if (kernel.size() != 2) t.fail("kernel_shape must give 2 dims (the cpu device runs 2-D convolutions)");
  const auto strides = ints_attr(attrs, "strides", {1, 1});
  const auto dilations = ints_attr(attrs, "dilations", {1, 1});
  const auto pads = ints_attr(attrs, "pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    t.fail("strides and dilations must give 2 values and pads 4");
  g.group = int_attr(attrs, "group", 1);
  g.n = x[0];
  g.c = x[1];
  g.h = x[2];
  g.w = x[3];
  g.m = out_channels;
  g.kh = kernel[0];
  g.kw = kernel[1];
  g.sh = strides[0];
  g.sw = strides[1];
  g.dh = dilations[0];
  g.dw = dilations[1];
  std::copy(pads.begin(), pads.end(), g.pads);
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
    t.fail("kernel_shape, strides and dilations must be >= 1");
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) t.fail("pads must be >= 0");
  if (g.group < 1 || g.c % g.group != 0 || g.m % g.group != 0)
    t.fail("group " + std::to_string(g.group) + " does not divide " + std::to_string(g.c) + " input and " +
           std::to_string(g.m) + " output channels");
  const int64_t room_h = g.h + g.pads[0] + g.pads[2] - g.dh * (g.kh - 1) - 1;
  const int64_t room_w = g.w + g.pads[1] + g.pads[3] - g.dw * (g.kw - 1) - 1;
  if (room_h < 0 || room_w < 0) t.fail("the kernel is larger than the padded input " + to_string(x));
  g.oh = room_h / g.sh + 1;
  g.ow = room_w / g.sw + 1;
  t.expect(dyi, {g.n, g.m, g.oh, g.ow}, "the forward Conv's output");
  return g;
}

// B[k][j] of the filter's GEMM for one group: row k an output pixel
// (image, oh, ow), column j a tap (input channel, kh, kw) of the window
// that produced it. Packed column by column straight from x, in runs of
// pixels along an output row: one input row each, read in order at
// stride 1, so a run is a copy between two zero fills.
class Im2colRowsSource final : public PanelSource {
 public:
  Im2colRowsSource(const float* x, const ConvGradGeometry& g, int64_t group) : x_(x), g_(g), group_(group) {}

  void pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr, float* dst) const override {
    const ConvGradGeometry& g = g_;
    const int64_t cg = g.c / g.group, taps = g.kh * g.kw, pixels = g.oh * g.ow;
    for (int64_t s = 0; s * nr < nc; ++s) {
      const int64_t cols = std::min<int64_t>(nr, nc - s * nr);
      float* d = dst + s * nr * kc;
      for (int64_t jj = 0; jj < cols; ++jj) {
        const int64_t j = j0 + s * nr + jj;
        const int64_t ci = group_ * cg + j / taps, ky = (j % taps) / g.kw, kx = j % g.kw;
        const int64_t dy = ky * g.dh - g.pads[0], dx = kx * g.dw - g.pads[1];
        int64_t n = k0 / pixels, oh = (k0 % pixels) / g.ow, ow = k0 % g.ow;
        float* out = d + jj;
        for (int64_t kk = 0; kk < kc;) {
          const int64_t len = std::min(kc - kk, g.ow - ow), ih = oh * g.sh + dy;
          float* o = out + kk * nr;
          if (ih < 0 || ih >= g.h) {
            for (int64_t i = 0; i < len; ++i) o[i * nr] = 0;
          } else {
            const float* row = x_ + ((n * g.c + ci) * g.h + ih) * g.w;
            // ow + i lands on iw = (ow + i) * sw + dx: inside the row for i in [lo, hi).
            const int64_t first = ow * g.sw + dx;
            const int64_t lo = std::clamp<int64_t>(first < 0 ? (-first + g.sw - 1) / g.sw : 0, 0, len);
            const int64_t hi = std::clamp<int64_t>(first < g.w ? (g.w - 1 - first) / g.sw + 1 : 0, lo, len);
            for (int64_t i = 0; i < lo; ++i) o[i * nr] = 0;
            if (g.sw == 1) {
              for (int64_t i = lo; i < hi; ++i) o[i * nr] = row[first + i];
            } else {
              for (int64_t i = lo; i < hi; ++i) o[i * nr] = row[first + i * g.sw];
            }
            for (int64_t i = hi; i < len; ++i) o[i * nr] = 0;
          }
          kk += len;
          ow += len;
          if (ow == g.ow) {
            ow = 0;
            if (++oh == g.oh) oh = 0, ++n;
          }
        }
      }
      for (int64_t kk = 0; kk < kc; ++kk)
        for (int64_t jj = cols; jj < nr; ++jj) d[kk * nr + jj] = 0;
    }
  }

 private:
  const float* x_;
  ConvGradGeometry g_;
  int64_t group_;
};

}  // namespace

ConvBackpropInputOp::ConvBackpropInputOp(const sdk::OpTask& task, const HostCpu& host) {
  const StepTask t(task, {"dy", "w"});
  t.rank(0, 4);
  t.rank(1, 4);
  const auto size = t.ints("input_size");
  if (size.size() != 2) t.fail("input_size must give [H, W]");
  const Shape &dy = t.shape(0), &w = t.shape(1);
  const int64_t group = int_attr(task.attrs, "group", 1);
  g_ = geometry_of(t, {dy[0], w[1] * std::max<int64_t>(group, 1), size[0], size[1]}, 0, dy[1]);
  t.expect(1, {g_.m, g_.c / g_.group, g_.kh, g_.kw}, "the forward Conv's weights, Co x Ci/group x KH x KW");
  const Shape dx = {g_.n, g_.c, g_.h, g_.w};
  t.outputs({"dx"}, {dx});
  // The transposed convolution of dy by w: output_padding gives back the
  // rows and columns the forward strides skipped at the end.
  const int64_t extra_h = g_.h - ((g_.oh - 1) * g_.sh + g_.dh * (g_.kh - 1) + 1 - g_.pads[0] - g_.pads[2]);
  const int64_t extra_w = g_.w - ((g_.ow - 1) * g_.sw + g_.dw * (g_.kw - 1) + 1 - g_.pads[1] - g_.pads[3]);
  sdk::OpTask transpose = task;
  transpose.op_type = "ConvTranspose";
  transpose.attrs = {{"kernel_shape", {g_.kh, g_.kw}}, {"strides", {g_.sh, g_.sw}},
                     {"dilations", {g_.dh, g_.dw}}, {"pads", {g_.pads[0], g_.pads[1], g_.pads[2], g_.pads[3]}},
                     {"group", g_.group}, {"output_padding", {extra_h, extra_w}}};
  if (transpose.outputs.empty()) transpose.outputs.push_back(task.inputs[0]);
  transpose.outputs[0].shape = dx;
  transpose_ = std::make_unique<ConvTransposeOp>(transpose, host);
  for (const auto& in : task.inputs) inputs_.push_back(in.shape);
  outputs_ = {dx};
  space_ = transpose_->space();
}

// dx[n][ci][ih][iw] = Σ dy[n][co][oh][ow] · w[co][ci % (C/group)][kh][kw] over
// the output pixels whose window reads (ih, iw) through tap (kh, kw).
void ConvBackpropInputOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  const ConvGradGeometry& g = g_;
  const int64_t cg = g.c / g.group, mg = g.m / g.group;
  std::vector<double> dx(static_cast<size_t>(g.n * g.c * g.h * g.w), 0.0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t co = 0; co < g.m; ++co)
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const double d = in[0][((n * g.m + co) * g.oh + oh) * g.ow + ow];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < g.kh; ++ky)
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t ih = oh * g.sh - g.pads[0] + ky * g.dh, iw = ow * g.sw - g.pads[1] + kx * g.dw;
                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                dx[static_cast<size_t>(((n * g.c + co / mg * cg + ci) * g.h + ih) * g.w + iw)] +=
                    d * in[1][((co * cg + ci) * g.kh + ky) * g.kw + kx];
              }
        }
  for (size_t i = 0; i < dx.size(); ++i) out[0][i] = static_cast<float>(dx[i]);
}

class ConvFilterKernel final : public BufferKernel {
 public:
  ConvFilterKernel(const ConvBackpropFilterOp& op, const sdk::Config& c)
      : BufferKernel(op), op_(op), gemm_(op.gemm_config(c)), ws_(gemm_, gemm_.threads) {
    if (op.g_.n > 1) dy_ = Buffer::scratch(op.g_.m * op.gemm_k_);
  }

  void run(ThreadPool& pool) override {
    const ConvGradGeometry& g = op_.g_;
    const int64_t pixels = g.oh * g.ow, mg = op_.gemm_m_;
    // dy as one matrix per group, rows the output channels, columns every
    // image's pixels; as it lies with one image.
    const float* a = inputs_[1];
    if (dy_.size()) {
      pool.run(g.n * g.m, gemm_.threads, [&](int64_t r, int) {
        const int64_t n = r / g.m, co = r % g.m;
        std::memcpy(dy_.data() + co * op_.gemm_k_ + n * pixels, inputs_[1] + r * pixels,
                    static_cast<size_t>(pixels) * sizeof(float));
      });
      a = dy_.data();
    }
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const Im2colRowsSource b(inputs_[0], g, grp);
      GemmCall call;
      call.m = mg;
      call.n = op_.gemm_n_;
      call.k = op_.gemm_k_;
      call.a = StridedMatrix{a + grp * mg * (dy_.size() ? op_.gemm_k_ : pixels), dy_.size() ? op_.gemm_k_ : pixels, 1};
      call.b = &b;
      call.c = outputs_[0].data() + grp * mg * op_.gemm_n_;
      call.ldc = op_.gemm_n_;
      gemm(gemm_, call, ws_, &pool);
    }
  }

  Footprint footprint() const override {
    Footprint f = BufferKernel::footprint();
    for (const auto& b : ws_.footprint()) f.push_back(b);
    if (dy_.size()) f.emplace_back(dy_.data(), dy_.bytes());
    return f;
  }

 private:
  const ConvBackpropFilterOp& op_;
  GemmConfig gemm_;
  GemmWorkspace ws_;
  Buffer dy_;
};

ConvBackpropFilterOp::ConvBackpropFilterOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
  const StepTask t(task, {"x", "dy"});
  t.rank(0, 4);
  t.rank(1, 4);
  g_ = geometry_of(t, t.shape(0), 1, t.shape(1)[1]);
  const Shape dw = {g_.m, g_.c / g_.group, g_.kh, g_.kw};
  t.outputs({"dw"}, {dw});
  gemm_m_ = g_.m / g_.group;
  gemm_n_ = g_.c / g_.group * g_.kh * g_.kw;
  gemm_k_ = g_.n * g_.oh * g_.ow;
  for (const auto& in : task.inputs) inputs_.push_back(in.shape);
  outputs_ = {dw};
  std::vector<std::string> ukernels;
  for (const auto& u : ukernel_catalog()) ukernels.push_back(u.label());
  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  space_.knobs[kUKernel] = choice_knob("ukernel", sdk::KnobTag::impl, ukernels);
  space_.knobs[kMc] = sized_knob("mc", kMcValues, gemm_m_);
  space_.knobs[kKc] = sized_knob("kc", kKcValues, gemm_k_);
  space_.knobs[kNc] = sized_knob("nc", kNcValues, gemm_n_);
  space_.knobs[kSplit] = choice_knob("split", sdk::KnobTag::schedule, {"m", "n", "m_shared"});
  space_.knobs[kThreads] = threads_knob(host);
  space_.default_config = default_config(host);
  if (const auto why = check(space_.default_config); !why.empty())
    throw sdk::Error(sdk::StatusCode::internal, "the default Conv2DBackpropFilter config is refused: " + why);
}

GemmConfig ConvBackpropFilterOp::gemm_config(const sdk::Config& c) const {
  const auto& shape = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
  GemmConfig g;
  g.isa = &kernels_for(static_cast<int64_t>(shape.isa));
  g.ukernel = *find_ukernel(*g.isa, shape.mr, shape.nr);
  g.mc = round_up(c[kMc], shape.mr);
  g.kc = c[kKc];
  g.nc = round_up(c[kNc], shape.nr);
  g.split = c[kSplit] == 0 ? Split::m : c[kSplit] == 1 ? Split::n : Split::m_shared;
  g.threads = static_cast<int>(c[kThreads]);
  return g;
}

std::string ConvBackpropFilterOp::check(const sdk::Config& c) const {
  const auto& u = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
  if (auto why = isa_refusal(host_, static_cast<int64_t>(u.isa)); !why.empty()) return why;
  if (c[kMc] < u.mr / 2 && c[kMc] < gemm_m_)
    return "mc " + std::to_string(c[kMc]) + " is under half the micro-kernel's " + std::to_string(u.mr) + " rows";
  return {};
}

std::unique_ptr<Kernel> ConvBackpropFilterOp::build(const sdk::Config& c) const {
  return std::make_unique<ConvFilterKernel>(*this, c);
}

// As a library blocks a GEMM untuned (the MatMul default): the widest
// ISA's largest micro-kernel, kc for two thirds of L1, mc x kc in half of
// L2, threads for the work, splitting the longer side of dw: the other
// operand is packed again per chunk, and the im2col panels cost most.
sdk::Config ConvBackpropFilterOp::default_config(const HostCpu& host) const {
  sdk::Config c(kKnobCount, 0);
  const auto& catalog = ukernel_catalog();
  for (size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].isa == host.best_isa()) {
      c[kUKernel] = static_cast<int64_t>(i);
      break;
    }
  const auto& u = catalog[static_cast<size_t>(c[kUKernel])];
  const double flops = 2.0 * static_cast<double>(g_.group * gemm_m_ * gemm_n_) * static_cast<double>(gemm_k_);
  c[kThreads] = default_threads(host, flops / 20.0);
  c[kKc] = at_most(space_.knobs[kKc], host.l1d_bytes() * 2 / 3 / (u.nr * 4));
  const int64_t kc = std::min(c[kKc], gemm_k_);
  c[kMc] = at_most(space_.knobs[kMc], host.l2_bytes() / 2 / (kc * 4));
  c[kNc] = at_most(space_.knobs[kNc], std::max<int64_t>(u.nr, host.l3_bytes() / std::max(1, host.threads) / 2 / (kc * 4)));
  c[kSplit] = gemm_m_ >= gemm_n_ ? 0 : 1;
  return c;
}

// dw[co][ci][kh][kw] = Σ over images and output pixels of dy times the
// input value tap (kh, kw) of that pixel's window read.
void ConvBackpropFilterOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  const ConvGradGeometry& g = g_;
  const int64_t cg = g.c / g.group, mg = g.m / g.group;
  for (int64_t co = 0; co < g.m; ++co)
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t ky = 0; ky < g.kh; ++ky)
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          double s = 0;
          for (int64_t n = 0; n < g.n; ++n)
            for (int64_t oh = 0; oh < g.oh; ++oh)
              for (int64_t ow = 0; ow < g.ow; ++ow) {
                const int64_t ih = oh * g.sh - g.pads[0] + ky * g.dh, iw = ow * g.sw - g.pads[1] + kx * g.dw;
                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                s += static_cast<double>(in[1][((n * g.m + co) * g.oh + oh) * g.ow + ow]) *
                     in[0][((n * g.c + co / mg * cg + ci) * g.h + ih) * g.w + iw];
              }
          out[0][((co * cg + ci) * g.kh + ky) * g.kw + kx] = static_cast<float>(s);
        }
}

}  // namespace aoe::cpu
