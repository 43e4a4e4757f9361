#include "subgraph_op.h"

#include <algorithm>
#include <cmath>

#include "aoe/sdk/dropout_view.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "held_dtype.h"
#include "layout_following.h"
#include "op_util.h"

namespace aoe::cpu {

std::string node_where(const sdk::Node& node) { return "node '" + node.name + "' (" + node.op_type + ")"; }

namespace {

const std::set<std::string> kViewOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};

// Ops whose kernels choose a layout (their `format` knob).
bool has_layout_choice(const std::string& op_type) {
  return op_type == "Conv" || op_type == "MaxPool" || op_type == "AveragePool";
}

// Every tensor in the model's layout: what the references and the kernels
// without a layout choice take.
sdk::OpTask plain(sdk::OpTask task) {
  for (auto* list : {&task.inputs, &task.outputs})
    for (auto& t : *list)
      if (t.format == "NCHWc") t.format = "NCHW";
  return task;
}

sdk::OpTask node_task(const sdk::Graph& g, const sdk::Node& node) {
  sdk::OpTask t;
  t.name = node.name;
  t.op_type = node.op_type;
  t.attrs = node.attrs;
  // A kernel fused already (a training step's) runs with its followers, as sdk::fuse makes it.
  if (t.attrs.is_object() && t.attrs.contains(sdk::kFusedOpsAttr) && t.attrs.at(sdk::kFusedOpsAttr).is_array()) {
    t.fused_ops = t.attrs.at(sdk::kFusedOpsAttr).get<std::vector<std::string>>();
    t.attrs.erase(sdk::kFusedOpsAttr);
  }
  for (const auto& in : present(node.inputs)) t.inputs.push_back(g.tensor(in));
  for (const auto& out : present(node.outputs)) t.outputs.push_back(g.tensor(out));
  return plain(t);
}

int knob_index(const sdk::TuningSpace& space, const std::string& name) {
  for (size_t i = 0; i < space.knobs.size(); ++i)
    if (space.knobs[i].name == name) return static_cast<int>(i);
  return -1;
}

// Kernels in an order that runs each after those it reads from: fusion
// lists them by anchor, and a chain may read a value produced by a later
// anchor (a residual Add fused after a Conv reads the other branch).
std::vector<sdk::FusedOp> in_dependency_order(std::vector<sdk::FusedOp> kernels) {
  std::map<std::string, size_t> producer;
  for (size_t k = 0; k < kernels.size(); ++k)
    for (const auto& t : kernels[k].task.outputs) producer[t.name] = k;
  std::vector<std::set<size_t>> needs(kernels.size());
  for (size_t k = 0; k < kernels.size(); ++k)
    for (const auto& t : kernels[k].task.inputs)
      if (auto it = producer.find(t.name); it != producer.end() && it->second != k) needs[k].insert(it->second);
  std::vector<sdk::FusedOp> out;
  std::vector<bool> done(kernels.size(), false);
  while (out.size() < kernels.size()) {
    bool progressed = false;
    for (size_t k = 0; k < kernels.size(); ++k) {
      if (done[k] || !std::all_of(needs[k].begin(), needs[k].end(), [&](size_t p) { return done[p]; })) continue;
      done[k] = true;
      out.push_back(kernels[k]);
      progressed = true;
      break;
    }
    if (!progressed) throw sdk::Error(sdk::StatusCode::internal, "the fused kernels of the subgraph depend on each other in a cycle");
  }
  return out;
}

void batch_norm_reference(const sdk::Node& node, const sdk::Graph& g, std::map<std::string, std::vector<float>>& values) {
  const auto ins = present(node.inputs);
  const auto& x = values.at(ins[0]);
  const auto& shape = g.tensor(ins[0]).shape;
  const auto& scale = values.at(ins[1]);
  const auto& bias = values.at(ins[2]);
  const auto& mean = values.at(ins[3]);
  const auto& var = values.at(ins[4]);
  const double eps = float_attr(node.attrs, "epsilon", 1e-5);
  const int64_t n = shape[0], c = shape[1], spatial = elements(Shape(shape.begin() + 2, shape.end()));
  std::vector<float> y(x.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch) {
      const double k = scale[ch] / std::sqrt(static_cast<double>(var[ch]) + eps);
      for (int64_t s = 0; s < spatial; ++s) {
        const size_t at = static_cast<size_t>((i * c + ch) * spatial + s);
        y[at] = static_cast<float>((x[at] - static_cast<double>(mean[ch])) * k + bias[ch]);
      }
    }
  values[present(node.outputs)[0]] = std::move(y);
}

// Only float32 results fuse: integer Div and Mod, and the comparisons, run
// on their own kernel.
bool float_outputs(const sdk::Graph& g, const sdk::Node& node) {
  for (const auto& o : present(node.outputs))
    if (g.tensor(o).dtype != sdk::DType::f32) return false;
  return true;
}

// Inputs whose values the kernels read as attributes (value_attributes in the
// host's graph normaliser): a Clip's bounds. (A Resize reads scales fed as
// the model runs when it runs.)
std::vector<size_t> value_inputs(const std::string& op_type) {
  if (op_type == "Clip") return {1, 2};
  return {};
}

// The terms a constant operand of a MatMul or Gemm (its weights) is summed
// over, or 0 for any other input. Such weights are drawn as a Linear layer
// initialises them, over +-1/sqrt(fan-in): drawn over +-1, each product of
// K terms grows by sqrt(K / 3), and past two of them (attention's scores
// reach thousands) a softmax turns one-hot, so finely that float32 rounding
// moves it by more than any comparison with the reference allows.
int64_t weights_fan_in(const sdk::Graph& g, const sdk::Node& node, size_t k) {
  const auto ins = present(node.inputs);
  if (k > 1 || k >= ins.size() || ins[k] != node.inputs[k] || !g.tensor(ins[k]).constant) return 0;
  const Shape& s = g.tensor(ins[k]).shape;
  if (s.size() < 2) return 0;
  const size_t rank = s.size();
  if (node.op_type == "MatMul") return k == 0 ? s[rank - 1] : s[rank - 2];
  if (node.op_type == "Gemm") {
    const bool trans = int_attr(node.attrs, k == 0 ? "transA" : "transB", 0) != 0;
    return (k == 0) != trans ? s[1] : s[0];
  }
  return 0;
}

}  // namespace

