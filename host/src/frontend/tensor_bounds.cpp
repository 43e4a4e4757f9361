// Sizes and weight data checked before they size anything.
#include "tensor_bounds.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <system_error>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;
using T = onnx::TensorProto;

// How many values the typed field that holds this data type has.
std::optional<int64_t> typed_count(const T& t) {
  switch (t.data_type()) {
    case T::FLOAT: case T::COMPLEX64: return t.float_data_size();
    case T::DOUBLE: case T::COMPLEX128: return t.double_data_size();
    case T::INT64: return t.int64_data_size();
    case T::UINT32: case T::UINT64: return t.uint64_data_size();
    case T::INT32: case T::INT16: case T::INT8: case T::UINT16: case T::UINT8: case T::BOOL:
    case T::FLOAT16: case T::BFLOAT16: return t.int32_data_size();
    case T::STRING: return t.string_data_size();
    default: return std::nullopt;
  }
}

// Complex numbers take two values each.
int64_t values_per_element(int32_t data_type) {
  return data_type == T::COMPLEX64 || data_type == T::COMPLEX128 ? 2 : 1;
}

std::string dims_text(const T& t) {
  std::string text = "[";
  for (int i = 0; i < t.dims_size(); ++i) text += (i ? "," : "") + std::to_string(t.dims(i));
  return text + "]";
}

class InitializerCheck {
 public:
  InitializerCheck(const T& tensor, const fs::path& model) : t_(tensor), model_(model) {}

  void run() const {
    const int64_t elements = element_count();
    const int64_t width = stored_element_bytes(t_.data_type());
    if (width > 0 && elements > kMaxTensorBytes / width)
      fail("declares " + std::to_string(elements) + " elements of " + std::to_string(width) + " bytes, more than the " +
           sdk::bytes_text(kMaxTensorBytes) + " one tensor may take");
    const int64_t bytes = elements * width;
    if (t_.data_location() == T::EXTERNAL) return external(bytes);
    if (t_.has_raw_data()) {
      if (width > 0 && static_cast<int64_t>(t_.raw_data().size()) != bytes)
        fail("holds " + std::to_string(t_.raw_data().size()) + " bytes of raw data, but its dims " + dims_text(t_) +
             " need " + std::to_string(bytes));
      return;
    }
    const auto count = typed_count(t_);
    const int64_t expected = elements * values_per_element(t_.data_type());
    if (count && *count > 0 && *count != expected)
      fail("holds " + std::to_string(*count) + " values, but its dims " + dims_text(t_) + " need " +
           std::to_string(expected));
  }

 private:
  [[noreturn]] void fail(const std::string& why, const std::string& what_to_do =
                                                     "fix or re-export the model") const {
    initializer_error(t_, model_, why + "; " + what_to_do);
  }

  int64_t element_count() const {
    for (auto d : t_.dims())
      if (d < 0) fail("has a negative dim in " + dims_text(t_));
    const auto n = sdk::checked_elements({t_.dims().begin(), t_.dims().end()});
    if (!n) fail("has dims " + dims_text(t_) + " whose product overflows a 64-bit count");
    return *n;
  }

