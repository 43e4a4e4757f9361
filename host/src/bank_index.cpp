#include "bank_index.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string_view>

#include "aoe/sdk/error.h"
#include "aoe/sdk/atomic_file.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using aoe::sdk::write_all;
using aoe::sdk::write_atomically;
using nlohmann::json;

constexpr std::string_view kHeader = "aoe-bank-index 2";
// The field maps' bucket of items without the field: no JSON text holds a raw control character.
const std::string kMissing = "\x01";
constexpr std::string_view kPartHeader = "aoe-bank-index-part 2";
// The single index file of before parts: its lines are read to spare a rebuild reading every entry.
constexpr std::string_view kOldHeader = "aoe-bank-index 1";
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

// The cells of a line, into `out` (cleared first: one vector serves every line).
void split_tabs(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return;
    start = tab + 1;
  }
}

bool to_int(std::string_view text, int64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool to_double(std::string_view text, double& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
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


bool read_whole(const std::filesystem::path& path, std::string& text) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const auto size = static_cast<std::streamoff>(in.tellg());
  if (size <= 0) return false;
  text.resize(static_cast<size_t>(size));
  in.seekg(0);
  return static_cast<bool>(in.read(text.data(), size));
}

// The entry files in a folder (regular *.json), counted from its listing alone.
size_t bank_entry_count(const std::filesystem::path& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  size_t n = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name.size() < 5 || name.substr(name.size() - 5) != ".json") continue;
    if (e->d_type == DT_REG) {
      ++n;
    } else if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      if (stat_of(dir / e->d_name, st) && S_ISREG(st.st_mode)) ++n;
    }
  }
  ::closedir(d);
  return n;
}

bool part_name_ok(std::string_view name) {
  return name == "_" || (name.size() == 16 && std::all_of(name.begin(), name.end(), [](char c) {
                           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
                         }));
}

// The part of a family as a key holds it (JSON text): its 16 hex digits, "_" for anything else.
std::string part_of_family(std::string_view family_json) {
  if (family_json.size() == 18 && family_json.front() == '"' && family_json.back() == '"' &&
      part_name_ok(family_json.substr(1, 16)))
    return std::string(family_json.substr(1, 16));
  return "_";
}

std::string part_of(const BankIndex::Item& item) {
  for (const auto& [name, value] : item.fields)
    if (name == "family") return part_of_family(value);
  return "_";
}