bool is_view(const sdk::Node& node) {
  if (node.op_type == "Dropout")
    return sdk::dropout_is_view(node.attrs, node.inputs.size() >= 3 && !node.inputs[2].empty(), present(node.outputs).size());
  return kViewOps.count(node.op_type) > 0;
}

SubgraphOp::SubgraphOp(const sdk::SubgraphTask& task, std::shared_ptr<const HostCpu> host)
    : task_(task), host_(std::move(host)) {
  const auto& g = task_.graph;
  if (g.nodes.empty()) invalid("subgraph '" + task_.name + "' has no nodes");
  for (const auto& t : fusable_op_types()) fusable_.insert(t);
  lanes_ = isa_kernels(host_->best_isa())->lanes;

  std::set<std::string> written;
  for (const auto& node : g.nodes) {
    check_node(node);
    for (const auto& o : present(node.outputs)) written.insert(o);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto ins = present(g.nodes[i].inputs);
    for (size_t k = 0; k < ins.size(); ++k) {
      // Integer and bool tensors are data as float32 ones are (held as
      // whole numbers), but for constants of a dtype the device does not
      // hold: values an op took as attributes. Gather's indices fed at run
      // time are drawn over the rows they pick.
      const bool run_time_indices = g.nodes[i].op_type == "Gather" && k == 1 && !g.tensor(ins[k]).constant;
      if (written.count(ins[k]) || !is_held(g.tensor(ins[k]).dtype)) continue;
      if (given_.count(ins[k])) {
        if (run_time_indices) {  // indices of several Gathers: rows all of them have
          const ValueRange r = node_ops_[i]->input_range(k);
          given_[ins[k]] = {std::max(given_[ins[k]].lo, r.lo), std::min(given_[ins[k]].hi, r.hi)};
        }
        continue;
      }
      ValueRange r;
      if (node_ops_[i]) r = node_ops_[i]->input_range(k);
      if (g.nodes[i].op_type == "BatchNormalization" && k == 4) r = {0.5f, 2.0f};  // a variance
      if (const int64_t fan_in = weights_fan_in(g, g.nodes[i], k); fan_in > 0 && r.values.empty() && !r.whole) {
        const auto bound = static_cast<float>(1.0 / std::sqrt(static_cast<double>(fan_in)));
        r.lo *= bound;
        r.hi *= bound;
      }
      given_[ins[k]] = r;
    }
  }

  // The default lowering: every fusion the device makes.
  const auto kernels = sdk::fuse(g, fusable_, {}, [&](const sdk::Node& n) { return float_outputs(g, n); });
  std::vector<sdk::Knob> fuse_knobs, layout_knobs, tiling_knobs;
  std::vector<int64_t> tiling_defaults;
  std::vector<std::string> layout_order;
  auto consider_layout = [&](const std::string& name) {
    if (std::find(layout_order.begin(), layout_order.end(), name) == layout_order.end()) layout_order.push_back(name);
  };
  for (const auto& k : kernels) {
    const sdk::Node& anchor = *std::find_if(g.nodes.begin(), g.nodes.end(),
                                            [&](const sdk::Node& n) { return n.name == k.node_names.front(); });
    if (is_view(anchor) || anchor.op_type == "Constant") continue;
    std::unique_ptr<CpuOp> op;
    try {
      op = make_op(plain(k.task), *host_);
    } catch (const sdk::Error& e) {
      throw sdk::Error(e.code(), "subgraph '" + task_.name + "', kernel '" + k.task.name + "': " + e.what());
    }
    for (size_t j = 1; j < k.node_names.size(); ++j)
      if (k.op_types[j] != "BatchNormalization")
        fuse_knobs.push_back(sdk::Knob::integer(sdk::kFuseKnob + k.node_names[j], sdk::KnobTag::impl, 0, 1));
    if (has_layout_choice(anchor.op_type)) {
      // What the kernel reads, and what it may write as the chain is cut
      // anywhere (never a Conv's value before the BatchNormalization it folds).
      consider_layout(k.task.inputs[0].name);
      if (anchor.op_type == "Conv")
        for (size_t i : fused_ops(k.task).inputs) consider_layout(k.task.inputs[i].name);
      for (size_t j = 0; j < k.node_names.size(); ++j) {
        if (j + 1 < k.op_types.size() && k.op_types[j + 1] == "BatchNormalization") continue;
        for (const auto& n : g.nodes)
          if (n.name == k.node_names[j])
            for (const auto& o : present(n.outputs)) consider_layout(o);
      }
    }
    if (task_.op_configs.is_object() && task_.op_configs.contains(anchor.name)) {
      tiling_knobs.push_back(sdk::Knob::categorical(sdk::kTilingKnob + anchor.name, sdk::KnobTag::schedule, {"default", "tuned"}));
      // Tuned by default, unless this machine cannot run the bank's tiling.
      bool runs = true;
      try {
        runs = op->check(kernel_config(anchor.name, *op, true)).empty();
      } catch (const sdk::Error&) {
        runs = false;
      }
      tiling_defaults.push_back(runs ? 1 : 0);
    }
  }
  std::set<std::string> outside(g.inputs.begin(), g.inputs.end());
  outside.insert(g.outputs.begin(), g.outputs.end());
  std::set<std::string> by_views, from_views;
  for (const auto& node : g.nodes)
    if (is_view(node)) {
      for (const auto& i : present(node.inputs)) by_views.insert(i);
      for (const auto& o : present(node.outputs)) from_views.insert(o);
    }
  // Attention cores: off by default, as an operator-by-operator runtime runs them.
  // A core its kernel cannot run, or whose kernel would cut a fusion chain, keeps its ops.
  std::vector<sdk::Knob> attention_knobs;
  for (const auto& p : find_attention(g)) {
    try {
      attention_.push_back(std::make_shared<const AttentionOp>(p, g, *host_));
    } catch (const sdk::Error&) {
      continue;
    }
    sdk::SubgraphDecisions alone;  // this core as one kernel, the others as their ops
    for (size_t a = 0; a + 1 < attention_.size(); ++a) alone.unfused.insert(attention_[a]->pattern().softmax);
    try {
      std::map<std::string, std::shared_ptr<const AttentionOp>> kernels;
      kernels_of(alone, kernels);
    } catch (const sdk::Error&) {
      attention_.pop_back();
      continue;
    }
    attention_knobs.push_back(sdk::Knob::integer(sdk::kFuseKnob + p.softmax, sdk::KnobTag::impl, 0, 1));
  }
  for (const auto& name : layout_order) {
    const auto& t = g.tensor(name);
    // The subgraph's own inputs and outputs keep the model's layout: the
    // model around it reads and writes them so. A view aliases plain data.
    // Whole channel blocks only: no padding lanes between kernels.
    if (outside.count(name) || t.constant || !written.count(name) || by_views.count(name) || from_views.count(name))
      continue;
    if (t.shape.size() != 4 || t.shape[1] % lanes_ != 0) continue;
    layout_tensors_.insert(name);
    layout_knobs.push_back(sdk::Knob::categorical(sdk::kLayoutKnob + name, sdk::KnobTag::format, {"NCHW", "NCHWc"}));
  }

  space_.version = "1";
  for (const auto& k : fuse_knobs) space_.knobs.push_back(k), space_.default_config.push_back(1);
  for (const auto& k : attention_knobs) space_.knobs.push_back(k), space_.default_config.push_back(0);
  for (const auto& k : layout_knobs) space_.knobs.push_back(k), space_.default_config.push_back(0);
  for (size_t i = 0; i < tiling_knobs.size(); ++i)
    space_.knobs.push_back(tiling_knobs[i]), space_.default_config.push_back(tiling_defaults[i]);
  try {
    lower(space_.default_config);
  } catch (const sdk::Error& e) {
    throw sdk::Error(sdk::StatusCode::unsupported, "subgraph '" + task_.name + "' cannot run as it is: " + e.what());
  }
}

