// The knowledge bank of one kind ("op", "graph", "gradient"): tuned configs
// keyed by signature, soc_version and space version, one JSON file per entry
// in a folder per soc_version, written atomically under a lock, with an index
// per folder (bank_index.h) so queries open only the entries they match.
//
// Layout, as AOE keeps it: <kinds root>/<kind>/<soc_version>/<hash>.s<space>.json
// where the kinds root is TUNE_BANK_PATH, else ${ASCEND_CACHE_PATH}/aoe_data,
// else $HOME/Ascend/latest/data/aoe/custom. Banks written before kept every
// kind in one folder, <TUNE_BANK_PATH or ASCEND_CACHE_PATH>/<soc_version>/;
// a bank opened on such a root moves its kind's entries into its own folder.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/host.h"
#include "bank_index.h"

namespace aoe::host {

class Bank {
 public:
  // root: the kind's folder (holding a folder per soc_version). legacy_root:
  // where entries of the old mixed layout may lie (<legacy_root>/<soc>/),
  // empty for none; kind: the kind the bank holds, by default root's name
  // when it is a kind's.
  explicit Bank(std::filesystem::path root, std::filesystem::path legacy_root = {}, std::string kind = {});

  // The kind's folder by priority: TUNE_BANK_PATH > ASCEND_CACHE_PATH > $HOME default.
  static std::filesystem::path default_root(const std::string& kind, const std::string& tune_bank_path,
                                            const std::string& cache_path, const std::string& home);
  // The folder holding the kinds' folders, by the same priority.
  static std::filesystem::path default_kinds_root(const std::string& tune_bank_path, const std::string& cache_path,
                                                  const std::string& home);
  // The bank of a kind by the same priority, with the root of the old layout it replaces.
  static Bank configured(const std::string& kind, const std::string& tune_bank_path, const std::string& cache_path,
                         const std::string& home);
  // "op", "graph", "gradient": the kinds' folder names.
  static const std::vector<std::string>& kinds();
  // A kind's name or "aoe_data": a folder that is no soc_version of the old layout.
  static bool is_layout_folder(const std::string& name);

  const std::filesystem::path& root() const { return root_; }
  const std::string& kind() const { return kind_; }

  // key: {"soc_version","space_version","signature","hash", ...}. A corrupt
  // entry file throws aoe::sdk::Error(io) naming it; it is never replaced.
  std::optional<nlohmann::json> lookup(const nlohmann::json& key) const;
  // Stores entry (with "key" and "after_us") unless an entry at least as fast is there.
  aoe::sdk::BankOutcome record(const nlohmann::json& entry) const;

  struct MergeCounts {
    size_t added = 0, replaced = 0, kept = 0;
  };
  // record() for each entry in order, with one lock and one index write per
  // soc_version folder and one flush to disk for all the files.
  MergeCounts record_all(const std::vector<const nlohmann::json*>& entries) const;

  // An entry file as an index knows it: what merge needs, without reading it.
  struct Stored {
    std::filesystem::path file;
    std::string soc_version;
    double after_us = 0;
    std::vector<std::pair<std::string, std::string>> fields;  // see BankIndex::Item
    int64_t mtime_ns = 0;
    uint64_t size = 0;
  };
  // Every entry as its folder's index knows it; one unreadable when indexed
  // is read again (still corrupt, it throws aoe::sdk::Error(io) naming it).
  // take_all() checks the files whose times decide between two entries.
  std::vector<Stored> stored() const;
  // What record_all() does, for entry files of other banks: each SoC folder
  // under one lock, the files taken hard-linked (copied where the filesystem
  // cannot link: bank files are replaced, never rewritten in place, so a
  // link is as good as a copy), the index written once.
  MergeCounts take_all(const std::vector<const Stored*>& entries) const;

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
  // is of one kind already), by file name; the index picks the files to
  // open. A corrupt entry is handed to `skipped` with why, and left out:
  // one bad file must not cost the rest.
  using SkipCorrupt = std::function<void(const std::filesystem::path& file, const std::string& reason)>;
  std::vector<Entry> select(const nlohmann::json& query, const SkipCorrupt& skipped) const;

  // select()'s entries as a JSON array's text, as the host hands them to
  // plugins. An answer without corrupt entries is kept until the folder's
  // index changes: OPAT's warm start asks the same of every task of an op type.
  std::string select_text(const nlohmann::json& query, const SkipCorrupt& skipped) const;

  // select_text() cut to the `count` entries whose key's "dims" lies
  // nearest dims (sum of |ln(a / b)| over positions), nearest first, then the
  // faster; the index ranks them, so only those files are opened. A query
  // without soc_version takes each SoC folder's nearest in turn.
  std::string nearest_text(const nlohmann::json& query, const std::vector<int64_t>& dims, size_t count,
                           const SkipCorrupt& skipped) const;

  // Moves this kind's entries of the old layout under legacy_root into root,
  // once per bank object; lookup, record and select do it before they look.
  void migrate_old_layout() const;

 private:
  struct State;
  std::vector<std::string> socs_of(const nlohmann::json& query) const;
  // An indexed entry's compact text when its key holds query, else empty; the
  // text read before when the file is as indexed. A corrupt file goes to
  // skipped and sets `corrupt`. With State's mutex held.
  std::string entry_text(const std::string& soc, const BankIndex::Item& item, const nlohmann::json& query,
                         const SkipCorrupt& skipped, bool& corrupt) const;
  std::optional<nlohmann::json> read_entry(const std::filesystem::path& file, const nlohmann::json& key) const;
  void migrate_folder(const std::filesystem::path& old_dir) const;
  // merge(dir, index, list) for each SoC folder's entries, under the bank's
  // lock and the folder's, the folder's index read afresh.
  template <class Item, class Merge>
  void each_folder_locked(const std::map<std::string, std::vector<const Item*>>& by_soc, Merge merge) const;
  std::filesystem::path root_;
  std::filesystem::path legacy_root_;
  std::string kind_;
  std::shared_ptr<State> state_;
};

}  // namespace aoe::host
