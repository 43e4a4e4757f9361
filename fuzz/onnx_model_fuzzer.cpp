// The ONNX frontend on any bytes: a model is loaded or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "frontend/onnx_frontend.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto model = aoe::fuzz::write_file("model/m.onnx", data, size);
  try {
    aoe::host::load_onnx(model);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
