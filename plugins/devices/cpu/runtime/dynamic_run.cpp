#include "dynamic_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "op_util.h"
#include "shape_inference.h"
#include "step_flops.h"
#include "subgraph_op.h"

namespace aoe::cpu {

using nlohmann::json;

namespace {

bool chooses_branch(const std::string& op_type) { return op_type == "If"; }
bool runs_body(const std::string& op_type) { return op_type == "Loop"; }
// A Loop's stacked scan output at most: as many values as a tensor of
// run-time shape may hold.
constexpr auto kMaxStackedValues = static_cast<size_t>(kMaxRunTimeValues);

bool sized_by_values(const std::string& op_type) {
  return chooses_branch(op_type) || runs_body(op_type) || is_value_shaped_op(op_type);
}


// The names a graph reads from outside it: what its nodes and, within
// them, If's branches and Loop's body read and nothing in it writes (its own
// constants and a body's inputs aside).
void outer_reads(const sdk::Graph& g, std::set<std::string>& out) {
  std::set<std::string> made;
  for (const auto& n : g.nodes) made.insert(n.outputs.begin(), n.outputs.end());
  const auto outside = [&](const std::string& name) {
    return !made.count(name) && !(g.tensors.count(name) && g.tensor(name).constant);
  };
  for (const auto& n : g.nodes) {
    for (const auto& name : present(n.inputs))
      if (outside(name)) out.insert(name);
    for (const char* key : {"then_branch", "else_branch", "body"})
      if (sized_by_values(n.op_type) && n.attrs.contains(key) && n.attrs.at(key).is_object()) {
        const auto sub = n.attrs.at(key).get<sdk::Graph>();
        std::set<std::string> inner;
        outer_reads(sub, inner);
        for (const auto& name : sub.inputs) inner.erase(name);
        for (const auto& name : inner)
          if (outside(name)) out.insert(name);
      }
  }
  for (const auto& name : g.outputs)
    if (!made.count(name)) out.insert(name);
}

}  // namespace

bool has_value_shaped_ops(const sdk::Graph& graph) {
  for (const auto& n : graph.nodes)
    if (sized_by_values(n.op_type)) return true;
  return false;
}

struct DynamicModel::Value {
  Shape shape;
  std::span<const float> data;
};

struct DynamicModel::Segment {
  std::unique_ptr<SubgraphOp> op;
  sdk::Config strategy;
  Plan plan;
  std::map<std::string, std::vector<float>> inputs;  // the run-time tensors it reads, copied where its kernels read them
  std::map<std::string, std::vector<float>> drawn;   // weights the run does not lend
  GivenViews given;
  std::unique_ptr<SubgraphKernel> kernel;  // made on the first run that is not a reference one
  std::vector<double> step_ms;             // summed over the runs
  bool ran = false;                        // with its kernels, not on the references alone
  bool kept = false;                       // its kernels and input copies within the model's budget
};

// What a round of evaluate() decided and what it decided it from.
struct DynamicModel::Round {
  std::vector<const sdk::Node*> pending;
  std::vector<std::pair<std::string, Shape>> scope_shapes;            // every value in scope as the round began
  std::vector<std::pair<const sdk::Node*, const sdk::Node*>> valued;  // a node and its plan for the values it read
  Segment* segment = nullptr;
  std::vector<const sdk::Node*> after, later;
};

DynamicModel::DynamicModel(sdk::Graph graph, std::shared_ptr<const HostCpu> host, json op_configs, uint64_t seed,
                           int64_t kept_bytes)
    : graph_(std::move(graph)),
      host_(std::move(host)),
      op_configs_(std::move(op_configs)),
      seed_(seed),
      kept_budget_(kept_bytes) {}

DynamicModel::~DynamicModel() = default;

std::vector<HeldTensor> DynamicModel::run(const GivenViews& given, ThreadPool& pool) {
  Values env;
  for (const auto& [name, data] : given) env[name] = {graph_.tensor(name).shape, data};
  std::vector<std::vector<float>> held;
  evaluate(graph_, "", env, held, &pool);
  std::vector<HeldTensor> out;
  for (const auto& name : graph_.outputs) {
    const Value& v = env.at(name);
    out.push_back({v.shape, {v.data.begin(), v.data.end()}});
  }
  recycle(held);
  return out;
}

std::vector<HeldTensor> DynamicModel::reference(const GivenViews& given) {
  Values env;
  for (const auto& [name, data] : given) env[name] = {graph_.tensor(name).shape, data};
  std::vector<std::vector<float>> held;
  evaluate(graph_, "", env, held, nullptr);
  std::vector<HeldTensor> out;
  for (const auto& name : graph_.outputs) {
    const Value& v = env.at(name);
    out.push_back({v.shape, {v.data.begin(), v.data.end()}});
  }
  return out;
}

// Rounds until every node ran: the nodes whose input shapes are known form
// a segment (their output shapes inferred), the value-shaped ops they feed
// run after it, and their results make more shapes known for the next round.
void DynamicModel::evaluate(const sdk::Graph& graph, const std::string& scope, Values& env,
                            std::vector<std::vector<float>>& held, ThreadPool* pool) {
  std::vector<const sdk::Node*> pending;
  for (const auto& n : graph.nodes) pending.push_back(&n);
  auto& rounds = rounds_[{&graph, scope}];
  for (size_t r = 0; !pending.empty(); ++r) {
    if (r < rounds.size() && repeats(rounds[r], pending, env)) {
      const Round& round = rounds[r];
      if (round.segment && !round.segment->op->graph().outputs.empty()) run_segment(*round.segment, env, held, pool);
      for (const auto* node : round.after) run_value_shaped(scope, *node, env, held, pool);
      pending = round.later;
      continue;
    }
    Round round;
    round.pending = pending;
    for (const auto& [name, v] : env) round.scope_shapes.emplace_back(name, v.shape);
    std::map<std::string, Shape> shapes;
    for (const auto& [name, t] : graph.tensors)
      if (t.constant && t.fully_known()) shapes[name] = t.shape;
    for (const auto& [name, v] : env) shapes[name] = v.shape;
    std::vector<const sdk::Node*> segment, after, later;
    for (const auto* node : pending) {
      std::vector<Shape> in;
      bool known = true;
      for (const auto& name : reads(*node)) {
        const auto it = shapes.find(name);
        if (it == shapes.end()) {
          known = false;
          break;
        }
        in.push_back(it->second);
      }
      if (!known) {
        later.push_back(node);
      } else if (sized_by_values(node->op_type)) {
        after.push_back(node);
      } else {
        // Values computed as the model runs (a TopK's K, a Slice's bounds) are read once an
        // earlier segment has computed them: the node waits for the next round till then.
        const auto run_time = run_time_value_slots(graph, *node);
        if (std::any_of(run_time.begin(), run_time.end(), [&](size_t slot) { return !env.count(node->inputs[slot]); })) {
          later.push_back(node);
          continue;
        }
        const auto [planned, planned_values] = with_its_values(*node, env);
        if (planned != node) round.valued.emplace_back(node, planned);
        const auto outs = infer_output_shapes(graph, *planned, in, *planned_values);
        if (!outs)
          unsupported(node_where(*node) + " has an output whose dims ONNX's inference left unknown, and the cpu device cannot "
                      "work a " + node->op_type + "'s out from its input shapes as the model runs (" + shape_inference_ops() + ")");
        const auto names = present(node->outputs);
        for (size_t j = 0; j < names.size(); ++j) shapes[names[j]] = (*outs)[j];
        segment.push_back(planned);
      }
    }
    if (segment.empty() && after.empty())
      invalid("graph '" + graph.name + "': " + node_where(*later.front()) + " reads a tensor that no node writes");
    std::set<std::string> needed(graph.outputs.begin(), graph.outputs.end());
    for (const auto* list : {&after, &later})
      for (const auto* node : *list)
        for (const auto& name : reads(*node)) needed.insert(name);
    if (!segment.empty()) {
      round.segment = &segment_for(graph, scope, segment, shapes, needed, env);
      if (!round.segment->op->graph().outputs.empty()) run_segment(*round.segment, env, held, pool);
    }
    round.after = after;
    round.later = later;
    if (rounds.size() <= r) rounds.resize(r + 1);
    rounds[r] = std::move(round);
    for (const auto* node : after) run_value_shaped(scope, *node, env, held, pool);
    pending = std::move(later);
  }
}

bool DynamicModel::repeats(const Round& round, const std::vector<const sdk::Node*>& pending, const Values& env) {
  if (round.pending != pending || round.scope_shapes.size() != env.size()) return false;
  auto v = env.begin();
  for (const auto& [name, shape] : round.scope_shapes) {
    if (v->first != name || v->second.shape != shape) return false;
    ++v;
  }
  return std::all_of(round.valued.begin(), round.valued.end(),
                     [&](const auto& nv) { return with_its_values(*nv.first, env).first == nv.second; });
}

std::pair<const sdk::Node*, const SlotValues*> DynamicModel::with_its_values(const sdk::Node& node, const Values& env) {
  static const SlotValues kNone;
  // The run-time values, and the constants' (a Reshape's shape of a run-time input).
  std::vector<std::pair<size_t, std::span<const float>>> given;
  for (const size_t slot : value_input_slots(node))
    if (const auto v = env.find(node.inputs[slot]); v != env.end()) given.emplace_back(slot, v->second.data);
  if (given.empty()) return {&node, &kNone};
  // The values of the run before, met again (a run repeated on its inputs): nothing converted or looked up.
  auto& last = last_values_[&node];
  const auto same = [](const std::pair<size_t, std::span<const float>>& g, const std::pair<size_t, std::vector<float>>& l) {
    return g.first == l.first && g.second.size() == l.second.size() &&
           (l.second.empty() || std::memcmp(g.second.data(), l.second.data(), l.second.size() * sizeof(float)) == 0);
  };
  if (last.planned && std::equal(given.begin(), given.end(), last.given.begin(), last.given.end(), same))
    return {last.planned, last.values};
  SlotValues values;
  for (const auto& [slot, data] : given) {
    auto& ints = values[slot];  // none at all is a value too (a level no box falls in)
    ints.reserve(data.size());
    for (const float x : data) ints.push_back(static_cast<int64_t>(std::llround(x)));
  }
  auto [it, made] = valued_.try_emplace({&node, std::move(values)});
  if (made) it->second = with_value_attributes(node, it->first.second);
  last.given.clear();
  for (const auto& [slot, data] : given) last.given.emplace_back(slot, std::vector<float>(data.begin(), data.end()));
  last.planned = &it->second;
  last.values = &it->first.second;
  return {last.planned, last.values};
}

DynamicModel::Segment& DynamicModel::segment_for(const sdk::Graph& graph, const std::string& scope,
                                                 const std::vector<const sdk::Node*>& nodes,
                                                 const std::map<std::string, Shape>& shapes,
                                                 const std::set<std::string>& needed, const Values& env) {
  std::set<std::string> written;
  for (const auto* n : nodes)
    for (const auto& o : present(n->outputs)) written.insert(o);
  // A branch's or a body's own constants, or the model's it reads from
  // outside (its weights, lent by the run: never copied as a run-time input).
  const auto constant_desc = [&](const std::string& name) -> const sdk::TensorDesc* {
    for (const sdk::Graph* g : {&graph, static_cast<const sdk::Graph*>(&graph_)})
      if (const auto it = g->tensors.find(name); it != g->tensors.end() && it->second.constant) return &it->second;
    return nullptr;
  };
  const auto is_constant = [&](const std::string& name) { return constant_desc(name) != nullptr; };
  // The key first: the segment's graph is built only when no run made it before.
  std::string key = scope + "|";
  std::set<std::string> keyed;
  for (const auto* n : nodes) {
    for (const auto& name : present(n->inputs))
      if (!written.count(name) && !is_constant(name) && keyed.insert(name).second)
        key += name + to_string(shapes.at(name)) + ";";
    key += n->name + ",";
    if (has_value_inputs(n->op_type)) {  // the values it was planned with: the node made for them, its outputs' shapes
      key += std::to_string(reinterpret_cast<std::uintptr_t>(n));
      for (const auto& name : present(n->outputs)) key += to_string(shapes.at(name));
      key += ",";
    }
  }
  auto& slot = segments_[key];
  if (slot) return *slot;
  sdk::Graph g;
  g.name = (graph.name.empty() ? std::string("model") : graph.name) + (scope.empty() ? "" : " " + scope);
  g.opset = graph.opset;
  for (const auto* n : nodes) {
    g.nodes.push_back(*n);
    for (const auto* list : {&n->inputs, &n->outputs})
      for (const auto& name : present(*list)) {
        if (g.tensors.count(name)) continue;
        const auto* constant = constant_desc(name);
        sdk::TensorDesc t = constant ? *constant : graph.tensors.count(name) ? graph.tensor(name) : sdk::TensorDesc{.name = name};
        t.shape = shapes.at(name);
        const bool read = !written.count(name);
        if (read && !t.constant) g.inputs.push_back(name);
        if (!read && needed.count(name) && !t.constant) g.outputs.push_back(name);
        g.tensors[name] = std::move(t);
      }
  }
  auto s = std::make_unique<Segment>();
  sdk::SubgraphTask task;
  task.name = g.name;
  task.graph = std::move(g);
  task.op_configs = op_configs_;
  s->op = std::make_unique<SubgraphOp>(task, host_);
  s->strategy = s->op->stored_as_written(s->op->space().default_config);
  s->plan = s->op->lower(s->strategy);
  s->step_ms.assign(s->plan.steps.size(), 0.0);
  for (const auto& name : s->op->graph().inputs)
    s->inputs[name].assign(static_cast<size_t>(s->op->graph().tensor(name).elements()), 0.0f);
  GivenViews lent;
  for (const auto& [name, range] : s->op->given()) {
    if (const auto it = s->inputs.find(name); it != s->inputs.end()) lent[name] = std::span<const float>(it->second);
    else if (const auto v = env.find(name); v != env.end()) lent[name] = v->second.data;
  }
  s->drawn = random_given(*s->op, seed_, lent);
  for (const auto& [name, values] : s->drawn) lent.emplace(name, std::span<const float>(values));
  s->given = std::move(lent);
  slot = std::move(s);
  return *slot;
}

void DynamicModel::run_segment(Segment& s, Values& env, std::vector<std::vector<float>>& held, ThreadPool* pool) {
  for (auto& [name, buffer] : s.inputs) {
    const Value& v = env.at(name);
    if (buffer.size() != v.data.size()) {  // released to keep within the budget: the kernel is made again too
      buffer.resize(v.data.size());
      s.given[name] = std::span<const float>(buffer);
    }
    std::copy(v.data.begin(), v.data.end(), buffer.begin());
  }
  const sdk::Graph& g = s.op->graph();
  if (pool) {
    s.ran = true;
    if (!s.kernel) s.kernel = std::make_unique<SubgraphKernel>(*s.op, s.plan, s.given);
    s.kernel->run_profiled(*pool, s.step_ms);
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      auto& out = hold(held, static_cast<size_t>(g.tensor(g.outputs[i]).elements()));
      s.kernel->read_output(i, out.data());
      env[g.outputs[i]] = {g.tensor(g.outputs[i]).shape, std::span<const float>(out)};
    }
    if (!s.kept) keep_or_release(s);
    return;
  }
  std::map<std::string, std::vector<float>> values;
  for (const auto& [name, v] : s.given) values[name].assign(v.begin(), v.end());
  s.op->reference(values);
  for (const auto& name : g.outputs) {
    auto& out = held.emplace_back(std::move(values.at(name)));
    env[name] = {g.tensor(name).shape, std::span<const float>(out)};
  }
}

