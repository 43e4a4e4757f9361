#include "pool_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "blocked.h"
#include "buffer.h"
#include "buffer_kernel.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

enum Format : int64_t { kNchw, kNchwc };

}  // namespace

Window3 window_of(const std::string& op, const Shape& spatial, const std::vector<int64_t>& kernel,
                  const nlohmann::json& attrs, bool ceil_mode) {
  const size_t k = spatial.size();
  if (k < 1 || k > 3) unsupported(op + " over " + std::to_string(k) + " spatial dims (the cpu device takes 1 to 3)");
  if (kernel.size() != k) invalid(op + " kernel_shape has " + std::to_string(kernel.size()) + " dims for " + std::to_string(k) + " spatial dims");
  const auto strides = ints_attr(attrs, "strides", std::vector<int64_t>(k, 1));
  const auto dilations = ints_attr(attrs, "dilations", std::vector<int64_t>(k, 1));
  auto pads = ints_attr(attrs, "pads", std::vector<int64_t>(2 * k, 0));
  const std::string auto_pad = string_attr(attrs, "auto_pad", "NOTSET");
  if (strides.size() != k || dilations.size() != k || pads.size() != 2 * k)
    invalid(op + " needs " + std::to_string(k) + " strides and dilations and " + std::to_string(2 * k) + " pads");
  Window3 w;
  const size_t off = 3 - k;
  for (size_t d = 0; d < k; ++d) {
    const size_t e = off + d;
    w.in[e] = spatial[d];
    w.kernel[e] = kernel[d];
    w.stride[e] = strides[d];
    w.dilation[e] = dilations[d];
    if (w.kernel[e] < 1 || w.stride[e] < 1 || w.dilation[e] < 1)
      invalid(op + " needs kernel_shape, strides and dilations >= 1");
    const int64_t span = (w.kernel[e] - 1) * w.dilation[e] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[e] = ceil_div(w.in[e], w.stride[e]);
      const int64_t total = std::max<int64_t>(0, (w.out[e] - 1) * w.stride[e] + span - w.in[e]);
      w.pad_begin[e] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[e] = total - w.pad_begin[e];
    } else if (auto_pad == "VALID") {
      w.out[e] = ceil_div(w.in[e] - span + 1, w.stride[e]);
    } else if (auto_pad == "NOTSET") {
      w.pad_begin[e] = pads[d];
      w.pad_end[e] = pads[d + k];
      const int64_t room = w.in[e] + w.pad_begin[e] + w.pad_end[e] - span;
      w.out[e] = (ceil_mode ? ceil_div(room, w.stride[e]) : room / w.stride[e]) + 1;
      // A last window that would start past the input and its leading pad is dropped.
      if (ceil_mode && (w.out[e] - 1) * w.stride[e] >= w.in[e] + w.pad_begin[e]) --w.out[e];
    } else {
      invalid(op + " auto_pad '" + auto_pad + "' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
    if (w.out[e] < 1) invalid(op + " window is larger than its input");
  }
  return w;
}

class PoolKernel final : public Kernel {
 public:
  PoolKernel(const PoolOp& op, const IsaKernels& isa, bool blocked, int threads)
      : op_(op), isa_(isa), blocked_(blocked), threads_(threads) {
    lanes_ = blocked ? isa.lanes : 1;
    const int64_t planes = blocked ? channel_blocks(op.c_, lanes_) * lanes_ : op.c_;
    out_.resize(op.n_ * planes * out_plane());
    const int leave = op.output_blocking();
    if (leave > 0 && leave != own()) left_.resize(layout_elements(op.n_, op.c_, out_plane(), leave));
  }

  // Input as it arrives when in the kernel's own layout; else reordered
  // once here (the model's layout) or on every run (another blocked one).
  void bind(const std::vector<const float*>& inputs) override {
    src_ = inputs[0];
    given_ = inputs[0];
    before_.clear();
    after_.clear();
    const int arrive = op_.input_blocking(0);
    if (arrive != own()) {
      in_.resize(layout_elements(op_.n_, op_.c_, in_plane(), own()));
      if (arrive == 0) to_blocked(inputs[0], in_.data(), op_.n_, op_.c_, in_plane(), lanes_);
      else before_.push_back({inputs[0], in_.data(), arrive, own(), op_.n_, op_.c_, in_plane()});
      src_ = in_.data();
    }
    if (left_.size()) after_.push_back({out_.data(), left_.data(), own(), op_.output_blocking(), op_.n_, op_.c_, out_plane()});
  }

  void run(ThreadPool& pool) override {
    for (const auto& r : before_) r.run(pool, threads_);
    const int64_t planes = op_.n_ * (blocked_ ? channel_blocks(op_.c_, lanes_) : op_.c_);
    const int64_t in_step = in_plane() * lanes_, out_step = out_plane() * lanes_;
    pool.run(planes, threads_, [&](int64_t p, int) {
      PoolArgs a = op_.args();
      a.src = src_ + p * in_step;
      a.dst = out_.data() + p * out_step;
      (blocked_ ? isa_.pool_blocked : isa_.pool_plane)(a);
    });
    for (const auto& r : after_) r.run(pool, threads_);
  }

  void read_output(size_t, float* out) const override {
    const int lanes = left_.size() ? op_.output_blocking() : own();
    if (lanes) from_blocked(kept_output(0), out, op_.n_, op_.c_, out_plane(), lanes);
    else std::memcpy(out, out_.data(), static_cast<size_t>(op_.n_ * op_.c_ * out_plane()) * sizeof(float));
  }
  float* output_data() override { return left_.size() ? left_.data() : out_.data(); }
  const float* kept_output(size_t) const override { return left_.size() ? left_.data() : out_.data(); }
  Footprint footprint() const override {
    auto floats = [](int64_t n) { return static_cast<size_t>(n) * sizeof(float); };
    Footprint f = {{src_, floats(layout_elements(op_.n_, op_.c_, in_plane(), own()))}, {out_.data(), out_.bytes()}};
    if (!before_.empty()) f.emplace_back(given_, floats(layout_elements(op_.n_, op_.c_, in_plane(), op_.input_blocking(0))));
    if (left_.size()) f.emplace_back(left_.data(), left_.bytes());
    return f;
  }
  // As Conv's: kept as computed, without padding lanes.
  int64_t placeable_elements(size_t) const override {
    return left_.size() || (blocked_ && op_.c_ % lanes_ != 0) ? 0 : out_.size();
  }
  void place_output(size_t, float* at) override { out_.place(at); }

 private:
  int64_t in_plane() const { return op_.w_.in[0] * op_.w_.in[1] * op_.w_.in[2]; }
  int64_t out_plane() const { return op_.w_.out[0] * op_.w_.out[1] * op_.w_.out[2]; }
  int own() const { return blocked_ ? lanes_ : 0; }

  const PoolOp& op_;
  const IsaKernels& isa_;
  bool blocked_;
  int threads_, lanes_ = 1;
  const float* src_ = nullptr;
  const float* given_ = nullptr;
  Buffer in_, out_, left_;
  std::vector<Relayout> before_, after_;  // reorders timed with the kernel
};

// MaxPool with its Indices: a task per plane, each output's window clipped
// to the input once per axis, the first maximum kept with its position.
class MaxPoolIndicesKernel final : public BufferKernel {
 public:
  MaxPoolIndicesKernel(const PoolOp& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {}

  void run(ThreadPool& pool) override {
    const Window3& w = op_.w_;
    const int64_t in_plane = w.in[0] * w.in[1] * w.in[2], out_plane = w.out[0] * w.out[1] * w.out[2];
    pool.run(op_.n_ * op_.c_, threads_, [&](int64_t p, int) {
      const float* x = inputs_[0] + p * in_plane;
      float* y = outputs_[0].data() + p * out_plane;
      float* where = outputs_[1].data() + p * out_plane;
      int64_t o[3], first[3], last[3], at[3];
      for (o[0] = 0; o[0] < w.out[0]; ++o[0])
        for (o[1] = 0; o[1] < w.out[1]; ++o[1])
          for (o[2] = 0; o[2] < w.out[2]; ++o[2]) {
            for (int d = 0; d < 3; ++d) {  // the taps inside the input: first[d] .. last[d) of the kernel
              const int64_t start = o[d] * w.stride[d] - w.pad_begin[d];
              first[d] = start >= 0 ? 0 : ceil_div(-start, w.dilation[d]);
              last[d] = std::min(w.kernel[d], ceil_div(w.in[d] - start, w.dilation[d]));
            }
            float best = 0.0f;
            int64_t best_at = -1;
            for (int64_t kz = first[0]; kz < last[0]; ++kz)
              for (int64_t ky = first[1]; ky < last[1]; ++ky) {
                at[0] = o[0] * w.stride[0] - w.pad_begin[0] + kz * w.dilation[0];
                at[1] = o[1] * w.stride[1] - w.pad_begin[1] + ky * w.dilation[1];
                const float* row = x + (at[0] * w.in[1] + at[1]) * w.in[2];
                for (int64_t kx = first[2]; kx < last[2]; ++kx) {
                  const int64_t ix = o[2] * w.stride[2] - w.pad_begin[2] + kx * w.dilation[2];
                  if (best_at < 0 || row[ix] > best) {
                    best = row[ix];
                    at[2] = ix;
                    best_at = op_.flat_index(p, at);
                  }
                }
              }
            *y++ = best_at < 0 ? -INFINITY : best;
            *where++ = static_cast<float>(best_at);
          }
    });
  }

 private:
  const PoolOp& op_;
  int threads_;
};

PoolOp::PoolOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
  const std::string& t = task.op_type;
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + t);
  max_ = t == "MaxPool";
  const std::string who = t + " '" + task.name + "'";
  if (task.outputs.size() > (max_ ? 2u : 1u)) invalid(who + " gives " + std::to_string(task.outputs.size()) + " outputs");
  indices_ = task.outputs.size() == 2;
  column_major_ = int_attr(task.attrs, "storage_order", 0) != 0;
  // A maximum is one of its inputs, exact in any dtype the device holds; an average is a float.
  const Takes values = max_ ? Takes::held : Takes::f32;
  require_inputs(task, 1, 1);
  require_dtype(task, 0, false, values);
  if (!task.outputs.empty()) require_dtype(task, 0, true, values);
  if (indices_) require_dtype(task, 1, true, Takes::integral);
  const Shape in = task.inputs[0].shape;
  if (in.size() < 3) invalid(t + " takes N x C x spatial input");
  inputs_ = {in};
  if (!max_ && task.attrs.contains("dilations")) {
    for (auto d : ints_attr(task.attrs, "dilations", {}))
      if (d != 1) unsupported("AveragePool with dilations");
  }
  count_include_pad_ = int_attr(task.attrs, "count_include_pad", 0) != 0;
  n_ = in[0];
  c_ = in[1];
  input_blocking_ = {blocking_of(task.inputs[0], host, t)};
  if (!task.outputs.empty()) output_blocking_ = blocking_of(task.outputs[0], host, t);
  const Shape spatial(in.begin() + 2, in.end());
  w_ = window_of(t, spatial, ints_attr(task.attrs, "kernel_shape", {}), task.attrs,
                 int_attr(task.attrs, "ceil_mode", 0) != 0);
  Shape out = {n_, c_};
  for (size_t d = 3 - spatial.size(); d < 3; ++d) out.push_back(w_.out[d]);
  outputs_ = {out};
  if (indices_) outputs_.push_back(out);
  for (size_t i = 0; i < task.outputs.size(); ++i)
    if (task.outputs[i].shape != out)
      invalid(who + " output '" + task.outputs[i].name + "' is " + to_string(task.outputs[i].shape) + ", expected " + to_string(out));
  if (indices_ && (input_blocking_[0] != 0 || output_blocking_ != 0))
    unsupported(who + " with an Indices output runs on NCHW planes only; keep its input and output in the model's layout");

  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  space_.knobs[kFormat] = choice_knob("format", sdk::KnobTag::format, {"NCHW", "NCHWc"});
  space_.knobs[kIsa] = isa_knob();
  space_.knobs[kThreads] = threads_knob(host);
  // Blocked when the channels fill vectors, as oneDNN lays out pooling.
  const int lanes = isa_kernels(host.best_isa())->lanes;
  const double work = static_cast<double>(elements(out)) * static_cast<double>(w_.kernel[0] * w_.kernel[1] * w_.kernel[2]);
  space_.default_config = {c_ >= lanes && !indices_ ? kNchwc : kNchw, static_cast<int64_t>(host.best_isa()),
                           default_threads(host, work * 0.5)};
}

