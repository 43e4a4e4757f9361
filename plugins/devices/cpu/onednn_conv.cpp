#include "onednn_conv.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <mutex>
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
  std::unordered_map<int, memory> args;  // made once: run() only points src, bias and dst
  int threads = 1;
};

bool OneDnnConv::takes(const ChainStep& step) {
  algorithm alg;
  float alpha, beta;
  return step.operand < 0 && eltwise_of(step, alg, alpha, beta);
}

OneDnnConv::OneDnnConv(const ConvShape& s, int lanes, bool bias, const std::vector<ChainStep>& post_ops, int threads)
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
  dnnl::post_ops ops;
  for (const auto& step : post_ops) {
    algorithm alg;
    float alpha, beta;
    if (step.operand >= 0 || !eltwise_of(step, alg, alpha, beta))
      throw sdk::Error(sdk::StatusCode::internal, "oneDNN convolution given a fused op it does not take");
    ops.append_eltwise(1.0f, alg, alpha, beta);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto desc = bias ? dnnl::convolution_forward::desc(prop, algorithm::convolution_direct, src, any_weights, bias_md,
                                                           dst, strides, dilation, pad_l, pad_r)
                         : dnnl::convolution_forward::desc(prop, algorithm::convolution_direct, src, any_weights, dst,
                                                           strides, dilation, pad_l, pad_r);
  try {
    state_->pd = dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
  } catch (const dnnl::error& e) {
    throw sdk::Error(sdk::StatusCode::unsupported, std::string("oneDNN has no convolution for this shape: ") + e.what());
  }
  // Its reference kernel is a loop nest no tuner would keep, and slow to time.
  if (std::string(state_->pd.impl_info_str()).rfind("ref", 0) == 0)
    throw sdk::Error(sdk::StatusCode::unsupported, "oneDNN has only its reference convolution for this shape and layout");
  state_->conv = dnnl::convolution_forward(state_->pd);
  state_->src = memory(state_->pd.src_desc(), cpu_engine(), DNNL_MEMORY_NONE);
  state_->dst = memory(state_->pd.dst_desc(), cpu_engine(), DNNL_MEMORY_NONE);
  state_->weights = memory(state_->pd.weights_desc(), cpu_engine());
  state_->args = {{DNNL_ARG_SRC, state_->src}, {DNNL_ARG_WEIGHTS, state_->weights}, {DNNL_ARG_DST, state_->dst}};
  if (bias) {
    state_->bias = memory(bias_md, cpu_engine(), DNNL_MEMORY_NONE);
    state_->args.emplace(DNNL_ARG_BIAS, state_->bias);
  }
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::set_weights(const float* weights) {
  use_threads(state_->threads);
  memory user(state_->user_weights, cpu_engine(), const_cast<float*>(weights));
  dnnl::reorder(user, state_->weights).execute(state_->stream, user, state_->weights);
  state_->stream.wait();
}

void OneDnnConv::run(const float* src, const float* bias, float* dst) {
  State& st = *state_;
  st.src.set_data_handle(const_cast<float*>(src));
  st.dst.set_data_handle(dst);
  if (bias) st.bias.set_data_handle(const_cast<float*>(bias));
  use_threads(st.threads);
  st.conv.execute(st.stream, st.args);
  st.stream.wait();
}


#else

bool onednn_built() { return false; }

struct OneDnnConv::State {};

bool OneDnnConv::takes(const ChainStep&) { return false; }

OneDnnConv::OneDnnConv(const ConvShape&, int, bool, const std::vector<ChainStep>&, int) {
  throw sdk::Error(sdk::StatusCode::unsupported, "this cpu device was built without oneDNN (libdnnl-dev)");
}
OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::set_weights(const float*) {}
void OneDnnConv::run(const float*, const float*, float*) {}

#endif

}  // namespace aoe::cpu