// Kept while the budget allows, first come first kept: the segments of a
// run come round in the same order each run, and releasing the least
// recently run one to keep the next would remake every one each run.
void DynamicModel::keep_or_release(Segment& s) {
  int64_t bytes = s.kernel->arena_bytes();
  for (const auto& [name, buffer] : s.inputs) bytes += static_cast<int64_t>(buffer.size() * sizeof(float));
  if (bytes <= kept_budget_ - kept_) {
    kept_ += bytes;
    s.kept = true;
    return;
  }
  s.kernel.reset();
  for (auto& [name, buffer] : s.inputs) std::vector<float>().swap(buffer);
  ++released_;
}

void DynamicModel::run_value_shaped(const std::string& scope, const sdk::Node& node, Values& env,
                                    std::vector<std::vector<float>>& held, ThreadPool* pool) {
  const std::string id = scope + node.name;
  if (runs_body(node.op_type)) return run_loop(id, node, env, held, pool);
  if (chooses_branch(node.op_type)) {
    const Value& cond = env.at(node.inputs.at(0));
    if (cond.data.size() != 1)
      invalid(node_where(node) + ": the condition '" + node.inputs[0] + "' holds " + std::to_string(cond.data.size()) +
              " values; If takes one");
    const char* key = cond.data[0] != 0.0f ? "then_branch" : "else_branch";
    auto& branch = branches_[id + "/" + key];
    if (branch.nodes.empty() && branch.outputs.empty()) {
      if (!node.attrs.contains(key) || !node.attrs.at(key).is_object())
        unsupported(node_where(node) + " carries no " + key + " the cpu device can run");
      branch = node.attrs.at(key).get<sdk::Graph>();
    }
    const auto outs = node.outputs;
    if (branch.outputs.size() < present(outs).size())
      invalid(node_where(node) + ": its " + key + " gives " + std::to_string(branch.outputs.size()) + " outputs for " +
              std::to_string(outs.size()));
    Values inner = env;  // the outer scope's values, visible to the branch
    evaluate(branch, id + "/" + key + "/", inner, held, pool);
    for (size_t j = 0; j < outs.size(); ++j)
      if (!outs[j].empty()) env[outs[j]] = inner.at(branch.outputs[j]);
    return;
  }
  auto& op = ops_[id];
  if (!op) op = make_value_shaped_op(node);
  std::vector<HeldTensor> inputs(node.inputs.size());
  std::vector<const HeldTensor*> slots(node.inputs.size(), nullptr);
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    if (node.inputs[k].empty()) continue;
    const auto it = env.find(node.inputs[k]);
    if (it == env.end())
      invalid(node_where(node) + " reads '" + node.inputs[k] + "', a constant whose values the run was not given");
    inputs[k] = {it->second.shape, {it->second.data.begin(), it->second.data.end()}};
    slots[k] = &inputs[k];
  }
  const auto start = std::chrono::steady_clock::now();
  auto results = pool ? op->run(slots) : op->reference(slots);
  op_types_[id] = node.op_type;
  if (pool) op_ms_[id] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (size_t j = 0; j < node.outputs.size() && j < results.size(); ++j) {
    if (node.outputs[j].empty()) continue;
    auto& out = held.emplace_back(std::move(results[j].values));
    env[node.outputs[j]] = {std::move(results[j].shape), std::span<const float>(out)};
  }
}

