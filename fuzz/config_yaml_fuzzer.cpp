// The --config YAML file on any bytes: settings resolved or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "fuzz_file.h"
#include "settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("aoe.yaml", data, size);
  try {
    aoe::host::Settings::resolve({}, {}, file);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
