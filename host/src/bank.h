// The knowledge bank: tuned configs keyed by signature, soc_version and space
// version, one JSON file per entry, written atomically under a lock.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/host.h"

namespace aoe::host {

class Bank {
 public:
  explicit Bank(std::filesystem::path root) : root_(std::move(root)) {}

  // The bank root by priority: TUNE_BANK_PATH > ASCEND_CACHE_PATH > $HOME default.
  static std::filesystem::path default_root(const std::string& kind, const std::string& tune_bank_path,
                                            const std::string& cache_path, const std::string& home);

  const std::filesystem::path& root() const { return root_; }

  // key: {"soc_version","space_version","signature","hash", ...}. A corrupt
  // entry file throws aoe::sdk::Error(io) naming it; it is never replaced.
  std::optional<nlohmann::json> lookup(const nlohmann::json& key) const;
  // Stores entry (with "key" and "after_us") unless an entry at least as fast is there.
  aoe::sdk::BankOutcome record(const nlohmann::json& entry) const;

  std::filesystem::path entry_path(const nlohmann::json& key) const;

  struct Entry {
    std::filesystem::path file;
    nlohmann::json content;
  };
  // Every entry, by soc_version then file name. A corrupt entry throws
  // aoe::sdk::Error(io) naming its file.
  std::vector<Entry> entries() const;
  // The soc_versions the bank holds entries for.
  std::vector<std::string> soc_versions() const;

  // The entries whose key holds every field of query but "kind" (the bank
  // is of one kind already), by file name. A corrupt entry is handed to
  // `skipped` with why, and left out: one bad file must not cost the rest.
  using SkipCorrupt = std::function<void(const std::filesystem::path& file, const std::string& reason)>;
  std::vector<Entry> select(const nlohmann::json& query, const SkipCorrupt& skipped) const;

 private:
  std::optional<nlohmann::json> read_entry(const std::filesystem::path& file, const nlohmann::json& key) const;
  std::vector<std::filesystem::path> entry_files(const std::string& soc_version) const;
  std::filesystem::path root_;
};

}  // namespace aoe::host
