#include "bank.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <unordered_map>
#include <mutex>
#include <set>
#include <sstream>

#include "aoe/sdk/error.h"
#include "aoe/sdk/path_component.h"
#include "aoe/sdk/atomic_file.h"
#include "bank_index.h"

namespace aoe::host {
namespace {

using aoe::sdk::BankOutcome;
using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using aoe::sdk::sync_directory;
using aoe::sdk::temporary_beside;
using aoe::sdk::write_all;
using aoe::sdk::write_atomically;
using nlohmann::json;

std::string field(const json& key, const char* name) {
  if (!key.contains(name)) throw Error(StatusCode::invalid_argument, std::string("bank key lacks '") + name + "'");
  const auto& v = key.at(name);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// A key's field that names a folder or a file, checked: a foreign bank's
// keys must not lead outside the bank.
std::string path_field(const json& key, const char* name) {
  std::string value = field(key, name);
  aoe::sdk::check_path_component(value, std::string("bank key ") + name);
  return value;
}

std::string file_name(const json& key) {
  return path_field(key, "hash") + ".s" + path_field(key, "space_version") + ".json";
}

double after_us(const json& entry) {
  const auto& v = entry.at("after_us");
  return v.is_number() ? v.get<double>() : 0;
}

// Whether a key holds every field of query but "kind" (the bank is of one kind).
bool holds_query(const json& query, const json& key) {
  for (const auto& [name, value] : query.items())
    if (name != "kind" && (!key.contains(name) || key[name] != value)) return false;
  return true;
}

// A key's "dims" as the index holds it (JSON text), appended to out; false
// when that is no array of integers.
bool parse_dims(const std::string& text, std::vector<int64_t>& out) {
  const char* p = text.c_str();
  if (*p++ != '[') return false;
  for (size_t i = 0;; ++i) {
    if (*p == ']') return p[1] == 0;
    if (i > 0 && *p++ != ',') return false;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p || errno != 0) return false;
    out.push_back(v);
    p = end;
  }
}

// Corrupt files of the old layout, warned of once per process: each kind's
// bank looks through the same folders.
void warn_corrupt_once(const std::filesystem::path& file, const std::string& reason) {
  static std::mutex mutex;
  static std::set<std::filesystem::path> warned;
  std::lock_guard<std::mutex> guard(mutex);
  if (warned.insert(file).second) spdlog::warn("{}; left where it is", reason);
}

void write_unsynced(const std::filesystem::path& file, const std::string& content) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(StatusCode::io, "cannot write " + file.string());
  const bool ok = write_all(fd, content);
  ::close(fd);
  if (!ok) {
    std::remove(file.c_str());
    throw Error(StatusCode::io, "cannot write " + file.string());
  }
}

// Flushes every file written to the filesystem holding dir (one syncfs for
// a batch, where write_atomically fsyncs each file).
void sync_filesystem(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::syncfs(fd);
  ::close(fd);
}

using Renames = std::vector<std::pair<std::filesystem::path, std::filesystem::path>>;

// The files `stage` writes (each temporary beside the name it takes, listed
// in the renames it fills; it returns whether any holds data not yet on disk)
// renamed into place together once all are flushed: a crash leaves the folder
// as it was or with whole entries, never a torn one. A failure removes them.
template <class Stage>
void stage_then_rename(const std::filesystem::path& dir, Stage stage) {
  Renames renames;
  bool flush = false;
  try {
    flush = stage(renames);
  } catch (...) {
    for (const auto& [tmp, target] : renames) std::remove(tmp.c_str());
    throw;
  }
  if (flush) sync_filesystem(dir);
  for (const auto& [tmp, target] : renames)
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw Error(StatusCode::io, "cannot write " + target.string());
    }
  sync_directory(dir);
}

}  // namespace

