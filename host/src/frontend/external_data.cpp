#include "external_data.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <string>
#include <system_error>

#include "aoe/sdk/tensor_size.h"
#include "constant_folding.h"
#include "tensor_bounds.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using T = onnx::TensorProto;

std::string entry(const T& t, const std::string& key) {
  for (const auto& e : t.external_data())
    if (e.key() == key) return e.value();
  return {};
}

fs::path data_file(const T& t, const fs::path& model) {
  return (model.parent_path().empty() ? fs::path(".") : model.parent_path()) / entry(t, "location");
}

// Integers and bools: indices, masks and shapes.
bool whole_numbers(const T& t) {
  switch (t.data_type()) {
    case T::INT8: case T::INT16: case T::INT32: case T::INT64:
    case T::UINT8: case T::UINT16: case T::UINT32: case T::UINT64: case T::BOOL: return true;
    default: return false;
  }
}

}  // namespace

std::string read_external_bytes(const T& t, const fs::path& model, int64_t bytes) {
  const std::string location = entry(t, "location");
  const std::string offset = entry(t, "offset");  // a byte count >= 0: check_initializers
  std::ifstream in(data_file(t, model), std::ios::binary);
  if (!in)
    initializer_error(t, model, "keeps its data in '" + location + "', which is not beside the model; running needs the "
                   "weights: copy the model with its external data files");
  std::string out(static_cast<size_t>(bytes), '\0');
  in.seekg(offset.empty() ? 0 : std::stoll(offset));
  in.read(out.data(), static_cast<std::streamsize>(bytes));
  if (in.gcount() != bytes)
    initializer_error(t, model, "reads past the end of '" + location + "'; copy the data file again with the model");
  return out;
}

int64_t read_external_constants(onnx::GraphProto& graph, const fs::path& model) {
  int64_t read = 0;
  for (auto& t : *graph.mutable_initializer()) {
    if (t.data_location() != T::EXTERNAL) continue;
    const auto elements = sdk::checked_elements({t.dims().begin(), t.dims().end()});  // bounded: check_initializers
    const int64_t width = stored_element_bytes(t.data_type());
    if (!elements || !width || (*elements * width > kReadInBytes && !(whole_numbers(t) && *elements <= kConstantElements)))
      continue;
    const int64_t bytes = *elements * width;
    std::error_code ec;
    if (bytes && !fs::is_regular_file(data_file(t, model), ec)) continue;  // tuning needs only dims
    *t.mutable_raw_data() = bytes ? read_external_bytes(t, model, bytes) : std::string();
    t.clear_external_data();
    t.set_data_location(T::DEFAULT);
    ++read;
  }
  return read;
}

}  // namespace aoe::host
