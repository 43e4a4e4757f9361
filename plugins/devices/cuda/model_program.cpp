#include "model_program.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "arena_plan.h"
#include "attention_kernel.h"
#include "conv_kernel.h"
#include "elementwise_kernel.h"
#include "gemm_plan.h"
#include "gemm_template.h"
#include "op_kernel.h"

namespace aoe::cuda {
namespace {

using nlohmann::json;

[[noreturn]] void unsupported(const std::string& why) { throw sdk::Error(sdk::StatusCode::unsupported, why); }

// Weights start at 256-byte boundaries, as cudaMalloc aligns a buffer.
constexpr int64_t kWeightAlignFloats = 64;

// A kernel before the buffers are placed: the tensors it reads, by argument, and writes.
struct Step {
  ProgramKernel kernel;
  std::vector<std::string> reads;  // per argument before the output; "" where it passes none
  std::string writes;
};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "+") + p;
  return out;
}

// The bank's config for `anchor` as the kernel's knobs take it, where `runs` says the kernel runs it on this GPU.
std::optional<sdk::Config> bank_config(const json& op_configs, const std::string& anchor, const sdk::TuningSpace& space,
                                       const std::function<bool(const sdk::Config&)>& runs) {
  if (!op_configs.is_object() || !op_configs.contains(anchor) || !op_configs[anchor].is_object()) return std::nullopt;
  const json& by_knob = op_configs[anchor];
  sdk::Config config;
  for (const auto& knob : space.knobs) {
    // A knob the bank's config predates (a GEMM's math) that has one value here takes it.
    if (!by_knob.contains(knob.name) && knob.values.size() == 1) {
      config.push_back(knob.values.front());
      continue;
    }
    if (!by_knob.contains(knob.name) || !by_knob[knob.name].is_number_integer()) return std::nullopt;
    config.push_back(by_knob[knob.name].get<int64_t>());
  }
  if (!space.in_domain(config) || !runs(config)) return std::nullopt;
  return config;
}

Step gemm_step(const sdk::FusedOp& fused, const json& op_configs, const GpuLimits& limits, const ReducedPrecision& allowed) {
  GemmProblem problem = gemm_problem(fused.task);
  problem.allowed = allowed;
  const sdk::TuningSpace space = gemm_space(problem);
  const std::string& anchor = fused.node_names.front();
  const auto banked =
      bank_config(op_configs, anchor, space, [&](const sdk::Config& c) { return gemm_check(problem, c, limits).ok(); });
  const sdk::Config config = banked ? *banked : gemm_default(problem, limits);
  Step step;
  ProgramKernel& k = step.kernel;
  k.name = joined(fused.node_names);
  k.op_type = joined(fused.op_types);
  k.anchor = anchor;
  k.source = gemm_source(problem, config);
  k.function = "aoe_gemm";
  k.launch = gemm_launch(problem, config);
  k.config = space.describe(config);
  k.config_source = banked ? "bank" : "default";
  const auto& in = fused.task.inputs;
  const auto addend = [&](bool has, int input) { return has ? in.at(static_cast<size_t>(input)).name : std::string(); };
  step.reads = {in.at(0).name, in.at(1).name, addend(problem.has_bias, problem.bias_input),
                addend(problem.has_residual, problem.residual_input)};
  step.writes = fused.task.outputs.at(0).name;
  if (gemm_zeroes_output(config)) k.zero = std::make_pair(int64_t{0}, problem.batch * problem.m * problem.n * 4);
  return step;
}

// Each tensor's readers.
using Readers = std::map<std::string, std::vector<const sdk::Node*>>;
Readers readers_of(const sdk::Graph& graph) {
  Readers readers;
  for (const auto& n : graph.nodes)
    for (const auto& t : n.inputs)
      if (!t.empty()) readers[t].push_back(&n);
  return readers;
}

// The one node reading `tensor`; nullptr where none or several do.
const sdk::Node* sole_reader(const Readers& readers, const std::string& tensor) {
  const auto it = readers.find(tensor);
  return it == readers.end() || it->second.size() != 1 ? nullptr : it->second.front();
}

// The nodes that join the kernel computing `entering`, in the order they
// run, and the further operands they read (ChainOperands::further).
struct Chain {
  std::vector<const sdk::Node*> nodes;
  std::vector<std::string> further;
};