struct Bank::State {
  std::mutex mutex;  // the indexes, between the plugins' threads
  std::map<std::string, std::unique_ptr<BankIndex>> indexes;
  struct Answer {
    uint64_t generation = 0;
    std::string text;  // the entries, comma-separated
  };
  std::map<std::pair<std::string, std::string>, Answer> answers;  // (soc, query) -> answer
  // The "dims" of the entries a query matches, read from the index once per
  // generation of it: warm start asks for the nearest of a family task after task.
  struct Dims {
    uint64_t generation = 0;
    std::vector<const BankIndex::Item*> items;
    std::vector<size_t> start;  // items[k]'s dims are dims[start[k] .. start[k + 1])
    std::vector<int64_t> dims;
    std::vector<double> logs;  // ln of each positive dim
    std::vector<const BankIndex::Item*> corrupt;  // unreadable when indexed: reported, never ranked
  };
  std::map<std::pair<std::string, std::string>, Dims> dims_by_query;
  struct Ranked {
    uint64_t generation = 0;
    std::vector<std::pair<double, const BankIndex::Item*>> order;  // by distance, then after_us, then file
  };
  std::map<std::pair<std::string, std::string>, Ranked> ranked;  // (soc, query and dims) -> its entries ranked

  const Dims& dims_of(const std::string& soc, const std::string& asked, const BankIndex& index, const json& query) {
    auto& known = dims_by_query[{soc, asked}];
    if (known.generation == index.generation() && index.generation() != 0) return known;
    known = {index.generation(), {}, {0}, {}, {}, {}};
    for (const auto* item : index.candidates(query)) {
      if (item->corrupt) known.corrupt.push_back(item);
      const auto f = std::find_if(item->fields.begin(), item->fields.end(), [](const auto& p) { return p.first == "dims"; });
      if (item->corrupt || f == item->fields.end()) continue;
      const size_t before = known.dims.size();
      if (!parse_dims(f->second, known.dims)) {
        known.dims.resize(before);
        continue;
      }
      known.items.push_back(item);
      known.start.push_back(known.dims.size());
    }
    known.logs.resize(known.dims.size());
    for (size_t i = 0; i < known.dims.size(); ++i) known.logs[i] = known.dims[i] > 0 ? std::log(double(known.dims[i])) : 0;
    return known;
  }
  struct Text {
    int64_t mtime_ns = 0;
    uint64_t size = 0;
    std::string text;  // the entry file's content, compact
  };
  std::unordered_map<std::string, Text> texts;  // soc/file -> the entry as last read
  std::once_flag migrated;

  BankIndex& index(const std::filesystem::path& dir) {
    auto& slot = indexes[dir.filename().string()];
    if (!slot) slot = std::make_unique<BankIndex>(dir);
    return *slot;
  }
};

Bank::Bank(std::filesystem::path root, std::filesystem::path legacy_root, std::string kind)
    : root_(std::move(root)), legacy_root_(std::move(legacy_root)), kind_(std::move(kind)),
      state_(std::make_shared<State>()) {
  if (kind_.empty()) {
    const auto name = root_.filename().string();
    if (std::find(kinds().begin(), kinds().end(), name) != kinds().end()) kind_ = name;
  }
}

const std::vector<std::string>& Bank::kinds() {
  static const std::vector<std::string> names = {"op", "graph", "gradient"};
  return names;
}

bool Bank::is_layout_folder(const std::string& name) {
  return name == "aoe_data" || std::find(kinds().begin(), kinds().end(), name) != kinds().end();
}

std::filesystem::path Bank::default_kinds_root(const std::string& tune_bank_path, const std::string& cache_path,
                                               const std::string& home) {
  if (!tune_bank_path.empty()) return tune_bank_path;
  if (!cache_path.empty()) return std::filesystem::path(cache_path) / "aoe_data";
  return std::filesystem::path(home) / "Ascend/latest/data/aoe/custom";
}

std::filesystem::path Bank::default_root(const std::string& kind, const std::string& tune_bank_path,
                                         const std::string& cache_path, const std::string& home) {
  return default_kinds_root(tune_bank_path, cache_path, home) / kind;
}

