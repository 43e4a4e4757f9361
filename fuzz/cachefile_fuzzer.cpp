// A Kernel Tuner cachefile on any bytes, gzip or plain: read or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "cachefile.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aoe::fuzz::write_file("space_A100.json.gz", data, size);
  try {
    // A limit the fuzzer's memory holds: a gzip bomb must stop at it.
    aoe::replay::read_cachefile(file, uint64_t{64} << 20);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
