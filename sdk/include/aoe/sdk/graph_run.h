// SPDX-License-Identifier: Apache-2.0
// A whole model run on a device with what the bank holds: the request the
// host sends through run_graph (SDK 1.4) and the tensors it lends.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::sdk {

struct GraphRun {
  Graph graph;
  // Anchor node name -> {knob name: value}: the tiling the operator bank
  // holds for the fused op anchored there, as SubgraphTask::op_configs.
  nlohmann::json op_configs = nlohmann::json::object();
  int64_t iterations = 10;  // timed runs of the whole graph
  int64_t warmup = 1;       // untimed runs first
  int64_t threads = 0;      // 0: the device's default
  bool check = false;       // compare the outputs with the device's reference
  uint64_t seed = 0;        // weights the model does not carry are drawn from it
};

inline void to_json(nlohmann::json& j, const GraphRun& r) {
  j = {{"graph", r.graph},         {"op_configs", r.op_configs}, {"iterations", r.iterations},
       {"warmup", r.warmup},       {"threads", r.threads},       {"check", r.check},
       {"seed", r.seed}};
}
inline void from_json(const nlohmann::json& j, GraphRun& r) {
  r.graph = j.at("graph").get<Graph>();
  r.op_configs = j.value("op_configs", nlohmann::json::object());
  r.iterations = j.value("iterations", int64_t{10});
  r.warmup = j.value("warmup", int64_t{1});
  r.threads = j.value("threads", int64_t{0});
  r.check = j.value("check", false);
  r.seed = j.value("seed", uint64_t{0});
}

// A tensor's float32 data by name; the lender owns `data`.
struct TensorView {
  std::string name;
  float* data = nullptr;
  size_t count = 0;
};

}  // namespace aoe::sdk
