#include "sequences_as_tensors.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "constant_folding.h"
#include "graph_normaliser.h"
#include "written_nodes.h"

namespace aoe::host {
namespace {

using T = onnx::TensorProto;
using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
using Elements = std::vector<std::string>;

// A split into more parts than this stays a sequence.
constexpr int64_t kMaxSequenceLength = 4096;

class SequenceRewrite {
 public:
  explicit SequenceRewrite(const onnx::GraphProto& graph) : graph_(graph), initializers_(initializers_by_name(graph)) {
    for (const auto& o : graph.output()) outputs_.insert(o.name());
  }

  // What replaces the node, where it reads or makes a known sequence: a maker
  // stays (the sequence may be read elsewhere) and notes its elements, a
  // reader is replaced. False where the node is neither.
  bool rewrite(const onnx::NodeProto& node, WrittenNodes& out, bool& replaced) {
    replaced = false;
    if (!default_domain(node) || node.output_size() != 1) return false;
    const std::string& op = node.op_type();
    const std::string& made = node.output(0);
    if (op == "SequenceEmpty") return note(made, Elements{});
    if (op == "SequenceConstruct") return note(made, Elements(node.input().begin(), node.input().end()));
    if (op == "SplitToSequence") return split_to_sequence(node, out);
    const Elements* seq = node.input_size() ? known(node.input(0)) : nullptr;
    if (!seq) return false;
    const auto n = static_cast<int64_t>(seq->size());
    if (op == "Identity") return note(made, *seq);
    if (op == "SequenceInsert") {
      const auto at = position(node, 2, n, n, 0, n);
      if (!at || node.input_size() < 2) return false;
      Elements e = *seq;
      e.insert(e.begin() + *at, node.input(1));
      return note(made, e);
    }
    if (op == "SequenceErase") {
      const auto at = position(node, 1, n - 1, n, 0, n - 1);
      if (!at) return false;
      Elements e = *seq;
      e.erase(e.begin() + *at);
      return note(made, e);
    }
    if (op == "SequenceAt") {
      if (node.input_size() < 2 || node.input(1).empty()) return false;
      const auto at = position(node, 1, 0, n, 0, n - 1);
      if (!at) return false;
      out.add("Identity", out.base, {(*seq)[static_cast<size_t>(*at)]}, {made});
      return replaced = true;
    }
    if (op == "SequenceLength") {
      if (outputs_.count(made)) out.add("Identity", out.base, {out.scalar(made + "/value", n)}, {made});
      else out.scalar(made, n);
      return replaced = true;
    }
    if (op == "ConcatFromSequence") {
      const auto* axis = find_attr(node, "axis");
      if (!axis || seq->empty()) return false;
      if (int_attr(node, "new_axis", 0)) out.stack(*seq, axis->i(), made);
      else if (seq->size() == 1) out.add("Identity", out.base, {(*seq)[0]}, {made});
      else out.add("Concat", out.base, *seq, {made}, {{"axis", axis->i()}});
      return replaced = true;
    }
    return false;
  }

  const Elements* known(const std::string& name) const {
    const auto it = known_.find(name);
    return it == known_.end() ? nullptr : &it->second;
  }

 private:
  bool note(const std::string& name, Elements elements) {
    known_[name] = std::move(elements);
    return true;
  }

  // Input `index`, a position in a sequence of `n` (negative from the back),
  // `absent` where the node has none; nullopt where it is not a constant in [lo, hi].
  std::optional<int64_t> position(const onnx::NodeProto& node, int index, int64_t absent, int64_t n, int64_t lo,
                                  int64_t hi) const {
    std::optional<int64_t> at = absent;
    if (node.input_size() > index && !node.input(index).empty()) at = constant_int(initializers_, node.input(index));
    if (!at) return std::nullopt;
    const int64_t p = *at < 0 ? *at + n : *at;
    if (p < lo || p > hi) return std::nullopt;
    return p;
  }

