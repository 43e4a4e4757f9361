// The run command's --inputs on any bytes, read as NumPy's .npz archive of
// arrays: arrays read or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "fuzz_file.h"
#include "npz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("inputs.npz", data, size);
  try {
    aoe::host::read_npz(file);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
