#include "model_weights.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "external_data.h"
#include "tensor_bounds.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using T = onnx::TensorProto;

int64_t elements(const T& t) {
  int64_t n = 1;
  for (auto d : t.dims()) n *= d;  // bounded by check_initializers
  return n;
}

// Little-endian bytes, as ONNX stores them and as the host is.
std::vector<float> from_bytes(const char* bytes, size_t count) {
  std::vector<float> out(count);
  if (count) std::memcpy(out.data(), bytes, count * sizeof(float));
  return out;
}

std::vector<float> external(const T& t, const fs::path& model, size_t count) {
  const std::string bytes = read_external_bytes(t, model, static_cast<int64_t>(count * sizeof(float)));
  return from_bytes(bytes.data(), count);
}

template <typename E>
std::vector<float> held_from_bytes(const std::string& raw, size_t count) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count && (i + 1) * sizeof(E) <= raw.size(); ++i) {
    E e;
    std::memcpy(&e, raw.data() + i * sizeof(E), sizeof e);
    out[i] = static_cast<float>(e);
  }
  return out;
}

float from_half(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                           : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                            : std::ldexp(mantissa + 1024, exponent - 25);
  return static_cast<float>((h & 0x8000) ? -magnitude : magnitude);
}

// bfloat16 is a float32's high 16 bits.
float from_bfloat16(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// An integer, bool, float64, float16 or bfloat16 initializer held in the model (not
// external), as floats.
std::optional<std::vector<float>> held_integers(const T& t, size_t count) {
  const std::string& raw = t.raw_data();
  const bool has_raw = t.has_raw_data();
  switch (t.data_type()) {
    case T::INT64:
      if (has_raw) return held_from_bytes<int64_t>(raw, count);
      if (static_cast<size_t>(t.int64_data_size()) == count) return std::vector<float>(t.int64_data().begin(), t.int64_data().end());
      return std::nullopt;
    case T::UINT64:
    case T::UINT32:
      if (has_raw) return t.data_type() == T::UINT64 ? held_from_bytes<uint64_t>(raw, count) : held_from_bytes<uint32_t>(raw, count);
      if (static_cast<size_t>(t.uint64_data_size()) == count) return std::vector<float>(t.uint64_data().begin(), t.uint64_data().end());
      return std::nullopt;
    case T::INT32:
    case T::INT16:
    case T::INT8:
    case T::UINT16:
    case T::UINT8:
    case T::BOOL:
      if (has_raw) {
        if (t.data_type() == T::INT32) return held_from_bytes<int32_t>(raw, count);
        if (t.data_type() == T::INT16) return held_from_bytes<int16_t>(raw, count);
        if (t.data_type() == T::UINT16) return held_from_bytes<uint16_t>(raw, count);
        if (t.data_type() == T::INT8) return held_from_bytes<int8_t>(raw, count);
        return held_from_bytes<uint8_t>(raw, count);
      }
      if (static_cast<size_t>(t.int32_data_size()) == count) return std::vector<float>(t.int32_data().begin(), t.int32_data().end());
      return std::nullopt;
    case T::FLOAT16:     // widened to float32: the devices compute float16 and bfloat16 in it
    case T::BFLOAT16: {  // 16-bit words, raw or one to each int32
      std::vector<float> out(count);
      for (size_t i = 0; i < count; ++i) {
        uint16_t h = 0;
        if (has_raw && (i + 1) * 2 <= raw.size()) std::memcpy(&h, raw.data() + i * 2, 2);
        else if (!has_raw && static_cast<int>(i) < t.int32_data_size()) h = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
        out[i] = t.data_type() == T::FLOAT16 ? from_half(h) : from_bfloat16(h);
      }
      return out;
    }
    case T::DOUBLE:  // rounded to float32: the devices compute float64 in it
      if (has_raw) return held_from_bytes<double>(raw, count);
      if (static_cast<size_t>(t.double_data_size()) == count) return std::vector<float>(t.double_data().begin(), t.double_data().end());
      return std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace

ModelWeights take_initializers(onnx::GraphProto& graph, const fs::path& model) {
  ModelWeights weights;
  for (auto& t : *graph.mutable_initializer()) {
    if (t.data_type() != T::FLOAT) {
      if (t.data_location() == T::EXTERNAL) {
        const int64_t width = stored_element_bytes(t.data_type());
        if (!width) continue;
        *t.mutable_raw_data() = read_external_bytes(t, model, elements(t) * width);
        t.set_data_location(T::DEFAULT);
      }
      if (auto held = held_integers(t, static_cast<size_t>(elements(t)))) weights[t.name()] = std::move(*held);
      continue;
    }
    const auto count = static_cast<size_t>(elements(t));
    if (t.data_location() == T::EXTERNAL) weights[t.name()] = external(t, model, count);
    else if (t.has_raw_data()) weights[t.name()] = from_bytes(t.raw_data().data(), count);
    else if (static_cast<size_t>(t.float_data_size()) == count)
      weights[t.name()].assign(t.float_data().begin(), t.float_data().end());
    else initializer_error(t, model, "holds no values; re-export the model with its weights");
    // Its bytes freed now, not with the model: the weights are held once while loading.
    T().Swap(&t);
  }
  return weights;
}

}  // namespace aoe::host
