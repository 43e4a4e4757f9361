#include "conv_op.h"

#include <algorithm>
#include <cstring>

#include "blocked.h"
#include "buffer.h"
#include "catalog.h"
#include "onednn_conv.h"
#include "op_util.h"
#include "openblas_gemm.h"
#include "pool_op.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

const std::vector<int64_t> kMcValues = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
const std::vector<int64_t> kKcValues = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
const std::vector<int64_t> kNcValues = {64, 128, 256, 512, 1024, 2048, 4096, 8192};

enum Order : int64_t { kOcOuter, kSpatialOuter };

// The width of the tile that takes what a row's whole tiles leave of its
// interior: every ISA's table has one of 4 pixels for each channel-block count.
constexpr int kRestPixels = 4;

std::vector<std::string> tile_labels() {
  std::vector<std::string> out;
  for (const auto& t : conv_tile_union()) out.push_back(t.label());
  return out;
}

// The GEMM micro-kernels, then OpenBLAS (im2col + sgemm) where built.
std::vector<std::string> ukernel_labels() {
  std::vector<std::string> out;
  for (const auto& u : ukernel_catalog()) out.push_back(u.label());
  if (openblas_built()) out.push_back(kOpenBlasLabel);
  return out;
}

// The device's own algorithms, then oneDNN where built.
std::vector<std::string> algo_labels() {
  std::vector<std::string> out = {"gemm", "direct"};
  if (onednn_built()) out.insert(out.end(), {kOneDnnLabel, kOneDnnWinogradLabel});
  return out;
}

}  // namespace

bool conv_uses_onednn(const sdk::Config& c) {
  return c[ConvOp::kAlgo] == ConvOp::kOneDnn || c[ConvOp::kAlgo] == ConvOp::kOneDnnWinograd;
}

bool conv_uses_openblas(const sdk::Config& c) {
  return c[ConvOp::kAlgo] == ConvOp::kGemm && static_cast<size_t>(c[ConvOp::kUKernel]) == ukernel_catalog().size();
}

class ConvKernel final : public Kernel {
 public:
  ConvKernel(const ConvOp& op, const sdk::Config& c) : op_(op), c_(c) {
    const ConvShape& s = op.s_;
    blocked_ = c[ConvOp::kFormat] == ConvOp::kNchwc;
    direct_ = c[ConvOp::kAlgo] == ConvOp::kDirect;
    onednn_ = conv_uses_onednn(c);
    openblas_ = conv_uses_openblas(c);
    isa_ = &kernels_for(direct_ || openblas_ || onednn_ ? c[ConvOp::kIsa]
                                             : static_cast<int64_t>(ukernel_catalog()[static_cast<size_t>(c[ConvOp::kUKernel])].isa));
    lanes_ = isa_->lanes;
    threads_ = static_cast<int>(c[ConvOp::kThreads]);
    const int64_t out_channels = blocked_ ? channel_blocks(s.m, lanes_) * lanes_ : s.m;
    out_.resize(s.n * out_channels * s.out_pixels());
    // Leaving in a blocked layout not its own: reordered on every run.
    const int leave = op.output_blocking();
    if (leave > 0 && leave != (blocked_ ? lanes_ : 0)) left_.resize(layout_elements(s.n, s.m, s.out_pixels(), leave));
    src_lanes_ = blocked_ && !op.reads_nchw_input(c) ? lanes_ : 0;
    if (onednn_) {
      // The fused ops oneDNN applies as it writes the output; the rest after it.
      onednn_conv_ = std::make_unique<OneDnnConv>(s, src_lanes_, blocked_ ? lanes_ : 0, op.has_bias_, op.fused_,
                                                  op.operand_full_, threads_, c[ConvOp::kAlgo] == ConvOp::kOneDnnWinograd);
    } else if (openblas_) {
      if (!s.pointwise()) col_.resize(s.c / s.group * s.taps() * s.out_pixels());
    } else if (!direct_) {
      gemm_ = op.gemm_config(c);
      ws_ = std::make_unique<GemmWorkspace>(gemm_, gemm_.threads);
    } else {
      const auto& t = conv_tile_union()[static_cast<size_t>(c[ConvOp::kTile])];
      direct_cfg_.isa = isa_;
      direct_cfg_.threads = threads_;
      direct_cfg_.order = c[ConvOp::kDirectOrder] == kOcOuter ? DirectOrder::oc_outer : DirectOrder::spatial_outer;
      if (s.depthwise()) {
        if (blocked_) {
          direct_cfg_.tile = *find_depthwise_tile(*isa_, t.ow);
          direct_cfg_.rest = *find_depthwise_tile(*isa_, std::min(t.ow, kRestPixels));
          direct_cfg_.border = *find_depthwise_tile(*isa_, 1);
        }
      } else {
        direct_cfg_.tile = *find_conv_tile(*isa_, t.ow, t.ocb);
        direct_cfg_.rest = *find_conv_tile(*isa_, std::min(t.ow, kRestPixels), t.ocb);
        direct_cfg_.border = *find_conv_tile(*isa_, 1, t.ocb);
      }
    }
  }

