// A simulator SoC file on any bytes: a SoC read or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "fuzz_file.h"
#include "soc_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("socs/ascend910.yaml", data, size);
  try {
    aoe::sim::load_soc_file(file);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