// ONNX's Loop: while i < M (where given) and cond (where given), the body
// maps (i, cond, carried values) to (cond, carried values, scan values);
// each scan value is stacked along a new first axis. The body's segments
// are planned once per distinct set of shapes, as the model's are.
void DynamicModel::run_loop(const std::string& id, const sdk::Node& node, Values& env,
                            std::vector<std::vector<float>>& held, ThreadPool* pool) {
  auto& body = branches_[id + "/body"];
  if (body.nodes.empty() && body.outputs.empty()) {
    if (!node.attrs.contains("body") || !node.attrs.at("body").is_object())
      unsupported(node_where(node) + " carries no body the cpu device can run");
    body = node.attrs.at("body").get<sdk::Graph>();
  }
  const auto scalar = [&](size_t k, const char* what) -> std::optional<float> {
    if (k >= node.inputs.size() || node.inputs[k].empty()) return std::nullopt;
    const Value& v = env.at(node.inputs[k]);
    if (v.data.size() != 1)
      invalid(node_where(node) + ": its " + what + " '" + node.inputs[k] + "' holds " + std::to_string(v.data.size()) +
              " values; Loop takes one");
    return v.data[0];
  };
  const auto trips = scalar(0, "trip count");
  const auto cond_in = scalar(1, "condition");
  if (!trips && !cond_in)
    invalid(node_where(node) + " has neither a trip count nor a condition: it would never end");
  const size_t carried = node.inputs.size() > 2 ? node.inputs.size() - 2 : 0;
  if (body.inputs.size() != carried + 2 || body.outputs.size() < carried + 1)
    invalid(node_where(node) + ": its body takes " + std::to_string(body.inputs.size()) + " inputs and gives " +
            std::to_string(body.outputs.size()) + " outputs for " + std::to_string(carried) +
            " carried values; ONNX's Loop wants 2 + N inputs and 1 + N + K outputs");
  const size_t scans = body.outputs.size() - 1 - carried;
  if (node.outputs.size() > carried + scans)
    invalid(node_where(node) + " has " + std::to_string(node.outputs.size()) + " outputs; its body gives " +
            std::to_string(carried + scans));
  const auto shape_of = [&](const std::string& name) {
    return body.tensors.count(name) && body.tensor(name).fully_known() ? body.tensor(name).shape : Shape{};
  };
  std::vector<HeldTensor> state(carried), stacked(scans);
  for (size_t k = 0; k < carried; ++k) {
    const Value& v = env.at(node.inputs[2 + k]);
    state[k] = {v.shape, {v.data.begin(), v.data.end()}};
  }
  for (size_t s = 0; s < scans; ++s) {
    stacked[s].shape = shape_of(body.outputs[1 + carried + s]);
    stacked[s].shape.insert(stacked[s].shape.begin(), 0);
  }
  // A trip count as the runtime holds it (a float): beyond 2^63 it is no limit.
  const int64_t limit = !trips ? std::numeric_limits<int64_t>::max()
                        : *trips <= 0.0f ? 0
                        : *trips >= 9.2e18f ? std::numeric_limits<int64_t>::max()
                                            : static_cast<int64_t>(*trips);
  bool cond = !cond_in || *cond_in != 0.0f;
  std::vector<float> iteration(1), condition(1);
  for (int64_t i = 0; i < limit && cond; ++i) {
    std::vector<std::vector<float>> held_here;
    Values inner = env;  // the outer scope's values, visible to the body
    iteration[0] = static_cast<float>(i);
    condition[0] = 1.0f;
    inner[body.inputs[0]] = {shape_of(body.inputs[0]), iteration};
    inner[body.inputs[1]] = {shape_of(body.inputs[1]), condition};
    for (size_t k = 0; k < carried; ++k) inner[body.inputs[2 + k]] = {state[k].shape, state[k].values};
    evaluate(body, id + "/body/", inner, held_here, pool);
    if (cond_in) {
      const Value& c = inner.at(body.outputs[0]);
      if (c.data.size() != 1)
        invalid(node_where(node) + ": its body's condition '" + body.outputs[0] + "' holds " +
                std::to_string(c.data.size()) + " values; Loop takes one");
      cond = c.data[0] != 0.0f;
    }
    for (size_t k = 0; k < carried; ++k) {
      const Value& v = inner.at(body.outputs[1 + k]);
      auto values = taken_or_copied(held_here, v.data);
      held_here.push_back(std::move(state[k].values));  // recycled with the body's buffers below
      state[k] = {v.shape, std::move(values)};
    }
    for (size_t s = 0; s < scans; ++s) {
      const Value& v = inner.at(body.outputs[1 + carried + s]);
      auto& out = stacked[s];
      Shape each(out.shape.begin() + 1, out.shape.end());
      if (i == 0) out.shape = Shape{0}, out.shape.insert(out.shape.end(), v.shape.begin(), v.shape.end());
      else if (v.shape != each)
        invalid(node_where(node) + ": its scan output '" + body.outputs[1 + carried + s] + "' is " + to_string(v.shape) +
                " in iteration " + std::to_string(i) + " and " + to_string(each) + " before; ONNX's Loop stacks equal shapes");
      if (out.values.size() + v.data.size() > kMaxStackedValues)
        invalid(node_where(node) + ": its scan output '" + body.outputs[1 + carried + s] + "' passes " +
                std::to_string(kMaxStackedValues) + " values in iteration " + std::to_string(i) +
                "; check the trip count and the condition the run was given");
      out.values.insert(out.values.end(), v.data.begin(), v.data.end());
      ++out.shape[0];
    }
    recycle(held_here);  // what the body gave is copied out
  }
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    if (node.outputs[j].empty()) continue;
    HeldTensor& t = j < carried ? state[j] : stacked[j - carried];
    auto& out = held.emplace_back(std::move(t.values));
    env[node.outputs[j]] = {std::move(t.shape), std::span<const float>(out)};
  }
}