  void bind(const std::vector<const float*>& inputs) override {
    const ConvShape& s = op_.s_;
    inputs_ = inputs;
    before_.clear();
    operands_blocked_.clear();
    operands_blocked_.reserve(op_.fused_inputs_.size());
    src_ = take(inputs[0], 0, s.c, s.in_pixels(), src_blocked_, src_lanes_);
    weights_ = inputs[1];
    bias_ = op_.has_bias_ ? inputs[2] : nullptr;
    chain_ = Chain{};
    if (!blocked_) {
      // NCHW: the epilogue adds the bias (GEMM; the NCHW depthwise kernel and oneDNN add their own).
      if (bias_ && !(direct_ && s.depthwise()) && !onednn_) {
        chain_.steps.push_back({EltOp::add, 0, 0, 0});
        chain_.operands.push_back({bias_, &op_.bias_layout_});
      }
      std::vector<const float*> plain = inputs;
      operands_.clear();
      for (size_t i : op_.fused_inputs_) {
        operands_blocked_.emplace_back();
        plain[i] = take(inputs[i], i, s.m, s.out_pixels(), operands_blocked_.back(), blocked_ ? lanes_ : 0);
        operands_.push_back(plain[i]);
      }
      add_fused(plain, op_.nchw_layouts_, {});
    } else {
      // Blocked: weights reordered once, here; activations as take() says.
      const int64_t cb = channel_blocks(s.c, lanes_), ob = channel_blocks(s.m, lanes_);
      if (onednn_) {
        // oneDNN reorders the weights into its own layout, and takes the bias as given.
      } else if (s.depthwise()) {
        w_blocked_.resize(cb * s.kh * s.kw * lanes_);
        depthwise_weights_to_blocked(s, inputs[1], w_blocked_.data(), lanes_);
      } else {
        w_blocked_.resize(ob * cb * s.kh * s.kw * lanes_ * lanes_);
        weights_to_blocked(s, inputs[1], w_blocked_.data(), lanes_);
      }
      if (!onednn_) weights_ = w_blocked_.data();
      if (bias_ && !onednn_) {
        bias_padded_.resize(ob * lanes_);
        std::memcpy(bias_padded_.data(), bias_, static_cast<size_t>(s.m) * sizeof(float));
        bias_ = bias_padded_.data();
      }
      blocked_layout_.row_offset.resize(static_cast<size_t>(s.n * ob));
      for (size_t r = 0; r < blocked_layout_.row_offset.size(); ++r)
        blocked_layout_.row_offset[r] = static_cast<int64_t>(r) * s.out_pixels() * lanes_;
      blocked_layout_.col_step = 1;
      operands_.clear();
      for (size_t i : op_.fused_inputs_) {
        operands_blocked_.emplace_back();
        operands_.push_back(take(inputs[i], i, s.m, s.out_pixels(), operands_blocked_.back(), blocked_ ? lanes_ : 0));
      }
      add_fused(inputs, {}, operands_);
    }
    if (onednn_) onednn_conv_->set_weights(inputs[1]);
    after_.clear();
    if (left_.size()) after_.push_back({out_.data(), left_.data(), blocked_ ? lanes_ : 0, op_.output_blocking(), s.n, s.m, s.out_pixels()});
    if (direct_ && s.depthwise() && !blocked_) scratch_.resize(threads_ * (s.h + s.ph + s.ph_end) * (s.w + s.pw + s.pw_end));
  }

