#include "subgraph_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <set>

#include "aoe/sdk/error.h"
#include "arena_plan.h"
#include "held_dtype.h"
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
  // A lent tensor's draws are skipped so the others' stay as if none were lent;
  // past the last tensor not lent there is nothing to skip them for (a model
  // whose every weight is lent draws nothing, not one number per weight).
  auto end = op.given().end();
  while (end != op.given().begin() && lent.count(std::prev(end)->first)) --end;
  for (auto it = op.given().begin(); it != end; ++it) {
    const auto& [name, range] = *it;
    const auto count = static_cast<size_t>(op.graph().tensor(name).elements());
    if (lent.count(name)) {
      rng.discard(count);  // a float from mt19937_64 takes one draw
      continue;
    }
    std::vector<float> v = draw_values(range, count, rng);
    // Integers and bools as the device holds them: whole numbers, a bool 0 or 1.
    if (const sdk::DType t = op.graph().tensor(name).dtype; is_integral(t))
      if (range.values.empty())
        for (auto& x : v) x = t == sdk::DType::boolean ? (x > (range.lo + range.hi) / 2 ? 1.0f : 0.0f) : std::round(x);
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

// A buffer of the arena: a conversion's output, or output `output` of a kernel
// that lets the subgraph place it.
struct ArenaBuffer {
  size_t step = 0, output = 0;
  Lifetime life;
};

// The arena's buffers, each from the step that writes it to the last that
// reads it or a view of it; the graph's outputs live to the end. `kernels`:
// by step, the kernel that runs it (none for the other kinds).
std::vector<ArenaBuffer> arena_buffers(const Plan& plan, const std::vector<std::unique_ptr<Kernel>>& kernels,
                                       const std::vector<std::string>& graph_outputs) {
  std::vector<ArenaBuffer> out;
  std::map<std::string, size_t> held_in;  // a tensor, or a view of one -> its buffer
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    for (const auto& r : s.reads)
      if (auto it = held_in.find(r); it != held_in.end()) out[it->second].life.last = i;
    if (s.kind == PlanStep::Kind::convert) {
      held_in[s.writes[0]] = out.size();
      out.push_back({i, 0, {i, i, layout_elements(s.n, s.channels, s.spatial, s.to)}});
    } else if (s.kind == PlanStep::Kind::view) {
      if (auto it = held_in.find(s.reads[0]); it != held_in.end()) held_in[s.writes[0]] = it->second;
    } else {
      for (size_t j = 0; j < s.writes.size(); ++j)
        if (const int64_t n = kernels[i]->placeable_elements(j); n > 0) {
          held_in[s.writes[j]] = out.size();
          out.push_back({i, j, {i, i, n}});
        }
    }
  }
  for (const auto& o : graph_outputs)
    if (auto it = held_in.find(o); it != held_in.end()) out[it->second].life.last = plan.steps.size();
  return out;
}

// By given tensor, the last step that reads it or a view of it; past the
// last step for a graph output's, read when the outputs are.
std::map<std::string, size_t> last_readers(const Plan& plan, const GivenViews& given,
                                           const std::vector<std::string>& graph_outputs) {
  std::map<std::string, std::string> root;  // a given tensor, or a view of one -> the given tensor
  for (const auto& [name, v] : given) root[name] = name;
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    if (s.kind == PlanStep::Kind::view) {  // reads nothing: names the same memory
      if (auto it = root.find(s.reads[0]); it != root.end()) root[s.writes[0]] = it->second;
      continue;
    }
    for (const auto& r : s.reads)
      if (auto it = root.find(r); it != root.end()) last[it->second] = i;
  }
  for (const auto& o : graph_outputs)
    if (auto it = root.find(o); it != root.end()) last[it->second] = plan.steps.size();
  return last;
}

}  // namespace