Bank Bank::configured(const std::string& kind, const std::string& tune_bank_path, const std::string& cache_path,
                      const std::string& home) {
  // The old layout put every kind in <TUNE_BANK_PATH or ASCEND_CACHE_PATH>/<soc>;
  // its $HOME default was already a folder per kind.
  const std::string legacy = !tune_bank_path.empty() ? tune_bank_path : cache_path;
  return Bank(default_root(kind, tune_bank_path, cache_path, home), legacy, kind);
}

std::filesystem::path Bank::entry_path(const json& key) const {
  return root_ / path_field(key, "soc_version") / file_name(key);
}

std::optional<json> Bank::read_entry(const std::filesystem::path& file, const json& key) const {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  json entry;
  try {
    entry = json::parse(text.str());
  } catch (const json::exception& e) {
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": " + e.what() +
                                    " (move it aside to tune that op again)");
  }
  if (!entry.is_object() || !entry.contains("key") || !entry.contains("after_us"))
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": no key or after_us");
  // Same hash, other op: treat as absent rather than hand back a wrong config.
  if (entry["key"].value("signature", "") != field(key, "signature")) return std::nullopt;
  return entry;
}

std::optional<json> Bank::lookup(const json& key) const {
  migrate_old_layout();
  return read_entry(entry_path(key), key);
}