  void run(ThreadPool& pool) override {
    for (const auto& r : before_) r.run(pool, threads_);
    compute(pool);
    for (const auto& r : after_) r.run(pool, threads_);
  }

  void compute(ThreadPool& pool) {
    const ConvShape& s = op_.s_;
    const Chain* chain = chain_.empty() ? nullptr : &chain_;
    if (onednn_) {
      onednn_conv_->run(src_, bias_, operands_, out_.data(), pool);
      if (chain) {
        // The fused ops over the finished output, rows as the epilogue sees them.
        const int64_t rows = blocked_ ? s.n * channel_blocks(s.m, lanes_) : s.n * s.m;
        apply_to_rows(*chain, *isa_, out_.data(), 0, rows, s.out_pixels() * (blocked_ ? lanes_ : 1), threads_, pool);
      }
    } else if (openblas_) {
      conv_openblas(s, threads_, *isa_, src_, weights_, out_.data(), chain, col_.data(), pool);
    } else if (!direct_) {
      conv_gemm(s, gemm_, src_, weights_, out_.data(), chain, *ws_, pool);
    } else if (s.depthwise() && !blocked_) {
      depthwise_nchw(s, *isa_, threads_, src_, weights_, bias_, out_.data(), chain, scratch_.data(), pool);
    } else if (s.depthwise()) {
      depthwise_blocked(s, direct_cfg_, src_, weights_, bias_, out_.data(), chain, pool);
    } else {
      conv_direct_blocked(s, direct_cfg_, src_, weights_, bias_, out_.data(), chain, pool);
    }
  }

  void read_output(size_t, float* out) const override {
    const ConvShape& s = op_.s_;
    const int lanes = left_.size() ? op_.output_blocking() : blocked_ ? lanes_ : 0;
    if (lanes) from_blocked(kept_output(0), out, s.n, s.m, s.out_pixels(), lanes);
    else std::memcpy(out, out_.data(), out_.bytes());
  }
  float* output_data() override { return left_.size() ? left_.data() : out_.data(); }
  const float* kept_output(size_t) const override { return left_.size() ? left_.data() : out_.data(); }

  Footprint footprint() const override {
    const ConvShape& s = op_.s_;
    const int own = blocked_ ? lanes_ : 0;
    auto floats = [](int64_t n) { return static_cast<size_t>(n) * sizeof(float); };
    Footprint f = ws_ ? ws_->footprint() : Footprint{};
    if (col_.size()) f.emplace_back(col_.data(), col_.bytes());
    f.emplace_back(out_.data(), out_.bytes());
    f.emplace_back(src_, floats(layout_elements(s.n, s.c, s.in_pixels(), src_lanes_)));
    if (onednn_) {
      const auto w = onednn_conv_->weights_memory();
      f.insert(f.end(), w.begin(), w.end());
    } else {
      f.emplace_back(weights_, floats(w_blocked_.size() ? w_blocked_.size() : elements(op_.inputs_[1])));
    }
    for (size_t k = 0; k < op_.fused_inputs_.size(); ++k) {
      const size_t i = op_.fused_inputs_[k];
      if (operands_blocked_[k].size()) f.emplace_back(operands_blocked_[k].data(), operands_blocked_[k].bytes());
      else f.emplace_back(inputs_[i], floats(own ? layout_elements(s.n, s.m, s.out_pixels(), own) : elements(op_.inputs_[i])));
    }
    for (const auto& r : before_) f.emplace_back(r.src, floats(layout_elements(r.n, r.channels, r.spatial, r.from)));
    if (left_.size()) f.emplace_back(left_.data(), left_.bytes());
    return f;
  }
  // Placed when kept as computed and without padding lanes, which are zero
  // in a buffer of its own.
  int64_t placeable_elements(size_t) const override {
    return left_.size() || (blocked_ && op_.s_.m % lanes_ != 0) ? 0 : out_.size();
  }
  void place_output(size_t, float* at) override { out_.place(at); }
  // Blocked kernels reorder the weights and pad the bias; oneDNN reorders the weights.
  bool reads_at_run(size_t index) const override {
    if (index == 1) return !blocked_ && !onednn_;
    if (index == 2 && op_.has_bias_) return !blocked_ || onednn_;
    return true;
  }