// Again and again the first node (in graph order: `graph.nodes` holds
// them, so the lower address) that reads a value of the chain (`entering`
// and what it computed), joins it (joins_chain, which may read `operands`
// and take up to `slots` further ones `further` allows) and that no GEMM's
// epilogue takes; then cut back to the longest run after which no value but
// the last is a graph output or read outside it, so only the last need be written.
Chain follow_chain(const sdk::Graph& graph, const Readers& readers, const std::string& entering, const std::set<std::string>& outputs,
                   const std::set<std::string>& taken, const ScalarOf& scalar, ChainOperands operands = {},
                   const OperandCheck& further = {}, size_t slots = 0) {
  Chain chain;
  std::vector<size_t> further_after;  // per node, how many further operands the chain reads with it
  std::set<const sdk::Node*> joined;
  std::set<std::string> values = {entering};
  const auto joins = [&](const sdk::Node& r) {
    return joins_chain(graph, r, values, scalar, operands.names, further) &&
           operands.further.size() + further_operands(graph, r, values, scalar, operands.names).size() <= slots;
  };
  for (;;) {
    const sdk::Node* next = nullptr;
    for (const auto& v : values) {
      const auto it = readers.find(v);
      if (it == readers.end()) continue;
      for (const sdk::Node* r : it->second)
        if (!joined.count(r) && !taken.count(r->name) && !r->outputs.empty() && !values.count(r->outputs[0]) &&
            (!next || r < next) && joins(*r))
          next = r;
    }
    if (!next) break;
    ChainOperands with = operands;
    for (const auto& t : further_operands(graph, *next, values, scalar, operands.names)) with.add(t);
    chain.nodes.push_back(next);
    if (!follow_on_expression(graph, entering, chain.nodes, 1, scalar, with.names).fits()) {
      chain.nodes.pop_back();
      break;
    }
    operands = std::move(with);
    further_after.push_back(operands.further.size());
    joined.insert(next);
    values.insert(next->outputs[0]);
  }
  const auto& nodes = chain.nodes;
  const auto closed = [&](size_t length) {
    const std::set<const sdk::Node*> inside(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(length));
    for (size_t i = 0; i < length; ++i) {
      const std::string& value = i == 0 ? entering : nodes[i - 1]->outputs[0];
      if (outputs.count(value)) return false;
      const auto it = readers.find(value);
      if (it != readers.end())
        for (const sdk::Node* r : it->second)
          if (!inside.count(r)) return false;
    }
    return true;
  };
  size_t length = nodes.size();
  while (length > 0 && !closed(length)) --length;
  chain.nodes.resize(length);
  chain.further = operands.further;
  chain.further.resize(length == 0 ? 0 : further_after[length - 1]);
  return chain;
}

// The nodes the GEMM's epilogue may take after a MatMul or Gemm (none of
// `taken`), as it applies them: up to two Adds (a bias and a residual; one
// after Gemm's C), then a Relu or Gelu. A chain past them runs node by node.
std::set<std::string> epilogue_nodes(const sdk::Graph& graph, const Readers& readers, const std::set<std::string>& taken) {
  const auto reader_of = [&](const std::string& tensor, const std::set<std::string>& types) -> const sdk::Node* {
    const sdk::Node* r = sole_reader(readers, tensor);
    return r && types.count(r->op_type) ? r : nullptr;
  };
  std::set<std::string> out;
  for (const auto& n : graph.nodes) {
    if ((n.op_type != "MatMul" && n.op_type != "Gemm") || n.outputs.empty() || taken.count(n.name)) continue;
    std::string last = n.outputs[0];
    const bool has_c = n.op_type == "Gemm" && n.inputs.size() > 2 && !n.inputs[2].empty();
    for (int adds = has_c ? 1 : 0; adds < 2; ++adds) {
      const sdk::Node* add = reader_of(last, {"Add"});
      if (!add || add->outputs.empty()) break;
      out.insert(add->name);
      last = add->outputs[0];
    }
    if (const sdk::Node* act = reader_of(last, {"Relu", "Gelu"})) out.insert(act->name);
  }
  return out;
}

// A Conv and the nodes after it that its kernel's epilogue takes
// (ConvEpilogue), each the sole reader of the one before and none writing a
// graph output: an inference BatchNormalization of constant per-filter
// parameters, an Add of a tensor of the output's shape that `ready` says is
// written before the Conv runs (a residual), then ops that follow in a chain.
// None of them a GEMM's epilogue takes (`taken`).
struct ConvFusion {
  std::vector<const sdk::Node*> nodes;
  ConvEpilogue epilogue;
  std::vector<std::string> batch_norm_params;  // scale, B, mean, var
  std::string residual;
};

