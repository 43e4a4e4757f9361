// The --singleop JSON on any bytes: a graph of ops or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "frontend/singleop_frontend.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("op.json", data, size);
  try {
    aoe::host::load_singleop(file);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
