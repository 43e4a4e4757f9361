#include "attention_pattern.h"

#include <map>
#include <optional>
#include <set>

#include "chain.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

const std::set<std::string> kCommutative = {"Add", "Mul"};

class Matcher {
 public:
  explicit Matcher(const sdk::Graph& g) : g_(g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& in : g.nodes[i].inputs)
        if (!in.empty()) readers_[in].push_back(i);
      for (const auto& out : g.nodes[i].outputs)
        if (!out.empty()) producer_[out] = i;
    }
    outputs_.insert(g.outputs.begin(), g.outputs.end());
  }

  std::optional<AttentionPattern> at_softmax(size_t s) const {
    const sdk::Node& softmax = g_.nodes[s];
    if (softmax.op_type != "Softmax" || present(softmax.inputs).size() != 1 || present(softmax.outputs).size() != 1) return {};
    AttentionPattern p;
    p.softmax = softmax.name;
    p.scores = g_.tensor(softmax.inputs[0]).shape;
    const int64_t rank = static_cast<int64_t>(p.scores.size());
    // Before opset 13 Softmax flattens from `axis` (default 1): the last axis alone is the same op.
    const int64_t fallback = g_.opset > 0 && g_.opset < 13 ? 1 : -1;
    int64_t axis = softmax.attrs.value("axis", fallback);
    if (axis < 0) axis += rank;
    if (rank < 2 || axis != rank - 1) return {};

    // Back from the Softmax through the elementwise chain to the scores MatMul.
    // Each value on the way has one reader, so no operand is one of them (x * x).
    std::string value = softmax.inputs[0];
    size_t reader = s;
    std::vector<size_t> chain;
    while (true) {
      if (!only_reader(value, reader)) return {};
      auto it = producer_.find(value);
      if (it == producer_.end()) return {};
      const sdk::Node& n = g_.nodes[it->second];
      if (n.op_type == "MatMul") break;
      if (!is_elementwise_op(n.op_type) || chain.size() == 4 || present(n.outputs).size() != 1) return {};
      if (g_.tensor(n.outputs[0]).shape != p.scores) return {};
      const auto ins = present(n.inputs);
      std::string operand;
      if (is_binary_op(n.op_type)) {
        if (ins.size() != 2) return {};
        // The scores run through the first input, or the second of an op that commutes.
        const bool second = kCommutative.count(n.op_type) && !from_node(ins[0]) && from_node(ins[1]);
        value = second ? ins[1] : ins[0];
        operand = second ? ins[0] : ins[1];
        if (!operand_layout(g_.tensor(operand).shape, p.scores, p.scores.size() - 1)) return {};
      } else {
        if (ins.size() != 1) return {};
        value = ins[0];
      }
      chain.insert(chain.begin(), it->second);
      p.operands.insert(p.operands.begin(), operand);
      reader = it->second;
    }
    const size_t scores_at = producer_.at(value);
    const sdk::Node& scores = g_.nodes[scores_at];
    const std::string probs = softmax.outputs[0];
    const auto context_at = sole_reader(probs);
    if (!context_at) return {};
    const sdk::Node& context = g_.nodes[*context_at];
    if (context.op_type != "MatMul" || context.inputs.size() != 2 || context.inputs[0] != probs ||
        scores.inputs.size() != 2 || present(context.outputs).size() != 1)
      return {};

    const Shape batch(p.scores.begin(), p.scores.end() - 2);
    const int64_t sq = p.scores[rank - 2], sk = p.scores[rank - 1];
    const Shape& q = g_.tensor(scores.inputs[0]).shape;
    const Shape& k = g_.tensor(scores.inputs[1]).shape;
    const Shape& v = g_.tensor(context.inputs[1]).shape;
    // Same batch dims throughout: no broadcasting across heads.
    auto fits = [&](const Shape& s, int64_t rows, int64_t cols) {
      return static_cast<int64_t>(s.size()) == rank && Shape(s.begin(), s.end() - 2) == batch &&
             s[rank - 2] == rows && (cols < 0 || s[rank - 1] == cols);
    };
    if (!fits(q, sq, -1) || !fits(k, q[rank - 1], sk) || !fits(v, sk, -1)) return {};
    if (!fits(g_.tensor(context.outputs[0]).shape, sq, v[rank - 1])) return {};

    p.nodes.push_back(scores.name);
    for (size_t c : chain) {
      p.chain.push_back(g_.nodes[c]);
      p.nodes.push_back(g_.nodes[c].name);
    }
    p.nodes.push_back(softmax.name);
    p.nodes.push_back(context.name);
    p.q = read_view(scores.inputs[0], scores_at, p.nodes);
    p.k = read_view(scores.inputs[1], scores_at, p.nodes);
    p.v = read_view(context.inputs[1], *context_at, p.nodes);
    p.out = write_view(context.outputs[0], p.nodes);
    return p;
  }

 private:
  bool from_node(const std::string& tensor) const { return producer_.count(tensor) > 0; }

  // The one node reading `tensor`, when the graph's outputs do not need it either.
  std::optional<size_t> sole_reader(const std::string& tensor) const {
    if (outputs_.count(tensor)) return std::nullopt;
    auto it = readers_.find(tensor);
    if (it == readers_.end() || it->second.size() != 1) return std::nullopt;
    return it->second.front();
  }
  bool only_reader(const std::string& tensor, size_t node) const { return sole_reader(tensor) == node; }

  // A Transpose's permutation of `rank` dims: attrs "perm", or reversed
  // dims; empty when it is not one.
  static std::vector<int64_t> perm_of(const sdk::Node& t, size_t rank) {
    std::vector<int64_t> perm;
    if (t.attrs.contains("perm")) perm = t.attrs.at("perm").get<std::vector<int64_t>>();
    if (perm.empty())
      for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    std::set<int64_t> seen;
    for (int64_t d : perm)
      if (d < 0 || d >= static_cast<int64_t>(rank) || !seen.insert(d).second) return {};
    return perm.size() == rank ? perm : std::vector<int64_t>{};
  }

  // `tensor` as `reader` reads it: through the Transposes that make it
  // (PyTorch's keys often pass two), each read by the next alone.
  StridedView read_view(const std::string& tensor, size_t reader, std::vector<std::string>& nodes) const {
    StridedView view{tensor, g_.tensor(tensor).shape, {}};
    std::vector<int64_t> dim(view.shape.size());  // logical dim -> dim of view.tensor
    for (size_t d = 0; d < dim.size(); ++d) dim[d] = static_cast<int64_t>(d);
    for (auto it = producer_.find(view.tensor); it != producer_.end() && only_reader(view.tensor, reader);
         it = producer_.find(view.tensor)) {
      const sdk::Node& t = g_.nodes[it->second];
      if (t.op_type != "Transpose" || present(t.inputs).size() != 1) break;
      const auto perm = perm_of(t, g_.tensor(t.inputs[0]).shape.size());
      if (perm.empty() || perm.size() != dim.size()) break;
      for (auto& d : dim) d = perm[static_cast<size_t>(d)];
      view.tensor = t.inputs[0];
      reader = it->second;
      nodes.push_back(t.name);
    }
    const auto from = strides_of(g_.tensor(view.tensor).shape);
    for (int64_t d : dim) view.strides.push_back(from[static_cast<size_t>(d)]);
    return view;
  }

  // Where the context goes: through the Transpose that alone reads it, when
  // that keeps each row of the context contiguous, else as it is.
  StridedView write_view(const std::string& tensor, std::vector<std::string>& nodes) const {
    StridedView view{tensor, g_.tensor(tensor).shape, strides_of(g_.tensor(tensor).shape)};
    const auto reader = sole_reader(tensor);
    if (!reader) return view;
    const sdk::Node& t = g_.nodes[*reader];
    if (t.op_type != "Transpose" || present(t.outputs).size() != 1) return view;
    const auto perm = perm_of(t, view.shape.size());
    if (perm.empty()) return view;
    // Output index j takes the context's dim perm[j]: that dim steps by the output's stride j.
    const auto to = strides_of(g_.tensor(t.outputs[0]).shape);
    std::vector<int64_t> strides(perm.size());
    for (size_t j = 0; j < perm.size(); ++j) strides[static_cast<size_t>(perm[j])] = to[j];
    if (strides.back() != 1) return view;
    view.tensor = t.outputs[0];
    view.strides = strides;
    nodes.push_back(t.name);
    return view;
  }

  const sdk::Graph& g_;
  std::map<std::string, std::vector<size_t>> readers_;
  std::map<std::string, size_t> producer_;
  std::set<std::string> outputs_;
};

}  // namespace

std::vector<AttentionPattern> find_attention(const sdk::Graph& graph) {
  const Matcher m(graph);
  std::vector<AttentionPattern> out;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (auto p = m.at_softmax(i)) out.push_back(std::move(*p));
  return out;
}

}  // namespace aoe::cpu
