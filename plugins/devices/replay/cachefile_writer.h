// Writes a Kernel Tuner cachefile config by config, as Kernel Tuner does
// while it tunes, so a run's measurements can be replayed and read by
// Kernel Tuner's own tools.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cachefile.h"

namespace aoe::replay {

// The cache key of a config: the values joined with commas, each as Python's
// str() writes it ("16", "1.5", "True", a string as it is).
std::string cache_key(const std::vector<nlohmann::json>& values);

class CachefileWriter {
 public:
  // `header` gives device_name, kernel_name, problem_size, the keys and
  // their domains, and the objective ("time"; empty: the older layout,
  // without one); its records are added as if by add().
  CachefileWriter(std::filesystem::path file, Cachefile header);

  // Adds a config's record (values in the keys' order), or replaces the one
  // of the same values; its key is cache_key(values) whatever record.key says.
  void add(const Record& record);
  // Writes the file as it now stands: a temporary beside it, renamed over
  // it, so a reader sees the old content or the new, never half.
  void save() const;

  size_t size() const { return entries_.size(); }
  const std::filesystem::path& path() const { return file_; }

 private:
  std::filesystem::path file_;
  Cachefile header_;
  // The entries in the order first added, each "key": {...} as written; the
  // cache is composed as text since an ordered JSON object of many
  // thousand keys costs a search per insertion.
  std::vector<std::string> entries_;
  std::map<std::string, size_t> index_;
};

}  // namespace aoe::replay
