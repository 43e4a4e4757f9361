// The Caffe frontend on any text: a network is loaded or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "frontend/caffe_frontend.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto prototxt = aoe::fuzz::write_file("model/m.prototxt", data, size);
  try {
    aoe::host::load_caffe(prototxt, std::nullopt);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