 private:
  // The fused ops after the bias; operands read as laid out (NCHW) or from blocked copies.
  void add_fused(const std::vector<const float*>& inputs, const std::vector<OperandLayout>& layouts,
                 const std::vector<const float*>& blocked) {
    const int first = static_cast<int>(chain_.operands.size());
    for (size_t i = 0; i < op_.fused_inputs_.size(); ++i) {
      if (blocked.empty()) chain_.operands.push_back({inputs[op_.fused_inputs_[i]], &layouts[i]});
      else chain_.operands.push_back({blocked[i], &blocked_layout_});
    }
    // Those oneDNN applies as it writes the output are not the chain's.
    for (size_t k = onednn_ ? onednn_conv_->taken() : 0; k < op_.fused_.size(); ++k) {
      auto step = op_.fused_[k];
      if (step.operand >= 0) step.operand += first;
      chain_.steps.push_back(step);
    }
  }

  // Activation input `i` of `channels` x `spatial` in the layout the kernel
  // reads it in (`own` lanes): as given when it arrives so; else reordered
  // into `copy`, here once when it arrives in the model's layout (as a
  // runtime keeping activations blocked would), or on every run when it
  // arrives blocked otherwise (the conversion is the kernel's cost).
  const float* take(const float* given, size_t i, int64_t channels, int64_t spatial, Buffer& copy, int own) {
    const ConvShape& s = op_.s_;
    const int arrive = op_.input_blocking(i);
    if (arrive == own) return given;
    copy.resize(layout_elements(s.n, channels, spatial, own));
    if (arrive == 0) to_blocked(given, copy.data(), s.n, channels, spatial, own);
    else before_.push_back({given, copy.data(), arrive, own, s.n, channels, spatial});
    return copy.data();
  }

  const ConvOp& op_;
  sdk::Config c_;
  bool blocked_ = false, direct_ = false, openblas_ = false, onednn_ = false;
  std::vector<const float*> operands_;  // the fused ops' operands in the kernel's layout, by fused input
  std::unique_ptr<OneDnnConv> onednn_conv_;
  const IsaKernels* isa_ = nullptr;
  int lanes_ = 1, threads_ = 1;
  int src_lanes_ = 0;  // the layout the convolution reads its input in
  GemmConfig gemm_;
  std::unique_ptr<GemmWorkspace> ws_;
  DirectConfig direct_cfg_;
  std::vector<const float*> inputs_;
  const float* src_ = nullptr;
  const float* weights_ = nullptr;
  const float* bias_ = nullptr;
  Buffer out_, src_blocked_, w_blocked_, bias_padded_, scratch_, left_;
  Buffer col_;  // OpenBLAS's im2col matrix
  std::vector<Buffer> operands_blocked_;  // fused operands not given in the kernel's layout
  std::vector<Relayout> before_, after_;  // reorders timed with the kernel
  OperandLayout blocked_layout_;
  Chain chain_;
};