ConvFusion conv_fusion(const sdk::Graph& graph, const Readers& readers, const sdk::Node& conv, const std::set<std::string>& outputs,
                       const std::set<std::string>& taken, const std::function<bool(const std::string&)>& ready, const ScalarOf& scalar) {
  ConvFusion f;
  f.nodes = {&conv};
  const auto value = [&] { return f.nodes.back()->outputs.at(0); };
  const auto next = [&]() -> const sdk::Node* {
    const sdk::Node& last = *f.nodes.back();
    if (last.outputs.size() != 1 || last.outputs[0].empty() || outputs.count(last.outputs[0])) return nullptr;
    const sdk::Node* n = sole_reader(readers, last.outputs[0]);
    return n && !taken.count(n->name) && n->outputs.size() == 1 ? n : nullptr;
  };
  if (conv.outputs.size() != 1 || conv.inputs.size() < 2) return f;
  const auto& shape = graph.tensor(conv.outputs[0]).shape;
  if (shape.size() < 2) return f;
  const int64_t filters = shape[1];
  const sdk::Node* n = next();
  if (n && n->op_type == "BatchNormalization" && n->inputs.size() == 5 && n->inputs[0] == value() &&
      OpNode(graph, *n).int_attr("training_mode", 0) == 0 &&
      std::all_of(n->inputs.begin() + 1, n->inputs.end(), [&](const std::string& t) {
        return !t.empty() && graph.tensor(t).constant && graph.tensor(t).elements() == filters;
      })) {
    f.epilogue.batch_norm = true;
    f.epilogue.epsilon = OpNode(graph, *n).float_attr("epsilon", 1e-5);
    f.batch_norm_params.assign(n->inputs.begin() + 1, n->inputs.end());
    f.nodes.push_back(n);
    n = next();
  }
  if (n && n->op_type == "Add" && n->inputs.size() == 2 && !n->inputs[0].empty() && !n->inputs[1].empty()) {
    const std::string other = n->inputs[0] == value() ? n->inputs[1] : n->inputs[0];
    if (other != value() && (n->inputs[0] == value() || n->inputs[1] == value()) && graph.tensor(other).shape == shape &&
        graph.tensor(n->outputs[0]).shape == shape && ready(other)) {
      f.epilogue.residual = true;
      f.residual = other;
      f.nodes.push_back(n);
      n = next();
    }
  }
  const std::string entering = value();
  const std::vector<const sdk::Node*> follow = follow_chain(graph, readers, entering, outputs, taken, scalar).nodes;
  f.nodes.insert(f.nodes.end(), follow.begin(), follow.end());
  f.epilogue.follow_on = follow_on_expression(graph, entering, follow, 1, scalar);
  return f;
}

// The step of an op kernel (aoe_op's signature): `reads` per argument before y.
Step op_kernel_step(std::string name, std::string op_type, std::string anchor, OpKernel k, std::vector<std::string> reads,
                    std::string writes) {
  Step step;
  step.kernel.name = std::move(name);
  step.kernel.op_type = std::move(op_type);
  step.kernel.anchor = std::move(anchor);
  step.kernel.source = std::move(k.source);
  step.kernel.function = kOpKernelName;
  step.kernel.launch = k.launch;
  step.reads = std::move(reads);
  step.reads.resize(kOpKernelInputs);
  step.writes = std::move(writes);
  return step;
}

// The step of an op kernel computing `nodes` (one, or a chain): it reads
// the first one's inputs the kernel names, then past them `further`, and
// writes the last one's output.
Step op_step(const std::vector<const sdk::Node*>& nodes, OpKernel k, const std::vector<std::string>& further = {}) {
  std::vector<std::string> names, types, reads;
  for (const auto* n : nodes) names.push_back(n->name), types.push_back(n->op_type);
  const auto& own = nodes.front()->inputs;
  for (const int i : k.inputs) {
    const auto input = static_cast<size_t>(i);
    reads.push_back(input < own.size() ? own[input] : further.at(input - own.size()));
  }
  std::string writes = nodes.back()->outputs.at(static_cast<size_t>(k.output));
  return op_kernel_step(joined(names), joined(types), nodes.front()->name, std::move(k), std::move(reads), std::move(writes));
}

Step attention_step(const AttentionKernel& a) {
  return op_kernel_step(joined(a.nodes), "Attention", a.context, a.kernel, a.reads, a.writes);
}

void require_known(const sdk::Graph& graph, const sdk::Node& node, const std::string& tensor) {
  if (tensor.empty()) return;
  const auto& t = graph.tensor(tensor);
  if (!t.fully_known())
    unsupported("node '" + node.name + "' (" + node.op_type + "): tensor '" + tensor + "' has dims " +
                json(t.shape).dump() + "; the cuda device runs known shapes (set them with --input_shape)");
}

}  // namespace

