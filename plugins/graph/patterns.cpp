#include "patterns.h"

#include <algorithm>
#include <optional>
#include <set>

namespace aoe::graph {
namespace {

using aoe::sdk::Graph;
using aoe::sdk::Node;

struct Match {
  std::string op_type;
  std::vector<std::string> inputs;
  std::string output;
  std::vector<size_t> nodes;
};

class PatternFinder {
 public:
  explicit PatternFinder(const Graph& g) : g_(g), outputs_(g.outputs.begin(), g.outputs.end()) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& out : g.nodes[i].outputs) producer_[out] = i;
      std::set<std::string> read(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end());
      for (const auto& in : read)
        if (!in.empty()) consumers_[in].push_back(i);
    }
  }

  std::optional<Match> gelu(size_t erf) const {
    const Node& e = node(erf);
    if (e.op_type != "Erf" || e.inputs.size() != 1) return std::nullopt;
    const auto d = producer(e.inputs[0]);  // x / sqrt(2), or x * (1 / sqrt(2))
    if (!d || !is(*d, {"Div", "Mul"}) || !constant_operand(*d, 1) || sole_consumer(out(*d)) != erf) return std::nullopt;
    const std::string x = node(*d).inputs[0];
    const auto a = sole_consumer(out(erf));  // 1 + erf
    if (!a || !is(*a, {"Add"}) || !other_is_constant(*a, out(erf))) return std::nullopt;
    const auto m1 = sole_consumer(out(*a));
    if (!m1 || !is(*m1, {"Mul"})) return std::nullopt;
    const std::string other = other_input(*m1, out(*a));
    if (other == x) {  // (x * (1 + erf)) * 0.5
      const auto m2 = sole_consumer(out(*m1));
      if (!m2 || !is(*m2, {"Mul"}) || !other_is_constant(*m2, out(*m1))) return std::nullopt;
      return Match{"Gelu", {x}, out(*m2), {*d, erf, *a, *m1, *m2}};
    }
    if (is_constant(other)) {  // x * ((1 + erf) * 0.5)
      const auto m2 = sole_consumer(out(*m1));
      if (!m2 || !is(*m2, {"Mul"}) || other_input(*m2, out(*m1)) != x) return std::nullopt;
      return Match{"Gelu", {x}, out(*m2), {*d, erf, *a, *m1, *m2}};
    }
    const auto h = producer(other);  // (x * 0.5) * (1 + erf)
    if (!h || !is(*h, {"Mul"}) || sole_consumer(other) != *m1 || !other_is_constant(*h, x) ||
        other_input(*h, x).empty())
      return std::nullopt;
    return Match{"Gelu", {x}, out(*m1), {*h, *d, erf, *a, *m1}};
  }

  // x * Sigmoid(x), SiLU as PyTorch exports it (EfficientNet, YOLOv5 and v8): ONNX's Swish
  // of opset 24 with alpha 1, one elementwise op a convolution's epilogue can take.
  std::optional<Match> swish(size_t sigmoid) const {
    const Node& s = node(sigmoid);
    if (s.op_type != "Sigmoid" || s.inputs.size() != 1) return std::nullopt;
    const std::string x = s.inputs[0];
    const auto mul = sole_consumer(out(sigmoid));
    if (!mul || !is(*mul, {"Mul"}) || other_input(*mul, out(sigmoid)) != x) return std::nullopt;
    return Match{"Swish", {x}, out(*mul), {sigmoid, *mul}};
  }

  std::optional<Match> layer_norm(size_t mean) const {
    if (node(mean).op_type != "ReduceMean" || node(mean).inputs.empty()) return std::nullopt;
    const std::string x = node(mean).inputs[0];
    if (!reduces_last_axis(mean, x)) return std::nullopt;
    const auto sub = sole_consumer(out(mean));
    if (!sub || !is(*sub, {"Sub"}) || node(*sub).inputs != std::vector<std::string>{x, out(mean)}) return std::nullopt;
    const std::string centred = out(*sub);
    const auto readers = consumers(centred);
    if (readers.size() != 2 || outputs_.count(centred)) return std::nullopt;
    std::optional<size_t> square, div;
    for (size_t r : readers) {
      if (is(r, {"Div"}) && node(r).inputs[0] == centred) div = r;
      else if ((is(r, {"Pow"}) && constant_operand(r, 1)) || (is(r, {"Mul"}) && node(r).inputs[1] == centred)) square = r;
    }
    if (!square || !div) return std::nullopt;
    const auto variance = sole_consumer(out(*square));
    if (!variance || !is(*variance, {"ReduceMean"}) || !reduces_last_axis(*variance, x)) return std::nullopt;
    const auto eps = sole_consumer(out(*variance));
    if (!eps || !is(*eps, {"Add"}) || !other_is_constant(*eps, out(*variance))) return std::nullopt;
    const auto root = sole_consumer(out(*eps));
    if (!root || !is(*root, {"Sqrt"}) || sole_consumer(out(*root)) != *div || node(*div).inputs[1] != out(*root))
      return std::nullopt;
    Match m{"LayerNormalization", {x}, out(*div), {mean, *sub, *square, *variance, *eps, *root, *div}};
    // The affine part, when there is one: * gamma, + beta, each along the last axis alone
    // (a group norm spelled out scales [1, G, 1] rows: not LayerNormalization's).
    const auto scale = sole_consumer(m.output);
    if (scale && is(*scale, {"Mul"}) && other_is_constant(*scale, m.output) &&
        along_last_axis(other_input(*scale, m.output), x)) {
      m.inputs.push_back(other_input(*scale, m.output));
      m.nodes.push_back(*scale);
      m.output = out(*scale);
      const auto shift = sole_consumer(m.output);
      if (shift && is(*shift, {"Add"}) && other_is_constant(*shift, m.output) &&
          along_last_axis(other_input(*shift, m.output), x)) {
        m.inputs.push_back(other_input(*shift, m.output));
        m.nodes.push_back(*shift);
        m.output = out(*shift);
      }
    }
    return m;
  }

 private:
  const Node& node(size_t i) const { return g_.nodes[i]; }
  // An operand of x's last dim of values (or one), every other dim 1: LayerNormalization's Scale or B.
  bool along_last_axis(const std::string& operand, const std::string& x) const {
    const auto o = g_.tensors.find(operand), t = g_.tensors.find(x);
    if (o == g_.tensors.end() || t == g_.tensors.end() || t->second.shape.empty()) return false;
    const auto& dims = o->second.shape;
    if (dims.size() > t->second.shape.size()) return false;
    for (size_t i = 0; i + 1 < dims.size(); ++i)
      if (dims[i] != 1) return false;
    return dims.empty() || dims.back() == 1 || dims.back() == t->second.shape.back();
  }
  // Normalisation over the last axis only, as LayerNormalization(axis = -1) does.
  bool reduces_last_axis(size_t i, const std::string& x) const {
    const auto& axes = node(i).attrs.value("axes", nlohmann::json());
    if (!axes.is_array() || axes.size() != 1 || !axes[0].is_number_integer()) return false;
    const auto it = g_.tensors.find(x);
    const int64_t rank = it == g_.tensors.end() ? 0 : static_cast<int64_t>(it->second.shape.size());
    const int64_t axis = axes[0].get<int64_t>();
    return axis == -1 || (rank > 0 && axis == rank - 1);
  }
  std::string out(size_t i) const { return node(i).outputs.size() == 1 ? node(i).outputs[0] : std::string(); }
  bool is(size_t i, std::initializer_list<const char*> types) const {
    for (const char* t : types)
      if (node(i).op_type == t) return true;
    return false;
  }
  bool is_constant(const std::string& tensor) const {
    auto it = g_.tensors.find(tensor);
    return it != g_.tensors.end() && it->second.constant;
  }
  bool constant_operand(size_t i, size_t input) const {
    return node(i).inputs.size() > input && is_constant(node(i).inputs[input]);
  }
  std::string other_input(size_t i, const std::string& tensor) const {
    const auto& in = node(i).inputs;
    if (in.size() != 2) return {};
    return in[0] == tensor ? in[1] : in[1] == tensor ? in[0] : std::string();
  }
  bool other_is_constant(size_t i, const std::string& tensor) const { return is_constant(other_input(i, tensor)); }
  std::optional<size_t> producer(const std::string& tensor) const {
    auto it = producer_.find(tensor);
    return it == producer_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
  std::vector<size_t> consumers(const std::string& tensor) const {
    auto it = consumers_.find(tensor);
    return it == consumers_.end() ? std::vector<size_t>{} : it->second;
  }
  // The one node reading `tensor`, when the pattern may hide it: no other reader, not a graph output.
  std::optional<size_t> sole_consumer(const std::string& tensor) const {
    const auto readers = consumers(tensor);
    if (tensor.empty() || readers.size() != 1 || outputs_.count(tensor)) return std::nullopt;
    return readers.front();
  }

  const Graph& g_;
  std::set<std::string> outputs_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<size_t>> consumers_;
};

}  // namespace