ConvOp::ConvOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
  require_f32(task);
  const FusedOps fused = fused_ops(task);
  if (fused.anchor_inputs < 2 || fused.anchor_inputs > 3) invalid("Conv takes 2 or 3 inputs");
  for (const auto& t : task.inputs) inputs_.push_back(t.shape);
  const Shape& x = inputs_[0];
  const Shape& w = inputs_[1];
  if (x.size() < 3 || x.size() > 5) unsupported("the cpu device runs 1-D, 2-D and 3-D Conv, not " + std::to_string(x.size() - 2) + "-D");
  volumetric_ = x.size() == 5;
  if (w.size() != x.size()) invalid("Conv weights " + to_string(w) + " do not match input " + to_string(x));
  s_.n = x[0];
  s_.c = x[1];
  s_.m = w[0];
  s_.group = int_attr(task.attrs, "group", 1);
  if (s_.group < 1 || s_.c % s_.group != 0 || s_.m % s_.group != 0 || w[1] != s_.c / s_.group)
    invalid("Conv group " + std::to_string(s_.group) + " does not fit input " + to_string(x) + " and weights " + to_string(w));
  const Shape spatial(x.begin() + 2, x.end());
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (task.attrs.contains("kernel_shape") && ints_attr(task.attrs, "kernel_shape", {}) != kernel)
    invalid("Conv kernel_shape disagrees with the weights " + to_string(w));
  const Window3 win = window_of("Conv", spatial, kernel, task.attrs, false);
  s_.h = win.in[1];
  s_.w = win.in[2];
  s_.kh = win.kernel[1];
  s_.kw = win.kernel[2];
  s_.sh = win.stride[1];
  s_.sw = win.stride[2];
  s_.dh = win.dilation[1];
  s_.dw = win.dilation[2];
  s_.ph = win.pad_begin[1];
  s_.pw = win.pad_begin[2];
  s_.ph_end = win.pad_end[1];
  s_.pw_end = win.pad_end[2];
  s_.oh = win.out[1];
  s_.ow = win.out[2];
  s_.d = win.in[0];
  s_.kd = win.kernel[0];
  s_.sd = win.stride[0];
  s_.dd = win.dilation[0];
  s_.pd = win.pad_begin[0];
  s_.pd_end = win.pad_end[0];
  s_.od = win.out[0];
  has_bias_ = fused.anchor_inputs == 3;
  if (has_bias_ && elements(inputs_[2]) != s_.m) invalid("Conv bias " + to_string(inputs_[2]) + " for " + std::to_string(s_.m) + " channels");
  out_ = {s_.n, s_.m};
  if (volumetric_) out_.push_back(s_.od);
  if (x.size() >= 4) out_.push_back(s_.oh);
  out_.push_back(s_.ow);
  outputs_ = {out_};
  if (!task.outputs.empty() && task.outputs[0].shape != out_)
    invalid("Conv output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(out_));

  // Activations marked NCHWc arrive (or leave) blocked; weights are the model's.
  input_blocking_.assign(inputs_.size(), 0);
  input_blocking_[0] = blocking_of(task.inputs[0], host, "Conv");
  for (size_t i : fused.inputs) {
    input_blocking_[i] = blocking_of(task.inputs[i], host, "Conv");
    if (input_blocking_[i] && inputs_[i] != out_)
      invalid("Conv fused operand '" + task.inputs[i].name + "' is marked NCHWc but is not of the output's shape " +
              to_string(out_));
  }
  if (!task.outputs.empty()) output_blocking_ = blocking_of(task.outputs[0], host, "Conv");

  bias_layout_.col_step = 0;
  for (int64_t n = 0; n < s_.n; ++n)
    for (int64_t m = 0; m < s_.m; ++m) bias_layout_.row_offset.push_back(m);
  fused_ = fused.steps;
  fused_inputs_ = fused.inputs;
  for (size_t i : fused_inputs_) {
    const Shape& shape = inputs_[i];
    if (broadcast({shape, out_}, "Conv fused operand") != out_)
      invalid("Conv: fused operand " + to_string(shape) + " does not broadcast to the output " + to_string(out_));
    auto layout = operand_layout(shape, out_, 2);
    if (!layout) unsupported("Conv fused operand " + to_string(shape) + " broadcasts over part of the spatial dims");
    nchw_layouts_.push_back(std::move(*layout));
    operand_full_.push_back(align_rank(shape, out_.size()) == out_);
  }

  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  const int64_t mg = s_.m / s_.group, kg = s_.c / s_.group * s_.taps();
  space_.knobs[kFormat] = choice_knob("format", sdk::KnobTag::format, {"NCHW", "NCHWc"});
  space_.knobs[kAlgo] = choice_knob("algo", sdk::KnobTag::impl, algo_labels());
  space_.knobs[kIsa] = isa_knob();
  space_.knobs[kUKernel] = choice_knob("ukernel", sdk::KnobTag::impl, ukernel_labels());
  space_.knobs[kMc] = sized_knob("mc", kMcValues, mg);
  space_.knobs[kKc] = sized_knob("kc", kKcValues, kg);
  space_.knobs[kNc] = sized_knob("nc", kNcValues, s_.out_pixels());
  space_.knobs[kTile] = choice_knob("tile", sdk::KnobTag::schedule, tile_labels());
  space_.knobs[kDirectOrder] = choice_knob("direct_order", sdk::KnobTag::schedule, {"oc_outer", "spatial_outer"});
  space_.knobs[kThreads] = threads_knob(host);
  space_.default_config = default_config(host);
  if (const auto why = check(space_.default_config); !why.empty())
    throw sdk::Error(sdk::StatusCode::internal, "the default Conv config is refused: " + why);
}

