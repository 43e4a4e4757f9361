// SPDX-License-Identifier: Apache-2.0
// The graph IR every plugin shares: tensors, nodes, attributes, shapes, dtypes, formats.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::sdk {

enum class DType { undefined, f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean };

inline const std::vector<std::pair<DType, const char*>>& dtype_names() {
  static const std::vector<std::pair<DType, const char*>> names = {
      {DType::undefined, "undefined"}, {DType::f32, "float32"}, {DType::f16, "float16"},
      {DType::bf16, "bfloat16"},       {DType::f64, "float64"}, {DType::i8, "int8"},
      {DType::i16, "int16"},           {DType::i32, "int32"},   {DType::i64, "int64"},
      {DType::u8, "uint8"},            {DType::u16, "uint16"},  {DType::u32, "uint32"},
      {DType::u64, "uint64"},          {DType::boolean, "bool"}};
  return names;
}

inline const char* to_string(DType t) {
  for (const auto& [type, name] : dtype_names())
    if (type == t) return name;
  return "undefined";
}

inline DType dtype_from_string(const std::string& s) {
  for (const auto& [type, name] : dtype_names())
    if (s == name) return type;
  throw Error(StatusCode::invalid_argument, "unknown dtype '" + s + "'");
}

// float32, float16, bfloat16 or float64: a tensor of real numbers, not whole ones
inline bool is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64; }

inline int dtype_bytes(DType t) {
  switch (t) {
    case DType::f64: case DType::i64: case DType::u64: return 8;
    case DType::f32: case DType::i32: case DType::u32: return 4;
    case DType::f16: case DType::bf16: case DType::i16: case DType::u16: return 2;
    case DType::i8: case DType::u8: case DType::boolean: return 1;
    case DType::undefined: return 0;
  }
  return 0;
}

// A dimension of -1 is unknown (dynamic).
struct TensorDesc {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::f32;
  std::string format = "ND";
  bool constant = false;  // an initializer: weights, not an activation

  int64_t elements() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  bool fully_known() const {
    for (auto d : shape)
      if (d < 0) return false;
    return true;
  }
};

struct Node {
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;  // tensor names; "" marks an omitted optional input
  std::vector<std::string> outputs;
  nlohmann::json attrs = nlohmann::json::object();
};

struct Graph {
  std::string name;
  int64_t opset = 0;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, TensorDesc> tensors;
  std::vector<Node> nodes;

  const TensorDesc& tensor(const std::string& tensor_name) const {
    auto it = tensors.find(tensor_name);
    if (it == tensors.end())
      throw Error(StatusCode::not_found, "graph '" + name + "' has no tensor '" + tensor_name + "'");
    return it->second;
  }
};

inline void to_json(nlohmann::json& j, const TensorDesc& t) {
  j = {{"name", t.name}, {"shape", t.shape}, {"dtype", to_string(t.dtype)}, {"format", t.format}};
  if (t.constant) j["constant"] = true;
}
inline void from_json(const nlohmann::json& j, TensorDesc& t) {
  t.name = j.value("name", "");
  t.shape = j.at("shape").get<std::vector<int64_t>>();
  t.dtype = dtype_from_string(j.value("dtype", "float32"));
  t.format = j.value("format", "ND");
  t.constant = j.value("constant", false);
}
inline void to_json(nlohmann::json& j, const Node& n) {
  j = {{"name", n.name}, {"op_type", n.op_type}, {"inputs", n.inputs}, {"outputs", n.outputs},
       {"attrs", n.attrs}};
}
inline void from_json(const nlohmann::json& j, Node& n) {
  n.name = j.value("name", "");
  n.op_type = j.at("op_type").get<std::string>();
  n.inputs = j.value("inputs", std::vector<std::string>{});
  n.outputs = j.value("outputs", std::vector<std::string>{});
  n.attrs = j.value("attrs", nlohmann::json::object());
}
inline void to_json(nlohmann::json& j, const Graph& g) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& [name, t] : g.tensors) tensors.push_back(t);
  j = {{"name", g.name}, {"opset", g.opset},     {"inputs", g.inputs},
       {"outputs", g.outputs}, {"tensors", tensors}, {"nodes", g.nodes}};
}
inline void from_json(const nlohmann::json& j, Graph& g) {
  g.name = j.value("name", "");
  g.opset = j.value("opset", int64_t{0});
  g.inputs = j.value("inputs", std::vector<std::string>{});
  g.outputs = j.value("outputs", std::vector<std::string>{});
  g.tensors.clear();
  for (const auto& t : j.value("tensors", nlohmann::json::array())) {
    auto desc = t.get<TensorDesc>();
    g.tensors[desc.name] = desc;
  }
  g.nodes = j.value("nodes", std::vector<Node>{});
}

}  // namespace aoe::sdk
