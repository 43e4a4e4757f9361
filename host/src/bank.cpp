#include "bank.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "aoe/sdk/error.h"
#include "atomic_file.h"

namespace aoe::host {
namespace {

using aoe::sdk::BankOutcome;
using aoe::sdk::Error;
using aoe::sdk::StatusCode;

std::string field(const nlohmann::json& key, const char* name) {
  if (!key.contains(name)) throw Error(StatusCode::invalid_argument, std::string("bank key lacks '") + name + "'");
  const auto& v = key.at(name);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Serialises read-compare-write across processes sharing the bank.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::filesystem::path& dir) {
    const auto path = dir / ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
      throw Error(StatusCode::io, "cannot lock the bank at " + dir.string());
  }
  ~DirectoryLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

 private:
  int fd_ = -1;
};

// An entry file's content; throws Error(io) naming the file when it is corrupt.
nlohmann::json read_entry_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  nlohmann::json content;
  try {
    content = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": " + e.what());
  }
  if (!content.is_object() || !content.contains("key") || !content["key"].is_object() || !content.contains("after_us"))
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": no key or after_us");
  return content;
}

}  // namespace

std::filesystem::path Bank::default_root(const std::string& kind, const std::string& tune_bank_path,
                                         const std::string& cache_path, const std::string& home) {
  if (!tune_bank_path.empty()) return tune_bank_path;
  if (!cache_path.empty()) return cache_path;
  return std::filesystem::path(home) / "Ascend/latest/data/aoe/custom" / kind;
}

std::filesystem::path Bank::entry_path(const nlohmann::json& key) const {
  return root_ / field(key, "soc_version") / (field(key, "hash") + ".s" + field(key, "space_version") + ".json");
}

std::optional<nlohmann::json> Bank::read_entry(const std::filesystem::path& file, const nlohmann::json& key) const {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json entry;
  try {
    entry = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": " + e.what() +
                                    " (move it aside to tune that op again)");
  }
  if (!entry.is_object() || !entry.contains("key") || !entry.contains("after_us"))
    throw Error(StatusCode::io, "corrupt bank entry " + file.string() + ": no key or after_us");
  // Same hash, other op: treat as absent rather than hand back a wrong config.
  if (entry["key"].value("signature", "") != field(key, "signature")) return std::nullopt;
  return entry;
}

std::optional<nlohmann::json> Bank::lookup(const nlohmann::json& key) const {
  return read_entry(entry_path(key), key);
}

std::vector<std::string> Bank::soc_versions() const {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(root_)) return out;
  for (const auto& dir : std::filesystem::directory_iterator(root_))
    if (dir.is_directory()) out.push_back(dir.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::filesystem::path> Bank::entry_files(const std::string& soc_version) const {
  std::vector<std::filesystem::path> files;
  const auto dir = root_ / soc_version;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file() && f.path().extension() == ".json") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Bank::Entry> Bank::entries() const {
  std::vector<Entry> out;
  for (const auto& soc : soc_versions())
    for (const auto& file : entry_files(soc)) out.push_back({file, read_entry_file(file)});
  return out;
}

std::vector<Bank::Entry> Bank::select(const nlohmann::json& query, const SkipCorrupt& skipped) const {
  const auto holds_query = [&](const nlohmann::json& key) {
    for (const auto& [field, value] : query.items())
      if (field != "kind" && (!key.contains(field) || key[field] != value)) return false;
    return true;
  };
  const auto socs = query.contains("soc_version") ? std::vector<std::string>{field(query, "soc_version")} : soc_versions();
  std::vector<Entry> out;
  for (const auto& soc : socs)
    for (const auto& file : entry_files(soc)) {
      nlohmann::json content;
      try {
        content = read_entry_file(file);
      } catch (const Error& e) {
        skipped(file, e.what());
        continue;
      }
      if (holds_query(content["key"])) out.push_back({file, std::move(content)});
    }
  return out;
}

BankOutcome Bank::record(const nlohmann::json& entry) const {
  if (!entry.contains("key") || !entry.contains("after_us"))
    throw Error(StatusCode::invalid_argument, "bank entry lacks 'key' or 'after_us'");
  const auto file = entry_path(entry["key"]);
  std::filesystem::create_directories(file.parent_path());
  DirectoryLock lock(file.parent_path());
  const auto existing = read_entry(file, entry["key"]);
  if (existing && existing->at("after_us").get<double>() <= entry.at("after_us").get<double>())
    return BankOutcome::kept_existing;
  write_atomically(file, entry.dump(2) + "\n");
  return existing ? BankOutcome::updated : BankOutcome::added;
}

}  // namespace aoe::host
