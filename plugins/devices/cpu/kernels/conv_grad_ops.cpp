// The gradients of a 2-D Conv (docs/training.md), from the forward Conv's
// kernel_shape, strides, pads, dilations and group:
// - Conv2DBackpropInput: dx, the transposed convolution of dy, run by the
//   ConvTranspose kernels (col2im or the dilated convolution) and tuned in
//   their space; input_size [H, W] fixes the extent the strides leave open.
// - Conv2DBackpropFilter: dw[g]ᵀ = Σ over images of im2col(x[g]) · dy[g]ᵀ,
//   per image and group the im2col matrix of x (a row per tap, a column per
//   output pixel) and one GEMM whose depth is the output pixels, its B dy
//   read down its columns; the products added up and transposed into dw.
#include "op_factories.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "buffer_kernel.h"
#include "catalog.h"
#include "conv_transpose_op.h"
#include "gemm.h"
#include "op_util.h"
#include "step_op.h"

namespace aoe::cpu {
namespace {

// The forward Conv both gradients read: input n x c x h x w, output
// n x m x oh x ow, weights m x c/group x kh x kw.
struct ConvGradGeometry {
  int64_t n = 1, c = 1, h = 1, w = 1, m = 1, group = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
};

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

// The kh x kw rows of input channel `channel` of x's image `n` in the
// im2col matrix (a row per tap, a column per output pixel), at `rows`: each
// output row's run one input row read in order, at stride 1 a copy between
// two zero fills.
void im2col_channel(const ConvGradGeometry& g, const float* x, int64_t n, int64_t channel, float* rows) {
  const float* plane = x + (n * g.c + channel) * g.h * g.w;
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      float* row = rows + (ky * g.kw + kx) * g.oh * g.ow;
      const int64_t dx = kx * g.dw - g.pads[1];
      // Output columns [lo, hi) read inside the input row: iw = ow * sw + dx.
      const int64_t lo = std::min(g.ow, dx < 0 ? (-dx + g.sw - 1) / g.sw : int64_t{0});
      const int64_t hi = std::clamp<int64_t>(dx < g.w ? (g.w - 1 - dx) / g.sw + 1 : 0, lo, g.ow);
      for (int64_t oh = 0; oh < g.oh; ++oh, row += g.ow) {
        const int64_t ih = oh * g.sh + ky * g.dh - g.pads[0];
        if (ih < 0 || ih >= g.h) {
          std::fill(row, row + g.ow, 0.0f);
          continue;
        }
        const float* in = plane + ih * g.w;
        std::fill(row, row + lo, 0.0f);
        if (g.sw == 1) std::copy(in + lo + dx, in + hi + dx, row + lo);
        else
          for (int64_t ow = lo; ow < hi; ++ow) row[ow] = in[ow * g.sw + dx];
        std::fill(row + hi, row + g.ow, 0.0f);
      }
    }
}

class ConvBackpropInputOp final : public CpuOp {
 public:
  ConvBackpropInputOp(const sdk::OpTask& task, const HostCpu& host) {
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
  std::string check(const sdk::Config& config) const override { return transpose_->check(config); }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override { return transpose_->build(config); }

  // dx[n][ci][ih][iw] = Σ dy[n][co][oh][ow] · w[co][ci % (C/group)][kh][kw] over
  // the output pixels whose window reads (ih, iw) through tap (kh, kw).
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
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

 private:
  ConvGradGeometry g_;
  std::unique_ptr<ConvTransposeOp> transpose_;
};

class ConvBackpropFilterOp final : public CpuOp {
 public:
  enum Knob : size_t { kUKernel, kMc, kKc, kNc, kSplit, kThreads, kKnobCount };

  ConvBackpropFilterOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
    const StepTask t(task, {"x", "dy"});
    t.rank(0, 4);
    t.rank(1, 4);
    g_ = geometry_of(t, t.shape(0), 1, t.shape(1)[1]);
    const Shape dw = {g_.m, g_.c / g_.group, g_.kh, g_.kw};
    t.outputs({"dw"}, {dw});
    gemm_m_ = g_.c / g_.group * g_.kh * g_.kw;
    gemm_n_ = g_.m / g_.group;
    gemm_k_ = g_.oh * g_.ow;
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

  std::string check(const sdk::Config& c) const override {
    const auto& u = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
    if (auto why = isa_refusal(host_, static_cast<int64_t>(u.isa)); !why.empty()) return why;
    if (c[kMc] < u.mr / 2 && c[kMc] < gemm_m_)
      return "mc " + std::to_string(c[kMc]) + " is under half the micro-kernel's " + std::to_string(u.mr) + " rows";
    return {};
  }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // dw[co][ci][kh][kw] = Σ over images and output pixels of dy times the
  // input value tap (kh, kw) of that pixel's window read.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
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

  const ConvGradGeometry& geometry() const { return g_; }

