#include "conv_transpose_op.h"

#include <algorithm>

#include "aoe/sdk/conv_transpose_pads.h"
#include "aoe/sdk/tensor_size.h"
#include "buffer.h"
#include "buffer_kernel.h"
#include "gemm.h"
#include "op_util.h"
#include "openblas_gemm.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

// The first and one past the last of `count` input positions i whose
// output position i * stride + offset lies in [0, size).
int64_t first_inside(int64_t offset, int64_t stride) { return offset >= 0 ? 0 : (-offset + stride - 1) / stride; }
int64_t end_inside(int64_t offset, int64_t stride, int64_t size, int64_t count) {
  const int64_t last = size - 1 - offset;
  return last < 0 ? 0 : std::min(count, last / stride + 1);
}

// The Conv's knobs of a config.
sdk::Config conv_part(const sdk::Config& config) {
  return sdk::Config(config.begin(), config.begin() + ConvTransposeOp::kMethod);
}

}  // namespace

// cols = W^T x, one GEMM per image and group: row (output channel, tap),
// column input pixel. Then each output channel, one task of the pool, is
// its bias plus every column added where its tap lands it.
class Col2imKernel final : public BufferKernel {
 public:
  Col2imKernel(const ConvTransposeOp& op, const sdk::Config& c)
      : BufferKernel(op), g_(op.geometry_), groups_(op.group_), openblas_(conv_uses_openblas(c)),
        threads_(static_cast<int>(c[ConvOp::kThreads])) {
    rows_ = g_.m / groups_ * g_.kd * g_.kh * g_.kw;
    weights_.resize(groups_ * rows_ * (g_.c / groups_));
    bias_.resize(g_.m);
    cols_ = Buffer::scratch(rows_ * g_.d * g_.h * g_.w);
    if (!openblas_) {
      gemm_ = conv_gemm_config(c, rows_, g_.d * g_.h * g_.w);
      ws_ = std::make_unique<GemmWorkspace>(gemm_, gemm_.threads);
    }
  }

  void bind(const std::vector<const float*>& inputs) override {
    BufferKernel::bind(inputs);
    // w[g * icg + ic][oc][t] -> weights_[g][oc * taps + t][ic]: each group's W^T, row-major.
    const int64_t icg = g_.c / groups_, ocg = g_.m / groups_, taps = g_.kd * g_.kh * g_.kw;
    float* w = weights_.data();
    for (int64_t grp = 0; grp < groups_; ++grp)
      for (int64_t ic = 0; ic < icg; ++ic)
        for (int64_t r = 0; r < rows_; ++r)
          w[(grp * rows_ + r) * icg + ic] = inputs[1][((grp * icg + ic) * ocg + r / taps) * taps + r % taps];
    if (inputs.size() > 2 && inputs[2]) std::copy(inputs[2], inputs[2] + g_.m, bias_.data());
  }

  void run(ThreadPool& pool) override {
    const int64_t icg = g_.c / groups_, ocg = g_.m / groups_, pixels = g_.d * g_.h * g_.w, out_pixels = g_.od * g_.oh * g_.ow;
    for (int64_t n = 0; n < g_.n; ++n)
      for (int64_t grp = 0; grp < groups_; ++grp) {
        const float* image = inputs_[0] + (n * g_.c + grp * icg) * pixels;
        const StridedMatrix a{weights_.data() + grp * rows_ * icg, icg, 1};
        if (openblas_) {
          openblas_sgemm(a, StridedMatrix{image, pixels, 1}, rows_, pixels, icg, cols_.data(), threads_, pool);
        } else {
          const DenseSource b(StridedMatrix{image, pixels, 1});
          GemmCall call;
          call.m = rows_;
          call.n = pixels;
          call.k = icg;
          call.a = a;
          call.b = &b;
          call.c = cols_.data();
          call.ldc = pixels;
          gemm(gemm_, call, *ws_, &pool);
        }
        float* out = outputs_[0].data() + (n * g_.m + grp * ocg) * out_pixels;
        pool.run(ocg, threads_, [&](int64_t oc, int) { scatter(oc, grp * ocg + oc, out + oc * out_pixels); });
      }
  }