PoolArgs PoolOp::args() const {
  PoolArgs a;
  for (int d = 0; d < 3; ++d) {
    a.in[d] = w_.in[d];
    a.out[d] = w_.out[d];
    a.kernel[d] = w_.kernel[d];
    a.stride[d] = w_.stride[d];
    a.dilation[d] = w_.dilation[d];
    a.pad_begin[d] = w_.pad_begin[d];
    a.pad_end[d] = w_.pad_end[d];
  }
  a.max = max_ ? 1 : 0;
  a.count_include_pad = count_include_pad_ ? 1 : 0;
  return a;
}

int64_t PoolOp::flat_index(int64_t plane, const int64_t at[3]) const {
  const int64_t within = column_major_ ? at[0] + w_.in[0] * (at[1] + w_.in[1] * at[2])
                                       : (at[0] * w_.in[1] + at[1]) * w_.in[2] + at[2];
  return plane * w_.in[0] * w_.in[1] * w_.in[2] + within;
}

std::string PoolOp::check(const sdk::Config& c) const {
  if (auto why = isa_refusal(host_, c[kIsa]); !why.empty()) return why;
  if (indices_ && c[kFormat] == kNchwc) return "MaxPool with an Indices output runs on NCHW planes (format=NCHW)";
  return c[kFormat] == kNchwc ? blocked_lanes_refusal(host_, c[kIsa]) : "";
}