void SubgraphOp::check_node(const sdk::Node& node) {
  const auto& g = task_.graph;
  for (const auto* list : {&node.inputs, &node.outputs})
    for (const auto& name : present(*list)) {
      if (!g.tensors.count(name)) invalid(node_where(node) + " touches '" + name + "', which the subgraph does not describe");
      const auto& t = g.tensor(name);
      if (!t.fully_known())
        unsupported("subgraph '" + task_.name + "', " + node_where(node) + ": tensor '" + name + "' has unknown dims " +
                    to_string(t.shape) + "; the cpu device runs static shapes only");
    }
  const auto ins = present(node.inputs), outs = present(node.outputs);
  if (node.op_type == "Constant") {
    // An integer Constant (Slice's bounds, as exporters write them) reaches
    // the ops that read it as their attributes: nothing runs. A float one is data.
    for (const auto& o : outs)
      if (g.tensor(o).dtype == sdk::DType::f32)
        unsupported("subgraph '" + task_.name + "', " + node_where(node) +
                    ": the cpu device runs integer Constants only, which ops take as values; fold float ones into initializers");
    node_ops_.push_back(nullptr);
    return;
  }
  // Values an op's kernel takes as attributes: known only as the model runs, they are not seen.
  for (const size_t index : value_inputs(node.op_type))
    if (index < node.inputs.size() && !node.inputs[index].empty() && !g.tensor(node.inputs[index]).constant)
      unsupported("subgraph '" + task_.name + "', " + node_where(node) + ": input '" + node.inputs[index] +
                  "' is computed as the model runs; the cpu device takes it from the model's constants only");
  if (is_view(node)) {
    if (ins.empty() || outs.size() != 1)
      unsupported("subgraph '" + task_.name + "', " + node_where(node) + ": a view takes one input and gives one output");
    if (!is_held(g.tensor(ins[0]).dtype) || g.tensor(ins[0]).dtype != g.tensor(outs[0]).dtype ||
        g.tensor(ins[0]).elements() != g.tensor(outs[0]).elements())
      unsupported("subgraph '" + task_.name + "', " + node_where(node) + ": the cpu device views data of the same size and a dtype it holds only (" +
                  sdk::to_string(g.tensor(ins[0]).dtype) + " '" + ins[0] + "')");
    node_ops_.push_back(nullptr);
    return;
  }
  // In training, BatchNormalization runs its own kernel (below); at inference a Conv may fold it.
  if (node.op_type == "BatchNormalization" && int_attr(node.attrs, "training_mode", 0) == 0) {
    if (ins.size() != 5 || outs.size() != 1 || node.inputs[0] != ins[0])
      unsupported("subgraph '" + task_.name + "', " + node_where(node) + ": the cpu device folds inference BatchNormalization with one output only");
    const auto& x = g.tensor(ins[0]).shape;
    for (size_t k = 1; k < 5; ++k)
      if (x.size() < 2 || g.tensor(ins[k]).elements() != x[1] || g.tensor(ins[k]).dtype != sdk::DType::f32)
        invalid(node_where(node) + ": input '" + ins[k] + "' does not hold one float per channel");
    node_ops_.push_back(nullptr);
    return;
  }
  try {
    node_ops_.push_back(make_op(node_task(g, node), *host_));
  } catch (const sdk::Error& e) {
    throw sdk::Error(e.code(), "subgraph '" + task_.name + "', " + node_where(node) + ": " + e.what());
  }
}