  Footprint footprint() const override {
    Footprint f = {{inputs_[0], static_cast<size_t>(g_.n * g_.c * g_.d * g_.h * g_.w) * sizeof(float)},
                   {outputs_[0].data(), outputs_[0].bytes()}, {weights_.data(), weights_.bytes()},
                   {bias_.data(), bias_.bytes()}, {cols_.data(), cols_.bytes()}};
    if (ws_)
      for (const auto& b : ws_->footprint()) f.push_back(b);
    return f;
  }
  // The weights and the bias are copied at bind.
  bool reads_at_run(size_t index) const override { return index == 0; }

 private:
  // Output channel `oc` of this group's rows, `channel` of the model's.
  void scatter(int64_t oc, int64_t channel, float* out) const {
    std::fill(out, out + g_.od * g_.oh * g_.ow, bias_.data()[channel]);
    for (int64_t kz = 0; kz < g_.kd; ++kz)
      for (int64_t ky = 0; ky < g_.kh; ++ky)
        for (int64_t kx = 0; kx < g_.kw; ++kx) {
          const float* col = cols_.data() + (((oc * g_.kd + kz) * g_.kh + ky) * g_.kw + kx) * g_.d * g_.h * g_.w;
          const int64_t z_off = kz * g_.dd - g_.pd, y_off = ky * g_.dh - g_.ph, x_off = kx * g_.dw - g_.pw;
          const int64_t x0 = first_inside(x_off, g_.sw), x1 = end_inside(x_off, g_.sw, g_.ow, g_.w);
          const int64_t y0 = first_inside(y_off, g_.sh), y1 = end_inside(y_off, g_.sh, g_.oh, g_.h);
          const int64_t z1 = end_inside(z_off, g_.sd, g_.od, g_.d);
          for (int64_t z = first_inside(z_off, g_.sd); z < z1; ++z)
            for (int64_t y = y0; y < y1; ++y) {
              float* row = out + ((z * g_.sd + z_off) * g_.oh + y * g_.sh + y_off) * g_.ow;
              const float* from = col + (z * g_.h + y) * g_.w;
              for (int64_t x = x0; x < x1; ++x) row[x * g_.sw + x_off] += from[x];
            }
        }
  }

  const ConvTransposeOp::Geometry& g_;
  int64_t groups_, rows_ = 0;
  bool openblas_;
  int threads_;
  GemmConfig gemm_;
  std::unique_ptr<GemmWorkspace> ws_;
  Buffer weights_, bias_, cols_;
};

class DilatedConvKernel final : public Kernel {
 public:
  DilatedConvKernel(const ConvTransposeOp& op, std::unique_ptr<Kernel> conv)
      : op_(op), conv_(std::move(conv)), dilated_(elements(op.dilated_)), weights_(elements(op.conv_weights_)) {}

  void bind(const std::vector<const float*>& inputs) override {
    x_ = inputs[0];
    // Where each input pixel lands in the dilated map: every stride-th position.
    const Shape& x = op_.inputs_[0];
    const size_t spatial = x.size() - 2;
    std::vector<int64_t> index(x.size(), 0);
    const auto d_strides = strides_of(op_.dilated_);
    landing_.clear();
    do {
      int64_t at = index[0] * d_strides[0] + index[1] * d_strides[1];
      for (size_t a = 0; a < spatial; ++a) at += index[2 + a] * op_.strides_[a] * d_strides[2 + a];
      landing_.push_back(at);
    } while (next_index(index, x));
    // w[ci][co_g][k...] -> conv[g * M/G + co_g][ci - g * C/G][flipped k...]
    const Shape& w = op_.inputs_[1];
    const Shape& cw = op_.conv_weights_;
    const int64_t taps = elements(w) / (w[0] * w[1]);
    const int64_t c_per_group = w[0] / op_.group_;
    for (int64_t ci = 0; ci < w[0]; ++ci)
      for (int64_t co = 0; co < w[1]; ++co)
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t g = ci / c_per_group;
          const int64_t out_channel = g * w[1] + co, in_channel = ci - g * c_per_group;
          weights_.data()[(out_channel * cw[1] + in_channel) * taps + (taps - 1 - k)] = inputs[1][(ci * w[1] + co) * taps + k];
        }
    std::vector<const float*> conv_inputs = {dilated_.data(), weights_.data()};
    if (inputs.size() > 2) conv_inputs.push_back(inputs[2]);
    conv_->bind(conv_inputs);
  }
  // The input is another kernel's output in a model: read on every run.
  void run(ThreadPool& pool) override {
    float* d = dilated_.data();
    for (size_t i = 0; i < landing_.size(); ++i) d[landing_[i]] = x_[i];
    conv_->run(pool);
  }
  void read_output(size_t index, float* out) const override { conv_->read_output(index, out); }
  float* output_data() override { return conv_->output_data(); }
  const float* kept_output(size_t index) const override { return conv_->kept_output(index); }
  Footprint footprint() const override { return conv_->footprint(); }
  int64_t placeable_elements(size_t index) const override { return conv_->placeable_elements(index); }
  void place_output(size_t index, float* at) override { conv_->place_output(index, at); }
  // The weights are flipped into a copy; the bias is the convolution's.
  bool reads_at_run(size_t index) const override { return index != 1 && conv_->reads_at_run(index); }

 private:
  const ConvTransposeOp& op_;
  std::unique_ptr<Kernel> conv_;
  Buffer dilated_, weights_;
  const float* x_ = nullptr;
  std::vector<int64_t> landing_;  // per input element, its offset in dilated_
};

