#include "training_step.h"

#include <algorithm>
#include <set>

#include "gradient_rules.h"
#include "patterns.h"
#include "step_precision.h"

namespace aoe::training {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

using aoe::sdk::is_float;
bool conv(const std::string& op) { return op == "Conv" || op == "ConvTranspose"; }
bool cube(const std::string& op) { return conv(op) || op == "MatMul" || op == "Gemm"; }
bool normalisation(const std::string& op) { return op == "BatchNormalization" || op == "LayerNormalization"; }

// What the forward graph says about each tensor before the step is written.
class ForwardFacts {
 public:
  explicit ForwardFacts(const Graph& g) : g_(g) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (const auto& out : g.nodes[i].outputs) producer_[out] = i;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
        const std::string& in = g.nodes[i].inputs[k];
        if (in.empty() || !trainable_at(g.nodes[i], k)) continue;
        if (!std::count(weights_.begin(), weights_.end(), in)) {
          weights_.push_back(in);
          reader_[in] = g.nodes[i].name;
        }
        if (normalisation(g.nodes[i].op_type)) normalisation_weights_.insert(in);
        if (cube(g.nodes[i].op_type) && (!conv(g.nodes[i].op_type) || k == 1) && (g.nodes[i].op_type != "Gemm" || k < 2))
          decays_.insert(in);
      }
    // A tensor needs a gradient where a trainable weight reaches it.
    needs_.insert(weights_.begin(), weights_.end());
    for (const auto& n : g.nodes)
      if (std::any_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) { return needs_.count(in) > 0; }))
        needs_.insert(n.outputs.begin(), n.outputs.end());
  }

  const std::vector<std::string>& weights() const { return weights_; }
  bool trainable(const std::string& t) const { return std::count(weights_.begin(), weights_.end(), t) > 0; }
  bool needs_gradient(const std::string& t) const { return needs_.count(t) > 0; }
  bool decays(const std::string& w) const { return decays_.count(w) > 0; }
  bool normalisation_weight(const std::string& w) const { return normalisation_weights_.count(w) > 0; }
  const std::string& first_reader(const std::string& w) const { return reader_.at(w); }
  std::string producer(const std::string& t) const {
    const auto it = producer_.find(t);
    return it == producer_.end() ? std::string() : g_.nodes[it->second].name;
  }

 private:
  bool float_constant(const std::string& t) const {
    const auto it = g_.tensors.find(t);
    return it != g_.tensors.end() && it->second.constant && is_float(it->second.dtype);
  }
  // Conv, ConvTranspose, Gemm: weight and bias; MatMul: a constant operand; BN, LayerNorm:
  // scale and offset; Add: a bias added to a Conv, MatMul or Gemm.
  bool trainable_at(const Node& n, size_t k) const {
    if (!float_constant(n.inputs[k])) return false;
    const std::string& op = n.op_type;
    if (conv(op) || op == "Gemm" || normalisation(op)) return k == 1 || k == 2;
    if (op == "MatMul") return k < 2;
    if (op == "Add" && n.inputs.size() == 2) {
      const auto it = producer_.find(n.inputs[1 - k]);
      return it != producer_.end() && cube(g_.nodes[it->second].op_type);
    }
    return false;
  }

  const Graph& g_;
  std::map<std::string, size_t> producer_;
  std::vector<std::string> weights_;
  std::map<std::string, std::string> reader_;
  std::set<std::string> needs_, decays_, normalisation_weights_;
};

class Derivation {
 public:
  Derivation(const Graph& g, const StepOptions& options)
      : g_(g), facts_(g), options_(options), step_(g, options.mixed) {}

  TrainingStep run(std::map<std::string, std::vector<std::string>> members) {
    set_dtypes();
    add_casts();
    for (const auto& node : g_.nodes) add_forward(node);
    const size_t loss_begin = step_.graph().nodes.size();
    add_loss();
    const size_t backward_begin = step_.graph().nodes.size();
    for (size_t i = g_.nodes.size(); i-- > 0;) add_backward(i);
    const auto gradients = final_gradients();
    const size_t updates_begin = step_.graph().nodes.size();
    add_updates(gradients);
    TrainingStep out;
    out.loss_begin = loss_begin;
    out.backward_begin = backward_begin;
    out.updates_begin = updates_begin;
    out.gradient_of = gradients;
    out.graph = std::move(step_.graph());
    out.forward_of = step_.forward_of();
    out.members = std::move(members);
    out.weights = facts_.weights();
    return out;
  }