std::vector<float>& DynamicModel::hold(std::vector<std::vector<float>>& held, size_t elements) {
  const auto spare = spare_.lower_bound(elements);
  if (spare == spare_.end()) {
    // Bigger than every spare buffer: the biggest makes room for it, so a
    // tensor that grows (a Loop's carried value) leaves no trail behind.
    if (!spare_.empty()) spare_.erase(std::prev(spare_.end()));
    return held.emplace_back(elements);
  }
  auto& out = held.emplace_back(std::move(spare->second));
  spare_.erase(spare);
  out.resize(elements);
  return out;
}

void DynamicModel::recycle(std::vector<std::vector<float>>& held) {
  for (auto& buffer : held)
    if (buffer.capacity()) spare_.emplace(buffer.capacity(), std::move(buffer));
  held.clear();
}

std::vector<float> DynamicModel::taken_or_copied(std::vector<std::vector<float>>& held, std::span<const float> values) {
  for (auto& buffer : held)
    if (buffer.data() == values.data() && buffer.size() == values.size() && !buffer.empty()) return std::move(buffer);
  return {values.begin(), values.end()};
}

json DynamicModel::kernels_report(size_t runs) const {
  json out = json::array();
  const double n = runs ? static_cast<double>(runs) : 1.0;
  for (const auto& [key, s] : segments_) {
    if (!s->ran) continue;  // run on the references alone
    const auto decisions = sdk::SubgraphDecisions::of(s->op->space(), s->strategy);
    for (size_t i = 0; i < s->plan.steps.size(); ++i) {
      const auto& step = s->plan.steps[i];
      if (step.kind != PlanStep::Kind::kernel) continue;
      const std::string& anchor = step.nodes.front();
      json k = {{"name", step.name},
                {"op_type", step.task.op_type.empty() ? "Attention" : step.task.op_type},
                {"anchor", anchor},
                {"config_source", decisions.tuned.count(anchor) ? "bank" : "default"},
                {"config", step.op->space().describe(step.config)},
                {"ms", s->step_ms[i] / n}};
      if (const double flops = step_flops(step); flops > 0) k["gflop"] = flops / 1e9;
      out.push_back(std::move(k));
    }
  }
  for (const auto& [id, ms] : op_ms_)
    out.push_back({{"name", id}, {"op_type", op_types_.at(id)}, {"anchor", id}, {"config_source", "default"}, {"ms", ms / n}});
  return out;
}

