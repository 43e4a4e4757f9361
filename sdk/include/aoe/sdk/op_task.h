// SPDX-License-Identifier: Apache-2.0
// One unit of operator tuning, and its signature: the stable key of the bank.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::sdk {

// FNV-1a 64 of `text`, as 16 hex digits: how a signature becomes a bank key.
inline std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

struct OpTask {
  std::string name;     // the node (or fused nodes) in the model; not part of the signature
  std::string op_type;  // the anchor op: "MatMul", "Conv", ...
  std::vector<std::string> fused_ops;  // op types fused after the anchor, in order
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  nlohmann::json attrs = nlohmann::json::object();

  // Canonical text of what the op computes: no names, keys sorted, so the
  // same op in any model, on any machine, gives the same string.
  std::string signature() const {
    auto shape_of = [](const std::vector<TensorDesc>& ts) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& t : ts)
        out.push_back({{"dtype", to_string(t.dtype)}, {"format", t.format}, {"shape", t.shape}});
      return out;
    };
    nlohmann::json sig = {{"op_type", op_type}, {"fused_ops", fused_ops}, {"inputs", shape_of(inputs)},
                          {"outputs", shape_of(outputs)}, {"attrs", attrs}};
    return sig.dump();
  }

  std::string hash() const { return fnv1a_hex(signature()); }
};

inline void to_json(nlohmann::json& j, const OpTask& t) {
  j = {{"name", t.name},     {"op_type", t.op_type}, {"fused_ops", t.fused_ops},
       {"inputs", t.inputs}, {"outputs", t.outputs}, {"attrs", t.attrs}};
}
inline void from_json(const nlohmann::json& j, OpTask& t) {
  t.name = j.value("name", "");
  t.op_type = j.at("op_type").get<std::string>();
  t.fused_ops = j.value("fused_ops", std::vector<std::string>{});
  t.inputs = j.value("inputs", std::vector<TensorDesc>{});
  t.outputs = j.value("outputs", std::vector<TensorDesc>{});
  t.attrs = j.value("attrs", nlohmann::json::object());
}

}  // namespace aoe::sdk
