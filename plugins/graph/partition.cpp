#include "partition.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace aoe::graph {
namespace {

using aoe::sdk::Graph;
using aoe::sdk::SubgraphTask;

struct Segment {
  size_t begin = 0, end = 0;  // node indices [begin, end)
  bool block = false;         // paths branch and meet inside
};

// Whether a tensor is an activation: written by a node, not a constant.
bool is_activation(const Graph& g, const std::string& t, const std::set<std::string>& written) {
  if (t.empty() || !written.count(t)) return false;
  auto it = g.tensors.find(t);
  return it == g.tensors.end() || !it->second.constant;
}

std::vector<Segment> natural_segments(const Graph& g, const std::set<std::string>& fusable) {
  std::set<std::string> written;
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) written.insert(o);
  // The last node reading each activation (graph outputs are read at the
  // end), and how many nodes read it.
  std::map<std::string, size_t> last_read, readers;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (is_activation(g, in, written)) last_read[in] = i, ++readers[in];
  for (const auto& o : g.outputs) last_read[o] = g.nodes.size();

  std::vector<Segment> out;
  std::set<std::string> live;
  Segment current;
  size_t widest = 0;  // most activations live at once inside the segment
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& o : g.nodes[i].outputs)
      if (is_activation(g, o, written) && last_read.count(o) && last_read[o] > i) live.insert(o);
    for (auto it = live.begin(); it != live.end();)
      it = last_read[*it] <= i ? live.erase(it) : std::next(it);
    widest = std::max(widest, live.size());
    // A sole reader that may fuse into this node keeps the two together.
    bool fuses_on = false;
    if (live.size() == 1 && readers[*live.begin()] == 1 && last_read[*live.begin()] < g.nodes.size()) {
      const auto& reader = g.nodes[last_read[*live.begin()]].op_type;
      fuses_on = fusable.count(reader) || reader == "BatchNormalization";
    }
    if (live.size() <= 1 && !fuses_on) {
      current.end = i + 1;
      current.block = widest > 1;
      out.push_back(current);
      current = Segment{i + 1, i + 1, false};
      widest = 0;
    }
  }
  if (current.begin < g.nodes.size()) {
    current.end = g.nodes.size();
    current.block = widest > 1;
    out.push_back(current);
  }
  return out;
}

SubgraphTask make_subgraph(const Graph& g, size_t begin, size_t end, size_t index,
                           const std::map<std::string, size_t>& last_reader) {
  SubgraphTask task;
  Graph& sg = task.graph;
  sg.opset = g.opset;
  std::set<std::string> written;
  for (size_t i = begin; i < end; ++i) {
    const auto& node = g.nodes[i];
    sg.nodes.push_back(node);
    for (const auto& in : node.inputs) {
      if (in.empty()) continue;
      if (auto it = g.tensors.find(in); it != g.tensors.end()) sg.tensors[in] = it->second;
      const bool constant = sg.tensors.count(in) && sg.tensors[in].constant;
      if (!written.count(in) && !constant && std::find(sg.inputs.begin(), sg.inputs.end(), in) == sg.inputs.end())
        sg.inputs.push_back(in);
    }
    for (const auto& o : node.outputs) {
      if (o.empty()) continue;
      written.insert(o);
      if (auto it = g.tensors.find(o); it != g.tensors.end()) sg.tensors[o] = it->second;
      auto reader = last_reader.find(o);
      if (reader != last_reader.end() && reader->second >= end) sg.outputs.push_back(o);
    }
  }
  // A recognised pattern's node is named after all its nodes: its first says enough.
  const auto short_name = [](const std::string& n) { return n.substr(0, n.find('+')); };
  sg.name = "sg" + std::to_string(index) + ": " + short_name(g.nodes[begin].name) + ".." +
            short_name(g.nodes[end - 1].name);
  task.name = sg.name;
  return task;
}

}  // namespace

std::vector<SubgraphTask> partition(const Graph& g, const std::set<std::string>& fusable, size_t max_nodes) {
  if (max_nodes == 0) max_nodes = 1;
  // Pieces no longer than max_nodes: natural segments, size-cut where needed.
  std::vector<Segment> pieces;
  for (const auto& s : natural_segments(g, fusable))
    for (size_t b = s.begin; b < s.end; b += max_nodes)
      pieces.push_back({b, std::min(s.end, b + max_nodes), s.block});

  std::map<std::string, size_t> last_reader;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) last_reader[in] = i;
  for (const auto& o : g.outputs) last_reader[o] = g.nodes.size();

  std::vector<SubgraphTask> out;
  size_t begin = 0, end = 0;
  bool has_block = false;
  auto close = [&] {
    if (end > begin) out.push_back(make_subgraph(g, begin, end, out.size(), last_reader));
    begin = end;
    has_block = false;
  };
  for (const auto& p : pieces) {
    if (p.end - begin > max_nodes || (has_block && p.block)) close();
    end = p.end;
    has_block = has_block || p.block;
  }
  close();
  return out;
}

}  // namespace aoe::graph
