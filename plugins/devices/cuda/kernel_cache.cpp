#include "kernel_cache.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "aoe/sdk/atomic_file.h"
#include "aoe/sdk/op_task.h"

namespace aoe::cuda {

std::filesystem::path KernelCache::default_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "aoe" / "cuda-kernels";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "aoe" / "cuda-kernels";
  return {};
}

std::string KernelCache::key(const std::string& source, const std::string& how) {
  // Two hashes of different texts: a collision of one 64-bit hash is not enough to load the wrong kernel.
  return sdk::fnv1a_hex(how + '\n' + source) + sdk::fnv1a_hex(source + '\n' + how);
}

std::optional<std::string> KernelCache::load(const std::string& key) const {
  if (folder_.empty()) return std::nullopt;
  std::ifstream in(folder_ / (key + ".cubin"), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof()) return std::nullopt;
  std::string cubin = bytes.str();
  if (cubin.empty()) return std::nullopt;
  return cubin;
}

void KernelCache::store(const std::string& key, const std::string& cubin) const {
  if (folder_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  if (ec) return;
  try {
    sdk::write_atomically(folder_ / (key + ".cubin"), cubin);
  } catch (const std::exception&) {  // a full disk or a read-only folder: the next run compiles again
  }
}

}  // namespace aoe::cuda