ConvTransposeOp::ConvTransposeOp(const sdk::OpTask& task, const HostCpu& host) {
  const std::string who = "ConvTranspose '" + task.name + "'";
  require_plain(task, 2, 3);
  const Shape x = task.inputs[0].shape, w = task.inputs[1].shape;
  if (x.size() < 3 || x.size() > 5)
    unsupported("the cpu device runs 1-D to 3-D ConvTranspose, not " + std::to_string(static_cast<int64_t>(x.size()) - 2) + "-D");
  if (w.size() != x.size()) invalid(who + ": weights " + to_string(w) + " do not match input " + to_string(x));
  const size_t spatial = x.size() - 2;
  group_ = int_attr(task.attrs, "group", 1);
  if (group_ < 1 || w[0] != x[1] || x[1] % group_ != 0)
    invalid(who + ": weights " + to_string(w) + " do not fit input " + to_string(x) + " in group " + std::to_string(group_));
  const auto channels_out = sdk::checked_mul(w[1], group_);
  if (!channels_out) invalid(who + ": output channels overflow");
  auto per_axis = [&](const char* key, int64_t fallback) {
    auto v = ints_attr(task.attrs, key, std::vector<int64_t>(spatial, fallback));
    if (v.size() != spatial) invalid(who + ": " + key + " must give " + std::to_string(spatial) + " values");
    return v;
  };
  strides_ = per_axis("strides", 1);
  dilations_ = per_axis("dilations", 1);
  const auto output_padding = per_axis("output_padding", 0);
  const auto kernel = ints_attr(task.attrs, "kernel_shape", Shape(w.begin() + 2, w.end()));
  if (kernel != Shape(w.begin() + 2, w.end())) invalid(who + ": kernel_shape disagrees with the weights " + to_string(w));
  auto pads = ints_attr(task.attrs, "pads", std::vector<int64_t>(2 * spatial, 0));
  if (pads.size() != 2 * spatial) invalid(who + ": pads must give " + std::to_string(2 * spatial) + " values");
  const auto output_shape = ints_attr(task.attrs, "output_shape", {});
  if (!output_shape.empty() && output_shape.size() != spatial)
    invalid(who + ": output_shape must give " + std::to_string(spatial) + " spatial dims");
  const std::string auto_pad = string_attr(task.attrs, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    invalid(who + ": auto_pad " + auto_pad + " is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");

  Shape out = {x[0], *channels_out};
  std::vector<int64_t> conv_pads(2 * spatial);
  dilated_ = {x[0], x[1]};
  for (size_t a = 0; a < spatial; ++a) {
    const int64_t in = x[2 + a], k = w[2 + a], s = strides_[a], d = dilations_[a], op = output_padding[a];
    if (s < 1 || d < 1 || s > (1 << 16) || d > (1 << 16)) invalid(who + ": strides and dilations must be in 1..65536");
    if (op < 0 || op >= std::max(s, d)) invalid(who + ": output_padding must be >= 0 and below the stride or the dilation");
    if (in < 1 || k < 1) invalid(who + ": empty input or kernel");
    const auto span = sdk::checked_mul(in - 1, s);
    if (!span || *span > (int64_t{1} << 40)) invalid(who + ": the dilated input overflows");
    const int64_t reach = d * (k - 1);
    const auto [begin, end] = sdk::conv_transpose_pads(in, k, s, d, op, {pads[a], pads[a + spatial]},
                                                       output_shape.empty() ? std::nullopt : std::optional(output_shape[a]), auto_pad);
    if (output_shape.empty() && (begin < 0 || end < 0)) invalid(who + ": pads must be >= 0");
    if (begin > reach || end > reach + op)
      unsupported("the cpu device runs ConvTranspose pads up to the dilated kernel's extent; " + who + " crops more");
    pads_begin_.push_back(begin);
    dilated_.push_back(*span + 1);
    conv_pads[a] = reach - begin;
    conv_pads[a + spatial] = reach - end + op;
    out.push_back(*span + op + reach + 1 - begin - end);
  }
  if (!task.outputs.empty() && task.outputs[0].shape != out)
    invalid(who + " output is " + to_string(task.outputs[0].shape) + ", its attributes give " + to_string(out));
  conv_weights_ = {*channels_out, x[1] / group_};
  conv_weights_.insert(conv_weights_.end(), w.begin() + 2, w.end());

  // The spatial axes right-aligned into depth, height, width; a missing one is 1 (its pad 0).
  auto axis = [&](const std::vector<int64_t>& v, size_t slot, int64_t missing) {
    return slot + spatial >= 3 ? v[slot + spatial - 3] : missing;
  };
  const std::vector<int64_t> in_dims(x.begin() + 2, x.end()), out_dims(out.begin() + 2, out.end()), taps(w.begin() + 2, w.end());
  Geometry& g = geometry_;
  g.n = x[0], g.c = x[1], g.m = out[1];
  g.d = axis(in_dims, 0, 1), g.h = axis(in_dims, 1, 1), g.w = axis(in_dims, 2, 1);
  g.od = axis(out_dims, 0, 1), g.oh = axis(out_dims, 1, 1), g.ow = axis(out_dims, 2, 1);
  g.kd = axis(taps, 0, 1), g.kh = axis(taps, 1, 1), g.kw = axis(taps, 2, 1);
  g.sd = axis(strides_, 0, 1), g.sh = axis(strides_, 1, 1), g.sw = axis(strides_, 2, 1);
  g.dd = axis(dilations_, 0, 1), g.dh = axis(dilations_, 1, 1), g.dw = axis(dilations_, 2, 1);
  g.pd = axis(pads_begin_, 0, 0), g.ph = axis(pads_begin_, 1, 0), g.pw = axis(pads_begin_, 2, 0);

  sdk::OpTask conv;
  conv.name = task.name;
  conv.op_type = "Conv";
  conv.inputs = task.inputs;
  conv.outputs = task.outputs;
  if (conv.outputs.empty()) conv.outputs.push_back(task.inputs[0]);
  if (spatial < 3) {
    conv.inputs[0].shape = dilated_;
    conv.inputs[1].shape = conv_weights_;
    conv.outputs[0].shape = out;
    conv.attrs = {{"group", group_}, {"dilations", dilations_}, {"pads", conv_pads},
                  {"strides", std::vector<int64_t>(spatial, 1)}, {"kernel_shape", kernel}};
  } else {
    // col2im's product (output channels x taps by input channels, by pixels)
    // as a 1x1 Conv, whose GEMM knobs it takes.
    const int64_t rows = g.m / group_ * g.kd * g.kh * g.kw, pixels = g.d * g.h * g.w;
    conv.inputs.resize(2);
    conv.inputs[0].shape = {1, x[1] / group_, 1, pixels};
    conv.inputs[1].shape = {rows, x[1] / group_, 1, 1};
    conv.outputs[0].shape = {1, rows, 1, pixels};
    conv.attrs = {{"kernel_shape", std::vector<int64_t>{1, 1}}};
  }
  conv_ = std::make_unique<ConvOp>(conv, host);
  for (const auto& t : task.inputs) inputs_.push_back(t.shape);
  outputs_ = {out};
  space_ = conv_->space();
  space_.version += ".method";  // a bank's entries from before the knob name another kernel
  space_.knobs.push_back(choice_knob("method", sdk::KnobTag::impl, {"col2im", "dilated_conv"}));
  // The convolution's default on NCHW (see check): the GEMM, or the depthwise
  // direct kernel; col2im, whose work is the op's own, where its GEMM runs.
  auto& d = space_.default_config;
  if (d[ConvOp::kFormat] == ConvOp::kNchwc || spatial == 3) {
    d[ConvOp::kFormat] = ConvOp::kNchw;
    if (!conv_->shape().depthwise() || spatial == 3) d[ConvOp::kAlgo] = ConvOp::kGemm;
  }
  d.push_back(kCol2im);
  if (!check(d).empty()) d.back() = kDilatedConv;
}

// A blocked convolution takes a copy of a model-layout input once, at bind;
// the dilated map changes on every run, so the convolution reads it as it lies.
std::string ConvTransposeOp::check(const sdk::Config& config) const {
  const sdk::Config conv = conv_part(config);
  if (config[kMethod] == kDilatedConv && inputs_[0].size() > 4) return "a 3-D ConvTranspose runs method=col2im";
  if (config[kMethod] == kCol2im && (conv[ConvOp::kFormat] != ConvOp::kNchw || conv[ConvOp::kAlgo] != ConvOp::kGemm))
    return "method=col2im runs its product on the GEMM over NCHW: format=NCHW, algo=gemm";
  if (conv[ConvOp::kFormat] == ConvOp::kNchwc) return "ConvTranspose runs its convolution on the NCHW layout";
  return conv_->check(conv);
}

std::unique_ptr<Kernel> ConvTransposeOp::build(const sdk::Config& config) const {
  if (config[kMethod] == kCol2im) return std::make_unique<Col2imKernel>(*this, config);
  return std::make_unique<DilatedConvKernel>(*this, conv_->build(conv_part(config)));
}

// ONNX's definition: each input pixel scatters its kernel-weighted value to
// the outputs at stride * i + dilation * k - pad.
void ConvTransposeOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  const Shape &x = inputs_[0], &w = inputs_[1], &o = outputs_[0];
  const size_t spatial = x.size() - 2;
  std::vector<double> sum(static_cast<size_t>(elements(o)), 0.0);
  const auto o_strides = strides_of(o);
  const int64_t c_per_group = x[1] / group_;
  const Shape kernel(w.begin() + 2, w.end());
  const Shape pixels(x.begin() + 2, x.end());
  const int64_t taps = elements(kernel);
  for (int64_t n = 0; n < x[0]; ++n)
    for (int64_t ci = 0; ci < x[1]; ++ci) {
      const int64_t g = ci / c_per_group;
      std::vector<int64_t> p(spatial, 0);
      int64_t pixel = 0;
      do {
        const double v = in[0][(n * x[1] + ci) * elements(pixels) + pixel++];
        std::vector<int64_t> k(spatial, 0);
        int64_t tap = 0;
        do {
          int64_t at = n * o_strides[0];
          bool inside = true;
          for (size_t a = 0; a < spatial; ++a) {
            const int64_t pos = p[a] * strides_[a] + k[a] * dilations_[a] - pads_begin_[a];
            inside = inside && pos >= 0 && pos < o[2 + a];
            at += pos * o_strides[2 + a];
          }
          if (inside)
            for (int64_t co = 0; co < w[1]; ++co)
              sum[static_cast<size_t>(at + (g * w[1] + co) * o_strides[1])] += v * in[1][(ci * w[1] + co) * taps + tap];
          ++tap;
        } while (next_index(k, kernel));
      } while (next_index(p, pixels));
    }
  if (in.size() > 2 && in[2])
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += in[2][(static_cast<int64_t>(i) / o_strides[1]) % o[1]];
  store(sum, out[0]);
}

}  // namespace aoe::cpu
