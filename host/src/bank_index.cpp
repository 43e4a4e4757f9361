#include "bank_index.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "aoe/sdk/error.h"
#include "atomic_file.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

constexpr std::string_view kHeader = "aoe-bank-index 1";
// Longer than the timestamp tick of the filesystems banks live on (a jiffy,
// at most 10 ms, on Linux's local filesystems): a change this long after the
// folder's recorded mtime shows in the mtime (see fresh_in_memory()).
constexpr int64_t kRacyNs = 100'000'000;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool stat_of(const std::filesystem::path& path, struct stat& st) { return ::stat(path.c_str(), &st) == 0; }

int64_t mtime_of(const struct stat& st) { return int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec; }

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

bool to_int(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const std::string s(text);
  out = std::strtoll(s.c_str(), &end, 10);
  return end == s.c_str() + s.size();
}

bool to_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const std::string s(text);
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool plain(const std::string& text) { return text.find_first_of("\t\n\r") == std::string::npos && !text.empty(); }

std::string line_of(const BankIndex::Item& item) {
  char number[64];
  std::string line = item.corrupt ? "X\t" : "E\t";
  line += item.file;
  if (!item.corrupt) {
    std::snprintf(number, sizeof number, "\t%.17g", item.after_us);
    line += number;
  }
  std::snprintf(number, sizeof number, "\t%lld\t%llu", static_cast<long long>(item.mtime_ns),
                static_cast<unsigned long long>(item.size));
  line += number;
  for (const auto& [name, value] : item.fields) line += "\t" + name + "\t" + value;
  return line + "\n";
}

}  // namespace

std::vector<std::filesystem::path> bank_entry_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return files;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.path().extension() == ".json" && f.is_regular_file(ec)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  return files;
}

bool bank_entry_name(const std::string& name) {
  if (name.size() < 16 + 2 + 1 + 5 || name.compare(16, 2, ".s") != 0 || name.compare(name.size() - 5, 5, ".json") != 0)
    return false;
  return std::all_of(name.begin(), name.begin() + 16, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

nlohmann::json read_bank_entry_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(StatusCode::io, "cannot read bank entry " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  json content;
  try {
    content = json::parse(text.str());
  } catch (const json::exception& e) {
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": " + e.what());
  }
  if (!content.is_object() || !content.contains("key") || !content["key"].is_object() || !content.contains("after_us"))
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": no key or after_us");
  return content;
}

int64_t bank_mtime_ns(const std::filesystem::path& path) {
  struct stat st;
  return stat_of(path, st) ? mtime_of(st) : -1;
}

BankFolderLock::BankFolderLock(const std::filesystem::path& dir) {
  const auto path = dir / ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) {
    if (fd_ >= 0) ::close(fd_);
    throw Error(StatusCode::io, "cannot lock the bank at " + dir.string());
  }
}

BankFolderLock::~BankFolderLock() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

BankIndex::BankIndex(std::filesystem::path soc_dir) : dir_(std::move(soc_dir)) {}

std::vector<std::pair<std::string, std::string>> BankIndex::indexed_fields(const json& key) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!key.is_object()) return out;
  for (const auto& [name, value] : key.items()) {
    if (name == "kind" || name == "soc_version" || name == "hash" || name == "signature" || !plain(name)) continue;
    out.emplace_back(name, value.dump());
  }
  return out;
}

BankIndex::Item BankIndex::item_of(const std::string& file, const json& entry) const {
  Item item;
  item.file = file;
  const auto& after = entry.at("after_us");
  item.after_us = after.is_number() ? after.get<double>() : 0;
  item.fields = indexed_fields(entry.at("key"));
  struct stat st;
  if (stat_of(dir_ / file, st)) item.mtime_ns = mtime_of(st), item.size = static_cast<uint64_t>(st.st_size);
  return item;
}

void BankIndex::insert(Item item) {
  ++generation_;
  auto it = items_.find(item.file);
  if (it == items_.end()) {
    auto& added = items_.emplace(item.file, std::move(item)).first->second;
    // Keep the field maps already built: a new entry joins its buckets.
    for (auto& [name, values] : by_field_) {
      const auto f = std::find_if(added.fields.begin(), added.fields.end(), [&](const auto& p) { return p.first == name; });
      values[f == added.fields.end() ? std::string() : "=" + f->second].push_back(&added);
    }
    return;
  }
  if (it->second.fields != item.fields || it->second.corrupt != item.corrupt) drop_field_maps();
  it->second = std::move(item);
}

