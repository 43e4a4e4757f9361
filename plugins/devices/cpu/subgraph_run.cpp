#include "subgraph_run.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "aoe/sdk/error.h"
#include "arena_plan.h"
#include "op_util.h"

namespace aoe::cpu {

GivenViews views_of(const std::map<std::string, std::vector<float>>& given) {
  GivenViews views;
  for (const auto& [name, v] : given) views.emplace(name, std::span<const float>(v));
  return views;
}

std::map<std::string, std::vector<float>> random_given(const SubgraphOp& op, uint64_t seed, const GivenViews& lent) {
  std::map<std::string, std::vector<float>> given;
  std::mt19937_64 rng(seed);
  for (const auto& [name, range] : op.given()) {
    const auto count = static_cast<size_t>(op.graph().tensor(name).elements());
    if (lent.count(name)) {
      rng.discard(count);  // a float from mt19937_64 takes one draw
      continue;
    }
    std::uniform_real_distribution<float> u(range.lo, range.hi);
    std::vector<float> v(count);
    for (auto& x : v) x = u(rng);
    given[name] = std::move(v);
  }
  return given;
}

SubgraphData make_subgraph_data(const SubgraphOp& op, uint64_t seed) {
  SubgraphData d;
  d.given = random_given(op, seed);
  std::map<std::string, std::vector<float>> values = d.given;
  op.reference(values);
  for (const auto& o : op.graph().outputs) d.expected.push_back(values.at(o));
  return d;
}

namespace {

// The conversions' outputs by step, from the step that writes one to the
// last that reads it or a view of it; the graph's outputs live to the end.
std::map<size_t, Lifetime> conversion_lifetimes(const Plan& plan, const std::vector<std::string>& graph_outputs) {
  std::map<size_t, Lifetime> out;
  std::map<std::string, size_t> written_by;  // a converted tensor, or a view of one -> the conversion's step
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    for (const auto& r : s.reads)
      if (auto it = written_by.find(r); it != written_by.end()) out[it->second].last = i;
    if (s.kind == PlanStep::Kind::convert) {
      out[i] = {i, i, layout_elements(s.n, s.channels, s.spatial, s.to)};
      written_by[s.writes[0]] = i;
    } else if (s.kind == PlanStep::Kind::view) {
      if (auto it = written_by.find(s.reads[0]); it != written_by.end()) written_by[s.writes[0]] = it->second;
    }
  }
  for (const auto& o : graph_outputs)
    if (auto it = written_by.find(o); it != written_by.end()) out[it->second].last = plan.steps.size();
  return out;
}

}  // namespace

SubgraphKernel::SubgraphKernel(const SubgraphOp& op, const Plan& plan, const GivenViews& given) : op_(op) {
  // Integer constants (Slice's bounds, Gather's indices) reach their ops as
  // attribute values; the kernels read no buffer of them.
  for (const auto& [name, t] : op.graph().tensors)
    if (t.constant && t.dtype != sdk::DType::f32) tensors_[name] = nullptr;
  for (const auto& [name, v] : given) {
    tensors_[name] = v.data();
    given_.emplace_back(v.data(), v.size_bytes());
  }
  // The conversions write into one arena, sharing memory where their lifetimes allow.
  const auto lifetimes = conversion_lifetimes(plan, op.graph().outputs);
  std::vector<Lifetime> buffers;
  for (const auto& [step, life] : lifetimes) buffers.push_back(life);
  const ArenaPlan arena = plan_arena(buffers);
  std::map<size_t, int64_t> offset_of;
  size_t placed = 0;
  for (const auto& [step, life] : lifetimes) offset_of[step] = arena.offsets[placed++];
  if (!buffers.empty()) owned_.push_back(std::make_unique<Buffer>(arena.elements));
  float* const arena_data = buffers.empty() ? nullptr : owned_.back()->data();
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    Step step;
    step.plan_step = i;
    switch (s.kind) {
      case PlanStep::Kind::view:
        tensors_[s.writes[0]] = at(s.reads[0]);
        continue;
      case PlanStep::Kind::convert: {
        float* dst = arena_data + offset_of.at(i);
        const int64_t elements = lifetimes.at(i).elements;
        step.convert = {at(s.reads[0]), dst, s.from, s.to, s.n, s.channels, s.spatial};
        step.threads = default_threads(op.host(), static_cast<double>(elements));
        tensors_[s.writes[0]] = dst;
        break;
      }
      case PlanStep::Kind::kernel: {
        step.op = s.op;
        step.kernel = s.op->build(s.config);
        std::vector<const float*> inputs;
        for (const auto& r : s.reads) inputs.push_back(at(r));
        if (!s.batch_norm.empty()) fold_batch_norm(s, given, inputs);
        step.kernel->bind(inputs);
        for (size_t j = 0; j < s.writes.size(); ++j) tensors_[s.writes[j]] = step.kernel->kept_output(j);
        break;
      }
    }
    steps_.push_back(std::move(step));
  }
}

