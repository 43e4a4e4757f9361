// SPDX-License-Identifier: Apache-2.0
// One unit of subgraph tuning: a connected piece of the model, tuned as a
// whole, and its signature, the stable key (repo_key) of the graph bank.
//
// A device that measures subgraphs describes a strategy space over the
// subgraph with knobs named by what they decide, so a tuning mode can read
// the decisions back from any device's config:
//   fuse:<node>     1: the node runs inside the kernel of the op before it
//                   (offered only where the device can fuse it), 0: alone
//   layout:<tensor> the tensor's layout in memory; labels are the device's
//                   format names ("ND", "NC1HWC0", "NCHW", "NCHWc"...)
//   l2:<tensor>     1: the tensor stays on chip (L2 or cache) from its
//                   producer to its last reader, 0: it goes to memory
//   tiling:<node>   "default", or "tuned": the kernel anchored at the node
//                   uses op_configs[node], the tiling the operator bank holds
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sdk {

struct SubgraphTask {
  std::string name;  // where it sits in the model; not part of the signature
  // Its nodes in topological order. inputs: the activations it reads from
  // outside; outputs: what is read after it; tensors: all it touches.
  Graph graph;
  // Anchor node name -> {knob name: value}: a kernel's tiling from the operator bank.
  nlohmann::json op_configs = nlohmann::json::object();

  // Canonical text of what the subgraph computes: nodes and tensors renamed
  // by position in a topological order that ignores the model's names and
  // node order, so the same block in any model gives the same string.
  std::string signature() const;

  // fnv1a_hex of the signature: the repo_key.
  std::string hash() const { return fnv1a_hex(signature()); }
};

inline std::string SubgraphTask::signature() const {
  const auto& nodes = graph.nodes;
  std::map<std::string, std::string> canonical;  // tensor name -> canonical name
  std::set<std::string> inside;                  // tensors some node here writes
  for (const auto& n : nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) inside.insert(o);
  auto shape_of = [&](const std::string& t) {
    auto it = graph.tensors.find(t);
    if (it == graph.tensors.end()) return nlohmann::json(nullptr);
    return nlohmann::json{{"shape", it->second.shape}, {"dtype", to_string(it->second.dtype)},
                          {"format", it->second.format}, {"constant", it->second.constant}};
  };
  // An input's name before it is canonical: what it is, not what it is called.
  auto provisional = [&](const std::string& t) {
    auto it = canonical.find(t);
    return it != canonical.end() ? it->second : shape_of(t).dump();
  };
  // Kahn's order, ties broken by the node's content, so names never matter.
  std::vector<size_t> waiting(nodes.size(), 0);
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& in : nodes[i].inputs)
      if (!in.empty() && inside.count(in)) {
        ++waiting[i];
        readers[in].push_back(i);
      }
  std::vector<size_t> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (waiting[i] == 0) ready.push_back(i);
  nlohmann::json out_nodes = nlohmann::json::array();
  size_t next_input = 0, next_value = 0;
  while (!ready.empty()) {
    auto key = [&](size_t i) {
      nlohmann::json k = {nodes[i].op_type, nodes[i].attrs};
      for (const auto& in : nodes[i].inputs) k.push_back(provisional(in));
      return k.dump();
    };
    auto best = std::min_element(ready.begin(), ready.end(),
                                 [&](size_t a, size_t b) { return key(a) < key(b); });
    const size_t i = *best;
    ready.erase(best);
    nlohmann::json node = {{"op_type", nodes[i].op_type}, {"attrs", nodes[i].attrs}};
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
    for (const auto& in : nodes[i].inputs) {
      if (!in.empty() && !canonical.count(in)) canonical[in] = "in" + std::to_string(next_input++);
      ins.push_back(in.empty() ? "" : canonical[in]);
    }
    for (const auto& o : nodes[i].outputs) {
      if (!o.empty()) canonical[o] = "v" + std::to_string(next_value++);
      outs.push_back(o.empty() ? "" : canonical[o]);
      for (size_t r : readers[o])
        if (--waiting[r] == 0) ready.push_back(r);
    }
    node["inputs"] = ins;
    node["outputs"] = outs;
    out_nodes.push_back(node);
  }
  nlohmann::json tensors = nlohmann::json::object();
  for (const auto& [name, canon] : canonical) tensors[canon] = shape_of(name);
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& o : graph.outputs) outputs.push_back(canonical.count(o) ? canonical.at(o) : o);
  std::sort(outputs.begin(), outputs.end());
  return nlohmann::json{{"nodes", out_nodes}, {"tensors", tensors}, {"outputs", outputs}}.dump();
}

