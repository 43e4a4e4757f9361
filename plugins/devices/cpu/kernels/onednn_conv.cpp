#include "onednn_conv.h"

#include <optional>
#include <string>
#include <unordered_map>

#include "aoe/sdk/error.h"
#include "blocked.h"

namespace aoe::cpu {

#ifdef AOE_CPU_WITH_ONEDNN

namespace {

using dnnl::algorithm;
using dnnl::memory;

memory::format_tag activation_tag(int lanes) {
  switch (lanes) {
    case 0: return memory::format_tag::nchw;
    case 4: return memory::format_tag::nChw4c;
    case 8: return memory::format_tag::nChw8c;
    case 16: return memory::format_tag::nChw16c;
    default:
      throw sdk::Error(sdk::StatusCode::unsupported, "oneDNN has no channel blocking of " + std::to_string(lanes));
  }
}

// The oneDNN eltwise algorithm of a unary chain step; false where none matches.
bool eltwise_of(const ChainStep& step, algorithm& alg, float& alpha, float& beta) {
  alpha = 0;
  beta = 0;
  switch (step.op) {
    case EltOp::relu: alg = algorithm::eltwise_relu; return true;
    case EltOp::leaky_relu: alg = algorithm::eltwise_relu; alpha = step.p0; return true;
    case EltOp::clip: alg = algorithm::eltwise_clip_v2; alpha = step.p0; beta = step.p1; return true;
    case EltOp::sigmoid: alg = algorithm::eltwise_logistic; return true;
    case EltOp::tanh: alg = algorithm::eltwise_tanh; return true;
    default: return false;
  }
}

// The oneDNN binary algorithm of a chain step with a whole operand.
bool binary_of(const ChainStep& step, algorithm& alg) {
  switch (step.op) {
    case EltOp::add: alg = algorithm::binary_add; return true;
    case EltOp::mul: alg = algorithm::binary_mul; return true;
    default: return false;
  }
}

// A part of the convolution one thread runs: images [n0, n0 + s.n) and output
// channels [m0, m0 + s.m), with their input channels where depthwise; each
// tensor it reads or writes is a contiguous range of the whole one.
struct Slice {
  ConvShape s;
  int64_t n0 = 0, m0 = 0;
};

struct Part {
  Slice slice;
  int64_t src_at = 0, dst_at = 0;  // floats into the whole tensors
  dnnl::convolution_forward conv;
  dnnl::stream stream{onednn_engine()};
  memory src, weights, bias, dst, scratchpad;  // the scratchpad: its thread's, at run
  size_t scratchpad_bytes = 0;
  memory::desc user_weights;
  bool shares_weights = false;  // the first part's
  std::unordered_map<int, memory> args;  // made once: run() only points src, bias, dst and the operands
  std::vector<std::pair<int, memory>> operands;  // per binary post-op: its operand's index, its memory
};

}  // namespace

struct OneDnnConv::State {
  std::vector<Part> parts;
  size_t taken = 0;
  int threads = 1;
};

namespace {

// The first `count` of `steps` as oneDNN post-ops; false where one is not
// one oneDNN applies. Binary ones read a tensor laid out as `dst`.
bool append_post_ops(const std::vector<ChainStep>& steps, size_t count, const std::vector<bool>& operand_full,
                     const memory::desc& dst, dnnl::post_ops& ops) {
  for (size_t i = 0; i < count; ++i) {
    const ChainStep& step = steps[i];
    algorithm alg;
    float alpha, beta;
    if (step.operand < 0 && eltwise_of(step, alg, alpha, beta)) ops.append_eltwise(1.0f, alg, alpha, beta);
    else if (step.operand >= 0 && static_cast<size_t>(step.operand) < operand_full.size() &&
             operand_full[static_cast<size_t>(step.operand)] && binary_of(step, alg))
      ops.append_binary(alg, dst);
    else return false;
  }
  return true;
}

// The primitive with the first `count` post-ops, if oneDNN has more than its
// reference kernel for it; else empty.
std::optional<dnnl::convolution_forward::primitive_desc> conv_with(
    const dnnl::convolution_forward::desc& desc, const std::vector<ChainStep>& steps, size_t count,
    const std::vector<bool>& operand_full, const memory::desc& dst) {
  dnnl::post_ops ops;
  if (!append_post_ops(steps, count, operand_full, dst, ops)) return std::nullopt;
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  // Parts run at once: each takes its thread's scratchpad, not the library's shared one.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  try {
    dnnl::convolution_forward::primitive_desc pd(desc, attr, onednn_engine());
    // Its reference kernel is a loop nest no tuner would keep, and slow to time.
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// How the convolution splits over `threads` threads: whole images where
// there are enough, else whole channel blocks of its one image (and their
// input channels where depthwise); one part where neither applies.
std::vector<Slice> slices(const ConvShape& s, int lanes, int threads) {
  std::vector<Slice> out;
  if (threads > 1 && s.n >= threads) {
    for (int t = 0; t < threads; ++t) {
      Slice part{s, s.n * t / threads, 0};
      part.s.n = s.n * (t + 1) / threads - part.n0;
      out.push_back(part);
    }
    return out;
  }
  // Plain NCHW splits anywhere; 8 channels keep oneDNN's vectors full.
  const int64_t unit = lanes > 0 ? lanes : 8;
  const int parts = block_parts(s.m, unit, threads);
  if (parts > 1 && s.n == 1 && (s.group == 1 || s.depthwise())) {
    for (int t = 0; t < parts; ++t) {
      const auto [lo, hi] = block_part(s.m, unit, parts, t);
      Slice part{s, 0, lo};
      part.s.m = hi - lo;
      if (s.depthwise()) part.s.c = part.s.group = part.s.m;
      out.push_back(part);
    }
    return out;
  }
  out.push_back({s, 0, 0});
  return out;
}

// The convolution's output as oneDNN sees it: NCHW, or blocked by `lanes`.
memory::desc output_desc(const ConvShape& s, int lanes) {
  return memory::desc({s.n, s.m, s.oh, s.ow}, memory::data_type::f32, activation_tag(lanes));
}

// The weights' dims as oneDNN takes them: [m][c][kh][kw], grouped [g][m/g][c/g][kh][kw].
memory::dims weight_dims(const ConvShape& s) {
  if (s.group > 1) return {s.group, s.m / s.group, s.c / s.group, s.kh, s.kw};
  return {s.m, s.c, s.kh, s.kw};
}

dnnl::convolution_forward::desc conv_desc(const ConvShape& s, int src_lanes, int dst_lanes, bool bias, bool winograd) {
  const auto f32 = memory::data_type::f32;
  const memory::desc src({s.n, s.c, s.h, s.w}, f32, activation_tag(src_lanes));
  const memory::desc dst = output_desc(s, dst_lanes);
  const memory::desc any_weights(weight_dims(s), f32, memory::format_tag::any);
  // oneDNN counts dilation from 0.
  const memory::dims strides = {s.sh, s.sw}, dilation = {s.dh - 1, s.dw - 1}, pad_l = {s.ph, s.pw},
                     pad_r = {s.ph_end, s.pw_end};
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = winograd ? algorithm::convolution_winograd : algorithm::convolution_direct;
  if (bias)
    return dnnl::convolution_forward::desc(prop, alg, src, any_weights, memory::desc({s.m}, f32, memory::format_tag::a),
                                           dst, strides, dilation, pad_l, pad_r);
  return dnnl::convolution_forward::desc(prop, alg, src, any_weights, dst, strides, dilation, pad_l, pad_r);
}

// The part's memories, pointing nowhere until run(), and its weights.
void make_part(Part& p, const dnnl::convolution_forward::primitive_desc& pd, bool bias,
               const std::vector<ChainStep>& post_ops, size_t taken, const Part* same_weights) {
  const ConvShape& s = p.slice.s;
  const auto& e = onednn_engine();
  p.conv = dnnl::convolution_forward(pd);
  p.user_weights = memory::desc(weight_dims(s), memory::data_type::f32,
                                s.group > 1 ? memory::format_tag::goihw : memory::format_tag::oihw);
  p.src = memory(pd.src_desc(), e, DNNL_MEMORY_NONE);
  p.dst = memory(pd.dst_desc(), e, DNNL_MEMORY_NONE);
  // Parts of other images share the weights where their primitives lay them out alike.
  p.shares_weights = same_weights && same_weights->weights.get_desc() == pd.weights_desc();
  p.weights = p.shares_weights ? same_weights->weights : memory(pd.weights_desc(), e);
  p.scratchpad = memory(pd.scratchpad_desc(), e, DNNL_MEMORY_NONE);
  p.scratchpad_bytes = pd.scratchpad_desc().get_size();
  p.args = {{DNNL_ARG_SRC, p.src}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, p.dst}, {DNNL_ARG_SCRATCHPAD, p.scratchpad}};
  if (bias) {
    p.bias = memory(pd.bias_desc(), e, DNNL_MEMORY_NONE);
    p.args.emplace(DNNL_ARG_BIAS, p.bias);
  }
  for (size_t i = 0; i < taken; ++i) {
    if (post_ops[i].operand < 0) continue;
    memory operand(pd.dst_desc(), e, DNNL_MEMORY_NONE);
    p.operands.emplace_back(post_ops[i].operand, operand);
    p.args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1, operand);
  }
}

}  // namespace