sdk::Config SubgraphOp::kernel_config(const std::string& anchor, const CpuOp& op, bool tuned) const {
  sdk::Config c = op.space().default_config;
  if (!tuned) return c;
  const std::string knob = sdk::kTilingKnob + anchor;
  const auto& want = task_.op_configs.at(anchor);
  if (!want.is_object()) invalid(knob + ": op_configs[\"" + anchor + "\"] is not an object of knob values");
  for (const auto& [name, value] : want.items()) {
    const int i = knob_index(op.space(), name);
    if (i < 0) invalid(knob + ": the kernel anchored there has no knob '" + name + "'");
    // A label, or the config's value: a categorical knob's by its index, as the bank keeps it.
    const auto v = op.space().knobs[static_cast<size_t>(i)].value_of(value);
    if (!v) invalid(knob + ": " + name + " = " + value.dump() + " is not a value the kernel's knob takes");
    c[static_cast<size_t>(i)] = *v;
  }
  return c;
}

int SubgraphOp::stored_lanes(const std::string& tensor, const sdk::SubgraphDecisions& d) const {
  if (!layout_tensors_.count(tensor)) return 0;
  auto it = d.layouts.find(tensor);
  return it != d.layouts.end() && it->second == "NCHWc" ? lanes_ : 0;
}

