// The --input_shape text on any bytes: shapes or refused with sdk::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "aoe/sdk/error.h"
#include "frontend/onnx_frontend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    aoe::host::parse_input_shape(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
