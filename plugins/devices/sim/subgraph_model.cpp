#include "subgraph_model.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "elementwise_model.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

const char* const kNd = "ND";

// Ops that move no data: the graph engine runs them as no kernel.
const std::set<std::string> kViewOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                        "Dropout", "Shape",   "Size",    "Constant"};
// Their output is a new, tiny constant-like value rather than a view.
const std::set<std::string> kValueOps = {"Shape", "Size", "Constant"};
// Cube and pooling kernels, and their gradients in a training step, read
// and write feature maps in NC1HWC0 only.
const std::set<std::string> kFractalOps = {"Conv",         "ConvTranspose",        "MaxPool",
                                           "AveragePool",  "Conv2DBackpropInput",  "Conv2DBackpropFilter",
                                           "MaxPoolGradWithArgmax"};
// Kernels that work in either layout: the one of their output.
bool is_flexible(const std::string& op_type) {
  return is_elementwise_op(op_type) || op_type == "GlobalAveragePool" || op_type == "BatchNormalization";
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "+") + n;
  return out;
}

// Kernels in an order that runs each after what it reads; graph order
// among the ready ones. A fused kernel may read an operand made by a kernel
// anchored later in the graph (a residual from a downsample branch).
std::vector<sdk::FusedOp> in_run_order(std::vector<sdk::FusedOp> ops) {
  std::map<std::string, size_t> maker;
  for (size_t i = 0; i < ops.size(); ++i)
    for (const auto& o : ops[i].task.outputs) maker[o.name] = i;
  std::vector<std::set<size_t>> needs(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    for (const auto& in : ops[i].task.inputs)
      if (auto it = maker.find(in.name); it != maker.end() && it->second != i) needs[i].insert(it->second);
  std::vector<sdk::FusedOp> out;
  std::vector<bool> done(ops.size(), false);
  while (out.size() < ops.size()) {
    size_t next = ops.size();
    for (size_t i = 0; i < ops.size() && next == ops.size(); ++i) {
      if (done[i]) continue;
      if (std::all_of(needs[i].begin(), needs[i].end(), [&](size_t j) { return done[j]; })) next = i;
    }
    if (next == ops.size())
      throw Error(StatusCode::invalid_argument, "the subgraph's nodes form a cycle");
    done[next] = true;
    out.push_back(std::move(ops[next]));
  }
  return out;
}

}  // namespace

bool is_view_op(const std::string& op_type) { return kViewOps.count(op_type) != 0; }

SubgraphModel::SubgraphModel(const Soc& soc, sdk::SubgraphTask task, std::set<std::string> fusable)
    : soc_(soc), task_(std::move(task)), fusable_(std::move(fusable)) {
  const auto& g = task_.graph;
  for (const auto& n : g.nodes) {
    for (const auto* names : {&n.inputs, &n.outputs})
      for (const auto& t : *names)
        if (!t.empty() && !g.tensors.count(t))
          throw Error(StatusCode::invalid_argument, "subgraph " + task_.name + ": node '" + n.name + "' (" +
                                                        n.op_type + ") names tensor '" + t + "' it does not describe");
    if (n.attrs.is_object() && n.attrs.contains(sdk::kFusedOpsAttr)) given_.insert(n.name);
    if (kValueOps.count(n.op_type))
      for (const auto& o : n.outputs) non_activations_.insert(o);
    else if (is_view_op(n.op_type) && !n.inputs.empty() && !n.outputs.empty() && !n.outputs[0].empty())
      alias_[n.outputs[0]] = n.inputs[0];
  }
  require_modelled();
  add_knobs();
  // The whole strategy must lower: every kernel of the fullest and of the
  // finest fusion has a model, or the subgraph is refused up front.
  auto unfused = space_.default_config;
  for (size_t i = 0; i < space_.knobs.size(); ++i)
    if (space_.knobs[i].name.rfind(sdk::kFuseKnob, 0) == 0) unfused[i] = 0;
  for (const auto* c : {&space_.default_config, &unfused}) {
    const auto p = plan(*c);
    if (c == &space_.default_config)
      fullest_kernels_ = static_cast<size_t>(std::count_if(p.kernels.begin(), p.kernels.end(), [](const Kernel& k) {
        return k.task.op_type != "TransData";
      }));
  }
}

