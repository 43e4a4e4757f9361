#include "graph_export.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <vector>

namespace aoe::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* dtype_name(int onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return "float32";
    case onnx::TensorProto::DOUBLE: return "float64";
    case onnx::TensorProto::FLOAT16: return "float16";
    case onnx::TensorProto::INT64: return "int64";
    case onnx::TensorProto::INT32: return "int32";
    case onnx::TensorProto::INT8: return "int8";
    case onnx::TensorProto::UINT8: return "uint8";
    case onnx::TensorProto::BOOL: return "bool";
    default: return nullptr;
  }
}

// The tensor's bytes, little-endian as ONNX stores raw data.
std::string tensor_bytes(const onnx::TensorProto& t, const fs::path& model_path) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    uint64_t offset = 0;
    std::optional<uint64_t> given_length;
    for (const auto& e : t.external_data()) {
      if (e.key() == "location") location = e.value();
      if (e.key() == "offset") offset = std::stoull(e.value());
      if (e.key() == "length") given_length = std::stoull(e.value());
    }
    const fs::path file = model_path.parent_path() / location;
    std::error_code ec;
    const uint64_t size = fs::file_size(file, ec);
    if (ec) throw std::runtime_error("cannot read the external weights " + file.string() + " of " + t.name());
    if (offset > size) throw std::runtime_error(file.string() + " ends before " + t.name() + "'s offset " + std::to_string(offset));
    const uint64_t length = given_length.value_or(size - offset);  // ONNX: no length, the rest of the file
    if (length > size - offset)
      throw std::runtime_error(file.string() + " ends before " + t.name() + "'s " + std::to_string(length) + " bytes");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the external weights " + file.string() + " of " + t.name());
    std::string bytes(length, '\0');
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(bytes.data(), static_cast<std::streamsize>(length)))
      throw std::runtime_error(file.string() + " ends before " + t.name() + "'s " + std::to_string(length) + " bytes");
    return bytes;
  }
  if (t.has_raw_data()) return t.raw_data();
  const auto as_bytes = [](const auto& values, auto cast) {
    using T = decltype(cast(values.Get(0)));
    std::string out(static_cast<size_t>(values.size()) * sizeof(T), '\0');
    for (int i = 0; i < values.size(); ++i) {
      const T v = cast(values.Get(i));
      std::memcpy(out.data() + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
    }
    return out;
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT: return as_bytes(t.float_data(), [](float v) { return v; });
    case onnx::TensorProto::DOUBLE: return as_bytes(t.double_data(), [](double v) { return v; });
    case onnx::TensorProto::INT64: return as_bytes(t.int64_data(), [](int64_t v) { return v; });
    case onnx::TensorProto::INT32: return as_bytes(t.int32_data(), [](int32_t v) { return v; });
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::UINT8: return as_bytes(t.int32_data(), [](int32_t v) { return static_cast<uint8_t>(v); });
    default: throw std::runtime_error("tensor " + t.name() + " holds a dtype the export does not write");
  }
}

class Writer {
 public:
  explicit Writer(const fs::path& bin) : out_(bin, std::ios::binary | std::ios::trunc), path_(bin) {
    if (!out_) throw std::runtime_error("cannot write " + bin.string());
  }
  json tensor(const onnx::TensorProto& t, const fs::path& model_path) {
    const char* dtype = dtype_name(t.data_type());
    if (!dtype) throw std::runtime_error("tensor " + t.name() + " has ONNX dtype " + std::to_string(t.data_type()));
    const std::string bytes = tensor_bytes(t, model_path);
    json shape = json::array();
    for (auto d : t.dims()) shape.push_back(d);
    json out = {{"dtype", dtype}, {"shape", shape}, {"offset", offset_}, {"bytes", bytes.size()}};
    out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    offset_ += bytes.size();
    return out;
  }
  void close() {
    if (!out_.flush()) throw std::runtime_error("cannot write " + path_.string());
  }

 private:
  std::ofstream out_;
  fs::path path_;
  uint64_t offset_ = 0;
};

json attribute(const onnx::AttributeProto& a, Writer& bin, const fs::path& model_path) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return a.i();
    case onnx::AttributeProto::FLOAT: return a.f();
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case onnx::AttributeProto::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case onnx::AttributeProto::TENSOR: return {{"tensor", bin.tensor(a.t(), model_path)}};
    default: throw std::runtime_error("attribute " + a.name() + " is of a kind the export does not write (a graph?)");
  }
}

}  // namespace

void export_graph(const onnx::ModelProto& model, const fs::path& model_path, const std::map<std::string, int64_t>& input_dims,
                  const fs::path& json_out, const fs::path& bin_out) {
  Writer bin(bin_out);
  const auto& g = model.graph();
  json doc = {{"inputs", json::array()}, {"outputs", json::array()}, {"initializers", json::object()}, {"nodes", json::array()}};
  std::map<std::string, bool> initializer;
  for (const auto& t : g.initializer()) {
    doc["initializers"][t.name()] = bin.tensor(t, model_path);
    initializer[t.name()] = true;
  }
  for (const auto& in : g.input()) {
    if (initializer.count(in.name())) continue;
    const auto& tt = in.type().tensor_type();
    json shape = json::array();
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        shape.push_back(d.dim_value());
        continue;
      }
      const auto it = input_dims.find(d.dim_param());
      if (it == input_dims.end()) throw std::runtime_error("input " + in.name() + " has dim '" + d.dim_param() + "' the export is not given");
      shape.push_back(it->second);
    }
    const char* dtype = dtype_name(tt.elem_type());
    doc["inputs"].push_back({{"name", in.name()}, {"dtype", dtype ? dtype : "float32"}, {"shape", shape}});
  }
  for (const auto& out : g.output()) doc["outputs"].push_back(out.name());
  for (const auto& n : g.node()) {
    json attrs = json::object();
    for (const auto& a : n.attribute()) attrs[a.name()] = attribute(a, bin, model_path);
    doc["nodes"].push_back({{"op_type", n.op_type()},
                            {"name", n.name()},
                            {"inputs", std::vector<std::string>(n.input().begin(), n.input().end())},
                            {"outputs", std::vector<std::string>(n.output().begin(), n.output().end())},
                            {"attrs", attrs}});
  }
  bin.close();
  std::ofstream out(json_out, std::ios::trunc);
  out << doc.dump();
  if (!out.flush()) throw std::runtime_error("cannot write " + json_out.string());
}

}  // namespace aoe::bench