// Present inputs in order, then for an If or a Loop what its branches or body read from outside.
const std::vector<std::string>& DynamicModel::reads(const sdk::Node& node) {
  auto& r = reads_[&node];
  if (!r.empty() || node.inputs.empty()) return r;
  r = present(node.inputs);
  if (!chooses_branch(node.op_type) && !runs_body(node.op_type)) return r;
  sdk::Graph alone;
  alone.nodes = {node};
  std::set<std::string> outer;
  outer_reads(alone, outer);
  for (const auto& name : outer)
    if (std::find(r.begin(), r.end(), name) == r.end()) r.push_back(name);
  return r;
}

void DynamicModel::clear_times() {
  for (auto& [key, s] : segments_) std::fill(s->step_ms.begin(), s->step_ms.end(), 0.0);
  for (auto& [id, ms] : op_ms_) ms = 0;
}

size_t DynamicModel::segment_plans() const { return segments_.size(); }

int64_t DynamicModel::arena_bytes() const {
  int64_t bytes = 0;
  for (const auto& [key, s] : segments_)
    if (s->kernel) bytes += s->kernel->arena_bytes();
  return bytes;
}

Footprint DynamicModel::footprint() const {
  Footprint f;
  for (const auto& [key, s] : segments_)
    if (s->kernel) {
      const auto k = s->kernel->footprint();
      f.insert(f.end(), k.begin(), k.end());
    }
  return f;
}

}  // namespace aoe::cpu