const BankIndex::Item* BankIndex::find(const std::string& file) const {
  const auto it = items_.find(file);
  return it == items_.end() ? nullptr : &it->second;
}

// Fresh: the folder's mtime is the one the index recorded. Adding, removing
// or renaming an entry file (every write of one is a rename) changes the
// folder's mtime, so this catches entries written behind the index's back at
// the cost of one stat(); writing the index itself does not, as it lives in a
// subfolder. A file rewritten in place (by hand: the bank always replaces
// files) keeps the folder's mtime, but a process opens the files a query
// matches and checks the key in them, so that costs at most a stale after_us
// here, never a wrong entry; its new size and mtime make the next rebuild
// read it again. The mtime alone misses a change
// made in the same timestamp tick as the one recorded: a view verified less
// than kRacyNs after that mtime is checked once against the folder's listing
// (names only, no file read) when that time has passed.
bool BankIndex::fresh_in_memory() {
  if (!valid_) return false;
  struct stat st;
  if (!stat_of(dir_, st) || mtime_of(st) != stamp_.dir_mtime_ns) return false;
  struct stat ix;
  if (!stat_of(file(), ix)) return false;
  if (!(FileId{uint64_t(ix.st_ino), uint64_t(ix.st_size), mtime_of(ix)} == loaded_)) return false;
  return settled();
}

bool BankIndex::settled() {
  if (stamp_.verified_ns - stamp_.dir_mtime_ns >= kRacyNs) return true;
  const int64_t now = now_ns();
  if (now - stamp_.dir_mtime_ns < kRacyNs) return true;  // looked at again once the tick is surely over
  std::set<std::string> names;
  for (const auto& f : bank_entry_files(dir_)) names.insert(f.filename().string());
  if (names.size() != items_.size()) return false;
  for (const auto& [name, item] : items_)
    if (!names.count(name)) return false;
  stamp_.verified_ns = now;
  return true;
}

bool BankIndex::load_file() {
  struct stat ix;
  if (!stat_of(file(), ix)) return false;
  const FileId id{uint64_t(ix.st_ino), uint64_t(ix.st_size), mtime_of(ix)};
  std::ifstream in(file(), std::ios::binary);
  if (!in) return false;
  // Lines appended by another process since this one last read the file are
  // read alone; anything else reads it whole.
  const bool tail_only = valid_ && id.ino == loaded_.ino && id.size > loaded_.size;
  if (tail_only) in.seekg(static_cast<std::streamoff>(loaded_.size));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  valid_ = false;
  if (!tail_only && text.compare(0, kHeader.size() + 1, std::string(kHeader) + "\n") != 0) return false;
  if (text.empty() || text.back() != '\n') return false;

  std::vector<Item> read;
  Stamp stamp;
  bool stamped_last = false;
  size_t pos = tail_only ? 0 : kHeader.size() + 1;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    const auto cells = split_tabs(line);
    stamped_last = false;
    if (cells[0] == "S" && cells.size() == 4) {
      int64_t entries = 0;
      if (!to_int(cells[1], stamp.dir_mtime_ns) || !to_int(cells[2], entries) || !to_int(cells[3], stamp.verified_ns))
        return false;
      stamp.entries = static_cast<size_t>(entries);
      stamped_last = true;
    } else if (cells[0] == "E" && cells.size() >= 5 && cells.size() % 2 == 1) {
      Item item;
      item.file = std::string(cells[1]);
      int64_t size = 0;
      if (!to_double(cells[2], item.after_us) || !to_int(cells[3], item.mtime_ns) || !to_int(cells[4], size))
        return false;
      item.size = static_cast<uint64_t>(size);
      for (size_t c = 5; c + 1 < cells.size(); c += 2) item.fields.emplace_back(cells[c], cells[c + 1]);
      read.push_back(std::move(item));
    } else if (cells[0] == "X" && cells.size() == 4) {
      Item item;
      item.file = std::string(cells[1]);
      item.corrupt = true;
      int64_t size = 0;
      if (!to_int(cells[2], item.mtime_ns) || !to_int(cells[3], size)) return false;
      item.size = static_cast<uint64_t>(size);
      read.push_back(std::move(item));
    } else {
      return false;
    }
  }
  // Cut short (a writer died mid-append): unreadable.
  if (!stamped_last) return false;
  if (!tail_only) {
    items_.clear();
    ++generation_;
    drop_field_maps();
    lines_ = 0;
  }
  lines_ += read.size();
  for (auto& item : read) insert(std::move(item));
  // The lines not adding up to the count the stamp gives: unreadable.
  if (stamp.entries != items_.size()) return false;

  struct stat st;
  if (!stat_of(dir_, st) || mtime_of(st) != stamp.dir_mtime_ns) return false;
  stamp_ = stamp;
  if (!settled()) return false;
  loaded_ = id;
  valid_ = true;
  return true;
}