std::unique_ptr<Kernel> PoolOp::build(const sdk::Config& c) const {
  if (indices_) return std::make_unique<MaxPoolIndicesKernel>(*this, static_cast<int>(c[kThreads]));
  return std::make_unique<PoolKernel>(*this, kernels_for(c[kIsa]), c[kFormat] == kNchwc, static_cast<int>(c[kThreads]));
}

// Window by window, tap by tap, straight from the definition.
void PoolOp::reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const {
  const int64_t in_plane = w_.in[0] * w_.in[1] * w_.in[2];
  float* out = outputs[0];
  float* index = indices_ ? outputs[1] : nullptr;
  for (int64_t p = 0; p < n_ * c_; ++p) {
    const float* x = inputs[0] + p * in_plane;
    for (int64_t oz = 0; oz < w_.out[0]; ++oz)
      for (int64_t oy = 0; oy < w_.out[1]; ++oy)
        for (int64_t ox = 0; ox < w_.out[2]; ++ox) {
          double acc = max_ ? -INFINITY : 0.0;
          int64_t inside = 0, padded = 0, argmax = -1;
          for (int64_t kz = 0; kz < w_.kernel[0]; ++kz)
            for (int64_t ky = 0; ky < w_.kernel[1]; ++ky)
              for (int64_t kx = 0; kx < w_.kernel[2]; ++kx) {
                const int64_t at[3] = {oz * w_.stride[0] - w_.pad_begin[0] + kz * w_.dilation[0],
                                       oy * w_.stride[1] - w_.pad_begin[1] + ky * w_.dilation[1],
                                       ox * w_.stride[2] - w_.pad_begin[2] + kx * w_.dilation[2]};
                bool in = true, in_pad = true;
                for (int d = 0; d < 3; ++d) {
                  in = in && at[d] >= 0 && at[d] < w_.in[d];
                  in_pad = in_pad && at[d] >= -w_.pad_begin[d] && at[d] < w_.in[d] + w_.pad_end[d];
                }
                padded += in_pad;
                if (!in) continue;
                ++inside;
                const double v = x[(at[0] * w_.in[1] + at[1]) * w_.in[2] + at[2]];
                if (max_ && (argmax < 0 || v > acc)) argmax = flat_index(p, at);  // the first maximum
                acc = max_ ? std::max(acc, v) : acc + v;
              }
          if (!max_) acc /= static_cast<double>(std::max<int64_t>(1, count_include_pad_ ? padded : inside));
          *out++ = static_cast<float>(acc);
          if (index) *index++ = static_cast<float>(argmax);
        }
  }
}

}  // namespace aoe::cpu