  GemmConfig gemm_config(const sdk::Config& c) const {
    GemmConfig g = gemm_blocking(c[kUKernel], c[kMc], c[kKc], c[kNc]);
    g.split = c[kSplit] == 0 ? Split::m : c[kSplit] == 1 ? Split::n : Split::m_shared;
    g.threads = static_cast<int>(c[kThreads]);
    return g;
  }

 private:
  friend class ConvFilterKernel;

  // As a library blocks a GEMM untuned (the MatMul default): the widest
  // ISA's largest micro-kernel, kc for two thirds of L1, mc x kc in half of
  // L2, threads for the work, splitting the longer side of dwᵀ, whose other
  // operand each chunk packs again.
  sdk::Config default_config(const HostCpu& host) const {
    sdk::Config c(kKnobCount, 0);
    c[kUKernel] = first_ukernel_of(host.best_isa());
    const auto& u = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
    const double flops = 2.0 * static_cast<double>(g_.n * g_.group * gemm_m_ * gemm_n_) * static_cast<double>(gemm_k_);
    c[kThreads] = default_threads(host, flops / 20.0);
    c[kKc] = at_most(space_.knobs[kKc], host.l1d_bytes() * 2 / 3 / (u.nr * 4));
    const int64_t kc = std::min(c[kKc], gemm_k_);
    c[kMc] = at_most(space_.knobs[kMc], host.l2_bytes() / 2 / (kc * 4));
    c[kNc] = at_most(space_.knobs[kNc], std::max<int64_t>(u.nr, host.l3_bytes() / std::max(1, host.threads) / 2 / (kc * 4)));
    c[kSplit] = gemm_m_ >= gemm_n_ ? 0 : 1;
    return c;
  }
  const HostCpu& host_;
  ConvGradGeometry g_;
  int64_t gemm_m_ = 1, gemm_n_ = 1, gemm_k_ = 1;  // taps, out channels of a group; output pixels of an image
};

// Per image and group: the im2col matrix of x (the threads share its
// channels), then dwᵀ = im2col · dyᵀ on the GEMM, added up over the images
// and transposed into dw.
class ConvFilterKernel final : public BufferKernel {
 public:
  ConvFilterKernel(const ConvBackpropFilterOp& op, const sdk::Config& c)
      : BufferKernel(op), op_(op), gemm_(op.gemm_config(c)), ws_(gemm_, gemm_.threads),
        col_(Buffer::scratch(op.gemm_m_ * op.gemm_k_)), sum_(Buffer::scratch(op.gemm_m_ * op.gemm_n_)) {
    if (op.g_.n > 1) image_ = Buffer::scratch(op.gemm_m_ * op.gemm_n_);
  }

  void run(ThreadPool& pool) override {
    const ConvGradGeometry& g = op_.g_;
    const int64_t taps = g.kh * g.kw, cg = g.c / g.group, mg = op_.gemm_n_, kg = op_.gemm_m_, pixels = op_.gemm_k_;
    for (int64_t grp = 0; grp < g.group; ++grp) {
      for (int64_t n = 0; n < g.n; ++n) {
        pool.run(cg, gemm_.threads, [&](int64_t c, int) {
          im2col_channel(g, inputs_[0], n, grp * cg + c, col_.data() + c * taps * pixels);
        });
        // B[p][co] = dy[n][grp * mg + co][p]: dy's rows read down their columns.
        const DenseSource b(StridedMatrix{inputs_[1] + (n * g.m + grp * mg) * pixels, 1, pixels});
        GemmCall call;
        call.m = kg;
        call.n = mg;
        call.k = pixels;
        call.a = StridedMatrix{col_.data(), pixels, 1};
        call.b = &b;
        call.c = n == 0 ? sum_.data() : image_.data();
        call.ldc = mg;
        gemm(gemm_, call, ws_, &pool);
        if (n > 0)
          for (int64_t i = 0; i < kg * mg; ++i) sum_.data()[i] += image_.data()[i];
      }
      float* dw = outputs_[0].data() + grp * mg * kg;
      for (int64_t co = 0; co < mg; ++co)
        for (int64_t j = 0; j < kg; ++j) dw[co * kg + j] = sum_.data()[j * mg + co];
    }
  }

  Footprint footprint() const override {
    Footprint f = BufferKernel::footprint();
    for (const auto& b : ws_.footprint()) f.push_back(b);
    f.emplace_back(col_.data(), col_.bytes());
    f.emplace_back(sum_.data(), sum_.bytes());
    if (image_.size()) f.emplace_back(image_.data(), image_.bytes());
    return f;
  }

 private:
  const ConvBackpropFilterOp& op_;
  GemmConfig gemm_;
  GemmWorkspace ws_;
  Buffer col_, sum_, image_;
};

std::unique_ptr<Kernel> ConvBackpropFilterOp::build(const sdk::Config& c) const {
  return std::make_unique<ConvFilterKernel>(*this, c);
}

}  // namespace

std::unique_ptr<CpuOp> make_conv_grad_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "Conv2DBackpropInput") return std::make_unique<ConvBackpropInputOp>(task, host);
  return std::make_unique<ConvBackpropFilterOp>(task, host);
}

}  // namespace aoe::cpu