ModelProgram plan_model(const sdk::Graph& graph, const json& op_configs, const GpuLimits& limits, const ScalarOf& scalar,
                        const ReducedPrecision& allowed) {
  std::map<std::string, const sdk::Node*> by_name;
  for (const auto& n : graph.nodes) {
    by_name[n.name] = &n;
    for (const auto& t : n.inputs) require_known(graph, n, t);
    for (const auto& t : n.outputs) require_known(graph, n, t);
  }
  const auto epilogue = gemm_epilogue_op_types();
  std::map<std::string, std::string> root;  // a view's output -> the tensor whose bytes it is
  const auto root_of = [&](const std::string& t) {
    const auto it = root.find(t);
    return it == root.end() ? t : it->second;
  };
  const Readers readers = readers_of(graph);
  // Each attention core one kernel, run where its context MatMul would be.
  std::map<std::string, AttentionKernel> attention_at;
  std::set<std::string> in_attention;
  for (const auto& pattern : cpu::find_attention(graph))
    if (auto a = attention_kernel(graph, pattern, limits, scalar)) {
      in_attention.insert(a->nodes.begin(), a->nodes.end());
      attention_at.emplace(a->context, std::move(*a));
    }
  const std::set<std::string> members = epilogue_nodes(graph, readers, in_attention);
  const auto may_fuse = [&](const sdk::Node& n) { return members.count(n.name) > 0; };
  // What no elementwise chain may take: the GEMMs' epilogues and the attention cores.
  std::set<std::string> taken = members;
  taken.insert(in_attention.begin(), in_attention.end());
  std::set<std::string> chained;  // nodes run as part of an earlier node's chain
  std::vector<Step> steps;
  // Whether a tensor holds its values before the next step runs.
  const std::set<std::string> inputs(graph.inputs.begin(), graph.inputs.end());
  const auto ready = [&](const std::string& tensor) {
    const std::string r = root_of(tensor);
    if (graph.tensor(r).constant || inputs.count(r)) return true;
    return std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return root_of(s.writes) == r; });
  };
  // An elementwise node, then the nodes that join its kernel (follow_chain),
  // reading besides what is ready by then in the kernel's free arguments.
  const std::set<std::string> outputs(graph.outputs.begin(), graph.outputs.end());
  const auto chain_from = [&](const sdk::Node& first) {
    Chain chain{{&first}, {}};
    if (!is_elementwise_op(first.op_type) || first.op_type == "Expand" || first.outputs.size() != 1 || first.outputs[0].empty())
      return chain;
    const size_t slots = kOpKernelInputs - std::min<size_t>(kOpKernelInputs, first.inputs.size());
    const Chain follow =
        follow_chain(graph, readers, first.outputs[0], outputs, taken, scalar, chain_operands(OpNode(graph, first)), ready, slots);
    chain.nodes.insert(chain.nodes.end(), follow.nodes.begin(), follow.nodes.end());
    chain.further = follow.further;
    return chain;
  };
  for (const auto& fused : sdk::fuse(graph, {epilogue.begin(), epilogue.end()}, {}, may_fuse)) {
    const auto& anchor = *by_name.at(fused.node_names.front());
    if (in_attention.count(anchor.name)) {
      if (const auto it = attention_at.find(anchor.name); it != attention_at.end()) steps.push_back(attention_step(it->second));
      continue;
    }
    if (anchor.op_type == "MatMul" || anchor.op_type == "Gemm") {
      steps.push_back(gemm_step(fused, op_configs, limits, allowed));
      continue;
    }
    // Fused only for the GEMM's epilogue: the other nodes run node by node,
    // but for chains of elementwise ops, each one kernel (chain_from).
    for (const auto& name : fused.node_names) {
      const sdk::Node& node = *by_name.at(name);
      if (chained.count(name) || in_attention.count(name)) continue;
      if (is_view(node)) {
        if (node.inputs.empty() || node.inputs[0].empty() || node.outputs.empty())
          unsupported("node '" + node.name + "' (" + node.op_type + ") has no data input");
        root[node.outputs[0]] = root_of(node.inputs[0]);
        continue;
      }
      if (node.op_type == "Conv" || node.op_type == "ConvTranspose") {
        const ConvFusion fusion = conv_fusion(graph, readers, node, outputs, taken, ready, scalar);
        for (const auto* c : fusion.nodes) chained.insert(c->name);
        // The kernel's knobs from the bank where it holds the Conv's.
        const OpNode conv(graph, node);
        const sdk::TuningSpace space = conv_kernel_space(conv, limits);
        const auto banked =
            bank_config(op_configs, node.name, space, [&](const sdk::Config& c) { return conv_kernel_check(conv, c, limits).ok(); });
        const sdk::Config config = banked ? *banked : space.default_config;
        for (auto& k : conv_kernels(conv, limits, fusion.epilogue, config)) {
          Step step = op_step(fusion.nodes, std::move(k));
          step.kernel.config = space.describe(config);
          step.kernel.config_source = banked ? "bank" : "default";
          for (size_t i = 0; i < fusion.batch_norm_params.size(); ++i) step.reads[kConvBatchNormSlot + i] = fusion.batch_norm_params[i];
          if (fusion.epilogue.residual) step.reads[kConvResidualSlot] = fusion.residual;
          steps.push_back(std::move(step));
        }
        continue;
      }
      const Chain chain = chain_from(node);
      for (const auto* c : chain.nodes) chained.insert(c->name);
      std::vector<OpKernel> kernels;
      if (chain.nodes.size() > 1)
        kernels.push_back(elementwise_chain_kernel(graph, chain.nodes, chain.further, limits, scalar));
      else
        kernels = op_kernels(graph, node, limits);
      for (auto& k : kernels) steps.push_back(op_step(chain.nodes, std::move(k), chain.further));
    }
  }

  // Every activation's lifetime: from the step that writes it (the inputs:
  // before the first) to the last that reads it; the inputs and outputs
  // live through the whole run, so that every run starts from the same inputs.
  const size_t end = steps.size();
  std::map<std::string, size_t> index;  // root activation -> its Lifetime
  std::vector<cpu::Lifetime> lifetimes;
  const auto activation = [&](const std::string& name, size_t first) -> size_t {
    const auto [it, added] = index.emplace(name, lifetimes.size());
    if (added) lifetimes.push_back({first, first, std::max<int64_t>(graph.tensor(name).elements(), 1)});
    return it->second;
  };
  for (const auto& name : graph.inputs) lifetimes[activation(name, 0)].last = end;
  for (size_t i = 0; i < steps.size(); ++i) {
    for (const auto& t : steps[i].reads)
      if (!t.empty() && !graph.tensor(root_of(t)).constant) {
        const std::string r = root_of(t);
        if (!index.count(r)) unsupported("tensor '" + r + "' is read before any kernel writes it");
        lifetimes[index[r]].last = std::max(lifetimes[index[r]].last, i);
      }
    activation(steps[i].writes, i);
  }
  for (const auto& name : graph.outputs) {
    const std::string r = root_of(name);
    if (graph.tensor(r).constant)
      unsupported("output '" + name + "' is the weight '" + r + "'; the cuda device runs outputs that kernels write");
    if (!index.count(r)) unsupported("output '" + name + "' is written by no kernel");
    lifetimes[index[r]].last = end;
  }
  const cpu::ArenaPlan arena = cpu::plan_arena(lifetimes);

  ModelProgram program;
  program.arena_bytes = arena.elements * 4;
  std::map<std::string, int64_t> weight_at;
  const auto place = [&](const std::string& tensor) -> BufferRef {
    if (tensor.empty()) return {};
    const std::string r = root_of(tensor);
    if (!graph.tensor(r).constant) return {BufferRef::Space::arena, arena.offsets[index.at(r)] * 4};
    auto [it, added] = weight_at.emplace(r, program.weights_bytes);
    if (added) {
      program.weights.emplace_back(r, program.weights_bytes);
      const int64_t floats = std::max<int64_t>(graph.tensor(r).elements(), 1);
      program.weights_bytes += (floats + kWeightAlignFloats - 1) / kWeightAlignFloats * kWeightAlignFloats * 4;
    }
    return {BufferRef::Space::weights, it->second};
  };
  for (auto& step : steps) {
    for (const auto& t : step.reads) step.kernel.args.push_back(place(t));
    const BufferRef out = place(step.writes);
    step.kernel.args.push_back(out);
    if (step.kernel.zero) step.kernel.zero->first = out.offset;
    program.kernels.push_back(std::move(step.kernel));
  }
  for (const auto& name : graph.inputs) program.inputs.emplace_back(name, place(name).offset);
  for (const auto& name : graph.outputs) program.outputs.emplace_back(name, place(name).offset);
  return program;
}

}  // namespace aoe::cuda