GemmConfig conv_gemm_config(const sdk::Config& c, int64_t m, int64_t n) {
  GemmConfig g = gemm_blocking(c[ConvOp::kUKernel], c[ConvOp::kMc], c[ConvOp::kKc], c[ConvOp::kNc]);
  // Split the longer side: the other operand is repacked per chunk.
  g.split = m >= n ? Split::m : Split::n;
  g.threads = static_cast<int>(c[ConvOp::kThreads]);
  return g;
}

GemmConfig ConvOp::gemm_config(const sdk::Config& c) const { return conv_gemm_config(c, s_.m / s_.group, s_.out_pixels()); }

std::string ConvOp::check(const sdk::Config& c) const {
  const bool blocked = c[kFormat] == kNchwc, direct = c[kAlgo] == kDirect;
  if (volumetric_ && (blocked || c[kAlgo] != kGemm))
    return "a 3-D Conv runs as im2col + GEMM on NCHW (format=NCHW, algo=gemm)";
  if (conv_uses_onednn(c)) {
    // oneDNN picks its own kernel; isa sets the blocked layout's width and the fused ops' kernels.
    if (c[kIsa] != static_cast<int64_t>(host_.best_isa()))
      return std::string("with algo=onednn, isa is the layout's and the fused ops': this CPU's widest, ") +
             isa_name(host_.best_isa());
    if (blocked && !full_operands()) return "the blocked layout takes fused operands of the output's full shape only";
    const bool winograd = c[kAlgo] == kOneDnnWinograd;
    const int lanes = blocked ? isa_kernels(host_.best_isa())->lanes : 0;
    if (!onednn_compiles(reads_nchw_input(c) ? 0 : lanes, lanes, winograd))
      return winograd ? "oneDNN has no Winograd convolution for this shape and layout (3x3, stride 1, channels in "
                        "whole blocks, format=NCHWc, on CPUs with AVX-512)"
                      : "oneDNN has only its reference convolution for this shape and layout";
    return {};
  }
  if (!direct) {
    if (blocked) return "algo=gemm reads NCHW; the blocked layout is for algo=direct";
    if (conv_uses_openblas(c)) {
      // OpenBLAS blocks by itself; isa is only the fused ops' after it.
      if (c[kIsa] != static_cast<int64_t>(host_.best_isa()))
        return std::string("with ukernel=openblas, isa is the fused ops': this CPU's widest, ") + isa_name(host_.best_isa());
      return {};
    }
    const auto& u = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
    if (auto why = isa_refusal(host_, static_cast<int64_t>(u.isa)); !why.empty()) return why;
    if (c[kIsa] != static_cast<int64_t>(u.isa)) return "with algo=gemm, isa is the micro-kernel's (" + u.label() + ")";
    return {};
  }
  if (auto why = isa_refusal(host_, c[kIsa]); !why.empty()) return why;
  if (blocked)
    if (auto why = blocked_lanes_refusal(host_, c[kIsa]); !why.empty()) return why;
  const Isa isa = static_cast<Isa>(c[kIsa]);
  const auto& t = conv_tile_union()[static_cast<size_t>(c[kTile])];
  if (s_.depthwise()) {
    if (!blocked) return {};
    const auto dw = depthwise_tiles_of(isa);
    if (t.ocb != 1 || std::find(dw.begin(), dw.end(), t.ow) == dw.end())
      return "depthwise " + std::string(isa_name(isa)) + " tiles are 1 channel block wide, of 4, 8, 12 or 14 pixels as the ISA has them";
  } else {
    if (s_.group != 1) return "algo=direct takes group 1 or a depthwise convolution";
    if (!blocked) return "algo=direct runs on the blocked layout (format=NCHWc)";
    const auto tiles = conv_tiles_of(isa);
    if (std::none_of(tiles.begin(), tiles.end(), [&](const ConvTileShape& x) { return x.ow == t.ow && x.ocb == t.ocb; }))
      return "no " + std::string(isa_name(isa)) + " tile of " + t.label();
  }
  if (blocked && !full_operands()) return "the blocked layout takes fused operands of the output's full shape only";
  return {};
}