// The kernels of a strategy: the fusion it keeps, and each attention core
// it runs as one kernel in place of the kernels of its nodes (`attention`:
// the kernel's name -> its op).
std::vector<sdk::FusedOp> SubgraphOp::kernels_of(const sdk::SubgraphDecisions& d,
                                                 std::map<std::string, std::shared_ptr<const AttentionOp>>& attention) const {
  const auto& g = task_.graph;
  std::set<std::string> inside, written;  // nodes of the attention kernels, and what they write
  for (const auto& op : attention_)
    if (!d.unfused.count(op->pattern().softmax)) inside.insert(op->pattern().nodes.begin(), op->pattern().nodes.end());
  for (const auto& n : g.nodes)
    if (inside.count(n.name)) written.insert(n.outputs.begin(), n.outputs.end());
  std::set<std::string> produced;
  for (const auto& n : g.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
  // No chain crosses an attention kernel's edge.
  auto may_fuse = [&](const sdk::Node& n) {
    if (d.unfused.count(n.name) || !float_outputs(g, n)) return false;
    for (const auto& in : n.inputs)
      if (!in.empty() && produced.count(in) && written.count(in) != inside.count(n.name)) return false;
    return true;
  };
  std::vector<sdk::FusedOp> out;
  for (auto& k : sdk::fuse(g, fusable_, {}, may_fuse)) {
    const auto in = std::count_if(k.node_names.begin(), k.node_names.end(), [&](const std::string& n) { return inside.count(n) > 0; });
    if (in != 0 && in != static_cast<std::ptrdiff_t>(k.node_names.size()))
      throw sdk::Error(sdk::StatusCode::internal, "kernel '" + k.task.name + "' crosses an attention kernel's edge");
    if (in == 0) out.push_back(std::move(k));
  }
  for (const auto& op : attention_) {
    const auto& p = op->pattern();
    if (d.unfused.count(p.softmax)) continue;
    sdk::FusedOp k;
    k.task.op_type = "Attention";
    for (const auto& n : p.nodes) k.task.name += (k.task.name.empty() ? "" : "+") + n;
    for (const auto& r : op->reads()) k.task.inputs.push_back(g.tensor(r));
    k.task.outputs = {g.tensor(op->writes())};
    k.node_names = p.nodes;
    attention[k.task.name] = op;
    out.push_back(std::move(k));
  }
  return in_dependency_order(std::move(out));
}

Plan SubgraphOp::lower(const sdk::Config& config) const {
  const auto& g = task_.graph;
  const auto d = sdk::SubgraphDecisions::of(space_, config);
  std::map<std::string, std::shared_ptr<const AttentionOp>> attention;
  const auto kernels = kernels_of(d, attention);
  Plan plan;
  std::map<std::string, int> stored;  // tensor (or converted copy) -> lanes
  for (const auto& [name, t] : g.tensors) stored[name] = 0;
  auto label = [&](int lanes) { return lanes == 0 ? std::string("NCHW") : lanes == lanes_ ? std::string("NCHWc") : "NCHW" + std::to_string(lanes) + "c"; };
  auto conversion = [&](const std::string& from, const std::string& to, int from_lanes, int to_lanes, const std::string& tensor) {
    PlanStep s;
    s.kind = PlanStep::Kind::convert;
    s.name = from + " -> " + to;
    s.reads = {from};
    s.writes = {to};
    s.from = from_lanes;
    s.to = to_lanes;
    const auto& shape = g.tensor(tensor).shape;
    s.n = shape[0];
    s.channels = shape[1];
    s.spatial = elements(Shape(shape.begin() + 2, shape.end()));
    plan.steps.push_back(std::move(s));
    stored[to] = to_lanes;
  };
  // A kernel's output in a layout other than the tensor's, where no layout
  // knob chose it (a blocked output with padding lanes, say): converted
  // only once something reads it in another layout than the kernel wrote,
  // so it feeds the next blocked kernel as it is. Tensor -> the kernel's copy.
  std::map<std::string, std::string> unconverted;
  auto settle = [&](const std::string& name) {
    const auto it = unconverted.find(name);
    if (it == unconverted.end()) return;
    conversion(it->second, name, stored.at(it->second), stored_lanes(name, d), name);
    unconverted.erase(it);
  };
  // Whether the tensor is at hand in the blocked layout, as stored or as its kernel left it.
  auto stored_blocked = [&](const std::string& name) {
    if (const auto it = unconverted.find(name); it != unconverted.end()) return stored.at(it->second) == lanes_;
    const auto it = stored.find(name);
    return it != stored.end() && it->second == lanes_;
  };
  // The tensor in layout `need`: itself, or its converted copy (made once).
  auto source = [&](const std::string& name, int need) {
    if (const auto it = unconverted.find(name); it != unconverted.end() && stored.at(it->second) == need)
      return it->second;
    settle(name);
    const int have = stored.at(name);
    if (have == need) return name;
    const std::string copy = name + "@" + label(need);
    if (!stored.count(copy)) conversion(name, copy, have, need, name);
    return copy;
  };

  for (const auto& k : kernels) {
    if (auto a = attention.find(k.task.name); a != attention.end()) {
      PlanStep s;
      s.kind = PlanStep::Kind::kernel;
      s.name = k.task.name;
      s.nodes = k.node_names;
      s.task = k.task;
      s.op = a->second;
      s.config = s.op->space().default_config;
      for (const auto& in : k.task.inputs) s.reads.push_back(source(in.name, 0));
      s.writes = {k.task.outputs[0].name};
      stored[s.writes[0]] = 0;
      plan.steps.push_back(std::move(s));
      continue;
    }
    if (k.task.op_type == "Constant") continue;  // integer values, taken as attributes
    const auto anchor_node = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const sdk::Node& n) { return n.name == k.node_names.front(); });
    if (anchor_node != g.nodes.end() && is_view(*anchor_node)) {
      PlanStep s;
      s.kind = PlanStep::Kind::view;
      s.name = k.node_names.front();
      s.nodes = k.node_names;
      s.reads = {source(k.task.inputs[0].name, 0)};
      s.writes = {k.task.outputs[0].name};
      plan.steps.push_back(std::move(s));
      continue;
    }
    const sdk::OpTask task = sdk::under(k.task, d);
    const std::string& anchor = k.node_names.front();
    sdk::OpTask run = plain(task);
    sdk::Config tiling;
    std::shared_ptr<const CpuOp> op;
    try {
      const auto probe = make_op(run, *host_);
      tiling = kernel_config(anchor, *probe, d.tuned.count(anchor) > 0);
      // A blocked config takes and leaves its activations blocked.
      const int format = knob_index(probe->space(), "format");
      if (has_layout_choice(task.op_type) && format >= 0 && tiling[static_cast<size_t>(format)] == 1) {
        const bool reads_nchw = probe->reads_nchw_input(tiling);
        if (stored_blocked(run.inputs[0].name) || !reads_nchw) run.inputs[0].format = "NCHWc";
        run.outputs[0].format = "NCHWc";
        if (task.op_type == "Conv")
          for (size_t i : fused_ops(run).inputs)
            if (!run.inputs[i].constant && run.inputs[i].shape == run.outputs[0].shape) run.inputs[i].format = "NCHWc";
        op = make_op(run, *host_);
        // A first layer fed by another's blocked output with padding lanes (fewer channels
        // than a vector) may have no kernel for it blocked: it reads the NCHW copy instead.
        if (reads_nchw && run.inputs[0].format == "NCHWc" && !op->check(tiling).empty()) {
          run.inputs[0].format = "NCHW";
          op = make_op(run, *host_);
        }
      } else {
        if (!has_layout_choice(task.op_type)) follow_blocked_layout(run, lanes_, stored_blocked);
        op = make_op(run, *host_);
      }
    } catch (const sdk::Error& e) {
      invalid("kernel '" + task.name + "': " + e.what());
    }
    if (auto why = op->check(tiling); !why.empty())
      invalid("kernel '" + task.name + "' refuses " + op->space().describe(tiling).dump() + ": " + why);
    PlanStep s;
    s.kind = PlanStep::Kind::kernel;
    s.name = task.name;
    s.nodes = k.node_names;
    s.task = task;
    s.config = tiling;
    if (k.op_types.size() > 1 && k.op_types[1] == "BatchNormalization") s.batch_norm = k.node_names[1];
    for (size_t i = 0; i < run.inputs.size(); ++i) s.reads.push_back(source(run.inputs[i].name, op->input_blocking(i)));
    std::vector<std::string> converted_now;  // outputs whose layout a knob chose
    for (size_t j = 0; j < run.outputs.size(); ++j) {
      const std::string& name = run.outputs[j].name;
      const int leave = op->output_blocking(), want = stored_lanes(name, d);
      if (leave == want) {
        s.writes.push_back(name);
        stored[name] = want;
      } else {
        s.writes.push_back(name + "@kernel");
        stored[name + "@kernel"] = leave;
        unconverted[name] = name + "@kernel";
        if (layout_tensors_.count(name)) converted_now.push_back(name);
      }
    }
    s.op = std::move(op);
    plan.steps.push_back(std::move(s));
    for (const auto& name : converted_now) settle(name);
  }
  // The subgraph's outputs leave in the model's layout.
  for (const auto& name : g.outputs) settle(name);
  return plan;
}