 private:
  // Activations in the step's activation type; weights stay float32 masters.
  void set_dtypes() {
    for (auto& [name, t] : step_.graph().tensors) {
      if (!is_float(t.dtype) || facts_.trainable(name)) continue;
      if (std::count(g_.inputs.begin(), g_.inputs.end(), name)) continue;
      t.dtype = step_.activation();
    }
  }

  // Mixed precision: each float input and each weight a forward kernel other
  // than a normalisation reads, cast to float16 once.
  void add_casts() {
    step_.graph().inputs = g_.inputs;
    if (!step_.mixed()) return;
    auto cast = [&](const std::string& t, const std::string& reader) {
      const auto& desc = step_.tensor(t);
      alias_[t] = step_.add_unary(reader, "Cast", {t}, desc.shape, DType::f16, {{"to", "float16"}});
    };
    for (const auto& in : g_.inputs)
      if (is_float(step_.tensor(in).dtype) && !first_reader(in).empty()) cast(in, first_reader(in));
    for (const auto& w : facts_.weights())
      if (!facts_.normalisation_weight(w)) cast(w, facts_.first_reader(w));
  }

  std::string first_reader(const std::string& t) const {
    for (const auto& n : g_.nodes)
      if (std::count(n.inputs.begin(), n.inputs.end(), t)) return n.name;
    return {};
  }

  Node as_step_reads(const Node& node) const {
    Node n = node;
    if (!n.attrs.is_object()) n.attrs = nlohmann::json::object();
    for (auto& in : n.inputs)
      if (const auto it = alias_.find(in); it != alias_.end()) in = it->second;
    return n;
  }

  void add_forward(const Node& node) {
    Node n = as_step_reads(node);
    std::vector<std::string> saved;
    if (n.op_type == "BatchNormalization") {
      const std::vector<int64_t> c = step_.tensor(n.inputs[1]).shape;
      const std::string sum = step_.add_tensor(n.name + "/sum", c, DType::f32);
      const std::string square_sum = step_.add_tensor(n.name + "/square_sum", c, DType::f32);
      const std::string mean = step_.add_tensor(n.name + "/batch_mean", c, DType::f32);
      const std::string invstd = step_.add_tensor(n.name + "/batch_invstd", c, DType::f32);
      step_.add_kernel(n.name, "BNTrainingReduce", {n.inputs[0]}, {sum, square_sum});
      step_.add_kernel(n.name, "BNTrainingUpdate", {n.inputs[0], sum, square_sum, n.inputs[1], n.inputs[2]},
                       {n.outputs[0], mean, invstd}, {{"epsilon", n.attrs.value("epsilon", 1e-5)}});
      saved_.push_back({mean, invstd});
      steps_view_.push_back(n);
      return;
    }
    if (n.op_type == "LayerNormalization") {
      auto rows = step_.tensor(n.inputs[0]).shape;
      int64_t count = 1;
      for (size_t i = 0; i + 1 < rows.size(); ++i) count *= rows[i];
      const std::string mean = step_.add_tensor(n.name + "/mean", {count, 1}, DType::f32);
      const std::string invstd = step_.add_tensor(n.name + "/invstd", {count, 1}, DType::f32);
      n.outputs.resize(1);
      n.outputs.push_back(mean);
      n.outputs.push_back(invstd);
      saved = {mean, invstd};
    }
    step_.graph().nodes.push_back(n);
    step_.set_forward_of(n.name, n.name);
    saved_.push_back(std::move(saved));
    steps_view_.push_back(n);
  }

