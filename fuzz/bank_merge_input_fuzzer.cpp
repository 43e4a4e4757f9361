// What `bank merge` reads of each input bank, on any bytes: a SoC folder's
// index and one entry file (the input split at the first NUL), listed by
// Bank::stored() or refused with sdk::Error.
#include <algorithm>
#include <filesystem>

#include "aoe/sdk/error.h"
#include "bank.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  const auto root = aoe::fuzz::scratch_dir() / "bank" / "op";
  fs::remove_all(root);
  const uint8_t* split = std::find(data, data + size, uint8_t{0});
  const size_t index_size = static_cast<size_t>(split - data);
  aoe::fuzz::write_file("bank/op/Ascend910/.index/index.tsv", data, index_size);
  const size_t rest = index_size < size ? size - index_size - 1 : 0;
  aoe::fuzz::write_file("bank/op/Ascend910/0123456789abcdef.s1.json", data + size - rest, rest);
  try {
    (void)aoe::host::Bank(root).stored();
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