const float* SubgraphKernel::at(const std::string& tensor) const {
  auto it = tensors_.find(tensor);
  if (it == tensors_.end())
    throw sdk::Error(sdk::StatusCode::internal, "the subgraph plan reads '" + tensor + "' before it is written");
  return it->second;
}

// y = ((W * x + b) - mean) * scale / sqrt(var + eps) + B, folded once, as
// an inference runtime loads the model: W' = W * k, b' = (b - mean) * k + B.
void SubgraphKernel::fold_batch_norm(const PlanStep& step, const GivenViews& given, std::vector<const float*>& inputs) {
  const auto& g = op_.graph();
  const sdk::Node* bn = nullptr;
  const sdk::Node* conv = nullptr;
  for (const auto& n : g.nodes) {
    if (n.name == step.batch_norm) bn = &n;
    if (n.name == step.nodes.front()) conv = &n;
  }
  if (!bn || !conv) throw sdk::Error(sdk::StatusCode::internal, "no BatchNormalization '" + step.batch_norm + "' to fold");
  const auto& w = given.at(conv->inputs[1]);
  const auto& scale = given.at(bn->inputs[1]);
  const auto& shift = given.at(bn->inputs[2]);
  const auto& mean = given.at(bn->inputs[3]);
  const auto& var = given.at(bn->inputs[4]);
  const bool conv_bias = conv->inputs.size() > 2 && !conv->inputs[2].empty();
  const double eps = float_attr(bn->attrs, "epsilon", 1e-5);
  const size_t m = scale.size(), per = w.size() / m;
  auto weights = std::make_unique<Buffer>(static_cast<int64_t>(w.size()));
  auto bias = std::make_unique<Buffer>(static_cast<int64_t>(m));
  for (size_t c = 0; c < m; ++c) {
    const double k = scale[c] / std::sqrt(static_cast<double>(var[c]) + eps);
    for (size_t i = 0; i < per; ++i) weights->data()[c * per + i] = static_cast<float>(w[c * per + i] * k);
    const double b = conv_bias ? given.at(conv->inputs[2])[c] : 0.0;
    bias->data()[c] = static_cast<float>((b - mean[c]) * k + shift[c]);
  }
  inputs[1] = weights->data();
  inputs[2] = bias->data();
  owned_.push_back(std::move(weights));
  owned_.push_back(std::move(bias));
}

void SubgraphKernel::run_step(Step& s, ThreadPool& pool) {
  if (s.kernel) s.kernel->run(pool);
  else s.convert.run(pool, s.threads);
}

void SubgraphKernel::run(ThreadPool& pool) {
  for (auto& s : steps_) run_step(s, pool);
}

void SubgraphKernel::run_profiled(ThreadPool& pool, std::vector<double>& ms) {
  for (auto& s : steps_) {
    const auto start = std::chrono::steady_clock::now();
    run_step(s, pool);
    ms.at(s.plan_step) += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
}

void SubgraphKernel::read_output(size_t index, float* out) const {
  const auto& name = op_.graph().outputs[index];
  std::memcpy(out, at(name), static_cast<size_t>(op_.graph().tensor(name).elements()) * sizeof(float));
}

// The graph's outputs are the plan's last writes of them, in memory the
// subgraph owns: the fault option may perturb the first.
float* SubgraphKernel::output_data() { return const_cast<float*>(kept_output(0)); }

const float* SubgraphKernel::kept_output(size_t index) const { return at(op_.graph().outputs[index]); }

Footprint SubgraphKernel::footprint() const {
  Footprint f = given_;
  for (const auto& s : steps_)
    if (s.kernel) {
      const auto k = s.kernel->footprint();
      f.insert(f.end(), k.begin(), k.end());
    }
  for (const auto& b : owned_) f.emplace_back(b->data(), b->bytes());
  return f;
}

BoundKernel bind_subgraph(const SubgraphOp& op, const sdk::Config& config, const SubgraphData& data) {
  return {std::make_unique<SubgraphKernel>(op, op.lower(config), views_of(data.given)), {}};
}

}  // namespace aoe::cpu