size_t OneDnnConv::taken() const { return state_->taken; }

OneDnnConv::OneDnnConv(const ConvShape& s, int src_lanes, int dst_lanes, bool bias,
                       const std::vector<ChainStep>& post_ops, const std::vector<bool>& operand_full, int threads,
                       bool winograd)
    : state_(std::make_unique<State>()) {
  onednn_one_thread();
  state_->threads = threads;
  const auto cut = slices(s, dst_lanes, threads);
  // The longest prefix of the fused ops oneDNN runs fast on every part; none at worst.
  for (size_t count = post_ops.size() + 1; count-- > 0;) {
    std::vector<dnnl::convolution_forward::primitive_desc> pds;
    for (const Slice& slice : cut) {
      const auto desc = conv_desc(slice.s, src_lanes, dst_lanes, bias, winograd);
      auto pd = conv_with(desc, post_ops, count, operand_full, output_desc(slice.s, dst_lanes));
      if (!pd) break;
      pds.push_back(*pd);
    }
    if (pds.size() == cut.size()) {
      state_->taken = count;
      state_->parts.resize(cut.size());
      for (size_t i = 0; i < cut.size(); ++i) {
        Part& p = state_->parts[i];
        p.slice = cut[i];
        p.src_at = cut[i].n0 * layout_elements(1, s.c, s.h * s.w, src_lanes) + (s.depthwise() ? cut[i].m0 * s.h * s.w : 0);
        p.dst_at = cut[i].n0 * layout_elements(1, s.m, s.oh * s.ow, dst_lanes) + cut[i].m0 * s.oh * s.ow;
        const bool same_channels = i > 0 && cut[i].m0 == cut[0].m0 && cut[i].s.m == cut[0].s.m;
        make_part(p, pds[i], bias, post_ops, count, same_channels ? &state_->parts[0] : nullptr);
      }
      return;
    }
    if (count == 0)
      throw sdk::Error(sdk::StatusCode::unsupported,
                       "oneDNN has only its reference convolution for this shape and layout");
  }
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::set_weights(const float* weights) {
  onednn_one_thread();
  for (Part& p : state_->parts) {
    if (p.shares_weights) continue;
    const ConvShape& s = p.slice.s;
    // A part's output channels are whole rows of the [m][c/group][kh][kw] weights.
    float* at = const_cast<float*>(weights) + p.slice.m0 * (s.c / s.group) * s.kh * s.kw;
    memory user(p.user_weights, onednn_engine(), at);
    dnnl::reorder(user, p.weights).execute(p.stream, user, p.weights);
    p.stream.wait();
  }
}

std::vector<std::pair<const void*, size_t>> OneDnnConv::weights_memory() const {
  std::vector<std::pair<const void*, size_t>> out;
  for (const Part& p : state_->parts)
    if (!p.shares_weights) out.emplace_back(p.weights.get_data_handle(), p.weights.get_desc().get_size());
  return out;
}

void OneDnnConv::run(const float* src, const float* bias, const std::vector<const float*>& operands, float* dst,
                     ThreadPool& pool) {
  State& st = *state_;
  pool.run(static_cast<int64_t>(st.parts.size()), st.threads, [&](int64_t i, int) {
    Part& p = st.parts[static_cast<size_t>(i)];
    p.src.set_data_handle(const_cast<float*>(src) + p.src_at);
    p.dst.set_data_handle(dst + p.dst_at);
    if (bias) p.bias.set_data_handle(const_cast<float*>(bias) + p.slice.m0);
    for (auto& [index, operand] : p.operands)
      operand.set_data_handle(const_cast<float*>(operands.at(static_cast<size_t>(index))) + p.dst_at);
    onednn_execute_here(p.conv, p.stream, p.args, p.scratchpad, p.scratchpad_bytes);
  });
}

#else

struct OneDnnConv::State {};

size_t OneDnnConv::taken() const { return 0; }

OneDnnConv::OneDnnConv(const ConvShape&, int, int, bool, const std::vector<ChainStep>&, const std::vector<bool>&, int,
                       bool) {
  throw sdk::Error(sdk::StatusCode::unsupported, "this cpu device was built without oneDNN (libdnnl-dev)");
}
OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::set_weights(const float*) {}
std::vector<std::pair<const void*, size_t>> OneDnnConv::weights_memory() const { return {}; }
void OneDnnConv::run(const float*, const float*, const std::vector<const float*>&, float*, ThreadPool&) {}

#endif

}  // namespace aoe::cpu