SubgraphKernel::SubgraphKernel(const SubgraphOp& op, const Plan& plan, const GivenViews& given,
                               const std::function<void(const std::string&)>& unread)
    : op_(op) {
  // Integer constants (Slice's bounds, Gather's indices) reach their ops as
  // attribute values; the kernels read no buffer of them.
  for (const auto& [name, t] : op.graph().tensors)
    if (t.constant && t.dtype != sdk::DType::f32) tensors_[name] = nullptr;
  for (const auto& [name, v] : given) tensors_[name] = v.data();
  std::set<const float*> read_at_run;
  // A given tensor no step reads at run is told to `unread` once its last reader is
  // bound, not after every kernel is: each is freed as its copy is made.
  const auto last_reader = last_readers(plan, given, op.graph().outputs);
  std::multimap<size_t, std::string> unread_after;
  for (const auto& [name, step] : last_reader) unread_after.emplace(step, name);
  for (const auto& [name, v] : given)
    if (!last_reader.count(name)) unread_after.emplace(plan.steps.size(), name);  // BatchNormalization's, folded
  const auto tell_unread = [&](size_t step) {
    const auto [from, to] = unread_after.equal_range(step);
    for (auto it = from; it != to; ++it)
      if (const auto& v = given.at(it->second); read_at_run.count(v.data())) given_.emplace_back(v.data(), v.size_bytes());
      else if (unread) unread(it->second);
  };
  // Every kernel built first, each freeing the outputs it lets the subgraph place.
  std::vector<std::unique_ptr<Kernel>> kernels(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    if (s.kind != PlanStep::Kind::kernel) continue;
    kernels[i] = s.op->build(s.config);
    for (size_t j = 0; j < s.writes.size(); ++j)
      if (kernels[i]->placeable_elements(j) > 0) kernels[i]->place_output(j, nullptr);
  }
  // The conversions and those outputs share one arena where their lifetimes allow:
  // the peak is what is live at once, not the sum of every tensor.
  const auto buffers = arena_buffers(plan, kernels, op.graph().outputs);
  std::vector<Lifetime> lifetimes;
  for (const auto& b : buffers) lifetimes.push_back(b.life);
  const ArenaPlan arena = plan_arena(lifetimes);
  if (!buffers.empty()) arena_ = std::make_unique<Buffer>(arena.elements);
  std::map<std::pair<size_t, size_t>, float*> placed;  // (step, output) -> where it lies
  for (size_t b = 0; b < buffers.size(); ++b)
    placed[{buffers[b].step, buffers[b].output}] = arena_->data() + arena.offsets[b];
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    Step step;
    step.plan_step = i;
    switch (s.kind) {
      case PlanStep::Kind::view:
        tensors_[s.writes[0]] = at(s.reads[0]);
        continue;
      case PlanStep::Kind::convert: {
        float* dst = placed.at({i, 0});
        const int64_t elements = layout_elements(s.n, s.channels, s.spatial, s.to);
        step.convert = {at(s.reads[0]), dst, s.from, s.to, s.n, s.channels, s.spatial};
        read_at_run.insert(at(s.reads[0]));
        step.threads = default_threads(op.host(), static_cast<double>(elements));
        tensors_[s.writes[0]] = dst;
        break;
      }
      case PlanStep::Kind::kernel: {
        step.op = s.op;
        step.kernel = std::move(kernels[i]);
        for (size_t j = 0; j < s.writes.size(); ++j)
          if (auto it = placed.find({i, j}); it != placed.end()) step.kernel->place_output(j, it->second);
        std::vector<const float*> inputs;
        for (const auto& r : s.reads) inputs.push_back(at(r));
        Folded folded;
        if (!s.batch_norm.empty()) folded = fold_batch_norm(s, given, inputs);
        step.kernel->bind(inputs);
        for (size_t k = 0; k < inputs.size(); ++k)
          if (step.kernel->reads_at_run(k)) read_at_run.insert(inputs[k]);
        // The folded weights and bias are inputs 1 and 2: one the kernel copied as it bound is freed here.
        for (size_t k = 0; k < folded.size(); ++k)
          if (folded[k] && step.kernel->reads_at_run(k + 1)) owned_.push_back(std::move(folded[k]));
        for (size_t j = 0; j < s.writes.size(); ++j) tensors_[s.writes[j]] = step.kernel->kept_output(j);
        step.empty = std::all_of(s.writes.begin(), s.writes.end(), [&](const std::string& w) {
          return op.graph().tensors.count(w) && op.graph().tensor(w).elements() == 0;
        });
        break;
      }
    }
    steps_.push_back(std::move(step));
    tell_unread(i);
  }
  for (const auto& o : op.graph().outputs) read_at_run.insert(at(o));
  tell_unread(plan.steps.size());
}

const float* SubgraphKernel::at(const std::string& tensor) const {
  auto it = tensors_.find(tensor);
  if (it == tensors_.end())
    throw sdk::Error(sdk::StatusCode::internal, "the subgraph plan reads '" + tensor + "' before it is written");
  return it->second;
}

// y = ((W * x + b) - mean) * scale / sqrt(var + eps) + B, folded once, as
// an inference runtime loads the model: W' = W * k, b' = (b - mean) * k + B.
SubgraphKernel::Folded SubgraphKernel::fold_batch_norm(const PlanStep& step, const GivenViews& given,
                                                       std::vector<const float*>& inputs) {
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
  return {std::move(weights), std::move(bias)};
}

void SubgraphKernel::run_step(Step& s, ThreadPool& pool) {
  if (s.empty) return;
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
  const auto count = static_cast<size_t>(op_.graph().tensor(name).elements());
  if (count > 0) std::memcpy(out, at(name), count * sizeof(float));
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
  if (arena_) f.emplace_back(arena_->data(), arena_->bytes());
  return f;
}

BoundKernel bind_subgraph(const SubgraphOp& op, const sdk::Config& config, const SubgraphData& data) {
  return {std::make_unique<SubgraphKernel>(op, op.lower(config), views_of(data.given)), {}};
}

}  // namespace aoe::cpu