  std::optional<int64_t> number(const std::map<std::string, std::string>& entries, const std::string& key) const {
    const auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    size_t used = 0;
    int64_t v = -1;
    try {
      v = std::stoll(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != it->second.size() || v < 0)
      fail("has external data " + key + " '" + it->second + "', not a byte count >= 0");
    return v;
  }

  // The data file must lie in the model's folder: a location is a path relative
  // to it (ONNX's rule), so "..", an absolute path or a link out of it is refused.
  void external(int64_t bytes) const {
    std::map<std::string, std::string> entries;
    for (const auto& e : t_.external_data()) entries[e.key()] = e.value();
    const auto location = entries.find("location");
    if (location == entries.end() || location->second.empty()) fail("keeps external data but names no location");
    const fs::path relative(location->second);
    const fs::path dir = model_.parent_path().empty() ? fs::path(".") : model_.parent_path();
    std::error_code ec;
    const fs::path base = fs::weakly_canonical(dir, ec);
    const fs::path file = fs::weakly_canonical(dir / relative, ec);
    const auto [end, _] = std::mismatch(base.begin(), base.end(), file.begin(), file.end());
    if (relative.is_absolute() || ec || end != base.end() || file == base)
      fail("keeps its data in '" + location->second + "', outside the model's folder " + dir.string(),
           "external data must lie beside the model; move the file there and name it relative to the model");
    // Tuning needs only dims: a model copied without its weights still loads.
    // Weights that are there must hold what the model says they hold.
    if (!fs::exists(file, ec)) return;
    if (!fs::is_regular_file(file, ec))
      fail("keeps its data in '" + location->second + "', which is not a file beside the model",
           "copy the model with its external data files");
    const auto size = static_cast<int64_t>(fs::file_size(file, ec));
    if (ec) fail("keeps its data in '" + location->second + "', which cannot be read: " + ec.message());
    const int64_t offset = number(entries, "offset").value_or(0);
    const auto length = number(entries, "length");
    if (length && stored_element_bytes(t_.data_type()) > 0 && *length != bytes)
      fail("has external data length " + std::to_string(*length) + ", but its dims " + dims_text(t_) + " need " +
           std::to_string(bytes));
    const auto end_at = sdk::checked_add(offset, length.value_or(bytes));
    if (!end_at || *end_at > size)
      fail("reads bytes " + std::to_string(offset) + ".." + (end_at ? std::to_string(*end_at) : "(overflow)") +
               " of '" + location->second + "', which holds " + std::to_string(size),
           "the data file is truncated or belongs to another model; copy it again with the model");
  }

  const T& t_;
  const fs::path& model_;
};

// "output of Relu node 'relu1'", or the first node that reads it, or "a graph input".
std::string where(const sdk::Graph& graph, const std::string& tensor) {
  for (const auto& node : graph.nodes)
    for (const auto& out : node.outputs)
      if (out == tensor) return "output of " + node.op_type + " node '" + node.name + "'";
  for (const auto& node : graph.nodes)
    for (const auto& in : node.inputs)
      if (in == tensor) return "input of " + node.op_type + " node '" + node.name + "'";
  return "not used by any node";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

void initializer_error(const T& t, const fs::path& model, const std::string& why) {
  throw Error(StatusCode::invalid_argument, "ONNX model '" + model.string() + "': initializer '" + t.name() + "' " + why);
}

int64_t stored_element_bytes(int32_t data_type) {
  switch (data_type) {
    case T::DOUBLE: case T::INT64: case T::UINT64: case T::COMPLEX64: return 8;
    case T::COMPLEX128: return 16;
    case T::FLOAT: case T::INT32: case T::UINT32: return 4;
    case T::FLOAT16: case T::BFLOAT16: case T::INT16: case T::UINT16: return 2;
    case T::INT8: case T::UINT8: case T::BOOL: return 1;
    default: return 0;
  }
}

void check_initializers(const onnx::GraphProto& graph, const fs::path& model) {
  for (const auto& init : graph.initializer()) InitializerCheck(init, model).run();
}

void check_tensor_sizes(const sdk::Graph& graph, const fs::path& model) {
  for (const auto& [name, t] : graph.tensors) {
    if (!t.fully_known()) continue;
    const int width = sdk::dtype_bytes(t.dtype) ? sdk::dtype_bytes(t.dtype) : 1;
    const auto n = sdk::checked_elements(t.shape);
    const auto bytes = n ? sdk::checked_mul(*n, width) : std::nullopt;
    if (bytes && *bytes <= kMaxTensorBytes) continue;
    throw Error(StatusCode::invalid_argument,
                "ONNX model '" + model.string() + "': tensor '" + name + "' (" + where(graph, name) + ") has shape " +
                    shape_text(t.shape) + " of " + sdk::to_string(t.dtype) + ": " +
                    (n ? std::to_string(*n) + " elements" : std::string("more elements than a 64-bit count holds")) +
                    ", more than the " + sdk::bytes_text(kMaxTensorBytes) +
                    " one tensor may take; give the model's inputs smaller dims with --input_shape, or fix the "
                    "shapes the model declares");
  }
}

}  // namespace aoe::host