bool ConvOp::reads_nchw_input(const sdk::Config& c) const {
  if (!conv_uses_onednn(c) || c[kFormat] != kNchwc || input_blocking_[0] != 0) return false;
  const int lanes = isa_kernels(host_.best_isa())->lanes;
  return s_.c < lanes && onednn_compiles(0, lanes, c[kAlgo] == kOneDnnWinograd);
}

bool ConvOp::onednn_compiles(int src_lanes, int dst_lanes, bool winograd) const {
  std::lock_guard<std::mutex> lock(onednn_mutex_);
  int& known = onednn_compiles_[src_lanes ? 1 : 0][dst_lanes ? 1 : 0][winograd ? 1 : 0];
  if (known < 0) {
    try {
      OneDnnConv(s_, src_lanes, dst_lanes, has_bias_, {}, {}, 1, winograd);
      known = 1;
    } catch (const sdk::Error&) {
      known = 0;
    }
  }
  return known == 1;
}

std::unique_ptr<Kernel> ConvOp::build(const sdk::Config& c) const { return std::make_unique<ConvKernel>(*this, c); }

// What a library does untuned: as ONNX Runtime's default CPU provider on an
// AVX2 or AVX-512 machine (its NCHWc layout pass) or oneDNN, convolutions
// whose channels fill vectors run direct on the blocked layout with a
// mid-sized register tile; a first layer (fewer channels than a vector)
// reads NCHW and writes blocked, which of this device's kernels oneDNN's
// does, where built; the rest (grouped convolutions, a first layer without
// oneDNN) im2col + GEMM on NCHW, blocked as the MatMul default is;
// depthwise ones direct, blocked when the channels fill a vector.
sdk::Config ConvOp::default_config(const HostCpu& host) const {
  sdk::Config c(kKnobCount, 0);
  const Isa isa = host.best_isa();
  const auto& catalog = ukernel_catalog();
  for (size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].isa == isa) {
      c[kUKernel] = static_cast<int64_t>(i);
      break;
    }
  c[kIsa] = static_cast<int64_t>(isa);
  const auto& u = catalog[static_cast<size_t>(c[kUKernel])];
  const double flops = 2.0 * s_.n * s_.m * s_.out_pixels() * (s_.c / s_.group) * s_.taps();
  c[kThreads] = default_threads(host, flops / 20.0);
  c[kKc] = at_most(space_.knobs[kKc], host.l1d_bytes() * 2 / 3 / (u.nr * 4));
  const int64_t kc = std::min(c[kKc], s_.c / s_.group * s_.taps());
  c[kMc] = at_most(space_.knobs[kMc], host.l2_bytes() / 2 / (kc * 4));
  c[kNc] = at_most(space_.knobs[kNc], std::max<int64_t>(u.nr, host.l3_bytes() / std::max(1, host.threads) / 2 / (kc * 4)));
  const auto tiles = conv_tile_union();
  auto tile_index = [&](int ow, int ocb) {
    for (size_t i = 0; i < tiles.size(); ++i)
      if (tiles[i].ow == ow && tiles[i].ocb == ocb) return static_cast<int64_t>(i);
    return int64_t{0};
  };
  if (volumetric_) {
    c[kAlgo] = kGemm;
    c[kFormat] = kNchw;
  } else if (s_.depthwise()) {
    const int lanes = isa_kernels(isa)->lanes;
    c[kAlgo] = kDirect;
    c[kFormat] = s_.c >= lanes ? kNchwc : kNchw;
    c[kTile] = tile_index(depthwise_tiles_of(isa).back() <= s_.ow ? depthwise_tiles_of(isa)[1] : 4, 1);
    if (c[kFormat] == kNchwc && !full_operands()) c[kFormat] = kNchw;
  } else {
    const int lanes = isa_kernels(isa)->lanes;
    c[kAlgo] = kGemm;
    c[kFormat] = kNchw;
    c[kTile] = tile_index(conv_tiles_of(isa).front().ow, conv_tiles_of(isa).front().ocb);
    if (s_.group == 1 && s_.c >= lanes && s_.m >= lanes && full_operands()) {
      c[kAlgo] = kDirect;
      c[kFormat] = kNchwc;
      // About half the registers as accumulators: two channel blocks when there are two.
      const int ocb = s_.m >= 2 * lanes ? 2 : 1;
      const int ow = isa == Isa::avx512 ? (ocb == 2 ? 8 : 14) : isa == Isa::avx2 ? (ocb == 2 ? 6 : 8) : (ocb == 2 ? 4 : 8);
      c[kTile] = tile_index(ow, ocb);
      // oneDNN's own kernel where built, as ONNX Runtime runs MLAS's and PyTorch oneDNN's:
      // its dispatcher picks the kernel for this CPU; aoe's direct kernel is a candidate.
      sdk::Config library = c;
      library[kAlgo] = kOneDnn;
      if (onednn_built() && check(library).empty()) c = library;
    } else if (s_.group == 1 && s_.c < lanes && onednn_built()) {
      sdk::Config first = c;
      first[kAlgo] = kOneDnn;
      first[kFormat] = kNchwc;
      if (reads_nchw_input(first) && check(first).empty()) c = first;
    }
  }
  return c;
}