  // SplitToSequence of a tensor whose split axis is known: a Split (each part
  // Squeezed where keepdims is 0 and no split, or a single size, is given) ahead of it.
  bool split_to_sequence(const onnx::NodeProto& node, WrittenNodes& out) {
    const auto dims = known_dims(graph_, node.input(0));
    if (!dims) return false;
    const auto rank = static_cast<int64_t>(dims->size());
    int64_t axis = int_attr(node, "axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    const int64_t length = (*dims)[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    const bool given = node.input_size() > 1 && !node.input(1).empty();
    bool scalar = false;
    if (!given) {
      sizes.assign(static_cast<size_t>(std::min(length, kMaxSequenceLength + 1)), 1);
    } else {
      const auto it = initializers_.find(node.input(1));
      const auto split = it == initializers_.end() ? std::nullopt : read_known(*it->second, kMaxSequenceLength);
      if (!split || split->is_real()) return false;
      if (split->dims.empty()) {  // one size: parts of it, the last what is left
        scalar = true;
        const int64_t size = split->ints.at(0);
        if (size <= 0) return false;
        for (int64_t at = 0; at < length && static_cast<int64_t>(sizes.size()) <= kMaxSequenceLength; at += size)
          sizes.push_back(std::min(size, length - at));
      } else {
        sizes = split->ints;
        int64_t sum = 0;  // each size checked first, so a hostile list cannot overflow it
        for (const int64_t s : sizes) {
          if (s < 0 || s > length) return false;
          sum += s;
        }
        if (sum != length) return false;
      }
    }
    if (static_cast<int64_t>(sizes.size()) > kMaxSequenceLength) return false;
    Elements elements;
    // The spec ignores keepdims where a split is given; ONNX Runtime follows it
    // for a single size too, and PyTorch's unbind (a split of 1, keepdims 0) relies on that.
    const bool squeeze = (!given || scalar) && int_attr(node, "keepdims", 1) == 0;
    if (squeeze && std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s != 1; })) return false;
    std::vector<std::string> parts;
    for (size_t i = 0; i < sizes.size(); ++i) {
      elements.push_back(node.output(0) + "/" + std::to_string(i));
      parts.push_back(squeeze ? elements.back() + "/kept" : elements.back());
    }
    if (!sizes.empty()) out.split(node.input(0), sizes, axis, parts);
    if (squeeze)
      for (size_t i = 0; i < sizes.size(); ++i) out.squeeze(parts[i], axis, elements[i]);
    return note(node.output(0), elements);
  }

  const onnx::GraphProto& graph_;
  std::map<std::string, const T*> initializers_;
  std::set<std::string> outputs_;
  std::map<std::string, Elements> known_;
};

// Shapes stored for what the written nodes make and everything after them:
// inference works them out again (ONNX's reads a SplitToSequence of a single
// size with its axis kept, where the rewrite follows ONNX Runtime).
void forget_shapes_after(onnx::GraphProto& graph, std::set<std::string> changed) {
  for (const auto& node : graph.node()) {
    std::set<std::string> reads(node.input().begin(), node.input().end());
    read_in_subgraphs(node, reads);
    if (std::any_of(reads.begin(), reads.end(), [&](const std::string& n) { return changed.count(n) > 0; }))
      changed.insert(node.output().begin(), node.output().end());
  }
  auto* infos = graph.mutable_value_info();
  infos->erase(std::remove_if(infos->begin(), infos->end(), [&](const auto& v) { return changed.count(v.name()) > 0; }),
               infos->end());
  for (auto& out : *graph.mutable_output())
    if (changed.count(out.name()) && out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
}

}  // namespace

int64_t sequences_as_tensors(onnx::GraphProto& graph, int64_t opset) {
  SequenceRewrite rewrite(graph);
  Nodes kept;
  std::vector<T> constants;
  std::set<std::string> makers, written;  // by first output: the makers of known sequences, the nodes written
  int64_t changed = 0;
  for (auto& node : *graph.mutable_node()) {
    WrittenNodes out;
    out.base = node_label(node), out.opset = opset;
    bool replaced = false;
    if (!rewrite.rewrite(node, out, replaced)) {
      *kept.Add() = std::move(node);
      continue;
    }
    for (auto& n : out.nodes) written.insert(n.output(0)), *kept.Add() = std::move(n);
    for (auto& t : out.constants) constants.push_back(std::move(t));
    if (replaced) {
      ++changed;
    } else {
      makers.insert(node.output(0));
      *kept.Add() = std::move(node);
    }
  }
  graph.mutable_node()->Swap(&kept);
  for (auto& t : constants) *graph.add_initializer() = std::move(t);
  if (changed) forget_shapes_after(graph, written);
  // What made a sequence now read by nothing goes, back to the sequences it was made from.
  for (bool again = true; again;) {
    again = false;
    std::set<std::string> read;
    read_in_graph(graph, read);
    Nodes live;
    for (auto& node : *graph.mutable_node()) {
      const bool maker = node.output_size() > 0 && makers.count(node.output(0));
      const bool dead = (maker || (node.output_size() > 0 && written.count(node.output(0)))) &&
                        std::none_of(node.output().begin(), node.output().end(),
                                     [&](const std::string& o) { return read.count(o) > 0; });
      if (!dead) {
        *live.Add() = std::move(node);
        continue;
      }
      again = true;
      if (maker) ++changed;
    }
    graph.mutable_node()->Swap(&live);
  }
  return changed;
}

}  // namespace aoe::host