sdk::Config SubgraphOp::stored_as_written(const sdk::Config& config) const {
  // A kernel that follows its input's layout writes blocked once its input
  // is stored so: settled when no knob changes (each pass sets more).
  sdk::Config out = config;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& s : lower(out).steps) {
      if (s.kind != PlanStep::Kind::kernel || s.op->output_blocking() != lanes_) continue;
      for (const auto& o : s.task.outputs) {
        const int knob = knob_index(space_, sdk::kLayoutKnob + o.name);
        if (knob >= 0 && out[static_cast<size_t>(knob)] != 1) out[static_cast<size_t>(knob)] = 1, changed = true;  // NCHWc
      }
    }
  }
  return out;
}

void SubgraphOp::reference(std::map<std::string, std::vector<float>>& values, const AfterNode& after_node) const {
  const auto& g = task_.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& node = g.nodes[i];
    const auto ins = present(node.inputs), outs = present(node.outputs);
    if (node.op_type == "Constant") continue;
    if (is_view(node)) {
      values[outs[0]] = values.at(ins[0]);
      continue;
    }
    if (node.op_type == "BatchNormalization" && !node_ops_[i]) {
      batch_norm_reference(node, g, values);
      if (after_node) after_node(node, values);
      continue;
    }
    const CpuOp& op = *node_ops_[i];
    std::vector<const float*> in;
    for (const auto& name : ins) {
      const auto value = values.find(name);
      // An integer constant the op took as attribute values has none.
      if (value == values.end() && g.tensor(name).constant && g.tensor(name).dtype != sdk::DType::f32) in.push_back(nullptr);
      else in.push_back(values.at(name).data());
    }
    std::vector<std::vector<float>> results;
    for (const auto& shape : op.output_shapes()) results.emplace_back(static_cast<size_t>(elements(shape)));
    std::vector<float*> out;
    for (auto& r : results) out.push_back(r.data());
    op.reference(in, out);
    for (size_t j = 0; j < outs.size() && j < results.size(); ++j) values[outs[j]] = std::move(results[j]);
    if (after_node) after_node(node, values);
  }
}

}  // namespace aoe::cpu
