// The --tune_ops_file JSON on any bytes: a selection or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "fuzz_file.h"
#include "tune_ops.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("ops.json", data, size);
  try {
    aoe::opat::TuneOps::from_file(file);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