// Nine nested loops, straight from the definition (depth 1 for 1-D and 2-D).
void ConvOp::reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const {
  const ConvShape& s = s_;
  const int64_t cg = s.c / s.group, mg = s.m / s.group;
  std::vector<double> out(static_cast<size_t>(elements(out_)));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t m = 0; m < s.m; ++m) {
      const int64_t g = m / mg;
      for (int64_t od = 0; od < s.od; ++od)
        for (int64_t oh = 0; oh < s.oh; ++oh)
          for (int64_t ow = 0; ow < s.ow; ++ow) {
            double acc = has_bias_ ? inputs[2][m] : 0.0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t kd = 0; kd < s.kd; ++kd)
                for (int64_t kh = 0; kh < s.kh; ++kh)
                  for (int64_t kw = 0; kw < s.kw; ++kw) {
                    const int64_t id = od * s.sd - s.pd + kd * s.dd, ih = oh * s.sh - s.ph + kh * s.dh,
                                  iw = ow * s.sw - s.pw + kw * s.dw;
                    if (id < 0 || id >= s.d || ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                    acc += static_cast<double>(inputs[0][(((n * s.c + g * cg + ci) * s.d + id) * s.h + ih) * s.w + iw]) *
                           inputs[1][(((m * cg + ci) * s.kd + kd) * s.kh + kh) * s.kw + kw];
                  }
            out[static_cast<size_t>((((n * s.m + m) * s.od + od) * s.oh + oh) * s.ow + ow)] = acc;
          }
    }
  std::vector<RefOperand> operands;
  for (size_t i : fused_inputs_) operands.push_back({inputs[i], inputs_[i]});
  reference_chain(fused_, operands, out_, out);
  store(out, outputs[0]);
}

}  // namespace aoe::cpu
