#include "reduce_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "buffer_kernel.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {

namespace {

using Before = ReduceOp::Before;
using After = ReduceOp::After;

// Map `n` values through `before`, or each result through `after`, `threads` ways.
template <typename F>
void map_values(ThreadPool& pool, int threads, int64_t n, F f) {
  constexpr int64_t kChunk = 4096;
  pool.run(ceil_div(n, kChunk), threads, [&](int64_t task, int) {
    const int64_t end = std::min(n, (task + 1) * kChunk);
    for (int64_t i = task * kChunk; i < end; ++i) f(i);
  });
}

}  // namespace

class ReduceKernel final : public BufferKernel {
 public:
  ReduceKernel(const ReduceOp& op, const ReduceConfig& cfg) : BufferKernel(op), op_(op), cfg_(cfg) {
    if (op.before_ != Before::none) mapped_.resize(elements(op.input_shapes()[0]));
    int64_t kept_most = 0;
    for (const auto& p : op.passes_) kept_most = std::max(kept_most, p.outer * p.inner);
    scratch_.resize(std::max<int64_t>(1, kept_most * cfg.threads));
    // Passes alternate between two buffers; the last writes the output.
    if (op.passes_.size() > 1) ping_.resize(kept_most), pong_.resize(kept_most);
  }

  void run(ThreadPool& pool) override {
    float* out = outputs_[0].data();
    const float* src = inputs_[0];
    if (op_.before_ != Before::none) {
      float* m = mapped_.data();
      const Before b = op_.before_;
      map_values(pool, cfg_.threads, mapped_.size(), [&](int64_t i) {
        const float x = src[i];
        m[i] = b == Before::square ? x * x : b == Before::abs ? std::fabs(x) : std::exp(x);
      });
      src = m;
    }
    const size_t n = op_.identity_ ? 0 : op_.passes_.size();
    if (n == 0) std::memcpy(out, src, outputs_[0].bytes());
    // A mean over several runs sums each, then scales once.
    const ReduceKind pass_kind = n > 1 && op_.kind_ == ReduceKind::mean ? ReduceKind::sum : op_.kind_;
    for (size_t i = 0; i < n; ++i) {
      const auto& p = op_.passes_[i];
      float* dst = i + 1 == n ? out : (i % 2 == 0 ? ping_.data() : pong_.data());
      reduce(cfg_, pass_kind, src, dst, p.outer, p.reduced, p.inner, scratch_.data(), pool);
      src = dst;
    }
    if (n > 1 && op_.kind_ == ReduceKind::mean) {
      const float s = 1.0f / static_cast<float>(op_.total_reduced_);
      for (int64_t i = 0; i < outputs_[0].size(); ++i) out[i] *= s;
    }
    if (op_.after_ != After::none) {
      const bool root = op_.after_ == After::sqrt;
      map_values(pool, cfg_.threads, outputs_[0].size(), [&](int64_t i) { out[i] = root ? std::sqrt(out[i]) : std::log(out[i]); });
    }
  }

 private:
  const ReduceOp& op_;
  ReduceConfig cfg_;
  Buffer scratch_, ping_, pong_, mapped_;
};

bool is_reduce_op(const std::string& t) {
  return t == "ReduceSum" || t == "ReduceMean" || t == "ReduceMax" || t == "ReduceMin" || t == "ReduceProd" ||
         t == "ReduceSumSquare" || t == "ReduceL1" || t == "ReduceL2" || t == "ReduceLogSum" || t == "ReduceLogSumExp" ||
         t == "GlobalAveragePool" || t == "GlobalMaxPool";
}