// Unknown dims and ops without a model are refused by node, before any lowering.
void SubgraphModel::require_modelled() const {
  const auto& g = task_.graph;
  for (const auto& n : g.nodes) {
    for (const auto* names : {&n.inputs, &n.outputs})
      for (const auto& t : *names)
        if (!t.empty() && !g.tensor(t).fully_known())
          throw Error(StatusCode::unsupported, soc_.target + " simulator needs known dims: node '" + n.name + "' (" +
                                                   n.op_type + ") has tensor '" + t + "' of unknown shape");
    if (given_.count(n.name) && !is_view_op(n.op_type)) {
      require_given_modelled(n);
      continue;
    }
    if (!is_view_op(n.op_type) && !fusable_.count(n.op_type) && !is_modelled_op(n.op_type))
      throw Error(StatusCode::unsupported, soc_.target + " simulator does not model op '" + n.op_type +
                                               "' of node '" + n.name + "' in subgraph " + task_.name);
    // The layout knobs pad a feature map's axis 1 into NC1HWC0: channels last would be misread.
    if (sdk::data_layout(n.attrs, n.op_type) == sdk::DataLayout::nhwc)
      throw Error(StatusCode::unsupported, soc_.target + " simulator lays out subgraphs of NCHW feature maps only; node '" +
                                               n.name + "' (" + n.op_type + ") of subgraph " + task_.name +
                                               " is NHWC: tune its ops with operator tuning (--job_type 2)");
  }
}

// A kernel fused already (a training step's) is modelled where its op model
// is: the one OPAT tunes it with.
void SubgraphModel::require_given_modelled(const sdk::Node& n) const {
  sdk::Graph one;
  one.nodes = {n};
  for (const auto* names : {&n.inputs, &n.outputs})
    for (const auto& t : *names)
      if (!t.empty()) one.tensors[t] = task_.graph.tensor(t);
  try {
    op_model(soc_, sdk::fuse(one, fusable_).front().task);
  } catch (const Error& e) {
    throw Error(StatusCode::unsupported, soc_.target + " simulator cannot time kernel '" + n.name + "' (" + n.op_type +
                                             ") of subgraph " + task_.name + ": " + e.what());
  }
}

bool SubgraphModel::is_activation(const std::string& tensor) const {
  return !tensor.empty() && !task_.graph.tensor(tensor).constant && !non_activations_.count(tensor);
}

bool SubgraphModel::is_layout_bearing(const std::string& tensor) const {
  return is_activation(tensor) && task_.graph.tensor(tensor).shape.size() == 4;
}

std::string SubgraphModel::root_of(const std::string& tensor) const {
  std::string t = tensor;
  for (auto it = alias_.find(t); it != alias_.end(); it = alias_.find(t)) t = it->second;
  return t;
}

// What the graph compiler picks untuned: NC1HWC0 for the feature maps a
// Conv or pool reads or writes, carried through the elementwise ops and
// BatchNormalizations that touch them; ND otherwise.
std::map<std::string, bool> SubgraphModel::default_fractal() const {
  const auto& g = task_.graph;
  std::map<std::string, bool> fractal;
  auto tensors_of = [&](const sdk::Node& n) {
    std::vector<std::string> out;
    for (const auto* names : {&n.inputs, &n.outputs})
      for (const auto& t : *names)
        if (is_layout_bearing(t)) out.push_back(t);
    return out;
  };
  for (const auto& n : g.nodes)
    if (kFractalOps.count(n.op_type) || n.op_type == "GlobalAveragePool")
      for (const auto& t : tensors_of(n)) fractal[t] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& n : g.nodes) {
      if (!is_elementwise_op(n.op_type) && !fusable_.count(n.op_type) && n.op_type != "BatchNormalization" &&
          !given_.count(n.name))
        continue;
      if (n.outputs.empty() || !is_layout_bearing(n.outputs[0])) continue;
      const auto& shape = g.tensor(n.outputs[0]).shape;
      std::vector<std::string> same;
      for (const auto& t : tensors_of(n))
        if (g.tensor(t).shape == shape) same.push_back(t);
      if (std::none_of(same.begin(), same.end(), [&](const std::string& t) { return fractal[t]; })) continue;
      for (const auto& t : same)
        if (!fractal[t]) fractal[t] = changed = true;
    }
  }
  return fractal;
}

