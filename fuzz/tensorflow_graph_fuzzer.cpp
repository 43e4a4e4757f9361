// The TensorFlow frontend on any bytes: a frozen graph is loaded or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "frontend/tensorflow_frontend.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto graph = aoe::fuzz::write_file("model/m.pb", data, size);
  try {
    aoe::host::load_tensorflow(graph);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