std::vector<std::string> Bank::soc_versions() const {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(root_, ec)) return out;
  for (const auto& dir : std::filesystem::directory_iterator(root_, ec))
    if (dir.is_directory(ec)) out.push_back(dir.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Bank::Entry> Bank::entries() const {
  std::vector<Entry> out;
  for (const auto& soc : soc_versions())
    for (const auto& file : bank_entry_files(root_ / soc)) out.push_back({file, read_bank_entry_file(file)});
  return out;
}

std::vector<std::string> Bank::socs_of(const json& query) const {
  return query.contains("soc_version") ? std::vector<std::string>{path_field(query, "soc_version")} : soc_versions();
}

std::vector<Bank::Entry> Bank::select(const json& query, const SkipCorrupt& skipped) const {
  migrate_old_layout();
  std::vector<Entry> out;
  for (const auto& soc : socs_of(query)) {
    const auto dir = root_ / soc;
    std::vector<std::string> files;
    {
      std::lock_guard<std::mutex> guard(state_->mutex);
      auto& index = state_->index(dir);
      index.refresh(nullptr, query);  // corrupt entries are candidates, reported below
      for (const auto* item : index.candidates(query)) files.push_back(item->file);
    }
    for (const auto& name : files) {
      const auto file = dir / name;
      json content;
      try {
        content = read_bank_entry_file(file);
      } catch (const Error& e) {
        std::error_code ec;
        if (std::filesystem::exists(file, ec)) skipped(file, e.what());  // else removed since indexed
        continue;
      }
      if (holds_query(query, content["key"])) out.push_back({file, std::move(content)});
    }
  }
  return out;
}

std::string Bank::entry_text(const std::string& soc, const BankIndex::Item& item, const json& query,
                             const SkipCorrupt& skipped, bool& corrupt) const {
  const auto file = root_ / soc / item.file;
  // The index matched every field asked and the file is as indexed: the
  // text read last time is the entry.
  auto& cached = state_->texts[soc + "/" + item.file];
  const bool exact = !item.corrupt && std::all_of(query.items().begin(), query.items().end(), [&](const auto& asked) {
    return asked.key() == "kind" || asked.key() == "soc_version" ||
           std::any_of(item.fields.begin(), item.fields.end(), [&](const auto& f) { return f.first == asked.key(); });
  });
  if (exact && !cached.text.empty() && cached.mtime_ns == item.mtime_ns && cached.size == item.size) return cached.text;
  json content;
  try {
    content = read_bank_entry_file(file);
  } catch (const Error& e) {
    std::error_code ec;
    if (skipped && std::filesystem::exists(file, ec)) skipped(file, e.what()), corrupt = true;  // else removed since indexed
    return {};
  }
  if (!holds_query(query, content["key"])) return {};
  cached = {item.mtime_ns, item.size, content.dump()};
  return cached.text;
}

std::string Bank::select_text(const json& query, const SkipCorrupt& skipped) const {
  migrate_old_layout();
  const std::string asked = query.dump();
  std::string out = "[";
  for (const auto& soc : socs_of(query)) {
    std::lock_guard<std::mutex> guard(state_->mutex);
    auto& index = state_->index(root_ / soc);
    index.refresh(nullptr, query);  // corrupt entries are candidates, reported below
    auto& answer = state_->answers[{soc, asked}];
    if (answer.generation != index.generation() || index.generation() == 0) {
      std::string text;
      bool corrupt = false;
      for (const auto* item : index.candidates(query))
        if (const auto entry = entry_text(soc, *item, query, skipped, corrupt); !entry.empty())
          text += (text.empty() ? "" : ",") + entry;
      // With a corrupt entry, asked again: it may be repaired by then.
      answer = {corrupt ? 0 : index.generation(), std::move(text)};
    }
    if (!answer.text.empty()) out += (out.size() > 1 ? "," : "") + answer.text;
  }
  return out + "]";
}

std::string Bank::nearest_text(const json& query, const std::vector<int64_t>& dims, size_t count,
                               const SkipCorrupt& skipped) const {
  migrate_old_layout();
  std::vector<double> logs(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) logs[i] = dims[i] > 0 ? std::log(double(dims[i])) : 0;
  std::lock_guard<std::mutex> guard(state_->mutex);
  const std::string asked = query.dump();
  std::string out = "[";
  bool corrupt = false;
  size_t taken = 0;
  for (const auto& soc : socs_of(query)) {
    auto& index = state_->index(root_ / soc);
    index.refresh(nullptr, query);
    const auto& known = state_->dims_of(soc, asked, index, query);
    for (const auto* item : known.corrupt) {
      try {
        read_bank_entry_file(root_ / soc / item->file);
      } catch (const Error& e) {
        if (skipped) skipped(root_ / soc / item->file, e.what());
      }
    }
    // Ranked once per dims and index generation: warm start asks again for
    // more when too few of the nearest give seeds.
    auto& ranked = state_->ranked[{soc, asked + json(dims).dump()}];
    if (ranked.generation != index.generation() || index.generation() == 0) {
      ranked = {index.generation(), {}};
      for (size_t k = 0; k < known.items.size(); ++k) {
        if (known.start[k + 1] - known.start[k] != dims.size()) continue;
        double sum = 0;
        bool alike = true;
        for (size_t i = 0, at = known.start[k]; i < dims.size() && alike; ++i, ++at) {
          if (known.dims[at] == dims[i]) continue;
          if (known.dims[at] <= 0 || dims[i] <= 0) alike = false;
          sum += std::abs(known.logs[at] - logs[i]);
        }
        if (alike) ranked.order.emplace_back(sum, known.items[k]);
      }
      // Nearest first, then the faster, then by file name.
      std::sort(ranked.order.begin(), ranked.order.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        if (a.second->after_us != b.second->after_us) return a.second->after_us < b.second->after_us;
        return a.second->file < b.second->file;
      });
    }
    // One SoC when the query names it, as warm start's does; else each SoC's nearest in turn.
    for (size_t i = 0; i < ranked.order.size() && taken < count; ++i, ++taken)
      if (const auto entry = entry_text(soc, *ranked.order[i].second, query, skipped, corrupt); !entry.empty())
        out += (out.size() > 1 ? "," : "") + entry;
  }
  return out + "]";
}