void SubgraphModel::add_knobs() {
  const auto& g = task_.graph;
  space_.version = "1";
  sdk::Config defaults;
  auto add = [&](sdk::Knob k, int64_t default_value) {
    space_.knobs.push_back(std::move(k));
    defaults.push_back(default_value);
  };

  // fuse:<node>: every node the default fusion puts in another's kernel,
  // but a BatchNormalization a Conv folds (it costs nothing folded).
  for (const auto& op : sdk::fuse(g, fusable_)) {
    for (size_t i = 1; i < op.node_names.size(); ++i) {
      if (op.op_types[0] == "Conv" && op.op_types[i] == "BatchNormalization") {
        for (const auto& n : g.nodes)
          if (n.name == op.node_names[i]) always_fused_.insert(n.inputs[0]);
        continue;
      }
      add(sdk::Knob::integer(sdk::kFuseKnob + op.node_names[i], sdk::KnobTag::impl, 0, 1), 1);
    }
  }

  // layout:<tensor>: each 4-D feature map a kernel working in NC1HWC0
  // touches, directly or through elementwise ops; views show their input.
  // Elsewhere NC1HWC0 could only add pads and TransData.
  const auto fractal = default_fractal();
  std::set<std::string> seen;
  auto each_tensor = [&](const std::function<void(const std::string&)>& visit) {
    for (const auto& t : g.inputs)
      if (g.tensors.count(t) && seen.insert(t).second) visit(t);
    for (const auto& n : g.nodes)
      for (const auto& t : n.outputs)
        if (!t.empty() && seen.insert(t).second) visit(t);
    seen.clear();
  };
  each_tensor([&](const std::string& t) {
    const auto it = fractal.find(t);
    if (it == fractal.end() || !it->second || alias_.count(t) || always_fused_.count(t)) return;
    add(sdk::Knob::categorical(sdk::kLayoutKnob + t, sdk::KnobTag::format, {kNd, kNc1hwc0}), 1);
  });

  // l2:<tensor>: activations made and read here by different kernels in
  // some strategy; never what the subgraph hands on.
  std::set<std::string> handed_on;
  for (const auto& o : g.outputs) handed_on.insert(root_of(o));
  std::set<std::string> read;
  for (const auto& n : g.nodes)
    for (const auto& t : n.inputs)
      if (!t.empty()) read.insert(root_of(t));
  std::set<std::string> made;
  for (const auto& n : g.nodes)
    if (!is_view_op(n.op_type))
      for (const auto& t : n.outputs)
        if (!t.empty()) made.insert(t);
  each_tensor([&](const std::string& t) {
    if (!made.count(t) || !is_activation(t) || handed_on.count(t) || !read.count(t) || always_fused_.count(t)) return;
    add(sdk::Knob::integer(sdk::kL2Knob + t, sdk::KnobTag::schedule, 0, 1), 0);
  });

  // tiling:<anchor>: kernels the operator bank holds a tiling for.
  if (!task_.op_configs.is_object())
    throw Error(StatusCode::invalid_argument, "subgraph " + task_.name + ": op_configs must map node names to configs");
  for (const auto& [anchor, config] : task_.op_configs.items()) {
    if (!config.is_object())
      throw Error(StatusCode::invalid_argument, "subgraph " + task_.name + ": op_configs of '" + anchor +
                                                    "' must map knob names to values");
    if (std::none_of(g.nodes.begin(), g.nodes.end(), [&](const sdk::Node& n) { return n.name == anchor; })) continue;
    add(sdk::Knob::categorical(sdk::kTilingKnob + anchor, sdk::KnobTag::schedule, {"default", "tuned"}), 1);
  }
  space_.default_config = defaults;

  // The bank's tiling is the default where it runs in the default strategy.
  const auto p = plan(space_.default_config);
  if (p.invalid.empty()) return;
  for (size_t i = 0; i < space_.knobs.size(); ++i)
    if (space_.knobs[i].name.rfind(sdk::kTilingKnob, 0) == 0) space_.default_config[i] = 0;
  for (size_t i = 0; i < space_.knobs.size(); ++i) {
    if (space_.knobs[i].name.rfind(sdk::kTilingKnob, 0) != 0) continue;
    space_.default_config[i] = 1;
    if (!plan(space_.default_config).invalid.empty()) space_.default_config[i] = 0;
  }
}