RecognisedGraph recognise_patterns(const Graph& graph, bool swish) {
  const PatternFinder finder(graph);
  std::vector<Match> matches;
  std::vector<bool> taken(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    auto m = finder.layer_norm(i);
    if (!m) m = finder.gelu(i);
    if (!m && swish) m = finder.swish(i);
    if (!m || std::any_of(m->nodes.begin(), m->nodes.end(), [&](size_t n) { return taken[n]; })) continue;
    for (size_t n : m->nodes) taken[n] = true;
    matches.push_back(std::move(*m));
  }

  RecognisedGraph out{graph, {}};
  out.graph.nodes.clear();
  // A pattern's node goes where its last member was: its inputs exist by then.
  std::map<size_t, const Match*> by_last;
  for (const auto& m : matches) by_last[*std::max_element(m.nodes.begin(), m.nodes.end())] = &m;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (auto it = by_last.find(i); it != by_last.end()) {
      const Match& m = *it->second;
      std::vector<size_t> order = m.nodes;
      std::sort(order.begin(), order.end());
      Node node;
      node.op_type = m.op_type;
      node.inputs = m.inputs;
      node.outputs = {m.output};
      if (m.op_type == "LayerNormalization") node.attrs["axis"] = -1;
      std::vector<std::string> names;
      for (size_t n : order) names.push_back(graph.nodes[n].name);
      for (const auto& name : names) node.name += (node.name.empty() ? "" : "+") + name;
      out.members[node.name] = names;
      out.graph.nodes.push_back(std::move(node));
    } else if (!taken[i]) {
      out.graph.nodes.push_back(graph.nodes[i]);
    }
  }
  return out;
}

}  // namespace aoe::graph