// Prefixes of the strategy knobs (see the top of this file).
inline constexpr const char* kFuseKnob = "fuse:";
inline constexpr const char* kLayoutKnob = "layout:";
inline constexpr const char* kL2Knob = "l2:";
inline constexpr const char* kTilingKnob = "tiling:";

// A strategy config read back by knob name, whatever device made the space.
struct SubgraphDecisions {
  std::set<std::string> unfused;               // nodes kept out of the kernel before them
  std::map<std::string, std::string> layouts;  // tensor -> layout label
  std::set<std::string> on_chip;               // tensors kept in L2 / cache
  std::set<std::string> tuned;                 // anchors that use op_configs

  static SubgraphDecisions of(const TuningSpace& space, const Config& config) {
    SubgraphDecisions d;
    for (size_t i = 0; i < space.knobs.size() && i < config.size(); ++i) {
      const auto& k = space.knobs[i];
      auto named = [&](const char* prefix, std::string& rest) {
        const std::string p = prefix;
        if (k.name.compare(0, p.size(), p) != 0) return false;
        rest = k.name.substr(p.size());
        return true;
      };
      std::string what;
      const nlohmann::json shown = k.display(config[i]);
      if (named(kFuseKnob, what) && config[i] == 0) d.unfused.insert(what);
      if (named(kLayoutKnob, what)) d.layouts[what] = shown.is_string() ? shown.get<std::string>() : shown.dump();
      if (named(kL2Knob, what) && config[i] != 0) d.on_chip.insert(what);
      if (named(kTilingKnob, what) && shown == "tuned") d.tuned.insert(what);
    }
    return d;
  }

  // The layout of a tensor: its decided one, else what the model says.
  std::string layout_of(const TensorDesc& t) const {
    auto it = layouts.find(t.name);
    return it == layouts.end() ? t.format : it->second;
  }
};

inline void to_json(nlohmann::json& j, const SubgraphDecisions& d) {
  j = {{"unfused", d.unfused}, {"layouts", d.layouts}, {"on_chip", d.on_chip}, {"tuned", d.tuned}};
}
inline void from_json(const nlohmann::json& j, SubgraphDecisions& d) {
  d.unfused = j.value("unfused", std::set<std::string>{});
  d.layouts = j.value("layouts", std::map<std::string, std::string>{});
  d.on_chip = j.value("on_chip", std::set<std::string>{});
  d.tuned = j.value("tuned", std::set<std::string>{});
}

// An op task as it runs under the decisions: each tensor in its decided
// layout, and the positions of inputs and outputs kept on chip in attrs
// "on_chip_inputs" / "on_chip_outputs", so an operator tuned afterwards is
// tuned for the strategy around it.
inline OpTask under(const OpTask& task, const SubgraphDecisions& d) {
  OpTask out = task;
  auto mark = [&](std::vector<TensorDesc>& tensors, const char* attr) {
    nlohmann::json positions = nlohmann::json::array();
    for (size_t i = 0; i < tensors.size(); ++i) {
      tensors[i].format = d.layout_of(tensors[i]);
      if (d.on_chip.count(tensors[i].name)) positions.push_back(i);
    }
    if (!positions.empty()) out.attrs[attr] = positions;
  };
  mark(out.inputs, "on_chip_inputs");
  mark(out.outputs, "on_chip_outputs");
  return out;
}

inline void to_json(nlohmann::json& j, const SubgraphTask& t) {
  // op_type lets a device that predates subgraphs refuse it as an unknown op.
  j = {{"kind", "subgraph"}, {"op_type", "Subgraph"}, {"name", t.name}, {"graph", t.graph},
       {"op_configs", t.op_configs}};
}
inline void from_json(const nlohmann::json& j, SubgraphTask& t) {
  t.name = j.value("name", "");
  t.graph = j.at("graph").get<Graph>();
  t.op_configs = j.value("op_configs", nlohmann::json::object());
}

inline bool is_subgraph_task(const nlohmann::json& j) { return j.value("kind", "") == "subgraph"; }

}  // namespace aoe::sdk
