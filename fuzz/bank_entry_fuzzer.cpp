// A bank entry file on any bytes: its content read or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "bank_index.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("entry/0123456789abcdef.s1.json", data, size);
  try {
    aoe::host::read_bank_entry_file(file);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
