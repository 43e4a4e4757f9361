// Compiled kernels kept on disk by a hash of what made them (the source,
// NVRTC's options and the NVRTC library), so that a model's second run
// compiles nothing. A file that cannot be read or written is a miss, never
// an error: the cache only saves time.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace aoe::cuda {

class KernelCache {
 public:
  // `folder` empty: no cache (every lookup misses, nothing is stored).
  explicit KernelCache(std::filesystem::path folder) : folder_(std::move(folder)) {}

  // $XDG_CACHE_HOME/aoe/cuda-kernels, else $HOME/.cache/aoe/cuda-kernels, else empty.
  static std::filesystem::path default_folder();

  // The key of a compile: a hash of its source and of `how` (options, architecture, NVRTC).
  static std::string key(const std::string& source, const std::string& how);

  std::optional<std::string> load(const std::string& key) const;
  void store(const std::string& key, const std::string& cubin) const;
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_;
};

}  // namespace aoe::cuda
