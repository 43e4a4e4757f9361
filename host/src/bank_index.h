// The index of one SoC folder of a bank: what each entry file is for (its
// key's fields), how fast its config ran, and the file's size and mtime, so
// a query opens only the files that match rather than every file.
//
// It lives in <soc folder>/.index/: a part per op family (the key's
// "family", part-<family>.tsv; entries without one in part-_.tsv), one line
// per entry, and index.tsv, which names each part with its size and mtime and
// stamps the whole. A query of a family reads that family's part alone, so a
// run's cost does not grow with the bank. The index is kept under the
// folder's lock as the entry files are: record() appends a line to its part
// and rewrites index.tsv; a rebuild or a merge rewrites it whole. A reader
// that finds it missing, unreadable or stale rebuilds it from the entry
// files, re-reading only those that are new or changed since it saw them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe::host {

class BankIndex {
 public:
  struct Item {
    std::string file;  // the entry file's name in the folder
    double after_us = 0;
    int64_t mtime_ns = 0;
    uint64_t size = 0;
    // The key's fields but those the folder or the file name already say
    // (kind, soc_version, hash) and the long signature, each as JSON text.
    std::vector<std::pair<std::string, std::string>> fields;
    // Unreadable when indexed: always opened again by queries, so it is
    // reported each time and found again once repaired.
    bool corrupt = false;
  };
  using Corrupt = std::function<void(const std::filesystem::path& file, const std::string& reason)>;

  explicit BankIndex(std::filesystem::path soc_dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path file() const { return dir_ / ".index" / "index.tsv"; }

  // Brings the view of the parts query needs (every part for an empty
  // query) up to date: no file read when nothing changed since it was last
  // seen, else the index's files, else a rebuild under the folder's lock. A
  // corrupt entry met in a rebuild is handed to `corrupt`.
  void refresh(const Corrupt& corrupt, const nlohmann::json& query = nlohmann::json::object());
  // The same with the folder's lock already held by the caller.
  void refresh_locked(const Corrupt& corrupt, const nlohmann::json& query = nlohmann::json::object());

  // The items whose indexed fields agree with query (fields the index does
  // not hold are left for the caller to check in the entry), and every item
  // that was corrupt when indexed; by file name. refresh() with the same
  // query (or an empty one) first.
  std::vector<const Item*> candidates(const nlohmann::json& query) const;
  // An item by file name, among the parts refreshed.
  const Item* find(const std::string& file) const;
  // The entries of the whole folder, by the index.
  size_t size() const;
  // Changes whenever an item does: what was worked out from the items holds while it stays.
  uint64_t generation() const { return generation_; }

  // Under the folder's lock, with the entry's part refreshed, after the
  // entry file was written: its part gains the line (append), or is
  // rewritten when mostly stale lines, and index.tsv is rewritten.
  void put_locked(const std::string& file, const nlohmann::json& entry);
  // Under the lock, every part refreshed: many entries written, the index rewritten once.
  void put_many_locked(const std::vector<std::pair<std::string, const nlohmann::json*>>& written);

  // Under the lock, every part refreshed: items whose files are in the folder already (linked in).
  void put_items_locked(std::vector<Item> items);
  // The item of a file as it is now: the index's when the file's size and
  // mtime are those indexed, else the file read again. A corrupt file
  // throws aoe::sdk::Error(io) naming it.
  Item verified(const Item& item) const;

  // The fields of a key an index line holds.
  static std::vector<std::pair<std::string, std::string>> indexed_fields(const nlohmann::json& key);

 private:
  struct Stamp {
    int64_t dir_mtime_ns = -1;
    size_t entries = 0;
    int64_t verified_ns = 0;  // when the index was last known to match the folder
  };
  struct FileId {
    uint64_t ino = 0, size = 0;
    int64_t mtime_ns = -1;
    bool operator==(const FileId&) const = default;
  };
  struct Part {
    FileId id;           // the part file as index.tsv names it
    size_t entries = 0;  // its entries, superseded lines not counted
    size_t lines = 0;    // its lines, superseded ones too (when loaded)
    bool loaded = false;
  };

  bool fresh_in_memory();
  bool settled();  // false when a listing shows the folder changed
  bool load_manifest();  // false when missing, unreadable or stale
  bool load_parts(const nlohmann::json& query);  // false when a part is missing or stale
  bool load_part(const std::string& name, Part& part);
  void rebuild_locked(const Corrupt& corrupt);
  void write_whole_locked();     // rewrite every part and index.tsv from items_
  void write_part_locked(const std::string& name);
  void write_part_text_locked(const std::string& name, const std::string& lines);
  void write_manifest_locked();  // rewrite index.tsv from parts_ and stamp_
  void recount_parts();             // parts_ from items_, every item loaded
  void recount_and_write_locked();  // parts_ and stamp_ from items_, then written whole
  Item item_of(const std::string& file, const nlohmann::json& entry) const;
  // changes false: an item read from a part, which changes no answer given before.
  void insert(Item item, bool changes = true);
  void drop_field_maps() { by_field_.clear(); }
  std::filesystem::path part_file(const std::string& name) const;

  std::filesystem::path dir_;
  std::map<std::string, Item> items_;  // of the parts loaded
  std::map<std::string, Part> parts_;
  Stamp stamp_;
  FileId loaded_;  // index.tsv as last read or written
  bool valid_ = false;
  uint64_t generation_ = 0;
  // field -> value -> items, built when a query first filters by the field.
  mutable std::unordered_map<std::string, std::unordered_map<std::string, std::vector<const Item*>>> by_field_;
};

// The entry files of a folder: regular *.json files.
std::vector<std::filesystem::path> bank_entry_files(const std::filesystem::path& dir);
// A file name as the bank gives its entries, <16 hex digits>.s<space_version>.json:
// what tells an entry of the old layout from other JSON under ASCEND_CACHE_PATH.
bool bank_entry_name(const std::string& name);
// An entry file's content; throws aoe::sdk::Error(io) naming the file when it is corrupt.
nlohmann::json read_bank_entry_file(const std::filesystem::path& file);
// Whether a file has the mtime and size an index saw it with.
bool bank_file_as_indexed(const std::filesystem::path& file, int64_t mtime_ns, uint64_t size);
// The modification time of a path in nanoseconds, -1 when it cannot be read.
int64_t bank_mtime_ns(const std::filesystem::path& path);

// Serialises read-compare-write across processes sharing a bank folder.
class BankFolderLock {
 public:
  explicit BankFolderLock(const std::filesystem::path& dir);
  ~BankFolderLock();
  BankFolderLock(const BankFolderLock&) = delete;
  BankFolderLock& operator=(const BankFolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace aoe::host