void BankIndex::refresh(const Corrupt& corrupt) {
  if (fresh_in_memory() || load_file()) return;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_, ec)) {
    items_.clear();
    ++generation_;
    drop_field_maps();
    valid_ = false;
    return;
  }
  try {
    BankFolderLock lock(dir_);
    refresh_locked(corrupt);
  } catch (const Error&) {
    // A bank this user may read but not write: index it in memory alone.
    rebuild_locked(corrupt);
  }
}

void BankIndex::refresh_locked(const Corrupt& corrupt) {
  if (fresh_in_memory() || load_file()) return;
  rebuild_locked(corrupt);
  try {
    write_whole_locked();
  } catch (const Error&) {
    // Unwritable: the next reader rebuilds it too; the view here is right.
  }
}

void BankIndex::rebuild_locked(const Corrupt& corrupt) {
  std::error_code ec;
  std::filesystem::create_directories(file().parent_path(), ec);
  // The folder's mtime before listing: a change made while listing leaves
  // the stamp older than the folder, so the next reader looks again.
  struct stat st;
  const int64_t dir_mtime = stat_of(dir_, st) ? mtime_of(st) : -1;
  const int64_t verified = now_ns();
  std::map<std::string, Item> items;
  for (const auto& path : bank_entry_files(dir_)) {
    const std::string name = path.filename().string();
    struct stat fs;
    if (!stat_of(path, fs)) continue;  // removed since listed
    const int64_t mtime = mtime_of(fs);
    const uint64_t size = static_cast<uint64_t>(fs.st_size);
    // An entry the index saw with this size and mtime is not read again.
    if (const auto old = items_.find(name);
        old != items_.end() && !old->second.corrupt && old->second.mtime_ns == mtime && old->second.size == size) {
      items.emplace(name, old->second);
      continue;
    }
    Item item;
    try {
      item = item_of(name, read_bank_entry_file(path));
    } catch (const Error& e) {
      if (corrupt) corrupt(path, e.what());
      item.file = name;
      item.corrupt = true;
    }
    item.mtime_ns = mtime;
    item.size = size;
    items.emplace(name, std::move(item));
  }
  items_ = std::move(items);
  ++generation_;
  drop_field_maps();
  stamp_ = {dir_mtime, items_.size(), verified};
  loaded_ = {};
  lines_ = items_.size();
  valid_ = true;
}

void BankIndex::write_whole_locked() {
  std::string text(kHeader);
  text += "\n";
  for (const auto& [name, item] : items_) text += line_of(item);
  char stamp[96];
  std::snprintf(stamp, sizeof stamp, "S\t%lld\t%zu\t%lld\n", static_cast<long long>(stamp_.dir_mtime_ns),
                items_.size(), static_cast<long long>(stamp_.verified_ns));
  text += stamp;
  std::filesystem::create_directories(file().parent_path());
  write_atomically(file(), text);
  struct stat ix;
  if (stat_of(file(), ix)) loaded_ = {uint64_t(ix.st_ino), uint64_t(ix.st_size), mtime_of(ix)};
  lines_ = items_.size();
}