// The E and X lines of an index file after its header, in order, handed to
// `into` (a later line of a file replaces an earlier one); false when the file is missing,
// of another header or holds a line of another shape (S and P lines are skipped).
bool read_item_lines(const std::filesystem::path& path, std::string_view header,
                     const std::function<void(BankIndex::Item&&)>& into, size_t& lines) {
  std::string text;
  if (!read_whole(path, text) || text.compare(0, header.size() + 1, std::string(header) + "\n") != 0 ||
      text.back() != '\n')
    return false;
  std::vector<std::string_view> cells;
  for (size_t pos = header.size() + 1; pos < text.size();) {
    const size_t end = text.find('\n', pos);
    split_tabs(std::string_view(text.data() + pos, end - pos), cells);
    pos = end + 1;
    BankIndex::Item item;
    int64_t size = 0;
    if (cells[0] == "E" && cells.size() >= 5 && cells.size() % 2 == 1) {
      item.file = std::string(cells[1]);
      if (!to_double(cells[2], item.after_us) || !to_int(cells[3], item.mtime_ns) || !to_int(cells[4], size))
        return false;
      for (size_t c = 5; c + 1 < cells.size(); c += 2) item.fields.emplace_back(cells[c], cells[c + 1]);
    } else if (cells[0] == "X" && cells.size() == 4) {
      item.file = std::string(cells[1]);
      item.corrupt = true;
      if (!to_int(cells[2], item.mtime_ns) || !to_int(cells[3], size)) return false;
    } else if (cells[0] == "S" || cells[0] == "P") {
      continue;
    } else {
      return false;
    }
    item.size = static_cast<uint64_t>(size);
    ++lines;
    into(std::move(item));
  }
  return true;
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

bool bank_file_as_indexed(const std::filesystem::path& file, int64_t mtime_ns, uint64_t size) {
  struct stat st;
  return stat_of(file, st) && mtime_of(st) == mtime_ns && uint64_t(st.st_size) == size;
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

std::filesystem::path BankIndex::part_file(const std::string& name) const {
  return dir_ / ".index" / ("part-" + name + ".tsv");
}

void BankIndex::insert(Item item, bool changes) {
  if (changes) ++generation_;
  auto it = items_.find(item.file);
  if (it == items_.end()) {
    auto& added = items_.emplace(item.file, std::move(item)).first->second;
    // Keep the field maps already built: a new entry joins its buckets.
    for (auto& [name, values] : by_field_) {
      const auto f = std::find_if(added.fields.begin(), added.fields.end(), [&](const auto& p) { return p.first == name; });
      (f == added.fields.end() ? values[kMissing] : values[f->second]).push_back(&added);
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

size_t BankIndex::size() const {
  size_t n = 0;
  for (const auto& [name, part] : parts_) n += part.entries;
  return n;
}

// Fresh: the folder's mtime is the one the index recorded. Adding, removing
// or renaming an entry file (every write of one is a rename) changes the
// folder's mtime, so this catches entries written behind the index's back at
// the cost of one stat(); writing the index itself does not, as it lives in a
// subfolder. A file rewritten in place (by hand: the bank always replaces
// files) keeps the folder's mtime, but a process opens the files a query
// matches and checks the key in them, so that costs at most a stale after_us
// here, never a wrong entry; its new size and mtime make the next rebuild
// read it again. The mtime alone misses a change made in the same timestamp
// tick as the one recorded: a view verified less than kRacyNs after that
// mtime is checked once against the folder's count of entries (names only,
// no file read) when that time has passed.
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
  if (bank_entry_count(dir_) != size()) return false;
  stamp_.verified_ns = now;
  return true;
}

bool BankIndex::load_manifest() {
  valid_ = false;
  struct stat ix;
  if (!stat_of(file(), ix)) return false;
  const FileId id{uint64_t(ix.st_ino), uint64_t(ix.st_size), mtime_of(ix)};
  std::string text;
  if (!read_whole(file(), text) || text.compare(0, kHeader.size() + 1, std::string(kHeader) + "\n") != 0 ||
      text.back() != '\n')
    return false;
  std::map<std::string, Part> parts;
  Stamp stamp;
  bool stamped_last = false;
  std::vector<std::string_view> cells;
  for (size_t pos = kHeader.size() + 1; pos < text.size();) {
    const size_t end = text.find('\n', pos);
    split_tabs(std::string_view(text.data() + pos, end - pos), cells);
    pos = end + 1;
    stamped_last = false;
    int64_t n[4];
    if (cells[0] == "P" && cells.size() == 6 && part_name_ok(cells[1]) && to_int(cells[2], n[0]) &&
        to_int(cells[3], n[1]) && to_int(cells[4], n[2]) && to_int(cells[5], n[3])) {
      Part& part = parts[std::string(cells[1])];
      part.entries = static_cast<size_t>(n[0]);
      part.id = {uint64_t(n[1]), uint64_t(n[2]), n[3]};
    } else if (cells[0] == "S" && cells.size() == 4 && to_int(cells[1], n[0]) && to_int(cells[2], n[1]) &&
               to_int(cells[3], n[2])) {
      stamp = {n[0], static_cast<size_t>(n[1]), n[2]};
      stamped_last = true;
    } else {
      return false;
    }
  }
  // Cut short (a writer died mid-write: index.tsv is replaced whole, so only by hand): unreadable.
  if (!stamped_last) return false;
  size_t entries = 0;
  for (const auto& [name, part] : parts) entries += part.entries;
  if (entries != stamp.entries) return false;
  struct stat st;
  if (!stat_of(dir_, st) || mtime_of(st) != stamp.dir_mtime_ns) return false;
  items_.clear();
  ++generation_;
  drop_field_maps();
  parts_ = std::move(parts);
  stamp_ = stamp;
  if (!settled()) return false;
  loaded_ = id;
  valid_ = true;
  return true;
}

bool BankIndex::load_parts(const json& query) {
  std::vector<std::string> wanted;
  const auto family = query.is_object() ? query.find("family") : query.end();
  if (family != query.end()) {
    wanted = {part_of_family(family->dump()), "_"};
  } else {
    for (const auto& [name, part] : parts_) wanted.push_back(name);
  }
  for (const auto& name : wanted) {
    const auto it = parts_.find(name);
    if (it == parts_.end() || it->second.loaded) continue;  // none of its entries, or read already
    if (!load_part(name, it->second)) return false;
  }
  return true;
}

bool BankIndex::load_part(const std::string& name, Part& part) {
  const auto path = part_file(name);
  struct stat st;
  if (!stat_of(path, st) || !(FileId{uint64_t(st.st_ino), uint64_t(st.st_size), mtime_of(st)} == part.id)) return false;
  // Straight into the view: parts hold other files, so its growth is the part's count.
  const size_t before = items_.size();
  size_t lines = 0;
  if (!read_item_lines(path, kPartHeader, [&](Item&& item) { insert(std::move(item), /*changes=*/false); }, lines) ||
      items_.size() - before != part.entries)
    return false;
  part.lines = lines;
  part.loaded = true;
  return true;
}

void BankIndex::refresh(const Corrupt& corrupt, const json& query) {
  if ((fresh_in_memory() || load_manifest()) && load_parts(query)) return;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_, ec)) {
    items_.clear();
    parts_.clear();
    ++generation_;
    drop_field_maps();
    valid_ = false;
    return;
  }
  try {
    BankFolderLock lock(dir_);
    refresh_locked(corrupt, query);
  } catch (const Error&) {
    // A bank this user may read but not write: index it in memory alone.
    rebuild_locked(corrupt);
  }
}

void BankIndex::refresh_locked(const Corrupt& corrupt, const json& query) {
  if ((fresh_in_memory() || load_manifest()) && load_parts(query)) return;
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
  // What the index's files say, however stale, spares reading the entries
  // they saw with the size and mtime they have now.
  std::map<std::string, Item> seen = std::move(items_);
  for (const auto& f : std::filesystem::directory_iterator(file().parent_path(), ec)) {
    const auto name = f.path().filename().string();
    size_t lines = 0;
    const auto keep = [&](Item&& item) { seen[item.file] = std::move(item); };
    if (name.rfind("part-", 0) == 0) read_item_lines(f.path(), kPartHeader, keep, lines);
    else if (name == "index.tsv") read_item_lines(f.path(), kOldHeader, keep, lines);
  }
  std::map<std::string, Item> items;
  for (const auto& path : bank_entry_files(dir_)) {
    const std::string name = path.filename().string();
    struct stat fs;
    if (!stat_of(path, fs)) continue;  // removed since listed
    const int64_t mtime = mtime_of(fs);
    const uint64_t size = static_cast<uint64_t>(fs.st_size);
    // An entry the index saw with this size and mtime is not read again.
    if (const auto old = seen.find(name);
        old != seen.end() && !old->second.corrupt && old->second.mtime_ns == mtime && old->second.size == size) {
      items.emplace(name, std::move(old->second));
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
  recount_parts();
  ++generation_;
  drop_field_maps();
  stamp_ = {dir_mtime, items_.size(), verified};
  loaded_ = {};
  valid_ = true;
}

void BankIndex::write_part_locked(const std::string& name) {
  std::string text;
  for (const auto& [file, item] : items_)
    if (part_of(item) == name) text += line_of(item);
  write_part_text_locked(name, text);
}

void BankIndex::write_part_text_locked(const std::string& name, const std::string& lines) {
  Part& part = parts_[name];
  const auto path = part_file(name);
  // Unflushed: index.tsv, written after it, names its size and mtime, so a
  // part a crash left short is seen stale and rebuilt.
  write_atomically(path, std::string(kPartHeader) + "\n" + lines, /*flush=*/false);
  struct stat st;
  if (stat_of(path, st)) part.id = {uint64_t(st.st_ino), uint64_t(st.st_size), mtime_of(st)};
  part.lines = part.entries;
}

void BankIndex::write_manifest_locked() {
  std::string text(kHeader);
  text += "\n";
  char line[256];
  for (const auto& [name, part] : parts_) {
    if (part.entries == 0) continue;
    std::snprintf(line, sizeof line, "P\t%s\t%zu\t%llu\t%llu\t%lld\n", name.c_str(), part.entries,
                  static_cast<unsigned long long>(part.id.ino), static_cast<unsigned long long>(part.id.size),
                  static_cast<long long>(part.id.mtime_ns));
    text += line;
  }
  std::snprintf(line, sizeof line, "S\t%lld\t%zu\t%lld\n", static_cast<long long>(stamp_.dir_mtime_ns), size(),
                static_cast<long long>(stamp_.verified_ns));
  text += line;
  write_atomically(file(), text);
  struct stat ix;
  if (stat_of(file(), ix)) loaded_ = {uint64_t(ix.st_ino), uint64_t(ix.st_size), mtime_of(ix)};
}

void BankIndex::write_whole_locked() {
  std::filesystem::create_directories(file().parent_path());
  std::map<std::string, std::string> texts;
  for (const auto& [file, item] : items_) texts[part_of(item)] += line_of(item);
  for (const auto& [name, text] : texts) write_part_text_locked(name, text);
  // Parts of families no longer in the folder.
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(file().parent_path(), ec)) {
    const auto name = f.path().filename().string();
    if (name.rfind("part-", 0) != 0 || name.size() < 9) continue;
    const auto part = parts_.find(name.substr(5, name.size() - 9));
    if (part == parts_.end() || part->second.entries == 0) std::filesystem::remove(f.path(), ec);
  }
  write_manifest_locked();
}

void BankIndex::put_locked(const std::string& name, const json& entry) {
  Item item = item_of(name, entry);
  const std::string part_name = part_of(item);
  const std::string line = line_of(item);
  const bool added = items_.find(name) == items_.end();
  insert(std::move(item));
  Part& part = parts_[part_name];
  part.entries += added ? 1 : 0;
  ++part.lines;
  struct stat st;
  stamp_ = {stat_of(dir_, st) ? mtime_of(st) : -1, size(), now_ns()};
  // Appending costs a line; once most lines are superseded, rewrite it whole.
  const auto path = part_file(part_name);
  bool appended = false;
  if (part.id.mtime_ns >= 0 && part.lines <= 2 * part.entries + 64) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
      appended = write_all(fd, line);
      struct stat ps;
      if (appended && ::fstat(fd, &ps) == 0) part.id = {uint64_t(ps.st_ino), uint64_t(ps.st_size), mtime_of(ps)};
      else appended = false;
      ::close(fd);
    }
  }
  // A short write leaves the part unlike index.tsv's record of it: readers rebuild.
  if (!appended) write_part_locked(part_name);
  write_manifest_locked();
}

void BankIndex::put_many_locked(const std::vector<std::pair<std::string, const json*>>& written) {
  for (const auto& [name, entry] : written) insert(item_of(name, *entry));
  recount_and_write_locked();
}

void BankIndex::put_items_locked(std::vector<Item> items) {
  for (auto& item : items) insert(std::move(item));
  recount_and_write_locked();
}

void BankIndex::recount_parts() {
  parts_.clear();
  for (const auto& [name, item] : items_) {
    Part& part = parts_[part_of(item)];
    ++part.entries;
    ++part.lines;
    part.loaded = true;
  }
}

void BankIndex::recount_and_write_locked() {
  recount_parts();
  struct stat st;
  stamp_ = {stat_of(dir_, st) ? mtime_of(st) : -1, items_.size(), now_ns()};
  write_whole_locked();
}

BankIndex::Item BankIndex::verified(const Item& item) const {
  const auto path = dir_ / item.file;
  if (!item.corrupt && bank_file_as_indexed(path, item.mtime_ns, item.size)) return item;
  Item fresh = item_of(item.file, read_bank_entry_file(path));
  return fresh;
}

std::vector<const BankIndex::Item*> BankIndex::candidates(const json& query) const {
  std::vector<std::pair<std::string, std::string>> wanted;
  for (const auto& [name, value] : query.items())
    if (name != "kind" && name != "soc_version" && name != "hash" && name != "signature" && plain(name))
      wanted.emplace_back(name, value.dump());
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
        (f == item.fields.end() ? values[kMissing] : values[f->second]).push_back(&item);
      }
      built = by_field_.find(name);
    }
    const auto hit = built->second.find(value);
    const auto unknown = built->second.find(kMissing);
    const auto* a = hit == built->second.end() ? &none : &hit->second;
    const auto* b = unknown == built->second.end() ? &none : &unknown->second;
    if (a->size() + b->size() < best) best = a->size() + b->size(), smallest[0] = a, smallest[1] = b;
  }
  for (const auto* list : smallest)
    for (const Item* item : *list) {
      bool ok = true;
      for (const auto& [name, value] : wanted) {
        const auto f = std::find_if(item->fields.begin(), item->fields.end(), [&](const auto& p) { return p.first == name; });
        if (f != item->fields.end() && value != f->second) {
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