std::string SubgraphModel::tuned_config(const std::string& anchor, const OpModel& model, sdk::Config& out) const {
  const auto& space = model.space();
  out = space.default_config;
  for (const auto& [name, value] : task_.op_configs.at(anchor).items()) {
    const auto k = std::find_if(space.knobs.begin(), space.knobs.end(), [&](const sdk::Knob& kn) { return kn.name == name; });
    if (k == space.knobs.end())
      return "the bank's tiling of '" + anchor + "' sets knob '" + name + "', which its kernel does not have";
    const auto v = k->value_of(value);
    if (!v) return "the bank's tiling of '" + anchor + "' sets " + name + " = " + value.dump() + ", not allowed there";
    out[static_cast<size_t>(k - space.knobs.begin())] = *v;
  }
  const auto verdict = model.check(out);
  if (!verdict.ok()) return "the bank's tiling of '" + anchor + "' does not fit its kernel here: " + verdict.message;
  return {};
}

SubgraphModel::Plan SubgraphModel::plan(const sdk::Config& config) const {
  const auto& g = task_.graph;
  auto d = sdk::SubgraphDecisions::of(space_, config);
  // A view shows its input: it is in L2 when that is.
  for (const auto& [view, shown] : alias_)
    if (d.on_chip.count(root_of(view))) d.on_chip.insert(view);
  const sdk::MayFuse may_fuse = [&](const sdk::Node& n) { return !d.unfused.count(n.name); };
  const auto ops = in_run_order(sdk::fuse(g, fusable_, {}, may_fuse));

  Plan plan;
  // Each stored copy of a tensor ("<root>@<layout>") and the steps that write and read it.
  struct Buffer {
    int64_t bytes = 0;
    size_t first = 0, last = 0;
    bool used = false;
  };
  std::map<std::string, Buffer> buffers;
  auto touch = [&](const sdk::TensorDesc& t, size_t step) {
    const std::string root = root_of(t.name);
    if (!d.on_chip.count(root)) return;
    auto& b = buffers[root + "@" + (is_fractal(t) ? kNc1hwc0 : kNd)];
    b.bytes = std::max<int64_t>(b.bytes, stored_elements(t) * sdk::dtype_bytes(t.dtype));
    b.first = b.used ? std::min(b.first, step) : step;
    b.last = b.used ? std::max(b.last, step) : step;
    b.used = true;
  };
  auto in_layout = [&](sdk::TensorDesc t, bool fractal) {
    t.format = fractal ? kNc1hwc0 : (is_fractal(t) ? kNd : t.format);
    return t;
  };
  // Steps touch the copies they read and write, in the layouts they use.
  auto run = [&](Kernel k, const std::vector<sdk::TensorDesc>& touched) {
    for (const auto& t : touched) touch(t, plan.kernels.size());
    plan.kernels.push_back(std::move(k));
  };
  auto cost = [&](Kernel& k, const std::string& anchor) {
    std::unique_ptr<OpModel> model;
    try {
      model = op_model(soc_, k.task);
    } catch (const Error& e) {
      throw Error(e.code(), "kernel " + k.name + " of subgraph " + task_.name + ": " + e.what());
    }
    k.config = model->space().default_config;
    if (!anchor.empty() && d.tuned.count(anchor) && task_.op_configs.contains(anchor)) {
      const auto why = tuned_config(anchor, *model, k.config);
      if (!why.empty()) {
        if (plan.invalid.empty()) plan.invalid = why;
        return;
      }
    }
    const auto verdict = model->check(k.config);
    if (!verdict.ok()) {
      if (plan.invalid.empty()) plan.invalid = "kernel " + k.name + ": " + verdict.message;
      return;
    }
    k.time_us = model->time_us(k.config);
  };
  // Copies of a tensor in a layout other than its decided one, made once, shared by their readers.
  std::set<std::string> converted;
  auto layout_key = [](const sdk::TensorDesc& t) { return t.name + "@" + (is_fractal(t) ? kNc1hwc0 : kNd); };
  auto transdata = [&](const sdk::TensorDesc& from, const sdk::TensorDesc& to) {
    Kernel k;
    k.name = "TransData:" + from.name;
    k.task.name = k.name;
    k.task.op_type = "TransData";
    k.task.inputs = {from};
    k.task.outputs = {to};
    if (d.on_chip.count(root_of(from.name))) {
      k.task.attrs["on_chip_inputs"] = nlohmann::json::array({0u});
      k.task.attrs["on_chip_outputs"] = nlohmann::json::array({0u});
    }
    cost(k, "");
    run(std::move(k), {from, to});
  };

  for (const auto& op : ops) {
    sdk::OpTask task = sdk::under(op.task, d);
    const std::string& anchor_type = op.op_types.front();
    const bool view = op.node_names.size() == 1 && is_view_op(anchor_type);
    // The layout the kernel works its feature maps in; a view needs ND.
    bool works_fractal = false;
    if (kFractalOps.count(anchor_type)) works_fractal = true;
    // A training step's other kernels (BN, gradients, updates) work in either layout too.
    else if (!view && (is_flexible(anchor_type) || given_.count(op.node_names.front())) && !task.outputs.empty())
      works_fractal = is_fractal(task.outputs[0]);
    auto wants = [&](const sdk::TensorDesc& t) { return is_layout_bearing(t.name) && is_fractal(t) != works_fractal; };
    auto as_used = [&](const sdk::TensorDesc& t) { return wants(t) ? in_layout(t, works_fractal) : t; };
    for (const auto& in : task.inputs) {
      if (!wants(in)) continue;
      const auto copy = in_layout(in, works_fractal);
      if (converted.insert(layout_key(copy)).second) transdata(in, copy);
    }
    if (view) continue;
    Kernel k;
    k.name = joined(op.node_names);
    k.task = task;
    k.task.name = k.name;
    // The task keeps the decided layouts, as OPAT tunes it afterwards.
    cost(k, op.node_names.front());
    std::vector<sdk::TensorDesc> touched;
    for (const auto& t : task.inputs) touched.push_back(as_used(t));
    for (const auto& t : task.outputs) touched.push_back(as_used(t));
    run(std::move(k), touched);
    // Written in the kernel's layout, then converted to the decided one;
    // a later reader wanting the kernel's layout reads the first copy.
    for (const auto& out : task.outputs)
      if (wants(out)) {
        const auto written = as_used(out);
        converted.insert(layout_key(written));
        transdata(written, out);
      }
  }

  // L2 holds every kept copy from the step that writes it to the last that reads it.
  for (size_t step = 0; step < plan.kernels.size(); ++step) {
    int64_t live = 0;
    for (const auto& [name, b] : buffers)
      if (b.first <= step && step <= b.last) live += b.bytes;
    if (live > plan.l2_peak_bytes) {
      plan.l2_peak_bytes = live;
      if (live > soc_.l2_bytes && plan.invalid.empty())
        plan.invalid = "L2: the tensors kept on chip need " + std::to_string(live) + " B at once (at kernel " +
                       plan.kernels[step].name + "), " + soc_.target + "'s L2 holds " + std::to_string(soc_.l2_bytes) + " B";
    }
  }
  return plan;
}

sdk::Measurement SubgraphModel::check(const sdk::Config& config) const {
  if (!space_.in_domain(config)) return refuse("a value lies outside its knob's domain");
  try {
    const auto p = plan(config);
    if (!p.invalid.empty()) return refuse(p.invalid);
  } catch (const Error& e) {
    return refuse(e.what());
  }
  return {};
}

double SubgraphModel::time_us(const sdk::Config& config) const {
  const auto p = plan(config);
  return std::accumulate(p.kernels.begin(), p.kernels.end(), 0.0,
                         [](double sum, const Kernel& k) { return sum + k.time_us; });
}

double SubgraphModel::roofline_us() const { return static_cast<double>(fullest_kernels_) * soc_.launch_us; }

}  // namespace aoe::sim
