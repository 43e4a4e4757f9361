#include "onednn_conv.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "aoe/sdk/error.h"

#ifdef AOE_CPU_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

// GNU OpenMP's, which oneDNN runs on (declared here: not every compiler has omp.h).
extern "C" void omp_set_num_threads(int);
#endif

namespace aoe::cpu {

#ifdef AOE_CPU_WITH_ONEDNN

bool onednn_built() { return true; }

namespace {

using dnnl::algorithm;
using dnnl::memory;

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

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

// GNU OpenMP is not fork-safe: in a process forked after its parent ran a
// team of threads, the next team never starts. Such a process (a timing
// worker forked after a model ran) runs oneDNN on one thread, and refuses
// more rather than hang.
std::atomic<bool> team_started{false}, forked_after_team{false};

// The OpenMP threads oneDNN's next call in this thread runs on.
void use_threads(int threads) {
  omp_set_num_threads(threads);
  if (threads <= 1) return;
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork(nullptr, nullptr, [] {
      if (team_started.load()) forked_after_team.store(true);
    });
  });
  team_started.store(true);
}

// oneDNN, and the OpenMP and OpenCL runtimes it loads, keep threads and
// state for the life of the process: pinned as the device loads, they stay
// when a host unloads the device (no parked thread is left in unmapped
// code, and what they allocated as they loaded stays theirs).
const bool kPinned = [] {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&dnnl_engine_create), &info) && info.dli_fname)
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
  return false;
}();

}  // namespace

struct OneDnnConv::State {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  dnnl::stream stream{cpu_engine()};
  memory src, weights, bias, dst;
  memory::desc user_weights;
  std::unordered_map<int, memory> args;  // made once: run() only points src, bias, dst and the operands
  std::vector<std::pair<int, memory>> operands;  // per binary post-op: its operand's index, its memory
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
  try {
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    // Its reference kernel is a loop nest no tuner would keep, and slow to time.
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

}  // namespace

size_t OneDnnConv::taken() const { return state_->taken; }

OneDnnConv::OneDnnConv(const ConvShape& s, int lanes, bool bias, const std::vector<ChainStep>& post_ops,
                       const std::vector<bool>& operand_full, int threads)
    : state_(std::make_unique<State>()) {
  if (threads > 1 && forked_after_team.load())
    throw sdk::Error(sdk::StatusCode::unsupported,
                     "oneDNN cannot start its OpenMP threads in a process forked after its parent ran them "
                     "(GNU OpenMP is not fork-safe): here it runs on one thread only");
  state_->threads = threads;
  use_threads(threads);  // oneDNN plans the primitive's work for the threads it will have
  const auto f32 = memory::data_type::f32;
  const memory::desc src({s.n, s.c, s.h, s.w}, f32, activation_tag(lanes));
  const memory::desc dst({s.n, s.m, s.oh, s.ow}, f32, activation_tag(lanes));
  const memory::desc bias_md({s.m}, f32, memory::format_tag::a);
  memory::dims w_dims = {s.m, s.c / s.group, s.kh, s.kw};
  memory::format_tag w_tag = memory::format_tag::oihw;
  if (s.group > 1) {
    w_dims = {s.group, s.m / s.group, s.c / s.group, s.kh, s.kw};
    w_tag = memory::format_tag::goihw;
  }
  state_->user_weights = memory::desc(w_dims, f32, w_tag);
  const memory::desc any_weights(w_dims, f32, memory::format_tag::any);
  // oneDNN counts dilation from 0.
  const memory::dims strides = {s.sh, s.sw}, dilation = {s.dh - 1, s.dw - 1}, pad_l = {s.ph, s.pw},
                     pad_r = {s.ph_end, s.pw_end};
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto desc = bias ? dnnl::convolution_forward::desc(prop, algorithm::convolution_direct, src, any_weights, bias_md,
                                                           dst, strides, dilation, pad_l, pad_r)
                         : dnnl::convolution_forward::desc(prop, algorithm::convolution_direct, src, any_weights, dst,
                                                           strides, dilation, pad_l, pad_r);
  // The longest prefix of the fused ops oneDNN runs fast; none at worst.
  for (size_t count = post_ops.size() + 1; count-- > 0;) {
    if (auto pd = conv_with(desc, post_ops, count, operand_full, dst)) {
      state_->pd = *pd;
      state_->taken = count;
      break;
    }
    if (count == 0)
      throw sdk::Error(sdk::StatusCode::unsupported,
                       "oneDNN has only its reference convolution for this shape and layout");
  }
  state_->conv = dnnl::convolution_forward(state_->pd);
  state_->src = memory(state_->pd.src_desc(), cpu_engine(), DNNL_MEMORY_NONE);
  state_->dst = memory(state_->pd.dst_desc(), cpu_engine(), DNNL_MEMORY_NONE);
  state_->weights = memory(state_->pd.weights_desc(), cpu_engine());
  state_->args = {{DNNL_ARG_SRC, state_->src}, {DNNL_ARG_WEIGHTS, state_->weights}, {DNNL_ARG_DST, state_->dst}};
  if (bias) {
    state_->bias = memory(bias_md, cpu_engine(), DNNL_MEMORY_NONE);
    state_->args.emplace(DNNL_ARG_BIAS, state_->bias);
  }
  for (size_t i = 0; i < state_->taken; ++i) {
    if (post_ops[i].operand < 0) continue;
    memory operand(dst, cpu_engine(), DNNL_MEMORY_NONE);
    state_->operands.emplace_back(post_ops[i].operand, operand);
    state_->args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1, operand);
  }
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::set_weights(const float* weights) {
  use_threads(state_->threads);
  memory user(state_->user_weights, cpu_engine(), const_cast<float*>(weights));
  dnnl::reorder(user, state_->weights).execute(state_->stream, user, state_->weights);
  state_->stream.wait();
}

void OneDnnConv::run(const float* src, const float* bias, const std::vector<const float*>& operands, float* dst) {
  State& st = *state_;
  st.src.set_data_handle(const_cast<float*>(src));
  st.dst.set_data_handle(dst);
  if (bias) st.bias.set_data_handle(const_cast<float*>(bias));
  for (auto& [index, operand] : st.operands) operand.set_data_handle(const_cast<float*>(operands.at(static_cast<size_t>(index))));
  use_threads(st.threads);
  st.conv.execute(st.stream, st.args);
  st.stream.wait();
}


#else

bool onednn_built() { return false; }

struct OneDnnConv::State {};

size_t OneDnnConv::taken() const { return 0; }

OneDnnConv::OneDnnConv(const ConvShape&, int, bool, const std::vector<ChainStep>&, const std::vector<bool>&, int) {
  throw sdk::Error(sdk::StatusCode::unsupported, "this cpu device was built without oneDNN (libdnnl-dev)");
}
OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::set_weights(const float*) {}
void OneDnnConv::run(const float*, const float*, const std::vector<const float*>&, float*) {}

#endif

}  // namespace aoe::cpu
