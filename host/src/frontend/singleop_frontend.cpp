#include "singleop_frontend.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

// ATC's names for element types, and ours.
sdk::DType dtype_of(const std::string& type) {
  if (type == "float" || type == "fp32") return sdk::DType::f32;
  if (type == "half" || type == "fp16") return sdk::DType::f16;
  return sdk::dtype_from_string(type);
}

class OpReader {
 public:
  OpReader(const std::filesystem::path& file, size_t index, const json& op)
      : where_(file.string() + ": op " + std::to_string(index)), op_(op) {}

  sdk::Node read(sdk::Graph& graph) const {
    if (!op_.is_object()) fail("is not a JSON object");
    if (!op_.contains("op") || !op_["op"].is_string() || op_["op"].get<std::string>().empty())
      fail("needs \"op\": the op type, e.g. \"MatMul\"");
    sdk::Node node;
    node.op_type = op_["op"].get<std::string>();
    node.name = text_or(op_, "name", node.op_type + "_" + where_.substr(where_.rfind(' ') + 1), "op");
    node.inputs = tensors(graph, "input_desc", node.name + ":in");
    node.outputs = tensors(graph, "output_desc", node.name + ":out");
    if (op_.contains("attr")) {
      if (!op_["attr"].is_array()) fail("\"attr\" must be a list of {\"name\", \"value\"}");
      for (const auto& a : op_["attr"]) {
        if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !a.contains("value"))
          fail("each \"attr\" entry needs \"name\" and \"value\"");
        node.attrs[a["name"].get<std::string>()] = a["value"];
      }
    }
    return node;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(StatusCode::invalid_argument, where_ + " " + what);
  }

  // j[key] when it is a string, fallback when j has no key; json's own value()
  // would throw its type_error at a number, which names neither file nor key.
  std::string text_or(const json& j, const char* key, const std::string& fallback, const std::string& field) const {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_string()) fail(field + " has \"" + key + "\" " + j[key].dump() + ": it must be a string");
    return j[key].get<std::string>();
  }

  std::vector<std::string> tensors(sdk::Graph& graph, const char* key, const std::string& prefix) const {
    std::vector<std::string> names;
    if (!op_.contains(key)) return names;
    if (!op_[key].is_array()) fail(std::string("\"") + key + "\" must be a list of tensor descriptions");
    for (const auto& d : op_[key]) {
      const std::string field = std::string(key) + "[" + std::to_string(names.size()) + "]";
      if (!d.is_object() || !d.contains("shape") || !d["shape"].is_array())
        fail(field + " needs \"shape\": a list of dims");
      sdk::TensorDesc t;
      t.name = prefix + std::to_string(names.size());
      for (const auto& dim : d["shape"]) {
        if (!dim.is_number_integer() || dim.get<int64_t>() < 1)
          fail(field + " has dim " + dim.dump() + ": dims must be integers >= 1");
        t.shape.push_back(dim.get<int64_t>());
      }
      // Devices size buffers from the dims: their product must be a size.
      if (!sdk::checked_elements(t.shape))
        fail(field + " has dims whose product overflows a 64-bit count: give the op's real shape");
      try {
        t.dtype = dtype_of(text_or(d, "type", "float16", field));
      } catch (const Error& e) {
        fail(field + ": " + e.what());
      }
      t.format = text_or(d, "format", "ND", field);
      if (d.contains("const") && !d["const"].is_boolean())
        fail(field + " has \"const\" " + d["const"].dump() + ": it must be true or false");
      t.constant = d.value("const", false);
      graph.tensors[t.name] = t;
      names.push_back(t.name);
    }
    return names;
  }

  std::string where_;
  const json& op_;
};

}  // namespace

sdk::Graph load_singleop(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(StatusCode::invalid_argument, "cannot read single-op file " + file.string());
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw Error(StatusCode::invalid_argument, "single-op file " + file.string() + " is not JSON: " + e.what());
  }
  if (doc.is_object()) doc = json::array({doc});
  if (!doc.is_array() || doc.empty())
    throw Error(StatusCode::invalid_argument, "single-op file " + file.string() + " must hold an op or a list of ops");
  sdk::Graph graph;
  graph.name = file.stem().string();
  for (size_t i = 0; i < doc.size(); ++i) graph.nodes.push_back(OpReader(file, i, doc[i]).read(graph));
  for (const auto& node : graph.nodes)
    for (const auto& out : node.outputs) graph.outputs.push_back(out);
  return graph;
}

}  // namespace aoe::host