ReduceOp::ReduceOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
  const std::string& t = task.op_type;
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + t);
  // Sums, products and extremes of whole numbers are whole: integers too.
  const bool exact = t == "ReduceSum" || t == "ReduceMax" || t == "ReduceMin" || t == "ReduceProd";
  require_dtypes(task, exact ? Takes::held : Takes::f32, {1});
  if (task.inputs.empty()) invalid(t + " takes an input");
  const Shape in = task.inputs[0].shape;
  inputs_.push_back(in);
  const auto rank = static_cast<int64_t>(in.size());
  kind_ = t == "ReduceMax" || t == "GlobalMaxPool" ? ReduceKind::max
          : t == "ReduceMin" ? ReduceKind::min
          : t == "ReduceProd" ? ReduceKind::prod
          : t == "ReduceMean" || t == "GlobalAveragePool" ? ReduceKind::mean
                             : ReduceKind::sum;
  // ReduceLogSumExp as its definition, log of the sum of exp: as ONNX's reference, it overflows past exp's range.
  before_ = t == "ReduceSumSquare" || t == "ReduceL2" ? Before::square
            : t == "ReduceL1" ? Before::abs
            : t == "ReduceLogSumExp" ? Before::exp
                                     : Before::none;
  after_ = t == "ReduceL2" ? After::sqrt : t == "ReduceLogSum" || t == "ReduceLogSumExp" ? After::log : After::none;
  bool keepdims = true;
  std::vector<int64_t> axes;
  if (t == "GlobalAveragePool" || t == "GlobalMaxPool") {
    if (rank < 3) invalid(t + " takes N x C x spatial input");
    for (int64_t a = 2; a < rank; ++a) axes.push_back(a);
  } else {
    keepdims = int_attr(task.attrs, "keepdims", 1) != 0;
    if (task.inputs.size() > 1) {
      if (!task.attrs.contains("axes")) unsupported(t + " with its axes as a tensor needs them as attribute 'axes'");
      inputs_.push_back(task.inputs[1].shape);  // an integer tensor, never read
    }
    axes = ints_attr(task.attrs, "axes", {});
    if (axes.empty() && int_attr(task.attrs, "noop_with_empty_axes", 0) != 0) identity_ = true;
    if (axes.empty() && !identity_)
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  reduced_.assign(in.size(), false);
  for (int64_t a : axes) reduced_[static_cast<size_t>(normalize_axis(a, rank, t))] = true;
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced_[d]) out.push_back(in[d]);
    else if (keepdims) out.push_back(1);
    if (reduced_[d]) total_reduced_ *= in[d];
  }
  outputs_ = {out};
  if (!task.outputs.empty() && elements(task.outputs[0].shape) != elements(out))
    invalid(t + " output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(out));

  // The dims as memory holds them: N x C/L x map x L on the blocked layout,
  // where the op reduces the whole map and nothing else (its output, one
  // value per channel, is then laid out as NCHW's).
  Shape dims = in;
  std::vector<bool> reduced = reduced_;
  input_blocking_.assign(inputs_.size(), 0);
  if (const int lanes = blocking_of(task.inputs[0], host, t)) {
    bool whole_map = in[1] % lanes == 0 && !reduced_[0] && !reduced_[1];
    for (size_t d = 2; d < in.size(); ++d) whole_map = whole_map && reduced_[d];
    if (!whole_map)
      invalid(t + " '" + task.name + "' reduces a blocked input over its whole map only, in whole " +
              std::to_string(lanes) + "-channel blocks; " + to_string(in) + " does not fit");
    input_blocking_[0] = lanes;
    dims[1] /= lanes;
    dims.push_back(lanes);
    reduced.push_back(false);
  }
  // Runs of adjacent dims alike (extent-1 dims dropped), reduced innermost first.
  std::vector<std::pair<bool, int64_t>> runs;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!runs.empty() && runs.back().first == reduced[d]) runs.back().second *= dims[d];
    else runs.emplace_back(reduced[d], dims[d]);
  }
  for (size_t r = runs.size(); r-- > 0;) {
    if (!runs[r].first) continue;
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < r; ++i) outer *= runs[i].second;
    for (size_t i = r + 1; i < runs.size(); ++i) inner *= runs[i].first ? 1 : runs[i].second;
    passes_.push_back({outer, runs[r].second, inner});
  }
  if (passes_.empty()) identity_ = true;

  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  space_.knobs[kIsa] = isa_knob();
  space_.knobs[kSplit] = choice_knob("split", sdk::KnobTag::schedule, {"kept", "reduced"});
  space_.knobs[kAccumulators] = sdk::Knob::power_of_two("accumulators", sdk::KnobTag::impl, 1, 4);
  space_.knobs[kThreads] = threads_knob(host);
  // Split the reduced axis only when the kept values are too few to share
  // and one run of axes is reduced (the split's own condition, in check()).
  const int threads = default_threads(host, static_cast<double>(elements(in)) * 0.25);
  const int64_t kept = elements(out);
  const bool split_reduced = kept < threads * 4 && !identity_ && passes_.size() == 1;
  space_.default_config = {static_cast<int64_t>(host.best_isa()), split_reduced ? 1 : 0, 2, threads};
}

std::string ReduceOp::check(const sdk::Config& c) const {
  if (auto why = isa_refusal(host_, c[kIsa]); !why.empty()) return why;
  if (c[kSplit] == 1 && (identity_ || passes_.size() > 1))
    return "split=reduced is for a reduction over one run of adjacent axes";
  return {};
}

std::unique_ptr<Kernel> ReduceOp::build(const sdk::Config& c) const {
  ReduceConfig cfg;
  cfg.isa = &kernels_for(c[kIsa]);
  cfg.split = c[kSplit] == 0 ? ReduceSplit::kept : ReduceSplit::reduced;
  cfg.accumulators = static_cast<int>(c[kAccumulators]);
  cfg.threads = static_cast<int>(c[kThreads]);
  return std::make_unique<ReduceKernel>(*this, cfg);
}

void ReduceOp::reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const {
  const Shape& in = inputs_[0];
  Shape kept;  // the output with every reduced dim kept as 1
  for (size_t d = 0; d < in.size(); ++d) kept.push_back(reduced_[d] ? 1 : in[d]);
  const double init = kind_ == ReduceKind::max ? -std::numeric_limits<double>::infinity()
                      : kind_ == ReduceKind::min ? std::numeric_limits<double>::infinity()
                      : kind_ == ReduceKind::prod ? 1.0
                                                 : 0.0;
  std::vector<double> acc(static_cast<size_t>(elements(kept)), identity_ ? 0.0 : init);
  const auto kept_strides = strides_of(kept);
  for_each_index(in, [&](const std::vector<int64_t>& index, int64_t flat) {
    size_t at = 0;
    for (size_t d = 0; d < in.size(); ++d) at += static_cast<size_t>((reduced_[d] ? 0 : index[d]) * kept_strides[d]);
    const double x = inputs[0][flat];
    const double v = before_ == Before::square ? x * x : before_ == Before::abs ? std::fabs(x) : before_ == Before::exp ? std::exp(x) : x;
    double& a = acc[at];
    if (identity_) a = v;
    else if (kind_ == ReduceKind::max) a = std::max(a, v);
    else if (kind_ == ReduceKind::min) a = std::min(a, v);
    else if (kind_ == ReduceKind::prod) a *= v;
    else a += v;
  });
  if (kind_ == ReduceKind::mean && !identity_)
    for (auto& a : acc) a /= static_cast<double>(total_reduced_);
  for (auto& a : acc) a = after_ == After::sqrt ? std::sqrt(a) : after_ == After::log ? std::log(a) : a;
  store(acc, outputs[0]);
}

}  // namespace aoe::cpu