void BankIndex::append_locked(const std::string& lines) {
  const int fd = ::open(file().c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return write_whole_locked();
  size_t written = 0;
  while (written < lines.size()) {
    const ssize_t n = ::write(fd, lines.data() + written, lines.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  // A short write leaves a line without its stamp: readers rebuild.
  if (written != lines.size()) return write_whole_locked();
  struct stat ix;
  if (stat_of(file(), ix)) loaded_ = {uint64_t(ix.st_ino), uint64_t(ix.st_size), mtime_of(ix)};
}

void BankIndex::put_locked(const std::string& name, const json& entry) {
  Item item = item_of(name, entry);
  const std::string line = line_of(item);
  insert(std::move(item));
  struct stat st;
  stamp_ = {stat_of(dir_, st) ? mtime_of(st) : -1, items_.size(), now_ns()};
  ++lines_;
  // Appending costs a line; once most lines are superseded, rewrite it whole.
  if (lines_ > 2 * items_.size() + 64 || loaded_.mtime_ns < 0) return write_whole_locked();
  char stamp[96];
  std::snprintf(stamp, sizeof stamp, "S\t%lld\t%zu\t%lld\n", static_cast<long long>(stamp_.dir_mtime_ns),
                items_.size(), static_cast<long long>(stamp_.verified_ns));
  append_locked(line + stamp);
}

void BankIndex::put_many_locked(const std::vector<std::pair<std::string, const json*>>& written) {
  for (const auto& [name, entry] : written) insert(item_of(name, *entry));
  struct stat st;
  stamp_ = {stat_of(dir_, st) ? mtime_of(st) : -1, items_.size(), now_ns()};
  write_whole_locked();
}

void BankIndex::put_items_locked(std::vector<Item> items) {
  for (auto& item : items) insert(std::move(item));
  struct stat st;
  stamp_ = {stat_of(dir_, st) ? mtime_of(st) : -1, items_.size(), now_ns()};
  write_whole_locked();
}

BankIndex::Item BankIndex::verified(const Item& item) const {
  const auto path = dir_ / item.file;
  struct stat st;
  if (!item.corrupt && stat_of(path, st) && mtime_of(st) == item.mtime_ns && uint64_t(st.st_size) == item.size)
    return item;
  Item fresh = item_of(item.file, read_bank_entry_file(path));
  return fresh;
}

std::vector<const BankIndex::Item*> BankIndex::candidates(const json& query) const {
  std::vector<std::pair<std::string, std::string>> wanted;
  for (const auto& [name, value] : query.items())
    if (name != "kind" && name != "soc_version" && name != "hash" && name != "signature" && plain(name))
      wanted.emplace_back(name, "=" + value.dump());
  std::vector<const Item*> out;
  if (wanted.empty()) {
    for (const auto& [name, item] : items_) out.push_back(&item);
    return out;
  }
  // The field whose value and unknowns (items without the field, corrupt
  // ones) make the fewest items is walked; the rest are checked per item.
  const std::vector<const Item*>* smallest[2] = {nullptr, nullptr};
  size_t best = SIZE_MAX;
  static const std::vector<const Item*> none;
  for (const auto& [name, value] : wanted) {
    auto built = by_field_.find(name);
    if (built == by_field_.end()) {
      auto& values = by_field_[name];
      for (const auto& [file, item] : items_) {
        const auto f = std::find_if(item.fields.begin(), item.fields.end(), [&](const auto& p) { return p.first == name; });
        values[f == item.fields.end() ? std::string() : "=" + f->second].push_back(&item);
      }
      built = by_field_.find(name);
    }
    const auto hit = built->second.find(value);
    const auto unknown = built->second.find(std::string());
    const auto* a = hit == built->second.end() ? &none : &hit->second;
    const auto* b = unknown == built->second.end() ? &none : &unknown->second;
    if (a->size() + b->size() < best) best = a->size() + b->size(), smallest[0] = a, smallest[1] = b;
  }
  for (const auto* list : smallest)
    for (const Item* item : *list) {
      bool ok = true;
      for (const auto& [name, value] : wanted) {
        const auto f = std::find_if(item->fields.begin(), item->fields.end(), [&](const auto& p) { return p.first == name; });
        // value is "=" and the JSON text
        if (f != item->fields.end() && std::string_view(value).substr(1) != f->second) {
          ok = false;
          break;
        }
      }
      if (ok) out.push_back(item);
    }
  // The buckets are in file order but for items added since they were built.
  const auto by_file = [](const Item* a, const Item* b) { return a->file < b->file; };
  if (!std::is_sorted(out.begin(), out.end(), by_file)) std::sort(out.begin(), out.end(), by_file);
  return out;
}

}  // namespace aoe::host