BankOutcome Bank::record(const json& entry) const {
  if (!entry.contains("key") || !entry.contains("after_us"))
    throw Error(StatusCode::invalid_argument, "bank entry lacks 'key' or 'after_us'");
  migrate_old_layout();
  const auto file = entry_path(entry["key"]);
  std::filesystem::create_directories(file.parent_path());
  std::lock_guard<std::mutex> guard(state_->mutex);
  BankFolderLock lock(file.parent_path());
  auto& index = state_->index(file.parent_path());
  // The part of the entry's family alone: what its line joins.
  const auto& key = entry["key"];
  index.refresh_locked(nullptr, key.contains("family") ? json{{"family", key["family"]}} : json::object());
  const auto existing = read_entry(file, key);
  if (existing && after_us(*existing) <= after_us(entry)) return BankOutcome::kept_existing;
  write_atomically(file, entry.dump(2) + "\n");
  index.put_locked(file.filename().string(), entry);
  return existing ? BankOutcome::updated : BankOutcome::added;
}

template <class Item, class Merge>
void Bank::each_folder_locked(const std::map<std::string, std::vector<const Item*>>& by_soc, Merge merge) const {
  std::lock_guard<std::mutex> guard(state_->mutex);
  for (const auto& [soc, list] : by_soc) {
    const auto dir = root_ / soc;
    std::filesystem::create_directories(dir);
    BankFolderLock lock(dir);
    auto& index = state_->index(dir);
    index.refresh_locked(nullptr);
    merge(dir, index, list);
  }
}

Bank::MergeCounts Bank::record_all(const std::vector<const json*>& entries) const {
  migrate_old_layout();
  MergeCounts counts;
  std::map<std::string, std::vector<const json*>> by_soc;
  for (const auto* entry : entries) {
    if (!entry->contains("key") || !entry->contains("after_us"))
      throw Error(StatusCode::invalid_argument, "bank entry lacks 'key' or 'after_us'");
    by_soc[path_field(entry->at("key"), "soc_version")].push_back(entry);
  }
  each_folder_locked(by_soc, [&](const std::filesystem::path& dir, BankIndex& index, const auto& list) {
      // The fastest so far per file: the folder's own entry, then the batch's.
      struct Best {
        const json* entry = nullptr;  // null: the folder's entry stays
        double after_us = 0;
      };
      std::map<std::string, Best> best;
      for (const auto* entry : list) {
        const std::string name = file_name(entry->at("key"));
        auto it = best.find(name);
        if (it == best.end() && index.find(name)) {
          // Read, not taken from the index: the file is the truth, and a
          // corrupt one stops the merge as record() would.
          if (const auto existing = read_entry(dir / name, entry->at("key")))
            it = best.emplace(name, Best{nullptr, after_us(*existing)}).first;
        }
        if (it == best.end()) {
          best.emplace(name, Best{entry, after_us(*entry)});
          ++counts.added;
        } else if (it->second.after_us <= after_us(*entry)) {
          ++counts.kept;
        } else {
          it->second = {entry, after_us(*entry)};
          ++counts.replaced;
        }
      }
      std::vector<std::pair<std::string, const json*>> written;
      stage_then_rename(dir, [&](Renames& renames) {
        for (const auto& [name, b] : best) {
          if (!b.entry) continue;
          const auto tmp = temporary_beside(dir / name);
          renames.emplace_back(tmp, dir / name);
          write_unsynced(tmp, b.entry->dump(2) + "\n");
          written.emplace_back(name, b.entry);
        }
        return true;
      });
      index.put_many_locked(written);
  });
  return counts;
}

std::vector<Bank::Stored> Bank::stored() const {
  std::vector<Stored> out;
  std::lock_guard<std::mutex> guard(state_->mutex);
  for (const auto& soc : soc_versions()) {
    auto& index = state_->index(root_ / soc);
    index.refresh(nullptr);
    for (const auto* listed : index.candidates(json::object())) {
      // One unreadable when indexed throws, naming it, unless repaired since.
      const auto item = listed->corrupt ? index.verified(*listed) : *listed;
      out.push_back({root_ / soc / item.file, soc, item.after_us, item.fields, item.mtime_ns, item.size});
    }
  }
  return out;
}