  // Softmax cross-entropy over the first output, read as rows x its last dim.
  void add_loss() {
    if (g_.outputs.empty()) throw Error(StatusCode::invalid_argument, "--training: the model has no output to train");
    const std::string out = g_.outputs.front();
    const std::string at = facts_.producer(out);
    if (at.empty()) throw Error(StatusCode::invalid_argument, "--training: the first output '" + out + "' is no op's output");
    const auto shape = step_.tensor(out).shape;
    if (shape.empty()) throw Error(StatusCode::invalid_argument, "--training: the first output '" + out + "' is a scalar");
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
    const std::vector<int64_t> matrix = {rows, shape.back()};
    std::string logits = out;
    if (shape != matrix) logits = step_.add_unary(at, "Reshape", {logits}, matrix, step_.activation());
    if (step_.mixed()) logits = step_.add_unary(at, "Cast", {logits}, matrix, DType::f32, {{"to", "float32"}});
    const std::string labels = step_.add_tensor("labels", matrix, DType::f32);
    step_.graph().inputs.push_back(labels);
    const std::string loss = step_.add_tensor("loss", {rows}, DType::f32);
    std::string grad = step_.add_tensor(at + "/dlogits", matrix, DType::f32);
    step_.add_kernel(at, "SoftmaxCrossEntropyWithLogits", {logits, labels}, {loss, grad});
    step_.graph().outputs = {loss};
    if (step_.mixed()) grad = step_.add_unary(at, "Cast", {grad}, matrix, DType::f16, {{"to", "float16"}});
    if (shape != matrix) grad = step_.add_unary(at, "Reshape", {grad}, shape, step_.activation());
    contributions_[out].push_back({g_.nodes.size(), grad});
  }

  // The gradient of `t`: its one contribution, or their sum (AddN) in the
  // order of the ops that read it.
  std::string gradient_of(const std::string& t, const std::string& at) {
    auto it = contributions_.find(t);
    if (it == contributions_.end()) return {};
    auto parts = it->second;
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (parts.size() == 1) return parts.front().second;
    std::vector<std::string> names;
    for (const auto& p : parts) names.push_back(p.second);
    const auto& first = step_.tensor(names.front());
    return step_.add_unary(at, "AddN", names, first.shape, first.dtype);
  }

  void add_backward(size_t i) {
    const Node& node = g_.nodes[i];
    std::vector<std::string> dy;
    for (const auto& out : node.outputs) dy.push_back(out.empty() ? std::string() : gradient_of(out, node.name));
    if (dy.empty() || dy[0].empty()) return;
    std::vector<bool> wants, weight;
    for (const auto& in : node.inputs) {
      wants.push_back(!in.empty() && facts_.needs_gradient(in));
      weight.push_back(!in.empty() && facts_.trainable(in));
    }
    if (std::none_of(wants.begin(), wants.end(), [](bool w) { return w; })) return;
    const GradientRule rule = find_gradient_rule(node.op_type);
    if (!rule) throw Error(StatusCode::invalid_argument, no_gradient_rule(node.op_type, node.name));
    GradientContext c{step_, steps_view_.at(i), dy, wants, weight, saved_.at(i)};
    const auto grads = rule(c);
    for (size_t k = 0; k < grads.size() && k < node.inputs.size(); ++k)
      if (!grads[k].empty()) contributions_[node.inputs[k]].push_back({i, grads[k]});
  }

  // Each weight's gradient, summed where several ops read the weight: the
  // last of the backward's kernels.
  std::map<std::string, std::string> final_gradients() {
    std::map<std::string, std::string> out;
    for (const auto& w : facts_.weights()) {
      const std::string grad = gradient_of(w, facts_.first_reader(w));
      if (!grad.empty()) out[w] = grad;
    }
    return out;
  }

  void add_updates(const std::map<std::string, std::string>& gradients) {
    const std::string loss_scale =
        step_.mixed() ? step_.add_tensor("loss_scale/reciprocal", {}, DType::f32, true) : std::string();
    for (const auto& w : facts_.weights()) {
      const auto grad = gradients.find(w);
      if (grad == gradients.end()) continue;
      add_optimizer_kernels(step_, {w, grad->second, facts_.first_reader(w), facts_.decays(w)}, options_.optimizer,
                            loss_scale);
    }
  }

  const Graph& g_;
  ForwardFacts facts_;
  StepOptions options_;
  StepBuilder step_;
  std::map<std::string, std::string> alias_;
  // By forward node index: what its kernels kept for the gradient, and the node as the step reads it.
  std::vector<std::vector<std::string>> saved_;
  std::vector<Node> steps_view_;
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> contributions_;
};

}  // namespace

StepOptions step_options(const nlohmann::json& job_options, const nlohmann::json& described) {
  StepOptions out;
  out.optimizer = optimizer_from_string(job_options.value("optimizer", "momentum"));
  out.mixed = mixed_precision(job_options.value("training_precision", ""), described);
  return out;
}

TrainingStep derive_training_step(const Graph& model, const StepOptions& options) {
  auto recognised = aoe::graph::recognise_patterns(model, /*swish=*/false);  // SiLU's gradient: Sigmoid's and Mul's
  return Derivation(recognised.graph, options).run(std::move(recognised.members));
}

}  // namespace aoe::training