Bank::MergeCounts Bank::take_all(const std::vector<const Stored*>& entries) const {
  migrate_old_layout();
  MergeCounts counts;
  std::map<std::string, std::vector<const Stored*>> by_soc;
  for (const auto* e : entries) {
    // All checked before anything is written: a crafted entry stops the merge untouched.
    if (!aoe::sdk::safe_path_component(e->soc_version))
      throw Error(StatusCode::invalid_argument, "bank entry " + e->file.string() + ": soc_version '" + e->soc_version +
                                                    "' cannot name a folder: fix or remove the entry");
    by_soc[e->soc_version].push_back(e);
  }
  each_folder_locked(by_soc, [&](const std::filesystem::path& dir, BankIndex& index, const auto& list) {
      struct Best {
        const Stored* from = nullptr;  // null: the folder's entry stays
        double after_us = 0;
        bool checked = false;  // after_us is the file's as it is now
      };
      // A time that decides between two entries is the file's: the index's
      // when the file is as it saw it, else read again (a corrupt one throws).
      const auto checked_after_us = [](const Stored& s) {
        return bank_file_as_indexed(s.file, s.mtime_ns, s.size) ? s.after_us : after_us(read_bank_entry_file(s.file));
      };
      std::map<std::string, Best> best;
      for (const auto* e : list) {
        const std::string name = e->file.filename().string();
        auto it = best.find(name);
        if (it == best.end())
          if (const auto* there = index.find(name))
            // A corrupt entry there throws: it is never overwritten.
            it = best.emplace(name, Best{nullptr, index.verified(*there).after_us, true}).first;
        if (it == best.end()) {
          best.emplace(name, Best{e, e->after_us, false});
          ++counts.added;
          continue;
        }
        if (!it->second.checked) it->second = {it->second.from, checked_after_us(*it->second.from), true};
        const double time = checked_after_us(*e);
        if (it->second.after_us <= time) {
          ++counts.kept;
        } else {
          it->second = {e, time, true};
          ++counts.replaced;
        }
      }
      std::vector<BankIndex::Item> taken;
      stage_then_rename(dir, [&](Renames& renames) {  // copies, then replacements
        bool copied = false;
        for (const auto& [name, b] : best) {
          if (!b.from) continue;
          const auto target = dir / name;
          const bool exists = index.find(name) != nullptr;
          const auto tmp = exists ? temporary_beside(target) : target;  // named only where one is needed
          BankIndex::Item item;
          item.file = name;
          item.after_us = b.from->after_us;
          item.fields = b.from->fields;
          item.mtime_ns = b.from->mtime_ns;
          item.size = b.from->size;
          if (::link(b.from->file.c_str(), (exists ? tmp : target).c_str()) == 0) {
            if (exists) renames.emplace_back(tmp, target);
          } else {
            // Another filesystem, or one without hard links: a copy, flushed before it is renamed.
            const auto copy = exists ? tmp : temporary_beside(target);
            std::ifstream in(b.from->file, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            if (!in) throw Error(StatusCode::io, "cannot read " + b.from->file.string());
            write_unsynced(copy, text.str());
            renames.emplace_back(copy, target);
            copied = true;
            item.mtime_ns = -1;  // stat'ed once renamed
          }
          taken.push_back(std::move(item));
        }
        return copied;
      });
      for (auto& item : taken)
        if (item.mtime_ns < 0) {
          struct stat st;
          if (::stat((dir / item.file).c_str(), &st) == 0)
            item.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec, item.size = uint64_t(st.st_size);
        }
      index.put_items_locked(std::move(taken));
  });
  return counts;
}

void Bank::migrate_old_layout() const {
  if (legacy_root_.empty() || kind_.empty()) return;
  std::call_once(state_->migrated, [&] {
    std::error_code ec;
    if (!std::filesystem::is_directory(legacy_root_, ec)) return;
    std::vector<std::filesystem::path> folders;
    for (const auto& dir : std::filesystem::directory_iterator(legacy_root_, ec))
      if (dir.is_directory(ec) && !is_layout_folder(dir.path().filename().string())) folders.push_back(dir.path());
    std::sort(folders.begin(), folders.end());
    for (const auto& old_dir : folders) {
      try {
        migrate_folder(old_dir);
      } catch (const std::exception& e) {
        spdlog::warn("bank: the {} entries of {} stay there: {}", kind_, old_dir.string(), e.what());
      }
    }
  });
}

// The entry files of a folder of the old layout.
std::vector<std::filesystem::path> old_entry_files(const std::filesystem::path& dir) {
  auto files = bank_entry_files(dir);
  files.erase(std::remove_if(files.begin(), files.end(),
                             [](const auto& f) { return !bank_entry_name(f.filename().string()); }),
              files.end());
  return files;
}

void Bank::migrate_folder(const std::filesystem::path& old_dir) const {
  if (old_entry_files(old_dir).empty()) return;
  // The old folder's lock first, then the new one's, always in this order.
  std::optional<BankFolderLock> old_lock(std::in_place, old_dir);
  struct Found {
    std::filesystem::path file;
    json content;
  };
  std::vector<Found> ours;
  for (const auto& file : old_entry_files(old_dir)) {
    json content;
    try {
      content = read_bank_entry_file(file);
    } catch (const Error& e) {
      warn_corrupt_once(file, e.what());
      continue;
    }
    if (content["key"].value("kind", "op") == kind_) ours.push_back({file, std::move(content)});
  }
  if (ours.empty()) return;
  const auto new_dir = root_ / old_dir.filename();
  std::filesystem::create_directories(new_dir);
  std::lock_guard<std::mutex> guard(state_->mutex);
  BankFolderLock new_lock(new_dir);
  auto& index = state_->index(new_dir);
  index.refresh_locked(nullptr);
  std::vector<std::pair<std::string, const json*>> moved;
  size_t superseded = 0;
  for (const auto& f : ours) {
    const auto target = new_dir / f.file.filename();
    std::error_code ec;
    if (std::filesystem::exists(target, ec)) {
      // Tuned again since: the faster of the two stays.
      json there;
      try {
        there = read_bank_entry_file(target);
      } catch (const Error& e) {
        spdlog::warn("bank: {} stays where it is: {}", f.file.string(), e.what());
        continue;
      }
      if (after_us(there) <= after_us(f.content)) {
        std::filesystem::remove(f.file, ec);
        ++superseded;
        continue;
      }
    }
    std::filesystem::rename(f.file, target, ec);
    if (ec) {
      spdlog::warn("bank: cannot move {} to {}: {}", f.file.string(), target.string(), ec.message());
      continue;
    }
    moved.emplace_back(target.filename().string(), &f.content);
  }
  if (!moved.empty()) index.put_many_locked(moved);
  spdlog::info("bank: moved {} {} entries from {} to {}{}", moved.size(), kind_, old_dir.string(), new_dir.string(),
               superseded ? " (" + std::to_string(superseded) + " more were slower than the entry there, dropped)" : "");
  // Nothing of the old layout left: the folder goes too.
  if (bank_entry_files(old_dir).empty()) {
    std::error_code ec;
    bool only_lock = true;
    for (const auto& f : std::filesystem::directory_iterator(old_dir, ec))
      if (f.path().filename() != ".lock") only_lock = false;
    if (only_lock) {
      old_lock.reset();
      std::filesystem::remove(old_dir / ".lock", ec);
      std::filesystem::remove(old_dir, ec);
    }
  }
}

}  // namespace aoe::host
